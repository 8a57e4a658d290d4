"""The shipped scenarios assert their rulebook results with `expect`, and state their positions
with the helpers of each game's positions.pw, which the game's invariants check."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from pitwall.cli import cli
from pitwall.interpreter.scenario import load_scenario

GAMES = Path(__file__).resolve().parent.parent / "games"
SCENARIOS = sorted(GAMES.glob("*/scenarios/*.pw"))


def test_there_are_scenarios_of_every_game():
    assert {p.parent.parent.name for p in SCENARIOS} == {"why_first", "street_illegal", "race_formula_90"}
    assert len(SCENARIOS) >= 28


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_every_shipped_scenario_expects_a_result_after_its_run(path):
    expects = load_scenario(path).decl.expects
    assert any(not e.before_run for e in expects), f"{path}: no `expect` after `run`"


# (scenario, the expectation as written, the same with a wrong value)
BROKEN = [
    ("why_first/scenarios/ben_stops.pw", 'player("Ben").position == 14', 'player("Ben").position == 13'),
    ("why_first/scenarios/tactical.pw", 'player("Anne").position == -1', 'player("Anne").position == -2'),
    ("street_illegal/scenarios/example_4_phase3.pw", 'speed(player("Chris")) == 80', 'speed(player("Chris")) == 90'),
    ("street_illegal/scenarios/chain_of_passes.pw", 'player("Bob").chips == 1', 'player("Bob").chips == 2'),
    ("street_illegal/scenarios/old_pros_win.pw", "team.points == 30", "team.points == 29"),
]


@pytest.mark.parametrize("name, good, bad", BROKEN, ids=[b[0] for b in BROKEN])
def test_a_wrong_expected_value_fails_the_scenario_at_its_line(tmp_path, name, good, bad):
    text = (GAMES / name).read_text(encoding="utf-8")
    lines = text.split("\n")
    at = [i for i, line in enumerate(lines) if line.strip().startswith("expect ") and good in line]
    assert len(at) == 1, f"{name}: expected one `expect` with {good!r}"
    copy = tmp_path / Path(name).name
    copy.write_text(text.replace(good, bad), encoding="utf-8")
    ok = CliRunner().invoke(cli, ["scenario", str(GAMES / name)])
    assert ok.exit_code == 0, ok.output
    r = CliRunner().invoke(cli, ["scenario", str(copy)])
    assert r.exit_code == 2, r.output
    assert f"{copy}:{at[0] + 1}:5: error: expected {bad}" in r.output, r.output


EIGHT_CARS = """scenario "Eight cars on a seven-car field, stated with the helpers" {
    game street_illegal
    players "Alex", "Bob", "Chris"
    setup {
        grid("90 mph / downhill")
        line_up(field + [new Driver("Dana")])
        lay(player("Alex"), "60 (left obstacle)", "10 (middle obstacle)", "50 (downhill)")
        lay(player("Bob"), "40 (uphill)", "30 (left obstacle)", "30 (right obstacle)")
        lay(player("Chris"), "40 (right obstacle)", "30 (downhill)", "30 (uphill)")
        starting_chips()
        at_track(1)
    }
    run passing_phase()
    expect player("Alex").position == 7
}
"""


def test_eight_cars_stated_with_the_helpers_are_refused_by_check(tmp_path):
    path = tmp_path / "eight.pw"
    path.write_text(EIGHT_CARS, encoding="utf-8")
    r = CliRunner().invoke(cli, ["check", str(path)])
    assert r.exit_code == 2, r.output
    assert "breaks the game's invariant 'field_fits'" in r.output, r.output
    assert "the field holds no more cars than the race has places" in r.output, r.output
    seven = path.with_name("seven.pw")
    seven.write_text(EIGHT_CARS.replace('        line_up(field + [new Driver("Dana")])\n', ""), encoding="utf-8")
    ok = CliRunner().invoke(cli, ["check", str(seven)])
    assert ok.exit_code == 0, ok.output


def test_the_helpers_state_the_running_example_as_the_rules_would():
    # example_3_phase2 states Bob's table in one call: three face-up cards, five in hand.
    text = (GAMES / "street_illegal/scenarios/example_3_phase2.pw").read_text(encoding="utf-8")
    setup = text.split("setup {", 1)[1].split("\n    }\n", 1)[0]
    assert re.search(r"^\s*grid\(", setup, re.M) and "move first(" not in setup
