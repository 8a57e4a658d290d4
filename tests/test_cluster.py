"""Simulation on a Dask cluster (`--cluster`): a LocalCluster of two worker processes plays the
same games as serial play, to the same figures; and the ways it can go wrong say so plainly."""

from __future__ import annotations

import json
import logging
import socket
import sys

import pytest
from clihelp import invoke
from pitwall.interpreter import cluster as cluster_module
from pitwall.interpreter.errors import PitwallError
from pitwall.interpreter.load import load
from pitwall.interpreter.simulate import simulate

EXTRA = "install the cluster extra: pip install 'pitwall[cluster]'"

# A game that fails on some seeds only (a roll of 1 divides by zero): which one fails first is
# decided by the seeds, so serial play and the cluster must name the same one.
DICEY = """game dicey "Dicey" { players P 1 to 2  play main }
participant P { n: int = 0 }
rule main() {
    players[0].n = 10 / (roll(20) - 1)
    finish players
}
"""


# No dashboard; the scheduler's HTTP server (health, metrics), which listens anyway, on a free port
# rather than on 8787, which another cluster may hold. Logs silenced: a failing game is logged, else.
QUIET = {"dashboard_address": None, "scheduler_kwargs": {"dashboard_address": ":0"}, "silence_logs": logging.CRITICAL}


@pytest.fixture(scope="module")
def address():
    distributed = pytest.importorskip("distributed", reason="the cluster extra (dask[distributed]) is not installed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, **QUIET) as local:
        yield local.scheduler_address


@pytest.mark.parametrize("game, players, agent, games", [
    ("why_first", ["Ann", "Bob", "Cy", "Di"], "heuristic", 40),
    ("race_formula_90", ["Ann", "Bob", "Cy"], "heuristic", 4),
    ("street_illegal", ["Ann", "Bob", "Cy"], "random", 24),
])
def test_the_cluster_plays_the_same_games_as_serial(address, game, players, agent, games):
    args = (game, (), players, [agent] * len(players), games, 11)
    serial = simulate(*args, count_events=True)
    spread = simulate(*args, count_events=True, cluster=address)
    assert spread == serial and [o.seed for o in spread] == list(range(11, 11 + games))


def test_simulate_compare_and_sweep_print_the_same_with_cluster(address):
    for command in (["simulate", "why-first", "-p", 3, "-n", 30, "--seed", 4, "--events"],
                    ["compare", "why-first", "--with", "tactical", "-p", 3, "-n", 20, "--seed", 4],
                    ["simulate", "race-formula-90", "-p", 2, "-n", 3, "-a", "heuristic"],
                    ["sweep", "street-illegal", "--vary", "START_CHIPS=2,4", "-p", 3, "-n", 12]):
        for shown in ([], ["--json"]):
            here = invoke(*command, *shown)
            there = invoke(*command, *shown, "--cluster", address)
            assert here.exit_code == 0, here.output
            assert there.exit_code == 0, there.output
            assert there.stdout == here.stdout
            if shown:
                assert json.loads(there.stdout) == json.loads(here.stdout)


def test_a_game_failing_on_a_worker_names_its_seed_as_at_home(address, tmp_path):
    game = tmp_path / "dicey"
    game.mkdir()
    (game / "rules.pw").write_text(DICEY)
    command = ("simulate", game, "-p", 1, "-n", 60, "--seed", 1)
    here, there = invoke(*command), invoke(*command, "--cluster", address)
    assert here.exit_code == 2 and "error: division by zero" in here.output
    assert "it happened in the game of seed" in here.output and "pitwall play " in here.output
    assert there.exit_code == 2 and there.output == here.output
    assert "Traceback" not in there.output


def test_a_worker_with_other_rules_is_refused(address, tmp_path):
    game = tmp_path / "dicey"
    game.mkdir()
    (game / "rules.pw").write_text(DICEY)
    load(str(game), (), ())  # this process keeps the rules it read first (cached); the workers read the new ones
    (game / "rules.pw").write_text(DICEY.replace("roll(20)", "roll(30)"))
    with pytest.raises(PitwallError, match="a worker's rules of .* differ from these"):
        simulate(str(game), (), ["Ann"], ["random"], 4, 1, cluster=address)


def test_a_worker_with_other_pitwall_code_is_refused(address, monkeypatch):
    monkeypatch.setattr(cluster_module, "CODE", "0" * 16)
    r = invoke("simulate", "why-first", "-p", 3, "-n", 5, "--cluster", address)
    assert r.exit_code == 2 and "runs pitwall" in r.output and "not 0.1.0 (code 0000000000000000)" in r.output
    assert "install it (the same version)" in r.output and "Traceback" not in r.output


def test_without_dask_cluster_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails, as when not installed
    r = invoke("simulate", "why-first", "-p", 3, "-n", 5, "--cluster", "tcp://127.0.0.1:8786")
    assert r.exit_code == 2 and EXTRA in r.output and "Traceback" not in r.output
    assert invoke("simulate", "why-first", "-p", 3, "-n", 5, "--jobs", 2).exit_code == 0


def test_an_unreachable_scheduler_is_a_clear_error(monkeypatch):
    pytest.importorskip("distributed", reason="the cluster extra (dask[distributed]) is not installed")
    monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT", 1.0)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = invoke("simulate", "why-first", "-p", 3, "-n", 5, "--cluster", f"tcp://127.0.0.1:{port}")
    assert r.exit_code == 2 and f"cannot reach a Dask scheduler at 'tcp://127.0.0.1:{port}'" in r.output
    assert "hint: start one with `dask scheduler`" in r.output and "Traceback" not in r.output
    bad = invoke("simulate", "why-first", "-p", 3, "-n", 5, "--cluster", "no-port")
    assert bad.exit_code == 2 and "missing port number" in bad.output


def test_a_scheduler_without_workers_says_to_start_some(monkeypatch):
    distributed = pytest.importorskip("distributed", reason="the cluster extra (dask[distributed]) is not installed")
    monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT", 1.0)
    with distributed.LocalCluster(n_workers=0, processes=True, **QUIET) as empty:
        r = invoke("simulate", "why-first", "-p", 3, "-n", 5, "--cluster", empty.scheduler_address)
    assert r.exit_code == 2 and f"the Dask scheduler at {empty.scheduler_address} has no workers" in r.output
    assert f"start some with `dask worker {empty.scheduler_address}`" in r.output


def test_jobs_and_cluster_do_not_go_together():
    r = invoke("simulate", "why-first", "-p", 3, "-n", 5, "--jobs", 2, "--cluster", "tcp://127.0.0.1:8786")
    assert r.exit_code == 2 and "--jobs and --cluster do not go together" in r.output
    assert invoke("simulate", "why-first", "-p", 3, "-n", 5, "--cluster", " ").exit_code == 2
