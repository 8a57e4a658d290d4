"""Where a game's time goes: cProfile over serial seeded games, as `pitwall simulate` plays them.

    python benchmarks/profile_games.py [GAME ...] [--agent random|heuristic] [--count N] [--top 25]

GAME is why_first (4 players), street_illegal (3 players) or race_formula_90 (Monza, 4 players
and 4 robots); all three by default. Prints the top functions by own time (generated code shows
as <pitwall-rules>:LINE with the rules function's Python name).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

GAMES = {
    "why_first": (4, (), 300),
    "street_illegal": (3, (), 200),
    "race_formula_90": (4, (("track", "monza"),), 20),
}


def profile(game: str, agent: str, games: int | None, top: int) -> None:
    from timing import interpreted

    players, settings, default = GAMES[game]
    play_one = interpreted(game, players, agent, settings)
    count = games or (default if agent == "random" else max(1, default // 5))
    prof = cProfile.Profile()
    start = time.perf_counter()
    prof.enable()
    for seed in range(count):
        play_one(seed)
    prof.disable()
    took = time.perf_counter() - start
    print(f"\n=== {game}, {players} players, {agent} agents: {count} games in {took:.2f} s under cProfile ===")
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("games", nargs="*", default=list(GAMES))
    ap.add_argument("--agent", action="append", choices=("random", "heuristic"))
    ap.add_argument("--count", type=int, help="games per profile")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    for game in args.games:
        for agent in args.agent or ("random", "heuristic"):
            profile(game, agent, args.count, args.top)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
