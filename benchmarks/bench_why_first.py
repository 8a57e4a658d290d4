"""Why First? speed: interpreted games per second (random agents), serial and with 2 jobs,
against a hand-written Python implementation of the same game as the yardstick.

    python benchmarks/bench_why_first.py [--seconds 2]

Targets (issue 2): >= 1,000 four-player games/s on one core; interpreter <= 3x the hand-written
code; `pitwall check` on one rules file starts in < 0.5 s. Figures only: nothing here asserts.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from handwritten_why_first import games_per_second as handwritten_gps
from pitwall.interpreter.engine import player_names
from pitwall.interpreter.load import find_game, load
from pitwall.interpreter.simulate import simulate
from timing import interpreted, throughput


def interpreted_gps(players: int, seconds: float) -> float:
    return throughput(interpreted("why_first", players, "random"), seconds)


def parallel_gps(players: int, count: int, jobs: int) -> float:
    names = player_names(load("why_first"), players)
    start = time.perf_counter()
    simulate("why_first", (), names, ["random"] * players, count, 0, jobs)
    return count / (time.perf_counter() - start)


def check_startup() -> float:
    rules = find_game("why_first").path / "rules.pw"
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pitwall", "check", str(rules)], check=True, capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    load.cache_clear()
    start = time.perf_counter()
    load("why_first")
    print(f"parse+check+compile why_first: {1000 * (time.perf_counter() - start):.1f} ms")
    for players in (2, 4, 6):
        ours = interpreted_gps(players, args.seconds)
        theirs = handwritten_gps(players, args.seconds)
        print(f"why_first players={players}: {ours:7.0f} games/s of CPU interpreted, {theirs:7.0f} hand-written, "
              f"ratio {theirs / ours:.2f}x")
    for jobs in (1, 2):
        gps = parallel_gps(4, 4000, jobs)
        print(f"why_first players=4 simulate --jobs {jobs}: {gps:7.0f} games/s of the wall clock")
    print(f"pitwall check rules.pw startup: {check_startup():.3f} s")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
