"""Every figure of issue 15 with its target beside it (figures only: nothing here asserts).

    python benchmarks/bench_issue15.py [--rounds 5] [--seconds 1.5] [--games 10000] [--base DIR] [--only NAME]

Each throughput is measured in a fresh process per slice, in games per second of the process's CPU
time (timing.throughput), slices of the things compared interleaved, and the median slice counts;
a ratio (interpreted against hand-written) is the median of the rounds' ratios, each of two slices
run one after the other: on a shared machine a noisy neighbour then moves both sides of a ratio
alike. --base DIR names an older checkout of the package (a folder holding
`pitwall/`, e.g. a git worktree linked as DIR/pitwall) to measure "today's" heuristic speeds
against; without it those lines print games/s only. Start-up times are wall times of whole
`pitwall` processes, the best of --rounds, after one run that fills the caches.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLAYERS = {"why_first": 4, "street_illegal": 3, "race_formula_90": 4}
SETTINGS = {"race_formula_90": (("track", "monza"),)}

_SLICE = """
import sys
sys.path.insert(0, {here!r})
from timing import interpreted, throughput
game, agent, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
if agent == "hand-written":
    import importlib
    print(importlib.import_module("handwritten_" + game).games_per_second({players}[game], seconds))
else:
    play = interpreted(game, {players}[game], agent, {settings}.get(game, ()))
    play(10**6)  # compiled and warm before the clock starts
    print(throughput(play, seconds))
"""


def _slice(game: str, agent: str, seconds: float, base: str | None = None) -> float:
    code = _SLICE.format(here=str(HERE), players=PLAYERS, settings=SETTINGS)
    env = dict(os.environ)
    if base:
        env["PYTHONPATH"] = base + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-c", code, game, agent, str(seconds)], env=env, capture_output=True,
                          text=True, check=True)
    return float(done.stdout)


def medians(kinds: list[tuple], rounds: int, seconds: float) -> list[float]:
    """Median games/s of each (game, agent, base) over interleaved slices."""
    got: list[list[float]] = [[] for _ in kinds]
    for r in range(rounds):
        order = range(len(kinds)) if r % 2 == 0 else reversed(range(len(kinds)))
        for i in order:
            got[i].append(_slice(*kinds[i][:2], seconds, kinds[i][2] if len(kinds[i]) > 2 else None))
    return [statistics.median(g) for g in got]


def paired_ratios(kinds: list[tuple], rounds: int, seconds: float) -> tuple[list[float], list[float]]:
    """Median games/s of two things compared, and their ratios slice by slice (the second's games/s
    over the first's), sorted: the two slices of a round run one after the other, so a change of
    the machine's speed between rounds moves both sides of that round's ratio alike."""
    got: list[list[float]] = [[] for _ in kinds]
    for r in range(rounds):
        for i in (0, 1) if r % 2 == 0 else (1, 0):
            got[i].append(_slice(*kinds[i][:2], seconds))
    return [statistics.median(g) for g in got], sorted(b / a for a, b in zip(*got))


def mark(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def random_ratio(args) -> None:
    for game in ("why_first", "street_illegal"):
        (ours, theirs), ratios = paired_ratios([(game, "random"), (game, "hand-written")], args.rounds, args.seconds)
        ratio = statistics.median(ratios)
        # the spread of the rounds beside the median: on a shared machine it is often wider than a
        # change of the code, so a median near the target says little without it
        print(f"random agents, {game} {PLAYERS[game]}p: {ours:7.0f} games/s interpreted, {theirs:7.0f} hand-written: "
              f"{ratio:.2f}x slower (rounds {ratios[0]:.2f} to {ratios[-1]:.2f}; target <= 1.5x, aim 1.2x: "
              f"{mark(ratio <= 1.5)})")


def heuristic(args) -> None:
    for game, factor in (("why_first", 3), ("street_illegal", 2)):
        kinds = [(game, "heuristic"), (game, "random")] + ([(game, "heuristic", args.base)] if args.base else [])
        got = medians(kinds, args.rounds, args.seconds)
        line = (f"heuristic agents, {game} {PLAYERS[game]}p: {got[0]:7.1f} games/s "
                f"({got[1] / got[0]:.1f}x slower than random agents)")
        if args.base:
            gain = got[0] / got[2]
            line += f"; {gain:.2f}x the base's {got[2]:.1f} (target >= {factor}x: {mark(gain >= factor)})"
        print(line)


def race(args) -> None:
    got = medians([("race_formula_90", "random"), ("race_formula_90", "heuristic")], args.rounds, args.seconds)
    for agent, gps, target in (("random", got[0], 50), ("heuristic", got[1], 15)):
        print(f"Race! Basic, Monza, 4 players + 4 robots, {agent} agents: {gps:6.1f} races/s "
              f"(target >= {target}: {mark(gps >= target)})")


def startup(args) -> None:
    rules = str(HERE.parent / "games" / "why_first" / "rules.pw")
    for words, target in ((["--help"], 0.15), (["check", rules], 0.25)):
        command = [sys.executable, "-m", "pitwall", *words]
        # the caches filled, the bytecode written: as a user's Python does by default, even where
        # this shell says PYTHONDONTWRITEBYTECODE (every run would compile the modules again)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        subprocess.run(command, capture_output=True, check=True, env=env)
        best = float("inf")
        for _ in range(max(3, args.rounds)):
            start = time.perf_counter()
            subprocess.run(command, capture_output=True, check=True)
            best = min(best, time.perf_counter() - start)
        shown = "pitwall " + " ".join(w if w != rules else "games/why_first/rules.pw" for w in words)
        print(f"{shown}: {best:.3f} s (target < {target}: {mark(best < target)})")


def jobs(args) -> None:
    """Best of three interleaved runs each: a busy neighbour slows --jobs 2, which needs both
    cores, more than --jobs 1, which leaves one free, so a median would count the neighbour
    against the parallel run; the best run is the nearest to "two free cores" (timeit's reason)."""
    from pitwall.interpreter.engine import player_names
    from pitwall.interpreter.load import load
    from pitwall.interpreter.simulate import simulate

    names = player_names(load("why_first"), 4)
    took: dict[int, list[float]] = {1: [], 2: []}
    results = {}
    for r in range(3):
        for j in ((1, 2) if r % 2 == 0 else (2, 1)):
            start = time.perf_counter()
            results[j] = simulate("why_first", (), names, ["random"] * 4, args.games, 0, j)
            took[j].append(time.perf_counter() - start)
    one, two = min(took[1]), min(took[2])
    print(f"simulate why_first 4p, {args.games} games: --jobs 1 {one:.2f} s, --jobs 2 {two:.2f} s (best of 3; "
          f"slowest {max(took[1]):.2f} s and {max(took[2]):.2f} s): {one / two:.2f}x "
          f"(target >= 1.8x on two free cores: {mark(one / two >= 1.8)}); "
          f"results identical: {results[1] == results[2]}")


PARTS = {"random": random_ratio, "heuristic": heuristic, "race": race, "startup": startup, "jobs": jobs}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5, help="interleaved slices per figure (the median counts)")
    ap.add_argument("--seconds", type=float, default=1.5, help="length of one slice")
    ap.add_argument("--games", type=int, default=10_000, help="games of the --jobs comparison")
    ap.add_argument("--base", help="a folder holding an older `pitwall` package, to compare heuristic speeds")
    ap.add_argument("--only", choices=PARTS, action="append", help="measure only these (repeatable)")
    args = ap.parse_args()
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} (figures are noisy above the core count)")
    for name in args.only or PARTS:
        PARTS[name](args)


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
