"""Instructions a random-agent game runs, interpreted and hand-written, counted by valgrind.

    python benchmarks/instructions.py [--games 100] [--by-function 25] [why_first street_illegal]

A count does not move with a busy machine as a time does: a process that plays N games less one
that plays none, each under `valgrind --tool=callgrind`, divided by N (the collector frozen after
loading, so a collection of the load's garbage falls in neither count). Needs valgrind; prints
figures only, asserts nothing. About a minute per game at the default 100 games.

--by-function N also prints the N functions of CPython (and C libraries) whose instructions a
game grows most, interpreted against hand-written: the eval loop is the bytecodes run; others
name what they cost (generic subscripts, int arithmetic, frames). Needs callgrind_annotate.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
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


def _play(game: str, kind: str, games: int) -> list[str]:
    """The command that plays `games` seeded games of one kind."""
    return [sys.executable, "-c", _PLAY.format(here=str(HERE)), game, str(PLAYERS[game]), kind, str(games)]


def _count(game: str, kind: str, games: int, out: str = "/dev/null") -> int:
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *_play(game, kind, games)],
                          capture_output=True, text=True, check=True, env=dict(os.environ))
    return int(re.search(r"Collected : (\d+)", done.stderr)[1])


def _warm(game: str, kind: str) -> None:
    """Load once outside valgrind: rules compiled since the last run fill the user's cache here,
    not in whichever count comes first (which would then hold a compilation the other lacks)."""
    subprocess.run(_play(game, kind, 0), capture_output=True, check=True)


def per_game(game: str, kind: str, games: int) -> float:
    _warm(game, kind)
    return (_count(game, kind, games) - _count(game, kind, 0)) / games


_LINE = re.compile(r"\s*([\d,]+) \([^)]*\)\s+(?:.*:)?([^:\s]+?)(?:'\d+)?(?: \[.*\])?$")


def _functions(out: str) -> collections.Counter:
    """Instructions by function name in a callgrind file (a recursive eval loop's levels as one)."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", out], capture_output=True, text=True,
                          check=True).stdout
    found: collections.Counter = collections.Counter()
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            found[m[2]] += int(m[1].replace(",", ""))
    return found


def by_function(game: str, games: int) -> dict[str, tuple[float, float]]:
    """Per game, by C function: (interpreted, hand-written) instructions, less those of loading."""
    per: dict[str, collections.Counter] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("interpreted", "hand-written"):
            _warm(game, kind)
            for n in (0, games):
                out = os.path.join(tmp, f"{kind}.{n}")
                _count(game, kind, n, out)
                per[f"{kind}.{n}"] = _functions(out)
    grown = {kind: per[f"{kind}.{games}"] - per[f"{kind}.0"] for kind in ("interpreted", "hand-written")}
    names = set(grown["interpreted"]) | set(grown["hand-written"])
    return {f: (grown["interpreted"][f] / games, grown["hand-written"][f] / games) for f in names}


def print_by_function(game: str, games: int, top: int) -> None:
    rows = sorted(by_function(game, games).items(), key=lambda kv: kv[1][1] - kv[1][0])
    print(f"  {'interpreted':>12} {'hand-written':>12} {'more':>10}  C function (instructions a game)")
    for name, (ours, theirs) in rows[:top]:
        print(f"  {ours:12,.0f} {theirs:12,.0f} {ours - theirs:+10,.0f}  {name}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="*", default=list(PLAYERS), help=" and ".join(PLAYERS))
    ap.add_argument("--games", dest="count", type=int, default=100, help="games per count")
    ap.add_argument("--by-function", type=int, default=0, metavar="N",
                    help="also the N C functions a game grows most, interpreted against hand-written")
    args = ap.parse_args()
    unknown = set(args.games) - PLAYERS.keys()
    if unknown:
        ap.error(f"no hand-written yardstick for {', '.join(sorted(unknown))}")
    if shutil.which("valgrind") is None:
        sys.exit("instructions.py needs valgrind (apt-get install valgrind)")
    if args.by_function and shutil.which("callgrind_annotate") is None:
        sys.exit("--by-function needs callgrind_annotate (it comes with valgrind)")
    for game in args.games:
        ours, theirs = per_game(game, "interpreted", args.count), per_game(game, "hand-written", args.count)
        print(f"random agents, {game} {PLAYERS[game]}p: {ours:,.0f} instructions a game interpreted, "
              f"{theirs:,.0f} hand-written: {ours / theirs:.2f}x (target <= 1.5x)")
        if args.by_function:
            print_by_function(game, args.count, args.by_function)


if __name__ == "__main__":
    main()
