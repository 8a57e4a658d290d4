"""Instructions a random-agent game runs, interpreted and hand-written, counted by valgrind.

    python benchmarks/instructions.py [--games 100] [why_first street_illegal]

A count does not move with a busy machine as a time does: a process that plays N games less one
that plays none, each under `valgrind --tool=callgrind`, divided by N (the collector frozen after
loading, so a collection of the load's garbage falls in neither count). Needs valgrind; prints
figures only, asserts nothing. About a minute per game at the default 100 games.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLAYERS = {"why_first": 4, "street_illegal": 3}

_PLAY = """
import gc, sys
sys.path.insert(0, {here!r})
game, players, kind, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
if kind == "hand-written":
    import importlib
    module = importlib.import_module("handwritten_" + game)
    play = lambda seed: module.play(players, seed)
else:
    from timing import interpreted
    play = interpreted(game, players, "random")
gc.collect()
gc.freeze()
for seed in range(n):
    play(seed)
"""


def _count(game: str, kind: str, games: int) -> int:
    code = _PLAY.format(here=str(HERE))
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c",
                           code, game, str(PLAYERS[game]), kind, str(games)],
                          capture_output=True, text=True, check=True, env=dict(os.environ))
    return int(re.search(r"Collected : (\d+)", done.stderr)[1])


def per_game(game: str, kind: str, games: int) -> float:
    return (_count(game, kind, games) - _count(game, kind, 0)) / games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="*", default=list(PLAYERS), help=" and ".join(PLAYERS))
    ap.add_argument("--games", dest="count", type=int, default=100, help="games per count")
    args = ap.parse_args()
    unknown = set(args.games) - PLAYERS.keys()
    if unknown:
        ap.error(f"no hand-written yardstick for {', '.join(sorted(unknown))}")
    if shutil.which("valgrind") is None:
        sys.exit("instructions.py needs valgrind (apt-get install valgrind)")
    for game in args.games:
        ours, theirs = per_game(game, "interpreted", args.count), per_game(game, "hand-written", args.count)
        print(f"random agents, {game} {PLAYERS[game]}p: {ours:,.0f} instructions a game interpreted, "
              f"{theirs:,.0f} hand-written: {ours / theirs:.2f}x (target <= 1.5x)")


if __name__ == "__main__":
    main()
