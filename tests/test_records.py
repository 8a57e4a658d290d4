"""Records: written line by line as the game goes (and kept however it stops), read strictly
(every key, type, length and nesting checked, each error at its line and column), agents in the
header checked against the decisions; and the command line's bounds (seeds, games, names)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from pitwall.cli import cli
from pitwall.interpreter.engine import new_game, player_names
from pitwall.interpreter.errors import RecordError
from pitwall.interpreter.limits import GAMES_MAX, RECORD_DEPTH_MAX, RECORD_LINE_MAX, SEED_MAX
from pitwall.interpreter.load import load
from pitwall.interpreter.record import read, record_lines

PITWALL = [sys.executable, "-m", "pitwall.cli"]
LIMIT = 15  # seconds any one process may take


def invoke(*args, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


def run(*args, input: str = "", cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(PITWALL + [str(a) for a in args], input=input, capture_output=True, text=True,
                          timeout=LIMIT, cwd=cwd)


def assert_user_error(r, *parts: str) -> None:
    """Exit 2, the parts in the output, and none of Python's own words."""
    assert r.exit_code == 2, r.output
    for part in parts:
        assert part in r.output, r.output
    assert "Traceback" not in r.output and "Exception" not in r.output


def played(tmp_path: Path, *args, name: str = "game.jsonl") -> Path:
    rec = tmp_path / name
    r = invoke("play", *args, "--record", rec)
    assert r.exit_code == 0, r.output
    return rec


def whole_game(tmp_path: Path, *args) -> bytes:
    """The record of the same game played without interruption."""
    return played(tmp_path, *args, name="whole.jsonl").read_bytes()


# ---------------------------------------------------------------- 1. written as the game goes
GAME = ("why-first", "-p", "3", "--seed", "4")


def _wait_for_lines(path: Path, events: int, p: subprocess.Popen) -> None:
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        if path.exists() and path.read_text(encoding="utf-8").count('"event"') >= events:
            return
        assert p.poll() is None, p.stderr.read()
        time.sleep(0.05)
    raise AssertionError(f"the record never got {events} events")


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGKILL],
                         ids=lambda s: s.name)
def test_a_game_killed_while_it_waits_keeps_its_record_and_resume_completes_it(tmp_path, sig):
    rec = tmp_path / "r.jsonl"
    # SIGINT at its default, as in a terminal: a test run started in the background by a shell
    # without job control ignores it, and a child would inherit that (Python leaves it ignored)
    p = subprocess.Popen(PITWALL + ["play", *GAME, "--step", "--record", str(rec)], stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                         preexec_fn=_default_sigint)
    try:
        p.stdin.write("\n" * 5)  # five events on; then it waits at the sixth, its stdin held open
        p.stdin.flush()
        _wait_for_lines(rec, 6, p)
        time.sleep(0.1)
        p.send_signal(sig)
        code = p.wait(timeout=5)  # promptly
        err = p.stderr.read()
    finally:
        p.kill()
        p.stdin.close()
        p.stderr.close()
    assert "Traceback" not in err and "Exception" not in err, err
    if sig in (signal.SIGTERM, signal.SIGHUP):  # a clean exit, with one line to say so
        assert code == 128 + sig, err
        assert err.splitlines()[-1] == (f"Stopped by {sig.name}; the game so far is in {rec}: "
                                        f"pitwall resume {rec} goes on")
    lines = rec.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["record"] == "pitwall" and sum('"event"' in line for line in lines) >= 6
    resumed = run("resume", rec, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "--- the game goes on" in resumed.stdout and "Winners:" in resumed.stdout
    assert rec.read_bytes() == whole_game(tmp_path, *GAME)  # as if it had never stopped
    assert invoke("replay", rec).exit_code == 0


def test_a_closed_stdout_is_a_quiet_exit_and_the_record_keeps_every_line_so_far(tmp_path):
    # Narrating every decision of three races is far more than a pipe holds: the pipe must break.
    game = ("street-illegal", "-p", "3", "--races", "3", "--decisions")
    p = subprocess.Popen(PITWALL + ["play", *game, "--record", "r.jsonl"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=tmp_path)
    first = p.stdout.readline()  # as `| head -1` does
    p.stdout.close()
    code = p.wait(timeout=LIMIT)
    err = p.stderr.read().decode()
    p.stderr.close()
    assert first and code == 1 and err == ""  # no traceback, no "Exception ignored"
    kept = (tmp_path / "r.jsonl").read_bytes()
    whole = whole_game(tmp_path, *game)
    assert len(kept.splitlines()) > 1 and whole.startswith(kept) and kept.endswith(b"\n")
    assert run("resume", "r.jsonl", cwd=tmp_path).returncode == 0
    assert (tmp_path / "r.jsonl").read_bytes() == whole


def test_each_line_is_on_disk_the_moment_it_happens(tmp_path, monkeypatch):
    """Seen from inside the game: at each --step pause, the record holds every event told so far."""
    import pitwall.cli as pitwall_cli

    rec = tmp_path / "r.jsonl"
    seen = []
    monkeypatch.setattr(pitwall_cli, "_wait_for_reader", lambda: seen.append(rec.read_text(encoding="utf-8")))
    r = invoke("play", *GAME, "--step", "--record", rec)
    assert r.exit_code == 0, r.output
    assert len(seen) > 50
    for told, text in enumerate(seen, 1):
        assert text.count('"event"') == told and text.endswith("\n")
    assert rec.read_text(encoding="utf-8").startswith(seen[-1])


def test_the_streamed_record_is_byte_for_byte_the_one_the_game_log_makes(tmp_path):
    rec = played(tmp_path, "street-illegal", "-p", "4", "--seed", "3", "--agent", "random")
    loaded = load("street_illegal")
    game, header = new_game(loaded, player_names(loaded, 4), ["random"] * 4, 3)
    game.run()
    assert game.log  # callers that read game.log still can
    assert rec.read_text(encoding="utf-8") == "\n".join(record_lines(game, header)) + "\n"


@pytest.mark.parametrize("args", [
    ("--agent", "genius"),
    ("--seed", "7" * 5000),
    ("--players", "9"),
    ("--names", "Anne,Anne,Ben"),
    ("--set", "no_such_setting=1"),
])
def test_an_earlier_record_is_kept_when_the_new_game_never_starts(tmp_path, args):
    rec = tmp_path / "r.jsonl"
    rec.write_text("an earlier game\n", encoding="utf-8")
    r = invoke("play", "why-first", "--record", rec, *args)
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert rec.read_text(encoding="utf-8") == "an earlier game\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl"]  # no temporary file left behind


def test_an_earlier_record_is_replaced_once_the_new_game_starts(tmp_path):
    rec = tmp_path / "r.jsonl"
    rec.write_text("an earlier game\n", encoding="utf-8")
    os.chmod(rec, 0o640)
    r = invoke("play", *GAME, "--step", "--record", rec, input="q\n")
    assert r.exit_code == 0, r.output
    assert json.loads(rec.read_text(encoding="utf-8").splitlines()[0])["seed"] == 4
    assert oct(os.stat(rec).st_mode & 0o777) == "0o640"  # the file keeps its permissions
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl"]


def test_a_record_to_a_device_or_through_a_link_is_written_there(tmp_path):
    assert invoke("play", *GAME, "--record", os.devnull).exit_code == 0
    target = tmp_path / "games" / "today.jsonl"
    target.parent.mkdir()
    link = tmp_path / "latest.jsonl"
    link.symlink_to(target)
    assert invoke("play", *GAME, "--record", link).exit_code == 0
    assert link.is_symlink() and target.read_text(encoding="utf-8").startswith('{"record":"pitwall"')


def test_a_line_that_could_not_be_read_back_is_never_written(tmp_path):
    from pitwall.interpreter.record import Header, RecordWriter

    rec = tmp_path / "r.jsonl"
    too_long = Header("why_first", (), "hash", 1, ("x" * RECORD_LINE_MAX, "Ben"), ("first", "first"))
    with pytest.raises(RecordError, match="line 1 of the record cannot be written: this line is") as e:
        RecordWriter.create(rec, too_long)
    assert e.value.span.line == 1 and list(tmp_path.iterdir()) == []  # nothing written, nothing left behind
    with RecordWriter.create(rec, Header("why_first", (), "hash", 1, ("Anne", "Ben"), ("first", "first"))) as w:
        with pytest.raises(RecordError, match=f"line 2 of the record cannot be written: lists and objects nested "
                                              f"more than {RECORD_DEPTH_MAX} deep"):
            w.write({"event": "x", "text": "", "args": {"a": [[[[[[[1]]]]]]]}})
        w.write({"event": "x", "text": "", "args": {"name": "B\udcffn"}})  # not UTF-8: escaped, read back the same
    assert read(rec).body == [{"event": "x", "text": "", "args": {"name": "B\udcffn"}}]


def _cut(rec: Path, keep: int, line: int | None = None) -> int:
    """The record as a game killed while writing a line leaves it: the lines before it, and `keep`
    bytes of it (a negative keep counts from its end). The cut line's number."""
    lines = rec.read_bytes().splitlines(keepends=True)
    line = len(lines) if line is None else line
    rec.write_bytes(b"".join(lines[: line - 1]) + lines[line - 1].rstrip(b"\n")[:keep])
    return line


@pytest.mark.parametrize("how", ["mid-line", "mid-character", "newline only"])
def test_resume_goes_on_after_a_cut_last_line(tmp_path, how):
    game = ("why-first", "-p", "3", "--seed", "4", "--names", "Zoë,Ünal,Chris")  # lines with 2-byte characters
    rec = tmp_path / "r.jsonl"
    r = invoke("play", *game, "--step", "--record", rec, input="\n" * 8)
    assert r.exit_code == 0, r.output
    lines = rec.read_bytes().splitlines()
    n = max(i for i, line in enumerate(lines, 1) if "ë".encode() in line)
    keep = {"mid-line": 20, "mid-character": lines[n - 1].index("ë".encode()) + 1, "newline only": None}[how]
    _cut(rec, keep, n)
    resumed = invoke("resume", rec)
    assert resumed.exit_code == 0, resumed.output
    if how == "newline only":  # a whole line without its newline is a line
        assert "warning" not in resumed.output
    else:
        assert f"r.jsonl:{n}:" in resumed.output and "warning: the last line stops mid-way" in resumed.output
        assert "it is left out" in resumed.output
    assert rec.read_bytes() == whole_game(tmp_path, *game)
    assert invoke("replay", rec).exit_code == 0


def test_replay_of_a_cut_record_says_where_it_ends_and_that_resume_goes_on(tmp_path):
    rec = tmp_path / "r.jsonl"
    invoke("play", *GAME, "--step", "--record", rec, input="\n" * 4)
    n = _cut(rec, 10)
    r = invoke("replay", rec)
    assert_user_error(r, f"r.jsonl:{n}:", "warning: the last line stops mid-way",
                      f"r.jsonl:{n - 1}:1: error: the record ends after this line, but the game goes on",
                      f"hint: a game stopped part-way: pitwall resume {rec} plays it on")
    with pytest.raises(RecordError, match="stops mid-way"):  # the library, with nobody to warn: an error
        read(rec)


def test_resume_writes_on_line_by_line_and_keeps_the_game_when_it_stops_again(tmp_path):
    rec = tmp_path / "r.jsonl"
    invoke("play", *GAME, "--step", "--record", rec, input="\n" * 3)
    first = rec.read_bytes()
    again = invoke("resume", rec, "--step", input="\n" * 3)
    assert again.exit_code == 0 and f"go on with: pitwall resume {rec}" in again.output
    second = rec.read_bytes()
    assert second.startswith(first) and len(second) > len(first)
    assert invoke("resume", rec).exit_code == 0
    assert rec.read_bytes() == whole_game(tmp_path, *GAME)


def test_resume_with_random_agents_goes_on_as_if_never_stopped(tmp_path):
    game = ("street-illegal", "-p", "3", "--seed", "8", "--agent", "random")
    rec = tmp_path / "r.jsonl"
    assert invoke("play", *game, "--step", "--record", rec, input="\n" * 12).exit_code == 0
    assert invoke("resume", rec).exit_code == 0
    assert rec.read_bytes() == whole_game(tmp_path, *game)


# ---------------------------------------------------------------- agents in the header
def _edit_header(rec: Path, **changes) -> None:
    lines = rec.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header.update(changes)
    rec.write_text("\n".join([json.dumps(header, separators=(",", ":"))] + lines[1:]) + "\n", encoding="utf-8")


@pytest.mark.parametrize("played_by, forged", [("random", "first"), ("first", "random"), ("random", "heuristic"),
                                               ("heuristic", "first")])
def test_a_header_naming_other_agents_than_played_is_refused_at_the_first_decision_they_differ(
        tmp_path, played_by, forged):
    rec = played(tmp_path, "why-first", "-p", "3", "--seed", "5", "--agent", played_by)
    _edit_header(rec, agents=[played_by, forged, played_by])
    r = invoke("replay", rec)
    assert_user_error(r, "error: Ben's agent", f"{forged!r} picks option",
                      "hint: the record's header says Ben is played by")
    line = int(r.output.split("game.jsonl:")[1].split(":")[0])
    assert json.loads(rec.read_text(encoding="utf-8").splitlines()[line - 1])["by"] == "Ben"
    assert '"pick":' in r.output and "^" in r.output


def test_a_human_seat_can_pick_anything_and_resume_says_who_plays_on(tmp_path):
    game = (*GAME[:-2], "--seed", "6", "--agent", "random")
    rec = tmp_path / "r.jsonl"
    invoke("play", *game, "--step", "--record", rec, input="\n" * 6)
    _edit_header(rec, agents=["random", "human", "random"])  # forged: a person for a random seat
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(rec.read_bytes())
    r = invoke("resume", rec, input="1\n" * 300)
    assert r.exit_code == 0, r.output
    assert "r.jsonl:1:" in r.output
    assert "warning: the record's header says a person plays on for Ben (seat 2)" in r.output
    assert "hint: --agent 2=AGENT plays the seat on with an agent that could have made" in r.output
    replayed = invoke("replay", rec)
    assert replayed.exit_code == 0 and "Ben (human) could pick anything" in replayed.output
    undone = invoke("resume", copy, "--agent", "2=random")  # the seat back to its agent: nothing to warn of
    assert undone.exit_code == 0 and "warning" not in undone.output, undone.output
    assert copy.read_bytes() == whole_game(tmp_path, *game)


def test_resume_plays_on_with_other_agents_only_if_they_could_have_made_the_decisions(tmp_path):
    rec = tmp_path / "r.jsonl"
    invoke("play", *GAME, "--step", "--record", rec, input="\n" * 8)  # heuristic seats
    before = rec.read_bytes()
    refused = invoke("resume", rec, "--agent", "2=random")
    assert_user_error(refused, "error: Ben's agent 'random' picks option",
                      "hint: Ben can play on only as an agent that could have made its decisions so far: "
                      "--agent 2=human takes the seat over")
    assert rec.read_bytes() == before  # nothing written
    taken = invoke("resume", rec, "--agent", "2=human", input="1\n" * 300)
    assert taken.exit_code == 0, taken.output
    assert json.loads(rec.read_text(encoding="utf-8").splitlines()[0])["agents"] == ["heuristic", "human",
                                                                                     "heuristic"]
    assert invoke("replay", rec).exit_code == 0


def test_resume_agent_option_is_checked_like_plays(tmp_path):
    rec = tmp_path / "r.jsonl"
    invoke("play", *GAME, "--step", "--record", rec, input="\n")
    assert_user_error(invoke("resume", rec, "--agent", "7=random"), "seat must be 1 to 3")
    assert_user_error(invoke("resume", rec, "--agent", "genius"), "unknown agent 'genius'")


# ---------------------------------------------------------------- 2. read strictly
def _header_text(tmp_path: Path) -> str:
    rec = played(tmp_path, *GAME, name="base.jsonl")
    return rec.read_text(encoding="utf-8")


def _tampered(tmp_path: Path, old: str, new: str, line: int = 1) -> Path:
    """The game's record with `old` (a regular expression) replaced once on one line."""
    lines = _header_text(tmp_path).splitlines()
    assert re.search(old, lines[line - 1]), lines[line - 1]
    lines[line - 1] = re.sub(old, lambda _: new, lines[line - 1], count=1)
    rec = tmp_path / "game.jsonl"
    rec.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return rec


def _col(text: str, at: str) -> int:
    """The column of `at` in the line; 'BEFORE|AT' is the AT that follows BEFORE."""
    before, _, at = at.rpartition("|")
    return text.index(before + at) + len(before) + 1


@pytest.mark.parametrize("old, new, at, message", [
    ('"version":1', '"version":1,"evil":"x"', '"evil"', "unknown key 'evil' in the header"),
    ('"version":1', '"version":true', "true", "the header's 'version' must be a whole number, not true"),
    ('"version":1', '"version":1.0', "1.0", "the header's 'version' must be a whole number, not 1.0"),
    ('"version":1', '"version":2', "2,", "this is a version 2 record"),
    ('"seed":4', '"seed":4.0', "4.0", "the header's 'seed' must be a whole number, not 4.0"),
    ('"seed":4', '"seed":true', "true", "the header's 'seed' must be a whole number, not true"),
    ('"seed":4', '"seed":-4', "-4", "the header's 'seed' must be 0 to 9223372036854775807, not -4"),
    ('"seed":4', f'"seed":{SEED_MAX + 1}', str(SEED_MAX + 1), "the header's 'seed' must be 0 to"),
    ('"seed":4', f'"seed":{2**64}', str(2**64), "'seed' is a number of 20 digits"),
    ('"seed":4', '"seed":' + "7" * 5000, "7" * 20, "'seed' is a number of 5000 digits"),
    ('"seed":4', '"seed":NaN', "NaN", "'seed' is NaN, which is not a JSON number"),
    ('"seed":4', '"seed":5,"seed":4', '5,|"seed"', "the key 'seed' is given twice"),
    ('"players":["Anne"', '"players":["An\\u0007ne"', '"An', "each of the header's 'players' holds the control"),
    ('"players":["Anne"', '"players":["An\\ud800ne"', '"An', "each of the header's 'players' is not UTF-8 text"),
    ('"players":["Anne"', '"players":[" "', '" "', "each of the header's 'players' is empty"),
    ('"players":["Anne"', '"players":["Ben"', '"Ben",|"Ben"', "the player name 'Ben' is given twice"),
    ('"players":["Anne"', '"players":[7', "[|7", "the header's 'players' must be a list of texts, not one holding 7"),
    ('"agents":["heuristic",', '"agents":[', '["heuristic"', "2 agents for 3 players"),
    ('"agents":["heuristic"', '"agents":["genius"', '"genius"', "unknown agent 'genius'"),
    ('"game":"why_first"', '"game":"chess"', '"chess"', "no game named 'chess'"),
    ('"variants":[]', '"variants":["turbo"]', '["turbo"]', "why_first has no variant 'turbo'"),
    ('"variants":[]', '"variants":[],"settings":{"laps":"3"}', '{"laps"', "Why First? has no setting 'laps'"),
    ('"variants":[]', '"variants":[],"settings":{"laps":3}', "3}", "the setting 'laps' must be a text, not 3"),
    ('"rules_hash":"', '"rules_hash":"0', '"rules_hash":|"0', "the record was made with other rules"),
    ('"record":"pitwall",', "", '{"version"', "not a Pitwall game record"),
])
def test_a_bad_header_is_refused_at_its_line_and_column(tmp_path, old, new, at, message):
    rec = _tampered(tmp_path, re.escape(old), new)
    text = rec.read_text(encoding="utf-8").splitlines()[0]
    stopped = tmp_path / "stopped" / "game.jsonl"  # the same game stopped before its result, to resume
    stopped.parent.mkdir()
    stopped.write_text("".join(rec.read_text(encoding="utf-8").splitlines(keepends=True)[:-1]), encoding="utf-8")
    for command, path in (("replay", rec), ("resume", stopped)):
        r = invoke(command, path)
        col = _col(text, at)
        assert_user_error(r, f"game.jsonl:1:{col}: error: {message}", "  hint: ")
        caret = next(line for line in r.output.splitlines() if line.strip().startswith("^"))
        assert "^" in caret and "Traceback" not in r.output


def _body(tmp_path: Path, key: str) -> tuple[Path, int]:
    lines = _header_text(tmp_path).splitlines()
    n = next(i for i, line in enumerate(lines, 1) if key in line)
    return tmp_path / "game.jsonl", n


@pytest.mark.parametrize("key, old, new, at, message", [
    ('"decision"', '"pick":', '"evil":1,"pick":', '"evil"', "unknown key 'evil' in the decision"),
    ('"decision"', r'"secret":(true|false)', '"secret":0', "0}", "the decision's 'secret' must be true or false"),
    ('"decision"', r'"of":\d+', '"of":true', "true", "the decision's 'of' must be a whole number, not true"),
    ('"decision"', r',"secret":(true|false)', "", "{", "the decision has no 'secret'"),
    ('"decision"', '"pick":', '"pick":9,"pick":', '9,|"pick"', "the key 'pick' is given twice"),
    ('"decision"', '"pick":', '"pick":' + "9" * 5000 + ',"x":', "9" * 20, "'pick' is a number of 5000 digits"),
    ('"event"', r'"args":\{[^}]*\}\}$', '"args":7}', ":|7}", "the event's 'args' must be an object {...}, not 7"),
    ('"event"', '"text":', '"text":"forged","text":', '"forged",|"text"', "the key 'text' is given twice"),
    ('"result"', r'"winners":\[', '"winners":[7,', "[|7,", "a winner is named by a text, not 7"),
    ('"result"', r'\{"result":', '{"outcome":', "{", "a record line is a decision, an event or the result"),
])
def test_a_bad_line_after_the_header_is_refused_at_its_line_and_column(tmp_path, key, old, new, at, message):
    rec, n = _body(tmp_path, key)
    rec = _tampered(tmp_path, old, new, n)
    text = rec.read_text(encoding="utf-8").splitlines()[n - 1]
    r = invoke("replay", rec)
    assert_user_error(r, f"game.jsonl:{n}:{_col(text, at)}: error: {message}", "  hint: ")


@pytest.mark.parametrize("old, new", [('"stage":1}', '"stage":true}'), ('"stage":1}', '"stage":1.0}')])
def test_a_value_that_only_compares_equal_is_a_divergence(tmp_path, old, new):
    rec = _tampered(tmp_path, old, new, 2)
    r = invoke("replay", rec)
    col = _col(rec.read_text(encoding="utf-8").splitlines()[1], '"stage":|' + new[8:-1])
    assert_user_error(r, f"game.jsonl:2:{col}: error: the replay diverges here",
                      f"hint: the record has {new[8:-1]}, the game now tells 1")


def test_lines_too_long_too_deep_or_not_utf8_are_refused_before_parsing(tmp_path):
    head = _header_text(tmp_path).splitlines()[0]
    rec = tmp_path / "game.jsonl"
    deep = '{"event":"x","text":"y","args":{"a":'  # two levels, then lists: the first one too many is refused
    cases = [
        ('{"event":"' + "x" * RECORD_LINE_MAX + '"}', f"game.jsonl:2:{RECORD_LINE_MAX + 1}: error: this line is",
         "characters long; a record line holds at most"),
        (deep + "[" * 100_000 + "]" * 100_000 + "}}",
         f"game.jsonl:2:{len(deep) + RECORD_DEPTH_MAX - 1}: error: lists and objects nested more than", "deep"),
        (head, "game.jsonl:2:1: error: a record line is a decision, an event or the result", "hint: the first"),
        ('{"event":"x","text":"[[[[[[[[[[[[","args":{}}\n{"event":"caf\xe9"}', "game.jsonl:3:14: error: not UTF-8",
         "hint: save the record as UTF-8"),
    ]
    for body, where, what in cases:
        data = (head + "\n" + body + "\n").encode("utf-8")
        if "caf\xe9" in body:
            data = data.replace("caf\xe9".encode(), b"caf\xe9")
        rec.write_bytes(data)
        r = invoke("replay", rec)
        assert_user_error(r, where, what)
        assert len(r.output) < 2000  # the line is shown around the column, not whole


def test_a_line_after_the_result_or_a_blank_line_in_the_middle_is_refused(tmp_path):
    lines = _header_text(tmp_path).splitlines()
    rec = tmp_path / "game.jsonl"
    rec.write_text("\n".join(lines + [lines[1]]) + "\n", encoding="utf-8")
    assert_user_error(invoke("replay", rec), f"game.jsonl:{len(lines) + 1}:1: error: the record goes on after")
    rec.write_text("\n".join(lines[:3] + [""] + lines[3:]) + "\n\n\n", encoding="utf-8")
    assert_user_error(invoke("replay", rec), "game.jsonl:4:1: error: an empty line in the middle")
    rec.write_text("\n".join(lines) + "\n\n\n", encoding="utf-8")  # blank lines at the end are fine
    assert invoke("replay", rec).exit_code == 0
    rec.write_text("", encoding="utf-8")
    assert_user_error(invoke("replay", rec), "game.jsonl:1:1: error:", "holds no record")


def test_read_gives_the_span_of_the_error(tmp_path):
    rec = _tampered(tmp_path, '"seed":4', '"seed":true')
    with pytest.raises(RecordError) as e:
        read(rec)
    col = _col(rec.read_text(encoding="utf-8"), "true")
    assert (e.value.span.file, e.value.span.line, e.value.span.col, e.value.span.end_col) == (
        str(rec), 1, col, col + 4)


def test_control_characters_in_a_record_never_reach_the_terminal(tmp_path):
    rec = _tampered(tmp_path, '"version":1', '"version":1,"\\u001b[31mred":1')
    r = invoke("replay", rec)
    assert_user_error(r, "unknown key '\\x1b[31mred'")
    assert "\x1b" not in r.output
    raw = _tampered(tmp_path, '"version":1', '"version":1,"\x1b[31mred":1')  # not even JSON
    r = invoke("replay", raw)
    assert_user_error(r, "game.jsonl:1:", "error: not a JSON line (Invalid control character", '"?[31mred"')
    assert "\x1b" not in r.output


# ---------------------------------------------------------------- 3. command-line bounds
@pytest.mark.parametrize("seed", ["7" * 5000, "-1", str(SEED_MAX + 1), "1e3", "x"])
def test_a_seed_out_of_bounds_is_a_usage_error(seed):
    r = invoke("play", "why-first", "--seed", seed)
    assert_user_error(r, "Invalid value for '--seed'", f"from 0 to {SEED_MAX}")
    assert "7" * 30 not in r.output  # never echoed whole


def test_the_largest_seed_plays_and_records(tmp_path):
    rec = played(tmp_path, "why-first", "--seed", SEED_MAX)
    assert json.loads(rec.read_text(encoding="utf-8").splitlines()[0])["seed"] == SEED_MAX
    assert invoke("replay", rec).exit_code == 0


@pytest.mark.parametrize("command", [("simulate", "why-first"), ("compare", "why-first", "--with", "tactical")])
def test_games_are_at_most_games_max_and_seeds_stay_within_seed_max(command):
    assert_user_error(invoke(*command, "-n", GAMES_MAX + 1), "Invalid value for '--games'",
                      f"is not from 1 to {GAMES_MAX}")
    assert_user_error(invoke(*command, "-n", "9" * 5000), "Invalid value for '--games'")
    assert_user_error(invoke(*command, "-n", 5, "--seed", SEED_MAX - 2), "Invalid value for --seed",
                      f"5 games from seed {SEED_MAX - 2} would play seeds past {SEED_MAX}")
    assert f"at most {GAMES_MAX}" in " ".join(invoke(*command, "--help").output.split())


@pytest.mark.parametrize("names, problem", [
    ("Anne,B\udcffn", "the player name 'B\\udcffn' is not UTF-8 text"),
    ("Anne,B\x1bn", "the player name 'B\\x1bn' holds the control character '\\x1b'"),
    ("Anne,B\u2028n", "the player name 'B\\u2028n' holds the control character '\\u2028'"),
])
def test_player_names_must_be_text(names, problem):
    r = invoke("play", "why-first", "--names", names)
    assert_user_error(r, f"error: {problem}", "hint: --names takes UTF-8 names")


def test_a_name_that_is_not_utf8_from_the_shell_is_refused(tmp_path):
    r = subprocess.run(PITWALL + ["play", "why-first", "--names", os.fsdecode(b"Anne,B\xffn")], capture_output=True,
                       timeout=LIMIT, cwd=tmp_path)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 2 and "is not UTF-8 text" in err and "Traceback" not in err


def test_a_header_naming_a_game_the_system_cannot_even_look_up_is_a_record_error(tmp_path):
    rec = _tampered(tmp_path, '"game":"why_first"', '"game":"' + "7" * 5000 + '"')
    col = _col(rec.read_text(encoding="utf-8"), '"game":|"777')
    r = invoke("replay", rec)
    assert_user_error(r, f"game.jsonl:1:{col}: error:", "game")
    assert len(r.output) < 2000
