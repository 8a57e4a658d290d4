"""`pitwall sweep` and `-v NAME=VALUE`: a constant or setting of each game swept over a list or a
range, every point on the same seeds (its summary is simulate's with the equivalent --set or -v),
and every mistake in a --vary an error with a hint and exit status 2 before any game.

The golden table: PITWALL_GOLDEN=1 pytest tests/test_sweep.py rewrites it; then read the diff."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest
from clihelp import invoke
from pitwall.interpreter.errors import PitwallError
from pitwall.interpreter.overrides import canonical_override, is_override, parse_value
from pitwall.interpreter.sweep import FIELDS, POINTS_MAX, Axis, configuration, parse_vary, points

GOLDEN = Path(__file__).resolve().parent / "golden" / "sweep"
SUMMARY_KEYS = {"game", "variants", "settings", "games", "seed", "length", "margin", "lead_changes", "participants",
                "events"}


def run_json(*args) -> dict:
    r = invoke(*args, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def sweep(*args) -> dict:
    return run_json("sweep", *args)


# ---------------------------------------------------------------- values: lists and ranges
@pytest.mark.parametrize("text, name, values", [
    ("N=3,4,5", "N", ["3", "4", "5"]),
    ("N = 2..6", "N", ["2", "3", "4", "5", "6"]),
    ("N=-2..1", "N", ["-2", "-1", "0", "1"]),
    ("N=4..4", "N", ["4"]),
    ("FLAG=true,false", "FLAG", ["true", "false"]),
    ("PLACE=highest, second-highest", "PLACE", ["highest", "second-highest"]),
])
def test_values_are_a_comma_list_or_an_inclusive_range(text, name, values):
    assert parse_vary(text) == (name, values)


@pytest.mark.parametrize("text, message", [
    ("N", "is not NAME=VALUES"),
    ("=3", "is not NAME=VALUES"),
    ("N=2..x", "a malformed range"),
    ("N=2...6", "a malformed range"),
    ("N=..6", "a malformed range"),
    ("N=6..2", "the range ends before it starts"),
    ("N=3,,4", "has an empty value"),
    ("N=", "has an empty value"),
    (f"N=1..{POINTS_MAX + 1}", f"the sweep has {POINTS_MAX + 1} points, more than {POINTS_MAX}"),
    ("N=1..99999999999999999999", "a malformed range"),
])
def test_a_malformed_vary_is_an_error(text, message):
    with pytest.raises(PitwallError, match=message.replace(".", r"\.").replace("(", r"\(")):
        parse_vary(text)


def test_points_are_every_combination_the_first_vary_changing_slowest():
    swept = [Axis("A", False, (1, 2)), Axis("B", True, (True, False))]
    assert points(swept) == [{"A": 1, "B": True}, {"A": 1, "B": False}, {"A": 2, "B": True}, {"A": 2, "B": False}]
    # a constant becomes a one-line variant after the user's, a setting a setting after the user's
    assert configuration(swept, {"A": 2, "B": False}, ("v",), (("s", "1"),)) == (("v", "A=2"),
                                                                                  (("s", "1"), ("B", "false")))


@pytest.mark.parametrize("raw, kind, value", [
    ("5", None, 5), ("-3", "int", -3), ("true", None, True), ("FALSE", "bool", False), ("highest", None, "highest"),
    ('"5"', None, "5"), ("5", "text", "5"), ('"a \\ "b"', "text", 'a \\ "b'),
])
def test_a_value_is_read_by_the_kind_of_what_it_replaces(raw, kind, value):
    assert parse_value(raw, kind) == value


def test_an_override_has_one_spelling_per_value():
    assert canonical_override("N", 5) == "N=5"
    assert canonical_override("N", True) == "N=true"
    assert canonical_override("P", 'a"b\\') == 'P="a\\"b\\\\"'
    assert is_override("START_CHIPS=5") and not is_override("rich.pw") and not is_override("x=y.pw")
    assert not is_override("tactical") and not is_override("my variants/a=b")


# ---------------------------------------------------------------- mistakes, before any game
@pytest.mark.parametrize("args, message", [
    (["street-illegal", "--vary", "START_CHIP=2,3"],
     ["Street Illegal has no constant or setting 'START_CHIP'", "did you mean 'START_CHIPS'?"]),
    (["street-illegal", "--vary", "START_CHIPS=2,many"],
     ["--vary START_CHIPS: 'many' is not a whole number", "START_CHIPS is a constant of whole numbers"]),
    (["street-illegal", "--vary", "races=1,yes"], ["--vary races: 'yes' is not a whole number"]),
    (["street-illegal", "--vary", "races=0..2"], ["setting 'races' must be from 1 to 500, not 0"]),
    (["street-illegal", "--vary", "POINTS=1,2"], ["constant 'POINTS' is not a whole number, true/false or a text"]),
    (["street-illegal", "--vary", "START_CHIPS=2,2"], ["--vary START_CHIPS: 2 is given twice"]),
    (["street-illegal", "--vary", "START_CHIPS=1..101"], ["the sweep has 101 points, more than 100"]),
    (["street-illegal", "--vary", "START_CHIPS=1..20", "--vary", "CHIP_MPH=1..6"],
     ["the sweep has 120 points, more than 100"]),
    (["street-illegal", "--vary", "START_CHIPS=6..2"], ["the range ends before it starts", "2..6"]),
    (["street-illegal", "--vary", "START_CHIPS=2..x"], ["a malformed range", "START..END"]),
    (["street-illegal", "--vary", "START_CHIPS=2", "--vary", "START_CHIPS=3"], ["'START_CHIPS' is swept twice"]),
    (["street-illegal", "--vary", "races=1,2", "--set", "races=3"], ["'races' is swept and also given a value"]),
    (["street-illegal", "-v", "START_CHIPS=4", "--vary", "START_CHIPS=1,2"],
     ["'START_CHIPS' is swept and also given a value"]),
    (["why-first", "--vary", "ROUNDS=3,4", "--json", "--csv"], ["--json and --csv"]),
])
def test_a_mistake_in_a_sweep_is_an_error_with_a_hint(args, message):
    r = invoke("sweep", *args, "-n", "2")
    assert r.exit_code == 2, r.output
    for m in message:
        assert m in r.output
    assert "Traceback" not in r.output


@pytest.mark.parametrize("args, message", [
    (["-v", "START_CHIP=5"], ["there is no 'START_CHIP' to replace", "did you mean 'START_CHIPS'?"]),
    (["-v", "START_CHIPS=true"], ["'START_CHIPS' was int; its replacement is bool"]),
    (["-v", "races=3"], ["'races' is a setting: it is changed with --set, not -v", "--set races=3"]),
    (["-v", "START_CHIPS=99999999999999999999"], ["is not a whole number from"]),
])
def test_a_constant_given_with_v_is_checked_like_a_variant(args, message):
    r = invoke("play", "street-illegal", "-p", "3", "--agent", "random", *args)
    assert r.exit_code == 2, r.output
    for m in message:
        assert m in r.output


# ---------------------------------------------------------------- sweeps of each game
def test_a_sweep_over_a_constant_prints_the_sweep_format_with_the_swept_values():
    result = sweep("why-first", "--vary", "ROUNDS=3..4", "-p", "3", "-n", "4")
    assert list(result) == ["vary", "points"]
    assert result["vary"] == ["ROUNDS"]
    assert [p["values"] for p in result["points"]] == [{"ROUNDS": 3}, {"ROUNDS": 4}]
    for point, rounds in zip(result["points"], (3, 4)):
        assert list(point) == ["values", "summary"]
        s = point["summary"]
        assert set(s) == SUMMARY_KEYS
        assert (s["game"], s["variants"], s["settings"], s["games"], s["seed"]) == (
            "why_first", [f"ROUNDS={rounds}"], {}, 4, 1)
        assert [q["name"] for q in s["participants"]] == ["Anne", "Ben", "Chris"]


def test_a_sweep_over_a_text_constant_and_a_setting_together():
    result = sweep("street-illegal", "--vary", "races=1,2", "--vary", "START_CHIPS=2,4", "-p", "3", "-n", "2")
    assert result["vary"] == ["races", "START_CHIPS"]
    assert [p["values"] for p in result["points"]] == [
        {"races": 1, "START_CHIPS": 2}, {"races": 1, "START_CHIPS": 4},
        {"races": 2, "START_CHIPS": 2}, {"races": 2, "START_CHIPS": 4}]
    last = result["points"][-1]["summary"]
    assert (last["variants"], last["settings"]) == (["START_CHIPS=4"], {"races": "2"})
    texts = sweep("why-first", "--vary", "WINNING_PLACE=highest,second-highest", "-p", "3", "-n", "2")
    assert [p["summary"]["variants"] for p in texts["points"]] == [['WINNING_PLACE="highest"'],
                                                                   ['WINNING_PLACE="second-highest"']]


@pytest.mark.parametrize("game, args, equivalent", [
    ("why-first", ["--vary", "FAR_END=12,16"], ["-v", "FAR_END=12"]),
    ("street-illegal", ["--vary", "START_CHIPS=5,2"], ["-v", "START_CHIPS=5"]),
    ("street-illegal", ["-v", "nitrous_oxide", "--vary", "races=2,1"], ["-v", "nitrous_oxide", "--set", "races=2"]),
    ("race-formula-90", ["--vary", "track=monza,hungaroring"], ["--set", "track=monza"]),
    ("race-formula-90", ["--vary", "EXTRA_CARDS=0,1"], ["-v", "EXTRA_CARDS=0"]),
])
def test_each_point_is_simulate_with_the_equivalent_set_or_v_on_the_same_seeds(game, args, equivalent):
    common = ["-p", "2", "-n", "3", "--seed", "5", "--agent", "heuristic"]
    result = sweep(game, *args, *common)
    assert len(result["points"]) == 2
    assert result["points"][0]["summary"] == run_json("simulate", game, *equivalent, *common)


def test_a_point_that_breaks_a_require_is_reported_and_the_others_play():
    r = invoke("sweep", "race-formula-90", "--vary", "HUNGARORING_LAST_TURN=29,30", "-p", "2", "-n", "1", "--json")
    assert r.exit_code == 0, r.output
    broken, played = json.loads(r.stdout)["points"]
    assert list(broken) == ["values", "summary", "error"] and broken["summary"] is None
    assert "the last turn is the Turn Indicator's last box" in broken["error"]
    assert "HUNGARORING_LAST_TURN=29" in broken["error"]  # the variants in force name the value
    assert played["summary"]["games"] == 1
    assert "note: point HUNGARORING_LAST_TURN=29 was not played" in r.stderr


def test_a_sweep_whose_every_point_breaks_the_rules_is_an_error():
    r = invoke("sweep", "race-formula-90", "--vary", "HUNGARORING_LAST_TURN=28,29", "-p", "2", "-n", "1")
    assert r.exit_code == 2
    assert "no point of the sweep could be played" in r.output


def test_csv_has_one_row_per_point_and_participant_with_every_figure():
    r = invoke("sweep", "street-illegal", "--vary", "START_CHIPS=2,3", "-p", "2", "-n", "3", "--csv")
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert list(rows[0]) == ["START_CHIPS", *FIELDS]
    assert [(row["START_CHIPS"], row["participant"]) for row in rows] == [
        ("2", "Alex"), ("2", "Bob"), ("2", "Old Pros"), ("3", "Alex"), ("3", "Bob"), ("3", "Old Pros")]
    assert all(row["games"] == "3" and row["error"] == "" and row["sole_win_rate"] for row in rows)
    assert all(0 <= float(row["sole_win_lo"]) <= float(row["sole_win_rate"]) <= float(row["sole_win_hi"]) <= 1
               for row in rows)


def test_the_table_is_golden_and_carries_its_legend():
    r = invoke("sweep", "why-first", "--vary", "ROUNDS=3,5", "-p", "3", "-n", "20", "--seed", "3")
    assert r.exit_code == 0, r.output
    golden = GOLDEN / "why_first-ROUNDS.txt"
    if os.environ.get("PITWALL_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(r.stdout)
    assert r.stdout == golden.read_text()
    assert "95% interval" in r.stdout


def test_jobs_give_the_same_sweep_as_serial():
    args = ["why-first", "--vary", "ROUNDS=3,5", "-p", "4", "-n", "8"]
    assert sweep(*args) == sweep(*args, "--jobs", "2")


def test_a_sweep_draws_its_chart(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib (pip install 'pitwall[plot]') is not installed")
    import xml.etree.ElementTree as ET

    r = invoke("sweep", "why-first", "--vary", "ROUNDS=3..5", "-p", "2", "-n", "3", "--plot", tmp_path / "w.svg")
    assert r.exit_code == 0, r.output
    root = ET.parse(tmp_path / "w.svg").getroot()
    shown = {"".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert {"3", "4", "5", "ROUNDS", "Anne", "Ben"} <= shown


def test_a_saved_sweep_makes_a_report(tmp_path):
    r = invoke("sweep", "street-illegal", "--vary", "START_CHIPS=2,3", "-p", "2", "-n", "2", "--json")
    (tmp_path / "s.json").write_text(r.stdout)
    r = invoke("report", tmp_path / "s.json", "-o", tmp_path / "s.html")
    assert r.exit_code == 0, r.output
    page = (tmp_path / "s.html").read_text()
    assert "START_CHIPS=2" in page and "START_CHIPS=3" in page and "Alex" in page and "http" not in page


def test_the_table_shows_names_from_the_rules_as_they_are_never_as_markup():
    from io import StringIO

    from pitwall.interpreter.sweep import table
    from rich.console import Console
    from test_plot import summary

    hostile = "[bold red]Anne[/] [link=x]"
    result = {"vary": ["X"], "points": [{"values": {"X": "[b]t"}, "summary": summary(names=(hostile, "B", "C"))},
                                        {"values": {"X": "u"}, "summary": None, "error": "[red]no[/red]"}]}
    out = StringIO()
    Console(file=out, width=300).print(table(result))
    shown = out.getvalue()
    assert hostile in shown and "[b]t" in shown and "[red]no[/red]" in shown
