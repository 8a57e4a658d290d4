"""The benchmarks' own machinery: the figures print beside their targets, and the workers that
take turns report, or fail saying why. Nothing here times anything (speed is what running the
benchmarks prints, never a test's assertion)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
_ON_PATH = f"import sys\nsys.path.insert(0, {str(BENCH)!r})\n"  # the benchmarks' folder on the path


def _python(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """code run with the benchmarks' folder on the path, in a process of its own (a hang ends it)."""
    return subprocess.run([sys.executable, "-c", _ON_PATH + code], capture_output=True, text=True, timeout=timeout)


def _server(play: str) -> str:
    """The command line of a worker that serves games played by `play` (an expression of seed)."""
    return repr([sys.executable, "-c", _ON_PATH + f"from timing import serve\nserve(lambda seed: {play})\n"])


def test_workers_take_turns_until_each_has_played_its_seconds():
    done = _python(f"from timing import interleaved, rate\n"
                   f"got = interleaved([({_server('sum(range(seed % 50))')}, None)] * 2, 0.05, 0.01)\n"
                   "print(repr(([len(g) for g in got], [sum(t for _, t in g) >= 0.05 for g in got],"
                   " all(n > 0 for g in got for n, _ in g), all(rate(g) > 0 for g in got))))\n")
    assert done.returncode == 0, done.stderr
    turns, enough, played, rated = eval(done.stdout)  # noqa: S307 - our own probe's printed lists
    assert turns[0] == turns[1] >= 5 and enough == [True, True] and played and rated, done.stdout


def test_a_worker_that_stops_is_reported_with_its_last_words_even_after_a_flood_of_them():
    # Its stderr goes to a file: a pipe nobody read while waiting for its answer would have filled
    # at 64 KiB and hung both processes.
    flood = repr([sys.executable, "-c", "import sys\nsys.stderr.write('x' * 1_000_000 + ' last words')\nsys.exit(3)"])
    done = _python(f"from timing import interleaved\ntry:\n    interleaved([({flood}, None)], 0.05, 0.01)\n"
                   "except RuntimeError as e:\n    print(str(e)[:27], str(e)[-12:])\n", timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["a", "benchmark", "worker", "stopped:", "x", "last", "words"], done.stdout


def _bench(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH / "bench_issue15.py"), *args], capture_output=True, text=True,
                          timeout=timeout)


def test_the_random_agents_ratios_print_beside_their_target():
    done = _bench("--only", "random", "--seconds", "0.05", "--chunk", "0.01")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("random agents")]
    assert [line.split(",")[1].split()[0] for line in lines] == ["why_first", "street_illegal"], done.stdout
    assert all("interpreted" in line and "hand-written" in line and "target <= 1.5x" in line for line in lines)


def test_the_jobs_figure_prints_beside_its_target_with_identical_results():
    done = _bench("--only", "jobs", "--games", "40")
    assert done.returncode == 0, done.stderr
    assert "40 games" in done.stdout and "target >= 1.8x" in done.stdout, done.stdout
    assert "results identical: True" in done.stdout, done.stdout
    assert "the machine's own ceiling in the same rounds" in done.stdout and done.stdout.rstrip().endswith("x")


def test_a_base_without_a_pitwall_package_is_refused(tmp_path):
    done = _bench("--base", str(tmp_path), "--only", "startup")
    assert done.returncode == 2 and "no pitwall package there" in done.stderr, done.stderr
    assert "pitwall --help" not in done.stdout  # refused before measuring anything


@pytest.mark.slow  # four runs under valgrind: about 40 s
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="instructions.py counts with valgrind")
def test_the_counted_jobs_figure_counts_each_worker_from_its_fork():
    # A worker inherits the parent's counters at the fork: counted from there on, the two workers
    # together play what the serial run played (the same games), not that plus two loads of the rules.
    sys.path.insert(0, str(BENCH))
    try:
        import instructions
    finally:
        sys.path.remove(str(BENCH))
    got = instructions.parallel(24)
    assert len(got["workers"]) == 2 and min(got["workers"]) > 0, got
    assert 0.95 < sum(got["workers"]) / got["serial"] < 1.25, got  # a fork and a pool each: a few per cent
    assert 0 < got["parent"] < got["serial"] and 1.0 < got["ratio"] < 2.0, got
