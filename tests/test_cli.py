"""The pitwall command through click's runner: results on stdout, user mistakes exit 2."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from clihelp import add_game, invoke
from pitwall.interpreter.load import find_game, load

WHY_FIRST = find_game("why-first").path



def test_games_lists_why_first_and_its_variants():
    r = invoke("games")
    assert r.exit_code == 0
    assert "why-first: Why First? (2-6 players)" in r.output
    assert "--variant tactical: Tactical Variant" in r.output
    assert f"    rules: {WHY_FIRST}" in r.output


def test_check_accepts_rules_variants_and_scenarios():
    files = [WHY_FIRST / "rules.pw", WHY_FIRST / "variants" / "tactical.pw", WHY_FIRST / "scenarios" / "movement.pw"]
    r = invoke("check", *files)
    assert r.exit_code == 0, r.output
    assert r.output.count(": ok") == 3


def test_check_reports_file_line_caret_and_hint(tmp_path):
    bad = tmp_path / "bad.pw"
    bad.write_text('game g "G" { players P 1 to 2  play main }\nparticipant P { n: int }\n'
                   "rule main() {\n    players[0].m = 1\n    finish players\n}\n")
    r = invoke("check", bad)
    assert r.exit_code == 2
    assert f"{bad}:4:5: error: P has no field 'm'" in r.output
    assert "    players[0].m = 1" in r.output
    assert "    ^^^^^^^^^^^^" in r.output
    assert "hint: fields of P: n, name, seat, is_player" in r.output
    assert "Traceback" not in r.output


def test_check_reports_syntax_errors_without_traceback(tmp_path):
    bad = tmp_path / "bad.pw"
    bad.write_text("rule r() {\n    let x = \n}\n")
    r = invoke("check", bad)
    assert r.exit_code == 2
    assert "bad.pw:3:1: error: an expression is missing here" in r.output


def test_play_is_seeded_and_records(tmp_path):
    rec = tmp_path / "game.jsonl"
    a = invoke("play", "why-first", "--players", 4, "--seed", 7, "--record", rec)
    b = invoke("play", "why-first", "--players", 4, "--seed", 7)
    assert a.exit_code == 0 and b.exit_code == 0
    assert a.stdout == b.stdout
    assert "Stage 5 begins" in a.stdout and "Winners:" in a.stdout
    header = json.loads(rec.read_text().splitlines()[0])
    assert header["players"] == ["Anne", "Ben", "Chris", "Dana"] and header["seed"] == 7


def test_replay_verifies_and_narrates(tmp_path):
    rec = tmp_path / "game.jsonl"
    played = invoke("play", "why-first", "-p", 3, "-s", 2, "--agent", "random", "--record", rec)
    r = invoke("replay", rec)
    assert r.exit_code == 0, r.output
    assert r.stdout == played.stdout


def test_replay_of_an_edited_record_fails_at_the_first_divergent_line(tmp_path):
    rec = tmp_path / "game.jsonl"
    invoke("play", "why-first", "-p", 3, "--record", rec)
    lines = rec.read_text().splitlines()
    n = next(i for i, line in enumerate(lines) if '"event":"moves"' in line)
    lines[n] = lines[n].replace("moves", "jumps", 1)
    rec.write_text("\n".join(lines) + "\n")
    r = invoke("replay", rec)
    assert r.exit_code == 2
    assert f"game.jsonl:{n + 1}:10: error: the replay diverges here" in r.output


def test_replay_of_a_record_from_other_rules_fails_at_the_header(tmp_path):
    rec = tmp_path / "game.jsonl"
    invoke("play", "why-first", "--record", rec)
    lines = rec.read_text().splitlines()
    lines[0] = lines[0].replace('"rules_hash":"', '"rules_hash":"0', 1)
    rec.write_text("\n".join(lines) + "\n")
    r = invoke("replay", rec)
    assert r.exit_code == 2 and ":1:" in r.output and "error: the record was made with other rules" in r.output


HEADER = json.dumps({"record": "pitwall", "version": 1, "game": "why_first", "variants": [],
                     "rules_hash": load("why_first").rules_hash, "seed": 1, "players": ["Anne", "Ben"],
                     "agents": ["random", "random"]})


@pytest.mark.parametrize("text, message", [
    (HEADER + '\nnot json\n', "game.jsonl:2:1: error: not a JSON line"),
    ('{"record": "pitwall"}\n', "game.jsonl:1:1: error: the header has no 'version', 'game'"),
    ('{"event": "x"}\n', "game.jsonl:1:1: error: not a Pitwall game record"),
    ('[1, 2]\n', "game.jsonl:1:1: error: each line of a record is a JSON object"),
    (HEADER + '\nnull\n', "game.jsonl:2:1: error: each line of a record is a JSON object"),
    (HEADER.replace('"variants": []', '"variants": [5]'), "the header's 'variants' must be a list of texts"),
    (HEADER.replace('"players": ["Anne", "Ben"]', '"players": ["Anne"]'), "2 agents for 1 players"),
    (HEADER.replace('"agents": ["random", "random"]', '"agents": ["random", "bogus"]'), "unknown agent 'bogus'"),
    (HEADER.replace('"game": "why_first"', '"game": "chess"'), "game.jsonl:1:45: error: no game named 'chess'"),
    (HEADER + '\n{"decision": "card", "by": "Anne", "pick": 1.5}\n',
     "game.jsonl:2:44: error: the decision's 'pick' must be a whole number, not 1.5"),
    (HEADER.replace('"players": ["Anne", "Ben"], "agents": ["random", "random"]',
                    '"players": ["A", "B", "C", "D", "E", "F", "G"], "agents": ["random", "random", "random", '
                    '"random", "random", "random", "random"]'), "Why First? takes 2 to 6 players, not 7"),
])
def test_replay_of_garbage_says_what_and_where(tmp_path, text, message):
    rec = tmp_path / "game.jsonl"
    rec.write_text(text)
    for command in ("replay", "resume"):
        r = invoke(command, rec)
        assert r.exit_code == 2 and message in r.output, r.output
        assert "Traceback" not in r.output


def test_a_record_that_is_not_utf8_is_a_clear_error(tmp_path):
    rec = tmp_path / "game.jsonl"
    rec.write_bytes(b'{"record": "pitwall", "game": "caf\xe9"}\n')
    r = invoke("replay", rec)
    assert r.exit_code == 2 and "not UTF-8 text" in r.output


def test_replay_step_waits_for_enter(tmp_path):
    rec = tmp_path / "game.jsonl"
    invoke("play", "why-first", "--record", rec)
    events = sum(1 for line in rec.read_text().splitlines() if '"event"' in line)
    r = invoke("replay", "--step", rec, input="\n" * events)
    assert r.exit_code == 0, r.output


def test_scenario_prints_the_rulebook_example():
    r = invoke("scenario", WHY_FIRST / "scenarios" / "ben_stops.pw")
    assert r.exit_code == 0
    assert "Ben reveals +3, -4 and moves 1 space back to 14." in r.stdout


def test_scenario_with_an_illegal_decision_is_a_user_error(tmp_path):
    text = (WHY_FIRST / "scenarios" / "movement.pw").read_text().replace('"Anne" target "Anne"', '"Anne" target "Zed"')
    bad = tmp_path / "bad.pw"
    bad.write_text(text.replace("game why_first", "game why_first"))
    r = invoke("scenario", bad)
    assert r.exit_code == 2
    assert "'Zed' is not a legal 'target' for Anne" in r.output


def test_a_failing_scenario_still_shows_its_narration_up_to_the_error(tmp_path):
    # The first decision is legal, the second is not: the lines told before the error stay on stdout.
    text = (WHY_FIRST / "scenarios" / "movement.pw").read_text()
    scripted = [line for line in text.splitlines() if line.strip().startswith("decide ")]
    assert len(scripted) >= 2
    second = scripted[1]
    bad = tmp_path / "bad.pw"
    bad.write_text(text.replace(second, second.rsplit('"', 2)[0] + '"no such option"'))
    r = invoke("scenario", bad)
    assert r.exit_code == 2
    assert "'no such option' is not a legal" in r.output
    assert r.stdout.splitlines()[0].startswith("# ")
    assert "chooses" in r.stdout  # the first, legal decision was told


def test_simulate_serial_and_parallel_agree():
    serial = invoke("simulate", "why-first", "-p", 4, "-n", 60, "--seed", 3, "--json")
    parallel = invoke("simulate", "why-first", "-p", 4, "-n", 60, "--seed", 3, "--jobs", 2, "--json")
    assert serial.exit_code == 0 and parallel.exit_code == 0
    a, b = json.loads(serial.stdout), json.loads(parallel.stdout)
    assert a == b and a["games"] == 60
    assert sum(r["sole_wins"] for r in a["participants"]) > 0


def test_simulate_table():
    r = invoke("simulate", "why-first", "-v", "tactical", "-p", 3, "-n", 20)
    assert r.exit_code == 0
    assert "why_first (tactical): 20 games" in r.stdout and "sole win rate" in r.stdout


@pytest.mark.parametrize("args, message", [
    (("play", "chess"), "no game named 'chess'"),
    (("play", "why-first", "--players", 9), "takes 2 to 6 players, not 9"),
    (("play", "why-first", "--variant", "turbo"), "has no variant 'turbo'"),
    (("play", "why-first", "--agent", "genius"), "unknown agent 'genius'"),
    (("play", "why-first", "--agent", "5=random"), "seat must be 1 to 2"),
    (("play", "why-first", "--seed", "x"), "'x' is not a whole number from 0 to"),
    (("simulate", "why-first", "--games", 0), "0 is not from 1 to 10000000"),
    (("simulate", "why-first", "--agent", "human"), "simulate plays without people"),
    (("simulate", "why-first", "-a", "heuristic", "-a", "random"), "--agent heuristic and --agent random both set"),
    (("replay", "missing.jsonl"), "does not exist"),
])
def test_bad_arguments_exit_2(args, message):
    r = invoke(*args)
    assert r.exit_code == 2, r.output
    assert message in r.output
    assert "Traceback" not in r.output


def test_human_agent_lists_options_and_reprompts_on_bad_input():
    answers = ["x", "99"] + ["1"] * 400
    r = invoke("play", "why-first", "--agent", "human", input="\n".join(answers) + "\n")
    assert r.exit_code == 0, r.output[-2000:]
    assert "Anne, choose the card to play:" in r.output
    assert "please type a number from 1 to 5" in r.output
    # Why First?'s own view (view.pw): the stage, the figures with their points, her hand only
    assert "Stage 1 of 5, on a track from -12 to 16. All figures share one space" in r.output
    assert "  Anne (you): on 0, 0 points\n  Ben: on 0, 0 points, 5 cards in hand" in r.output
    assert "  Leo: on 0, 0 points, 4 cards left in his stack" in r.output
    assert "Your hand: " in r.output


GENERIC_VIEW_GAME = """game plain "Plain" { players P 2 to 2  play main }
card C "{v}" { v: int }
participant P { n: int = 0  hand: pile of C secret  stack: pile of C hidden  chips: int secret = 3 }
deck cards of C { (1) (2) (3) (4) }
global pile: pile of C = cards
rule main() {
    for p in players {
        draw 1 from pile to p.hand
        draw 1 from pile to p.stack
    }
    choose k from [1, 2] by players[0] "how many"
    finish players
}
"""


def test_without_a_view_a_human_sees_public_fields_and_only_his_own_secrets(tmp_path, monkeypatch):
    add_game(tmp_path, monkeypatch, "plain", GENERIC_VIEW_GAME)
    r = invoke("play", "plain", "--agent", "human", input="1\n")
    assert r.exit_code == 0, r.output
    mine, other = [line for line in r.output.splitlines() if line.startswith("  Player ")]
    assert mine == "  Player 1 (you) - n: 0; hand: 4; stack: 1 hidden; chips: 3"  # the stack even from him
    assert other == "  Player 2 - n: 0; hand: 1 hidden; stack: 1 hidden; chips: ?"


def test_human_agent_at_end_of_input_aborts_cleanly():
    r = invoke("play", "why-first", "--agent", "human", input="")
    assert r.exit_code == 2 and "input ended while the game waited for Anne's 'card'" in r.output


SETTINGS_GAME = """game counting "Counting" { players P 2 to 3  score points  play main }
participant P { points: int = 0 }
setting rounds = 2 from 1 to 9 "how many rounds"
setting label = "round"
event scored(p: P, what: text, n: int) "{p} scores in {what} {n}."
rule main() {
    repeat rounds as n {
        for p in players {
            p.points += n
            emit scored(p, label, n)
        }
    }
    finish players
}
"""




@pytest.fixture
def settings_game(tmp_path, monkeypatch):
    name = add_game(tmp_path, monkeypatch, "counting", SETTINGS_GAME)
    (tmp_path / "games" / name / "variants").mkdir()
    (tmp_path / "games" / name / "variants" / "duo.pw").write_text('variant duo "Two only" players 2 to 2\n')
    yield name
    from pitwall.interpreter.load import load

    load.cache_clear()


def test_games_lists_settings(settings_game):
    r = invoke("games")
    assert r.exit_code == 0, r.output
    assert "--set rounds=2 (from 1 to 9): how many rounds" in r.output
    assert "--set label=round" in r.output


def test_set_overrides_a_setting_and_the_record_keeps_it(settings_game, tmp_path):
    rec = tmp_path / "game.jsonl"
    r = invoke("play", settings_game, "--set", "rounds=3", "--set", "label=lap", "--record", rec)
    assert r.exit_code == 0, r.output
    assert "scores in lap 3." in r.output and "scores in lap 4." not in r.output
    header = json.loads(rec.read_text().splitlines()[0])
    assert header["settings"] == {"rounds": "3", "label": "lap"}
    again = invoke("replay", rec)
    assert again.exit_code == 0, again.output
    assert "scores in lap 3." in again.output


def test_races_is_short_for_set_races(settings_game):
    r = invoke("play", settings_game, "--races", "2")
    assert r.exit_code == 2
    assert "has no setting 'races'" in r.output and "settings: rounds, label" in r.output


def test_every_setting_reads_as_an_option_of_its_own(settings_game):
    # No setting is known to the CLI: --rounds exists because this game's rules declare it.
    r = invoke("play", settings_game, "--rounds", "3", "--label=lap")
    assert r.exit_code == 0, r.output
    assert "scores in lap 3." in r.output and "scores in lap 4." not in r.output
    both = invoke("play", settings_game, "--rounds", "3", "--set", "rounds=2")
    assert both.exit_code == 2 and "setting 'rounds' is given twice" in both.output
    bare = invoke("play", settings_game, "--rounds")
    assert bare.exit_code == 2 and "--rounds needs a value" in bare.output
    stray = invoke("play", settings_game, "extra")
    assert stray.exit_code == 2 and "unexpected argument 'extra'" in stray.output


@pytest.mark.parametrize("value, message", [
    ("rounds=two", "setting 'rounds' takes a whole number, not 'two'"),
    ("rounds", "'rounds' is not NAME=VALUE"),
    ("laps=2", "has no setting 'laps'"),
    ("rounds=0", "setting 'rounds' must be from 1 to 9, not 0"),
    ("rounds=10", "setting 'rounds' must be from 1 to 9, not 10"),
])
def test_bad_settings_exit_2(settings_game, value, message):
    r = invoke("play", settings_game, "--set", value)
    assert r.exit_code == 2
    assert message in r.output
    assert "Traceback" not in r.output


def test_simulate_with_settings(settings_game):
    r = invoke("simulate", settings_game, "--games", "5", "--set", "rounds=4", "--json")
    assert r.exit_code == 0, r.output
    summary = json.loads(r.output)
    assert summary["settings"] == {"rounds": "4"}
    assert {row["name"]: row["score"]["mean"] for row in summary["participants"]} == {"Player 1": 10.0,
                                                                                     "Player 2": 10.0}


def test_a_variant_narrows_the_player_count(settings_game):
    assert invoke("play", settings_game, "--players", "3").exit_code == 0
    r = invoke("play", settings_game, "--variant", "duo", "--players", "3")
    assert r.exit_code == 2
    assert "Counting takes 2 to 2 players, not 3" in r.output
    assert invoke("play", settings_game, "--variant", "duo").exit_code == 0


VIEW_GAME = """game viewing "Viewing" { players P 2 to 2  play main  view seen }
participant P { n: int secret = 0 }
function seen(me: P) -> list of text = ["You hold " + text(me.n) + ".", "Others: " + text(len(players) - 1)]
rule main() {
    repeat 2 as r {
        for p in players {
            choose k from [1, 2, 3] by p "how many to take (you hold {p.n}, round {r})"
            p.n += k
        }
    }
    finish players
}
"""


def test_human_sees_the_rules_view_when_it_changes(tmp_path, monkeypatch):
    add_game(tmp_path, monkeypatch, "viewing", VIEW_GAME)
    r = invoke("play", "viewing", "--agent", "1=human", "--agent", "2=first", input="x\n3\n2\n")
    assert r.exit_code == 0, r.output
    assert r.output.count("You hold 0.") == 1 and r.output.count("You hold 3.") == 1
    assert "Others: 1" in r.output
    # the prompt names values, worded when the player is asked
    assert "Player 1, how many to take (you hold 0, round 1):" in r.output
    assert "Player 1, how many to take (you hold 3, round 2):" in r.output
    assert "please type one of 1-3" in r.output
    # options that are counts are typed as themselves: 3 takes 3, 2 takes 2 (not the 2nd option)
    assert "  1, 2, 3\n" in r.output and "You hold 3." in r.output


def test_compare_runs_each_configuration_on_the_same_seeds():
    r = invoke("compare", "why-first", "-p", "3", "-n", "30", "--with", "tactical",
               "--with", "tactical+all_together_score", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)  # several --with: a Comparison with the base for each
    assert [c["with"]["variants"] for c in out] == [["tactical"], ["tactical", "all_together_score"]]
    alone = json.loads(invoke("simulate", "why-first", "-p", "3", "-n", "30", "-v", "tactical", "--json").output)
    assert out[0]["with"]["participants"] == alone["participants"]
    assert out[0]["base"] == out[1]["base"]
    table = invoke("compare", "why-first", "-p", "3", "-n", "10", "--with", "tactical")
    assert table.exit_code == 0 and "base game" in table.output and "Anne" in table.output


def test_a_game_and_a_variant_of_ones_own_play_from_paths(tmp_path):
    import shutil

    mine = tmp_path / "mine"
    shutil.copytree(WHY_FIRST, mine)
    variant = tmp_path / "short.pw"
    variant.write_text('variant short "Four stages"\nreplace const STAGES = 4\n')
    rec = tmp_path / "game.jsonl"
    r = invoke("play", mine, "-p", "3", "--variant", variant, "--record", rec)
    assert r.exit_code == 0, r.output
    assert "Stage 4 begins" in r.output and "Stage 5 begins" not in r.output
    header = json.loads(rec.read_text().splitlines()[0])
    assert header["game"] == str(mine) and header["variants"] == [variant.name]
    assert invoke("replay", rec).exit_code == 0
    bad = invoke("play", tmp_path / "nowhere")
    assert bad.exit_code == 2 and "no game's rules at" in bad.output


def test_an_unwritable_record_path_is_a_usage_error_before_the_game(tmp_path):
    r = invoke("play", "why-first", "--record", tmp_path / "no such folder" / "game.jsonl")
    assert r.exit_code == 2
    assert "cannot write" in r.output and "--record" in r.output
    assert "Traceback" not in r.output and "Winner" not in r.output


def test_check_a_variant_of_ones_own_needs_its_game(tmp_path):
    mine = tmp_path / "mine.pw"
    mine.write_text('variant mine "Mine"\nreplace const STAGES = 3\n')
    r = invoke("check", mine)
    assert r.exit_code == 2
    assert "not in a game's variants/ folder: which game is it for?" in r.output
    assert "pitwall check --game GAME" in r.output
    ok = invoke("check", "--game", "why-first", mine)
    assert ok.exit_code == 0, ok.output
    wrong = invoke("check", "--game", "street-illegal", mine)
    assert wrong.exit_code == 2 and "there is no 'STAGES' to replace" in wrong.output


def test_simulate_gives_confidence_intervals_that_shrink_with_more_games():
    def rows(n):
        r = invoke("simulate", "why-first", "-p", 3, "-n", n, "--json")
        assert r.exit_code == 0, r.output
        return json.loads(r.stdout)["participants"]

    def half(figure):
        return (figure["hi"] - figure["lo"]) / 2

    few, many = rows(40), rows(400)
    for a, b in zip(few, many):
        assert 0 < half(b["sole_win_rate"]) < half(a["sole_win_rate"]) <= 0.5
        assert 0 < half(b["score"]) < half(a["score"])
    # Wilson: about 1.96 * sqrt(p(1-p)/n) away from 0 and 1
    p = many[0]["sole_win_rate"]["value"]
    assert abs(half(many[0]["sole_win_rate"]) - 1.96 * (p * (1 - p) / 400) ** 0.5) < 0.01


FORCED_GAME = """game forced "Forced" { players P 1 to 1  play main }
participant P { n: int = 0 }
rule main() {
    let me = players[0]
    choose only from [7] by me "the one way, {me.n} so far"
    choose k from [1, 2] by players[0] "how many"
    players[0].n = only + k
    finish players
}
"""


def test_a_forced_decision_is_shown_to_a_human_but_not_waited_for(tmp_path, monkeypatch):
    add_game(tmp_path, monkeypatch, "forced", FORCED_GAME)
    r = invoke("play", "forced", "--agent", "human", input="2\n")  # one answer: the real choice
    assert r.exit_code == 0, r.output
    assert "Player 1, the one way, 0 so far: 7, the only legal option." in r.output
    assert "Player 1, how many:" in r.output and "Winners: Player 1" in r.output


def test_simulate_counts_events_per_game_on_request_serial_and_parallel_alike():
    def run(*extra):
        r = invoke("simulate", "why-first", "-p", 3, "-n", 40, "--json", *extra)
        assert r.exit_code == 0, r.output
        return json.loads(r.stdout)

    plain, serial, parallel = run(), run("--events"), run("--events", "--jobs", 2)
    assert plain["events"] == {}
    per_game = {name: s["mean"] for name, s in serial["events"].items()}
    assert serial["events"] == parallel["events"]
    assert per_game["stage_begins"] == 5 and per_game["round_begins"] == 25  # 5 stages of 5 card rounds
    assert 0 < per_game["moves"]
    assert per_game["leo_flips"] == 0  # declared, never told: Leo plays only in the 2-player game
    table = invoke("compare", "why-first", "-p", 3, "-n", 20, "--with", "tactical", "--events")
    assert table.exit_code == 0 and "events told per game" in table.output and "round_begins" in table.output


@pytest.mark.parametrize("answers", ["\n\nq\n", "\n\n"])  # q, or the end of input, after two events
def test_replay_step_stops_when_the_reader_says_so(tmp_path, answers):
    rec = tmp_path / "game.jsonl"
    invoke("play", "why-first", "-p", 3, "-s", 2, "--record", rec)
    r = invoke("replay", "--step", rec, input=answers)
    assert r.exit_code == 0, r.output
    assert "Replay stopped after 3 events" in r.output
    assert "error" not in r.output and "Winners:" not in r.stdout


def test_a_stopped_human_game_is_saved_and_resumed_to_a_replayable_record(tmp_path):
    rec = tmp_path / "game.jsonl"
    stopped = invoke("play", "why-first", "-p", 3, "--agent", "human", "--record", rec, input="1\n1\n2\n")
    assert stopped.exit_code == 2 and "input ended while the game waited" in stopped.output
    assert f"go on with: pitwall resume {rec}" in stopped.output
    partial = rec.read_text().splitlines()
    assert '"result"' not in partial[-1] and sum('"by":"Anne"' in line for line in partial) == 3

    again = invoke("resume", rec, input="1\n1\n")  # stops again, two decisions further on
    assert again.exit_code == 2 and "lines of" in again.output and "--- the game goes on" in again.output
    longer = rec.read_text().splitlines()
    assert longer[: len(partial)] == partial and len(longer) > len(partial)

    done = invoke("resume", rec, input="1\n" * 500)
    assert done.exit_code == 0, done.output
    assert "Winners:" in done.stdout
    whole = rec.read_text().splitlines()
    assert whole[: len(longer)] == longer and '"result"' in whole[-1]
    assert invoke("replay", rec).exit_code == 0
    over = invoke("resume", rec)
    assert over.exit_code == 2 and "this game is over" in over.output


FAILING_GAME = """game failing "Failing" { players P 1 to 1  play main }
participant P { n: int = 0 }
event counted(n: int) "Counted {n}."
rule main() {
    repeat 3 as k {
        emit counted(k)
    }
    players[0].n = 1 / players[0].n
    finish players
}
"""


def test_a_game_that_fails_keeps_its_record_up_to_the_error(tmp_path, monkeypatch):
    add_game(tmp_path, monkeypatch, "failing", FAILING_GAME)
    rec = tmp_path / "failing.jsonl"
    r = invoke("play", "failing", "--record", rec)
    assert r.exit_code == 2 and "division by zero" in r.output
    assert f"The game up to the error is saved in {rec}." in r.output and "resume" not in r.output
    assert [json.loads(line).get("text") for line in rec.read_text().splitlines()[1:]] == [
        "Counted 1.", "Counted 2.", "Counted 3."]


def test_play_step_by_step_stops_on_q_keeping_the_game_to_resume(tmp_path):
    rec = tmp_path / "game.jsonl"
    r = invoke("play", "why-first", "-p", 3, "--step", "--record", rec, input="\n\nq\n")
    assert r.exit_code == 0, r.output
    assert r.stdout.count("\n") == 3 and "[Enter: next, q: stop]" in r.output
    assert f"go on with: pitwall resume {rec}" in r.output
    more = invoke("resume", rec, "--step", input="\nq\n")
    assert more.exit_code == 0 and "--- the game goes on" in more.output
    done = invoke("resume", rec)
    assert done.exit_code == 0 and "Winners:" in done.stdout
    assert invoke("replay", rec).exit_code == 0


def test_outline_lists_what_a_variant_can_change_with_its_place():
    folder = find_game("street-illegal").path

    def line_of(file, text):  # where the declaration really is, so the test follows edits of the rules
        lines = (folder / file).read_text(encoding="utf-8").splitlines()
        return f"{file}:{next(i for i, line in enumerate(lines, 1) if line.startswith(text))}"

    def place(output, start):
        return next(line for line in output.splitlines() if line.strip().startswith(start)).split()[-1]

    r = invoke("outline", "street-illegal")
    assert r.exit_code == 0, r.output
    assert place(r.output, "START_CHIPS = 3") == line_of("rules.pw", "const START_CHIPS")
    assert place(r.output, "races = 1") == line_of("rules.pw", "setting races") and "(from 1 to 500)" in r.output
    assert "duel(a: Driver, f: Driver) -> bool" in r.output and "pro_third(first_two: int) -> bool" in r.output
    assert "slot_pile(d: Driver, s: Slot) -> pile of Tempo" in r.output
    assert place(r.output, "tempo_cards of Tempo") == line_of("cards.pw", "deck tempo_cards")
    assert place(r.output, "equal_duel(") == line_of("rules.pw", "rule equal_duel")
    with_variant = invoke("outline", "street-illegal", "-v", "nitrous_oxide").output
    assert place(with_variant, "equal_duel(") == line_of("variants/nitrous_oxide.pw", "replace rule equal_duel")


def test_a_variant_that_undoes_an_earlier_ones_change_is_warned_about(tmp_path, monkeypatch):
    monkeypatch.chdir(Path(__file__).resolve().parents[1])  # the checkout, for docs/examples
    lost = invoke("play", "street-illegal", "-p", 3, "-v", "docs/examples/sponsors.pw",
                  "-v", "tactical_starting_positions")
    assert lost.exit_code == 0, lost.output
    assert ("warning: variant 'tactical_starting_positions' replaces rule 'seat_cars', which variant 'sponsors' "
            "extended: that change is lost") in lost.output
    assert "apply tactical_starting_positions first" in lost.output
    assert "sponsor pays" not in lost.stdout
    kept = invoke("play", "street-illegal", "-p", 3, "-v", "tactical_starting_positions",
                  "-v", "docs/examples/sponsors.pw")
    assert kept.exit_code == 0 and "warning" not in kept.output and "sponsor pays" in kept.stdout
    twice = tmp_path / "twice.pw"
    twice.write_text('variant twice "Twice"\nreplace function pro_third(first_two: int) -> bool = false\n')
    combined = invoke("outline", "street-illegal", "-v", "better_old_pros", "-v", str(twice))
    assert "which variant 'better_old_pros' replaced: that change is lost" in combined.output
    assert "cannot be combined" in combined.output


SNAPSHOT_GAME = """game snapshot "Snapshot" { players P 1 to 1  score pts  play main }
participant P { pts: int = 0 }
participant Bot { mood: int = 3 }
global bot: Bot
event has(p: P) "{p} has {p.pts} points."
rule main() {
    bot = new Bot("Robo")
    emit has(players[0])
    players[0].pts = 50
    emit has(players[0])
    finish players
}
"""


def test_a_record_keeps_the_words_of_the_moment_and_other_kinds_need_no_score(tmp_path, monkeypatch):
    # The template reads a field that changes later: the record keeps what was true when it was told.
    add_game(tmp_path, monkeypatch, "snapshot", SNAPSHOT_GAME)
    rec = tmp_path / "snapshot.jsonl"
    r = invoke("play", "snapshot", "--record", rec)
    assert r.exit_code == 0, r.output
    texts = [json.loads(line).get("text") for line in rec.read_text().splitlines()]
    assert texts[1:3] == ["Player 1 has 0 points.", "Player 1 has 50 points."]
    assert invoke("replay", rec).exit_code == 0
    sim = invoke("simulate", "snapshot", "-n", 3, "--json")  # Robo is no P: it has no 'pts' to score
    assert sim.exit_code == 0, sim.output
    assert [row["name"] for row in json.loads(sim.stdout)["participants"]] == ["Player 1"]


def test_check_reports_every_file_and_then_checks_variants_together(tmp_path):
    a, b, broken = tmp_path / "a.pw", tmp_path / "b.pw", tmp_path / "broken.pw"
    a.write_text('variant a "A"\nevent told(n: int) "A {n}"\n')
    b.write_text('variant b "B"\nevent told(n: int) "B {n}"\n')
    broken.write_text('variant broken "Broken"\nreplace const NO_SUCH = 1\n')
    r = invoke("check", "--game", "why-first", broken, a, b)
    assert r.exit_code == 2
    assert "there is no 'NO_SUCH' to replace" in r.output  # the first file fails ...
    assert f"{a}: ok" in r.output and f"{b}: ok" in r.output  # ... the others are still checked alone
    assert "'told' is already defined" in r.output  # and together they clash
    ok = invoke("check", "--game", "why-first", a)
    assert ok.exit_code == 0 and "together" not in ok.output


def test_a_human_can_stop_with_q_and_resume_later(tmp_path):
    rec = tmp_path / "game.jsonl"
    r = invoke("play", "why-first", "-p", 3, "--agent", "human", "--record", rec, input="1\n1\nq\n")
    assert r.exit_code == 0, r.output
    assert "q to stop" in r.output and f"go on with: pitwall resume {rec}" in r.output
    done = invoke("resume", rec, input="1\n" * 500)
    assert done.exit_code == 0 and "Winners:" in done.stdout
    alone = invoke("play", "why-first", "--agent", "human", input="q\n")
    assert alone.exit_code == 0 and "Stopped." in alone.output


def test_a_failing_simulation_names_the_seed_to_replay(tmp_path, monkeypatch):
    add_game(tmp_path, monkeypatch, "failing", FAILING_GAME)
    r = invoke("simulate", "failing", "-n", 3, "--seed", 5)
    assert r.exit_code == 2 and "division by zero" in r.output
    assert "game of seed 5; this plays it again:" in r.output
    again = next(line.strip() for line in r.output.splitlines() if line.strip().startswith("pitwall play"))
    assert "--seed 5" in again
    replayed = invoke(*shlex.split(again)[1:])  # the whole command: the same failure, alone
    assert replayed.exit_code == 2 and "division by zero" in replayed.output


def test_compare_marks_events_a_configuration_does_not_have():
    r = invoke("compare", "street-illegal", "-p", 3, "-n", 5, "--with", "nitrous_oxide", "--events")
    assert r.exit_code == 0, r.output
    row = next(line for line in r.output.splitlines() if "│ nitrous " in line)
    assert row.split("│")[2].strip() == "-"  # the base game has no such event


def test_outline_shows_where_a_rule_is_extended():
    r = invoke("outline", "street-illegal", "-v", "solo_play")
    assert r.exit_code == 0, r.output
    line = next(x for x in r.output.splitlines() if x.strip().startswith("deal_cards()"))
    assert "(extended at variants/solo_play.pw:" in line


def test_a_persons_prompts_say_what_is_at_stake_in_the_games_words():
    r = invoke("play", "street-illegal", "-p", "1", "--seed", "3", "--agent", "human", input="1\n" * 400 + "q\n")
    assert "which face-up card to replace (left " in r.output  # the cards, not just left/middle/right
    assert "chip(s)" not in r.output and "?:" not in r.output
    w = invoke("play", "why-first", "-p", "3", "--seed", "2", "--agent", "human", input="1\n1\nq\n")
    assert "Would win now (second-highest total" in w.output and " 1 cards" not in w.output


@pytest.mark.parametrize("module", ["pitwall", "pitwall.cli"])
def test_python_dash_m_has_every_command_of_pitwall(module, tmp_path):
    # `python -m pitwall.cli` runs cli.py as __main__, a module apart from the one cli_many adds
    # simulate, compare, sweep and report to: it used to answer "No such command 'simulate'"
    import subprocess
    import sys

    from pitwall.cli import cli

    run = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    listed = {line.split()[0] for line in run.stdout.split("Commands:")[1].splitlines() if line.strip()}
    assert listed == set(cli.commands) and {"simulate", "compare", "sweep", "report"} <= listed
    played = subprocess.run([sys.executable, "-m", module, "simulate", "why-first", "-n", "2", "--json"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["games"] == 2
