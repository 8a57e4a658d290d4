"""Every figure of issue 15 with its target beside it (figures only: nothing here asserts).

    python benchmarks/bench_issue15.py [--seconds 4] [--chunk 0.02] [--rounds 5] [--games 10000]
                                       [--base DIR] [--only NAME]

Each game figure is measured in processes of its own, one per thing compared (the interpreter
with some agents, the hand-written game, an older checkout), warm before any clock starts, in
games per second of the process's CPU time. The processes take turns of --chunk CPU seconds until
each has played --seconds (timing.interleaved): a neighbour that slows the machine for a while
slows every side of a ratio alike. A ratio is that of the totals; beside it, the lowest and highest
of the ratios of the run's five consecutive parts. --base DIR names an older checkout of the package
(a folder holding `pitwall/`, e.g. a git worktree linked as DIR/pitwall) to measure "today's"
heuristic speeds against (without it those lines print games/s only), and random agents' too: a
change's effect, measured alike (two runs of the same code differ by up to 3%). Start-up times
are wall times of whole `pitwall` processes, the best of --rounds, after one run that fills the
caches.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from timing import block_ratios, interleaved, rate

HERE = Path(__file__).resolve().parent
PLAYERS = {"why_first": 4, "street_illegal": 3, "race_formula_90": 4}
SETTINGS = {"race_formula_90": (("track", "monza"),)}

_WORKER = """
import sys
sys.path.insert(0, {here!r})
from timing import interpreted, serve
game, agent = sys.argv[1], sys.argv[2]
if agent == "hand-written":
    import importlib
    module = importlib.import_module("handwritten_" + game)
    serve(lambda seed: module.play({players}[game], seed))
else:
    serve(interpreted(game, {players}[game], agent, {settings}.get(game, ())))
"""


def _worker(game: str, agent: str, base: str | None = None) -> tuple[list[str], dict]:
    """The command and environment of a process that plays this game with these agents when told."""
    code = _WORKER.format(here=str(HERE), players=PLAYERS, settings=SETTINGS)
    env = dict(os.environ)
    if base:
        env["PYTHONPATH"] = base + os.pathsep + env.get("PYTHONPATH", "")
    return [sys.executable, "-c", code, game, agent], env


def measure(kinds: list[tuple], args) -> list[list[tuple]]:
    """The chunks of each (game, agent[, base]), played in turns (timing.interleaved)."""
    return interleaved([_worker(*kind) for kind in kinds], args.seconds, args.chunk)


def mark(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def random_ratio(args) -> None:
    for game in ("why_first", "street_illegal"):
        kinds = [(game, "random"), (game, "hand-written")] + ([(game, "random", args.base)] if args.base else [])
        ours, theirs, *base = measure(kinds, args)
        slower = rate(theirs) / rate(ours)
        fifths = block_ratios(ours, theirs)
        # the spread of the run's fifths beside the figure: how far the machine moved it
        line = (f"random agents, {game} {PLAYERS[game]}p: {rate(ours):7.0f} games/s interpreted, {rate(theirs):7.0f} "
                f"hand-written: {slower:.2f}x slower (fifths of the run {fifths[0]:.2f} to {fifths[-1]:.2f}; "
                f"target <= 1.5x, aim 1.2x: {mark(slower <= 1.5)})")
        if base:  # a change's own effect, measured as the ratio is
            line += f"; {rate(ours) / rate(base[0]):.3f}x the base's {rate(base[0]):.0f}"
        print(line)


def heuristic(args) -> None:
    for game, factor in (("why_first", 3), ("street_illegal", 2)):
        kinds = [(game, "heuristic"), (game, "random")] + ([(game, "heuristic", args.base)] if args.base else [])
        got = [rate(chunks) for chunks in measure(kinds, args)]
        line = (f"heuristic agents, {game} {PLAYERS[game]}p: {got[0]:7.1f} games/s "
                f"({got[1] / got[0]:.1f}x slower than random agents)")
        if args.base:
            gain = got[0] / got[2]
            line += f"; {gain:.2f}x the base's {got[2]:.1f} (target >= {factor}x: {mark(gain >= factor)})"
        print(line)


def race(args) -> None:
    got = [rate(chunks) for chunks in measure([("race_formula_90", "random"), ("race_formula_90", "heuristic")], args)]
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
    against the parallel run; the best run is the nearest to "two free cores" (timeit's reason).
    Beside it, the CPU time of each run, its workers' included: what the parallel run adds, its
    own work and what a shared second core makes each of its steps cost. And in the same rounds,
    the machine's own ceiling: the hand-written game split over two processes that share nothing,
    against one (no code of ours can split better; on a machine whose second core is shared with
    a neighbour that ratio falls below 2 too). `instructions.py --parallel` counts the parallel run
    instead, which no neighbour moves."""
    from pitwall.interpreter.engine import player_names
    from pitwall.interpreter.load import load
    from pitwall.interpreter.simulate import simulate

    names = player_names(load("why_first"), 4)
    took: dict[int, list[float]] = {1: [], 2: []}
    cpu: dict[int, list[float]] = {1: [], 2: []}
    plain: dict[int, list[float]] = {1: [], 2: []}
    results = {}
    for r in range(3):
        for j in ((1, 2) if r % 2 == 0 else (2, 1)):
            start, used = time.perf_counter(), _cpu()
            results[j] = simulate("why_first", (), names, ["random"] * 4, args.games, 0, j)
            took[j].append(time.perf_counter() - start)
            cpu[j].append(_cpu() - used)
        for j in ((1, 2) if r % 2 == 0 else (2, 1)):
            plain[j].append(_split(args.games, j))
    one, two = min(took[1]), min(took[2])
    print(f"simulate why_first 4p, {args.games} games: --jobs 1 {one:.2f} s, --jobs 2 {two:.2f} s (best of 3; "
          f"slowest {max(took[1]):.2f} s and {max(took[2]):.2f} s): {one / two:.2f}x "
          f"(target >= 1.8x on two free cores: {mark(one / two >= 1.8)}); "
          f"results identical: {results[1] == results[2]}; CPU time, workers included, {min(cpu[1]):.2f} s "
          f"and {min(cpu[2]):.2f} s; the machine's own ceiling in the same rounds, the hand-written game "
          f"in two processes against one: {min(plain[1]) / min(plain[2]):.2f}x")


def _split(games: int, processes: int) -> float:
    """Wall seconds of the hand-written Why First? (4 players) playing `games` seeded games in
    this process, or shared out between `processes` forked ones."""
    import multiprocessing

    import handwritten_why_first

    def play(seeds: range) -> None:
        for seed in seeds:
            handwritten_why_first.play(4, seed)

    start = time.perf_counter()
    if processes == 1:
        play(range(games))
    else:
        fork = multiprocessing.get_context("fork")
        workers = [fork.Process(target=play, args=(range(k, games, processes),)) for k in range(processes)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    return time.perf_counter() - start


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (a pool's workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


PARTS = {"random": random_ratio, "heuristic": heuristic, "race": race, "startup": startup, "jobs": jobs}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5, help="runs of each start-up command (the best counts)")
    ap.add_argument("--seconds", type=float, default=4.0, help="CPU seconds each side of a game figure plays")
    ap.add_argument("--chunk", type=float, default=0.02, help="CPU seconds a side plays in its turn")
    ap.add_argument("--games", type=int, default=10_000, help="games of the --jobs comparison")
    ap.add_argument("--base", help="a folder holding an older `pitwall` package, to compare agents' speeds with")
    ap.add_argument("--only", choices=PARTS, action="append", help="measure only these (repeatable)")
    args = ap.parse_args()
    if args.base and not (Path(args.base) / "pitwall" / "__init__.py").is_file():
        # else the workers would quietly import the installed pitwall and compare it with itself
        ap.error(f"--base {args.base}: no pitwall package there (DIR/pitwall/__init__.py)")
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} (figures are noisy above the core count)")
    for name in args.only or PARTS:
        PARTS[name](args)


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
