"""Golden files: every rulebook example as a scenario narration, and whole seeded games as
records that must replay line for line and narrate exactly as stored."""

from __future__ import annotations

import pytest
from goldens import GAMES, game_stem, make_game, scenario_files, scenario_golden
from pitwall.interpreter.record import narration, replay
from pitwall.interpreter.scenario import narrate


def test_there_are_enough_goldens():
    assert len(GAMES) >= 7
    assert len(scenario_files()) >= 8


@pytest.mark.parametrize("path", scenario_files(), ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_scenario_narration(path):
    golden = scenario_golden(path)
    assert golden.exists(), f"no golden for {path}; run: python tests/goldens.py"
    assert "\n".join(narrate(path)) + "\n" == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("spec", GAMES, ids=lambda s: game_stem(*s).name)
def test_recorded_game_replays_and_narrates(spec):
    stem = game_stem(*spec)
    lines = []
    replay(stem.with_suffix(".jsonl"), lines.append)
    assert "\n".join(narration(lines)) + "\n" == stem.with_suffix(".txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("spec", GAMES, ids=lambda s: game_stem(*s).name)
def test_same_seed_gives_byte_identical_record(spec):
    record, _ = make_game(*spec)
    assert record == game_stem(*spec).with_suffix(".jsonl").read_text(encoding="utf-8")
