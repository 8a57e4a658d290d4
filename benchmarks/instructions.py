"""Instructions a random-agent game runs, interpreted and hand-written, counted by valgrind.

    python benchmarks/instructions.py [--games 100] [--by-function 25] [why_first street_illegal]

A count does not move with a busy machine as a time does: a process that plays N games less one
that plays none, each under `valgrind --tool=callgrind`, divided by N (the collector frozen after
loading, so a collection of the load's garbage falls in neither count). Needs valgrind; prints
figures only, asserts nothing. About a minute per game at the default 100 games.

--by-function N also prints the N functions of CPython (and C libraries) whose instructions a
game grows most, interpreted against hand-written: the eval loop is the bytecodes run; others
name what they cost (generic subscripts, int arithmetic, frames). Needs callgrind_annotate.

--cycles also simulates the caches and the branch predictor (callgrind's simple models, about
twice as slow) and prints an estimate of a game's cycles: instructions + 10 x first-level misses
+ 100 x last-level misses + 15 x mispredicted branches. Timed, the interpreted game runs about a
tenth above its instruction ratio (its extra bytecodes are indirect jumps the predictor misses),
so the estimate is nearer the time; the weights are a rough model, read it for the direction.

--simulate also counts a game as `pitwall simulate` plays it (decisions and events counted, the
leader watched at each turn, the outcome gathered) against the same game played alone.

--parallel N counts `simulate(..., jobs=2)` of N games of Why First?, 4 random seats, against `jobs=1`:
every process apart (valgrind follows a fork; a worker's count starts at the fork), the load
subtracted. Two free cores of one speed would run the parallel part in about half of all the
processes' work together (the workers take runs of seeds as they come free, and the parent loads
outcomes meanwhile), plus at most the last, shortest run of seeds, played by one worker while the
other has nothing left. How the runs fell between the workers under valgrind says nothing of
that: it follows the speed each core had. The serial count over that path is what `--jobs 2` can
give on a machine whose second core is its own, which the timed figure of bench_issue15.py gets
only when the machine leaves it free.
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
elif kind == "simulated":
    from pitwall.interpreter.engine import player_names
    from pitwall.interpreter.load import load
    from pitwall.interpreter.simulate import play_many
    names = player_names(load(game), players)
    play = lambda seed: play_many(game, (), names, ["random"] * players, range(seed, seed + 1))
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


_SIMULATE = """
import sys
from pitwall.interpreter.engine import player_names
from pitwall.interpreter.load import load
from pitwall.interpreter.simulate import simulate
game, players, jobs, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
names = player_names(load(game), players)
if n:
    simulate(game, (), names, ["random"] * players, n, 0, jobs)
"""


def _processes(game: str, jobs: int, games: int) -> tuple[int, list[int]]:
    """Instructions of the parent of `simulate(..., jobs)` and of each worker it forked, the
    workers counted from the fork on (what they inherit is the parent's)."""
    command = [sys.executable, "-c", _SIMULATE, game, str(PLAYERS[game]), str(jobs), str(games)]
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.Popen(["valgrind", "--tool=callgrind", "--zero-before=PyOS_AfterFork_Child",
                                f"--callgrind-out-file={tmp}/out.%p", *command],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _, err = run.communicate()
        if run.returncode:
            raise RuntimeError(err[-2000:])
        counts = {}
        for name in os.listdir(tmp):
            with open(os.path.join(tmp, name)) as f:
                counts[int(name.split(".")[1])] = next(int(line.split()[1]) for line in f
                                                       if line.startswith("summary:"))
    return counts.pop(run.pid), list(counts.values())


def parallel(games: int, jobs: int = 2, game: str = "why_first") -> dict[str, float]:
    """Counted instructions of the serial and the parallel run, the load of the rules left out,
    and the instructions two free cores would take one after the other for the parallel run."""
    from pitwall.interpreter.simulate import chunks

    _warm(game, "interpreted")
    start, _ = _processes(game, 1, 0)
    serial = _processes(game, 1, games)[0] - start
    parent, workers = _processes(game, jobs, games)
    if len(workers) != jobs:  # a fork server's workers (Python 3.14's default) escape valgrind
        raise RuntimeError(f"counted {len(workers)} workers of {jobs}: the pool must fork them from the parent")
    parent -= start
    tail = len(chunks(0, games, jobs)[-1]) * serial / games  # the last run, one worker alone
    path = (parent + sum(workers)) / jobs + tail
    return {"serial": serial, "parent": parent, "workers": workers, "path": path, "ratio": serial / path}


def print_parallel(games: int) -> None:
    got = parallel(games)
    workers = " + ".join(f"{w / 1e6:,.0f}M" for w in got["workers"])
    print(f"simulate why_first 4p, {games} games, counted: --jobs 1 {got['serial'] / 1e6:,.0f}M instructions; "
          f"--jobs 2 workers {workers}, parent {got['parent'] / 1e6:,.0f}M; on two free cores about "
          f"{got['path'] / 1e6:,.0f}M one after the other: {got['ratio']:.2f}x (target >= 1.8x)")


def _count(game: str, kind: str, games: int, out: str = "/dev/null") -> int:
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *_play(game, kind, games)],
                          capture_output=True, text=True, check=True, env=dict(os.environ))
    return int(re.search(r"Collected : (\d+)", done.stderr)[1])


def _simulated(game: str, kind: str, games: int) -> dict[str, int]:
    """Callgrind's totals of each event (Ir, D1mr, Bcm, ...) with the cache and branch simulation on."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        subprocess.run(["valgrind", "--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes",
                        f"--callgrind-out-file={out}", *_play(game, kind, games)],
                       capture_output=True, text=True, check=True, env=dict(os.environ))
        with open(out) as f:
            head = {line.split(":")[0]: line.split()[1:] for line in f if line.startswith(("events:", "summary:"))}
    return dict(zip(head["events"], (int(n) for n in head["summary"])))


def cycles(game: str, kind: str, games: int) -> dict[str, float]:
    """Per game: instructions, cache misses, mispredicted branches and the estimate of cycles."""
    _warm(game, kind)
    none, some = _simulated(game, kind, 0), _simulated(game, kind, games)
    e = {k: (some[k] - none[k]) / games for k in some}
    got = {"instructions": e["Ir"], "L1 misses": e["I1mr"] + e["D1mr"] + e["D1mw"],
           "LL misses": e["ILmr"] + e["DLmr"] + e["DLmw"], "mispredicted": e["Bcm"] + e["Bim"]}
    got["cycles"] = got["instructions"] + 10 * got["L1 misses"] + 100 * got["LL misses"] + 15 * got["mispredicted"]
    return got


def print_cycles(game: str, games: int) -> None:
    ours, theirs = cycles(game, "interpreted", games), cycles(game, "hand-written", games)
    for name in ours:
        print(f"  {name:>13}: {ours[name]:12,.0f} interpreted, {theirs[name]:12,.0f} hand-written: "
              f"{ours[name] / theirs[name]:.2f}x")


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
    ap.add_argument("games", nargs="*", help=" and ".join(PLAYERS) + " (both, unless --parallel is all that is asked)")
    ap.add_argument("--games", dest="count", type=int, default=100, help="games per count")
    ap.add_argument("--by-function", type=int, default=0, metavar="N",
                    help="also the N C functions a game grows most, interpreted against hand-written")
    ap.add_argument("--cycles", action="store_true",
                    help="also cache misses, mispredicted branches and an estimate of cycles (simulated)")
    ap.add_argument("--simulate", action="store_true", help="also a game as `pitwall simulate` plays it")
    ap.add_argument("--parallel", type=int, default=0, metavar="N",
                    help="also simulate --jobs 2 against --jobs 1 over N games of why_first (counted, per process)")
    args = ap.parse_args()
    if not args.games and not args.parallel:
        args.games = list(PLAYERS)
    if args.parallel and args.parallel < 2:
        ap.error("--parallel N: at least 2 games, one for each worker (0 leaves the count out)")
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
        if args.simulate:
            simulated = per_game(game, "simulated", args.count)
            print(f"  as simulate plays it: {simulated:,.0f} instructions a game, {simulated / ours:.2f}x a game "
                  f"played alone")
        if args.by_function:
            print_by_function(game, args.count, args.by_function)
        if args.cycles:
            print_cycles(game, args.count)
    if args.parallel:
        print_parallel(args.parallel)


if __name__ == "__main__":
    main()
