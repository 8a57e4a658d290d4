"""`pitwall replay --json` and `pitwall view`: the steps of a recorded game with the public state,
as JSON Lines and as one self-contained HTML page (tests/test_browser.py drives the page)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clihelp import add_game, invoke
from pitwall.interpreter.record import read, replay
from pitwall.interpreter.viewer import _diffs, _flat, html_page, watch

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"
SMALL = GOLDEN / "why_first" / "base-p2-seed1-heuristic.jsonl"
# a recorded game of each shipped game
GAMES = {"why_first": SMALL,
         "street_illegal": GOLDEN / "street_illegal" / "solo_play-p1-seed1-heuristic.jsonl",
         "race_formula_90": GOLDEN / "race_formula_90" / "base-p2-seed2-random.jsonl"}
DECISION_KEYS = {"line", "decision", "by", "options", "choice", "option", "secret", "state"}
EVENT_KEYS = {"line", "event", "text", "args"}
STATE_KEYS = {"participants", "globals", "board", "turns", "leader"}
DATA = re.compile(r'<script id="game-data" type="application/json">(.*?)</script>', re.S)


def json_lines(record: Path) -> list[dict]:
    r = invoke("replay", record, "--json")
    assert r.exit_code == 0, r.output
    assert "Replay matches the record" in r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()]


def page_data(html: str) -> dict:
    return json.loads(DATA.search(html).group(1))


def rebuild(diffs: list) -> list[dict]:
    """Each step's state from the changes kept per step, as the page's script rebuilds them."""
    out, before = [], {}
    for d in diffs:
        changed, gone = d if isinstance(d, list) else (d, [])
        before = {k: v for k, v in {**before, **changed}.items() if k not in gone}
        out.append(before)
    return out


def test_replay_json_gives_a_line_per_decision_and_event_in_the_records_order():
    lines, body = json_lines(SMALL), read(SMALL).body
    assert len(lines) == len(body) and [x["line"] for x in lines] == list(range(2, len(body) + 2))
    for got, recorded in zip(lines[:-1], body):
        if "decision" in recorded:
            assert got.keys() == DECISION_KEYS and got["state"].keys() == STATE_KEYS
            assert (got["by"], got["decision"], got["option"], got["choice"], got["secret"]) == \
                (recorded["by"], recorded["decision"], recorded["option"], recorded["pick"], recorded["secret"])
            assert len(got["options"]) == recorded["of"] and got["options"][got["choice"]] == got["option"]
        else:
            assert got.keys() == EVENT_KEYS
            assert (got["event"], got["text"], got["args"]) == (recorded["event"], recorded["text"], recorded["args"])
    assert lines[-1].keys() == {"line", "result", "state"} and lines[-1]["result"] == body[-1]["result"]
    assert sum("decision" in x for x in lines) == sum("decision" in x for x in body) > 50


def test_the_public_state_holds_each_kind_of_field_and_hides_secret_and_hidden_ones():
    first = next(x for x in json_lines(SMALL) if x["line"] == 4)
    assert first["options"] == ["+3", "-2", "-1", "+2", "+1"] and first["option"] == "+3"
    empty = {"position": 0, "points": 0}
    assert first["state"] == {
        "participants": [
            {"name": "Anne", "kind": "Racer", "player": True, "fields": empty,
             "hidden": {"hand": 5, "front": 0, "stack": 0}},  # secret and hidden piles: counts only
            {"name": "Ben", "kind": "Racer", "player": True, "fields": empty,
             "hidden": {"hand": 5, "front": 0, "stack": 0}},
            {"name": "Leo", "kind": "Racer", "player": False, "fields": empty,
             "hidden": {"hand": 0, "front": 0, "stack": 4}}],
        "globals": {"fields": {"aside": [], "figures": ["Anne", "Ben", "Leo"], "leo": "Leo", "stage": 1},
                    "hidden": {"deck": 18}},  # a hidden global: its count
        "board": [f"{i}: " for i in range(-12, 0)] + ["0: Anne, Ben, Leo"] + [f"{i}: " for i in range(1, 17)],
        "turns": 1, "leader": "Anne"}


def test_a_secret_value_that_is_no_pile_is_only_said_to_be_hidden():
    lines = json_lines(GAMES["street_illegal"])
    first = next(x for x in lines if "decision" in x)
    alex = first["state"]["participants"][0]
    assert alex["name"] == "Alex" and alex["hidden"] == {"chips": None, "hand": 8}
    assert "chips" not in alex["fields"] and alex["fields"]["position"] == 7
    assert {p["player"] for p in first["state"]["participants"][1:]} == {False}  # the participants the rules make
    # the cards face up in front of a car, in their words, once played
    assert any(p["fields"]["left"] for x in lines if "state" in x for p in x["state"]["participants"])
    assert all(isinstance(x["state"]["turns"], int) for x in lines if "state" in x)


def test_replay_json_fails_at_the_first_divergence_after_printing_the_lines_before(tmp_path):
    record = tmp_path / "edited.jsonl"
    lines = SMALL.read_text(encoding="utf-8").splitlines()
    assert '"text":"No card lies' in lines[9]
    lines[9] = lines[9].replace('"text":"No card lies', '"text":"Nothing lies')
    record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = invoke("replay", record, "--json")
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert f"{record}:10:" in r.stderr and "the replay diverges here" in r.stderr
    assert [json.loads(x)["line"] for x in r.stdout.splitlines()] == list(range(2, 10))


def test_replay_json_goes_with_neither_step_nor_rules_changed():
    for flag in ("--step", "--rules-changed"):
        r = invoke("replay", SMALL, "--json", flag)
        assert r.exit_code == 2 and "--json prints the whole replay" in r.output


@pytest.mark.parametrize("game", GAMES)
def test_the_page_of_each_game_is_self_contained_and_holds_every_step(game, tmp_path):
    out = tmp_path / "game.html"
    r = invoke("view", GAMES[game], "-o", out)
    assert r.exit_code == 0, r.output
    html = out.read_text(encoding="utf-8")
    assert not re.search(r"https?:|//[a-z0-9]|\bsrc=|\bhref=|@import|url\(", html, re.I)  # nothing to fetch
    assert "default-src 'none'" in html
    assert html.count("<script") == html.count("</script>") == 2
    data, body = page_data(html), read(GAMES[game]).body
    assert len(data["steps"]) == len(data["diffs"]) == len(body) and data["first_line"] == 2
    for step, line in zip(data["steps"], body):
        if "event" in line:
            assert step == ["e", line["text"], line["event"]]
        elif "decision" in line:
            assert step[0] == "d" and step[2:5] == [line["by"], line["pick"], line["of"]]
            assert step[5][line["pick"]] == line["option"]
            told = f"> {line['by']} chooses {line['decision']}"
            if line["secret"]:  # its choice is shown only when asked for
                assert step[1] == f"{told} (secretly)" and step[6] == f"{told}: {line['option']} (secretly)"
            else:
                assert step[1] == f"{told}: {line['option']}" and step[6] is None
    # the state at the end, rebuilt from the changes the page keeps, has the game's board
    last = rebuild(data["diffs"])[-1]
    board = [last[k] for k in last if re.fullmatch(r"B\d+", k)]
    assert board and all(": " in place for place in board)
    assert f"{len(body)} steps" in r.stderr


def test_the_page_is_of_a_sane_size():
    # per step only what changed: a whole 26-turn game of four players stays a few hundred KB
    steps: list = []
    record = read(GOLDEN / "race_formula_90" / "base-p4-seed1-heuristic.jsonl")
    game = watch(record, steps.append)
    assert len(steps) == len(record.body) and len(html_page(record, game, steps).encode()) < 600_000


def test_a_hostile_name_is_shown_as_text_and_cannot_break_out(tmp_path):
    hostile = '</script><script>alert(1)</script><!--'
    other = '<img src=x onerror=alert(2)>&amp;"'
    record, out = tmp_path / "g.jsonl", tmp_path / "g.html"
    r = invoke("play", "why-first", "--names", f"{hostile},{other}", "--seed", 3, "--record", record)
    assert r.exit_code == 0, r.output
    assert invoke("view", record, "-o", out).exit_code == 0
    html = out.read_text(encoding="utf-8")
    assert hostile not in html and "<img" not in html and "<!--" not in html
    assert html.count("<script") == html.count("</script>") == 2
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in html  # the header, escaped as HTML
    data = page_data(html)  # and in the JSON, read back exactly
    assert data["diffs"][0]["N0"] == hostile and data["diffs"][0]["N1"] == other
    assert any(hostile in step[1] for step in data["steps"])


def test_view_of_a_broken_record_exits_2_with_a_message(tmp_path):
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not a record\n")
    r = invoke("view", garbage, "-o", tmp_path / "x.html")
    assert r.exit_code == 2 and f"{garbage}:1:1: error: not a JSON line" in r.output and "Traceback" not in r.output
    header_only = tmp_path / "header.jsonl"
    header_only.write_text(SMALL.read_text(encoding="utf-8").splitlines()[0] + "\n")
    r = invoke("view", header_only, "-o", tmp_path / "x.html")
    assert r.exit_code == 2 and "there is nothing to show" in r.output
    edited = tmp_path / "edited.jsonl"
    edited.write_text(SMALL.read_text(encoding="utf-8").replace('"pick":0', '"pick":1', 1))
    r = invoke("view", edited, "-o", tmp_path / "x.html")
    assert r.exit_code == 2 and "error:" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "x.html").exists()
    r = invoke("view", SMALL, "-o", tmp_path / "no such folder" / "x.html")
    assert r.exit_code == 2 and "cannot write" in r.output


def test_view_shows_a_game_stopped_part_way_up_to_its_last_line(tmp_path):
    record = tmp_path / "stopped.jsonl"
    record.write_text("\n".join(SMALL.read_text(encoding="utf-8").splitlines()[:100]) + "\n")
    r = invoke("view", record)  # beside the record, by default
    assert r.exit_code == 0, r.output
    assert "a game stopped part-way" in r.stderr
    assert len(page_data(record.with_suffix(".html").read_text(encoding="utf-8"))["steps"]) == 99


def test_the_changes_kept_per_step_rebuild_every_state():
    steps: list = []
    watch(read(SMALL), steps.append)
    states = [_flat(s.state) for s in steps]
    states.append({k: v for k, v in states[-1].items() if k != "B28"})  # a place gone
    assert rebuild(_diffs(states)) == states
    assert sum(len(d) for d in _diffs(states)[1:]) < sum(len(s) for s in states) / 10


def test_watching_spends_nothing_of_the_games_own_budgets():
    record = read(GAMES["street_illegal"])
    watched = watch(record, lambda step: None)
    plain = replay(record)
    assert (watched.budget[0], watched.side[0]) == (plain.budget[0], plain.side[0])


# A game of one's own that declares no board, turns or leader, with a participant of another kind
# made by the rules, a secret number, a secret hand and a hidden and a public global pile.
BARE_GAME = """game bare "Bare" { players P 2 to 2  play main }
card C "#{v}" { v: int }
participant P { n: int = 0  hand: pile of C secret  chips: int secret = 3 }
participant Dealer { given: int = 0 }
deck cards of C { (1) (2) (3) (4) (5) }
global pile: pile of C hidden = cards
global shown: pile of C
global dealer: Dealer
event dealt(p: P, d: Dealer) "{d} deals {p} a card."
rule main() {
    dealer = new Dealer("The Dealer")
    for p in players {
        draw 1 from pile to p.hand
        dealer.given += 1
        emit dealt(p, dealer)
    }
    choose k from [1, 2] by players[0] "how many to show"
    draw k from pile to shown
    finish players
}
"""


def test_a_game_that_declares_nothing_for_the_viewer_is_shown_from_its_fields(tmp_path, monkeypatch):
    add_game(tmp_path, monkeypatch, "bare", BARE_GAME)
    record = tmp_path / "bare.jsonl"
    assert invoke("play", "bare", "--seed", 5, "--record", record).exit_code == 0
    lines = json_lines(record)
    assert [x.get("event") or x.get("decision") or "result" for x in lines] == ["dealt", "dealt", "k", "result"]
    assert lines[0]["args"] == {"p": "Player 1", "d": "The Dealer"}
    decision, end = lines[2], lines[3]
    assert decision["options"] == ["1", "2"] and decision["by"] == "Player 1"
    dealer = {"name": "The Dealer", "kind": "Dealer", "player": False, "fields": {"given": 2}, "hidden": {}}
    assert decision["state"] == {
        "participants": [
            {"name": "Player 1", "kind": "P", "player": True, "fields": {"n": 0}, "hidden": {"hand": 1, "chips": None}},
            {"name": "Player 2", "kind": "P", "player": True, "fields": {"n": 0}, "hidden": {"hand": 1, "chips": None}},
            dealer],
        "globals": {"fields": {"shown": [], "dealer": "The Dealer"}, "hidden": {"pile": 3}},
        "board": None, "turns": None, "leader": None}
    k = decision["options"][decision["choice"]]
    assert end["state"]["globals"]["hidden"] == {"pile": 3 - int(k)}
    assert len(end["state"]["globals"]["fields"]["shown"]) == int(k)
    assert all(card.startswith("#") for card in end["state"]["globals"]["fields"]["shown"])  # cards in their words
    out = tmp_path / "bare.html"
    assert invoke("view", record, "-o", out).exit_code == 0
    data = page_data(out.read_text(encoding="utf-8"))
    assert not any(re.fullmatch(r"B\d+", key) for state in rebuild(data["diffs"]) for key in state)
    assert rebuild(data["diffs"])[-1]["K2"] == "Dealer"
