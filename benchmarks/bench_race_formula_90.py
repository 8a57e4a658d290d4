"""Race! Formula 90 speed: full Basic races per second on Monza with 4 players and 4 robots,
random and heuristic agents, serial and with `--jobs 2`.

    python benchmarks/bench_race_formula_90.py [--seconds 3] [--races 200] [--track monza]

Targets (issue 12): >= 20 random races/s on one core; heuristic >= 5. Figures only: nothing here
asserts (a busy machine must not fail a test); each line says ok or MISSED against its target.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from pitwall.interpreter.engine import player_names
from pitwall.interpreter.load import load
from pitwall.interpreter.simulate import simulate
from timing import interpreted, throughput

GAME = "race_formula_90"
PLAYERS = 4
TARGETS = {"random": 20.0, "heuristic": 5.0}


def mark(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def simulate_gps(agent: str, races: int, jobs: int, settings) -> float:
    names = player_names(load(GAME, (), settings), PLAYERS)
    start = time.perf_counter()
    simulate(GAME, (), names, [agent] * PLAYERS, races, 0, jobs, settings=settings)
    return races / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--races", type=int, default=200, help="races per simulate() measurement")
    ap.add_argument("--track", default="monza")
    args = ap.parse_args()
    settings = (("track", args.track),)
    load.cache_clear()
    start = time.perf_counter()
    load(GAME, (), settings)
    print(f"parse+check+compile {GAME}: {1000 * (time.perf_counter() - start):.1f} ms")
    for agent, target in TARGETS.items():
        gps = throughput(interpreted(GAME, PLAYERS, agent, settings), args.seconds)
        print(f"{args.track} players={PLAYERS} {agent:9}: {gps:7.1f} races/s serial   "
              f"(target >= {target:.0f}: {mark(gps >= target)})")
        for jobs in (1, 2):
            gps = simulate_gps(agent, args.races, jobs, settings)
            print(f"{args.track} players={PLAYERS} {agent:9}: {gps:7.1f} races/s simulate --jobs {jobs}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
