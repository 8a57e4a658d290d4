"""Scenarios that assert: `expect` where it stands, events of their own, variants by path, header
errors at their lines, positions checked against the game's invariants, and `require`."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from pitwall.cli import cli
from pitwall.interpreter.errors import PitwallError
from pitwall.interpreter.scenario import ExpectationFailed, load_scenario, run_scenario

BEN = """# Rulebook, "Take heed": Ben on 15 with +3 and -4 ends on 14.
event note(what: text) "Note: {what}"
scenario "Ben ends on 14" {
    game why_first
    players "Anne", "Ben", "Chris"
    setup {
        figures = players
        player("Ben").position = 15
        move first(c for c in deck if c.value == 3) from deck to player("Ben").front
        move first(c for c in deck if c.value == -4) from deck to player("Ben").front
        emit note("Ben is set up")
    }
    expect player("Ben").position == 15 "the setup puts Ben on 15"
    run resolve_round()
    expect player("Ben").position == END "one space back"
}
"""


def write(tmp_path, text: str, name: str = "s.pw"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_an_expectation_that_holds_passes_and_scenario_events_are_told(tmp_path):
    path = write(tmp_path, BEN.replace("END", "14"))
    r = CliRunner().invoke(cli, ["scenario", str(path)])
    assert r.exit_code == 0, r.output
    assert "Note: Ben is set up" in r.output and "moves 1 space back to 14" in r.output


def test_a_failing_expectation_shows_its_line_and_the_values_compared(tmp_path):
    path = write(tmp_path, BEN.replace("END", "13"))
    with pytest.raises(ExpectationFailed) as e:
        run_scenario(load_scenario(path))
    assert e.value.message == ('expected player("Ben").position == 13 (one space back), '
                               'but player("Ben").position is 14')
    assert (e.value.span.line, e.value.span.col) == (15, 5)
    r = CliRunner().invoke(cli, ["scenario", str(path)])
    assert r.exit_code == 2 and f"{path}:15:5: error: expected" in r.output


def test_an_expectation_on_the_setup_fails_before_the_run(tmp_path):
    path = write(tmp_path, BEN.replace("END", "14").replace("position == 15", "position == 16"))
    with pytest.raises(ExpectationFailed) as e:
        run_scenario(load_scenario(path))
    assert e.value.span.line == 13 and "is 15" in e.value.message
    r = CliRunner().invoke(cli, ["check", str(path)])  # check states the position and checks it too
    assert r.exit_code == 2 and "expected player(\"Ben\").position == 16" in r.output


ROUND = """scenario "Card round" {
    game why_first
    players "Anne", "Ben", "Chris"
    setup {
        figures = players
        move first(c for c in deck if c.value == 2) from deck to player("Anne").hand
        move first(c for c in deck if c.value == -1) from deck to player("Ben").hand
        move first(c for c in deck if c.value == -3) from deck to player("Chris").hand
    }
    run card_round(1)
    decide "Anne" card "+2"
    decide "Anne" target "Anne"
    expect player("Anne").position == 0
    expect player("Chris").position == WHEN "Chris has not moved yet"
    decide "Ben" card "-1"
    decide "Ben" target "Chris"
    decide "Chris" card "-3"
    decide "Chris" target "Chris"
    expect player("Chris").position == -4
}
"""


def test_an_expectation_between_decisions_is_checked_before_the_next_one(tmp_path):
    run_scenario(load_scenario(write(tmp_path, ROUND.replace("WHEN", "0"))))
    with pytest.raises(ExpectationFailed) as e:  # checked before Ben's card: Chris has no card yet
        run_scenario(load_scenario(write(tmp_path, ROUND.replace("WHEN", "-4"))))
    assert e.value.span.line == 14 and 'player("Chris").position is 0' in e.value.message


def test_a_stated_position_must_keep_the_games_invariants(tmp_path):
    text = """scenario "Eight cars" {
    game street_illegal
    players "Ann", "Bob", "Cid"
    setup {
        field = players + players + players
    }
    run race(1)
}
"""
    path = write(tmp_path, text)
    r = CliRunner().invoke(cli, ["check", str(path)])
    assert r.exit_code == 2, r.output
    assert "breaks the game's invariant 'field_fits'" in r.output and f"{path}:4:5" in r.output


def test_a_scenario_names_a_variant_by_path_and_header_errors_point_at_their_line(tmp_path):
    write(tmp_path, 'variant short "Short"\nreplace const ROUNDS = 4\n', "short.pw")
    text = BEN.replace("END", "14").replace("    game why_first\n", '    game why_first\n    variants "short.pw"\n')
    path = write(tmp_path, text)
    sc = load_scenario(path)
    assert sc.loaded.consts["ROUNDS"] == 4 and sc.loaded.program.variants[0].name == "short"
    bad = write(tmp_path, text.replace('"short.pw"', "nosuch"), "bad.pw")
    with pytest.raises(PitwallError) as e:
        load_scenario(bad)
    assert "has no variant 'nosuch'" in e.value.message and e.value.span.line == 5


RULES = """game g "G" { players P 1 to 2  play main }
participant P { n: int = 0 }
const HAND = 5
const ROUNDS = 3
require HAND >= ROUNDS "a hand holds a card for every round"
rule main() {
    finish players
}
"""


def test_a_requirement_between_constants_is_checked_when_the_rules_load(tmp_path):
    game = tmp_path / "g"
    (game / "variants").mkdir(parents=True)
    (game / "rules.pw").write_text(RULES, encoding="utf-8")
    (game / "variants" / "tiny.pw").write_text('variant tiny "Tiny"\nreplace const HAND = 2\n', encoding="utf-8")
    ok = CliRunner().invoke(cli, ["play", str(game)])
    assert ok.exit_code == 0, ok.output
    r = CliRunner().invoke(cli, ["play", str(game), "-v", "tiny"])
    assert r.exit_code == 2
    assert "rules.pw:5:1: error: the rules require: a hand holds a card for every round" in r.output
    assert "this line reads HAND, replaced by variant 'tiny'" in r.output
