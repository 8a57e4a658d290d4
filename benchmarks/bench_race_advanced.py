"""Race! Formula 90's Advanced game speed: full races per second on Monza with 4 players and the
Advanced game's 6 robots (2 SUPERFAST, 2 FAST, 2 SLOW), every module on (`-v advanced`).

    python benchmarks/bench_race_advanced.py [--seconds 3] [--track monza] [-v VARIANT ...]

Target (issue 13): >= 10 random races/s on one core. The heuristic figure has no target; it is
printed to watch. Figures only: nothing here asserts (a busy machine must not fail a test).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from pitwall.interpreter.engine import new_game, player_names
from pitwall.interpreter.load import load
from timing import throughput

GAME = "race_formula_90"
PLAYERS = 4
TARGETS = {"random": 10.0, "heuristic": None}


def races(loaded, agent: str):
    names = player_names(loaded, PLAYERS)

    def play_one(seed: int):
        g, _ = new_game(loaded, names, [agent] * PLAYERS, seed, record=False)
        winners = g.run()
        g.close()  # as simulate does
        return winners

    return play_one


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--track", default="monza")
    ap.add_argument("-v", "--variant", action="append", help="the modules (default: advanced, the bundle)")
    args = ap.parse_args()
    variants = tuple(args.variant or ("advanced",))
    start = time.perf_counter()
    loaded = load(GAME, variants, (("track", args.track),))
    print(f"parse+check+compile {GAME} -v {' -v '.join(variants)}: {1000 * (time.perf_counter() - start):.0f} ms")
    g, _ = new_game(loaded, player_names(loaded, PLAYERS), ["random"] * PLAYERS, 0, record=False)
    g.run()
    print(f"{len(g.by_name) - PLAYERS} robots beside the {PLAYERS} players")
    for agent, target in TARGETS.items():
        gps = throughput(races(loaded, agent), args.seconds)
        aim = "no target" if target is None else f"target >= {target:.0f}: {'ok' if gps >= target else 'MISSED'}"
        print(f"{args.track} players={PLAYERS} {agent:9}: {gps:7.1f} races/s serial   ({aim})")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
