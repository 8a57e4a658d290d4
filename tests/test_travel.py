"""Records travel: the header keeps every rules file's name and hash (and the text of a variant
file of one's own), says which file changed, and `replay --rules-changed` shows what a change
of the rules does to a recorded game."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from pitwall.cli import cli
from pitwall.interpreter.load import find_game, load

WHY_FIRST = find_game("why-first").path
OWN_VARIANT = 'variant rich "Rich start"\n\n# more chips\nreplace const START_CHIPS = 5\n'


def invoke(*args, input=None):
    load.cache_clear()  # each command is a process of its own, which reads the rules files as they are then
    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


@pytest.fixture(autouse=True)
def _fresh_rules():
    yield
    load.cache_clear()  # the games edited here are gone: no later test may get their rules from the cache


def _short(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _header(rec: Path) -> dict:
    return json.loads(rec.read_text(encoding="utf-8").splitlines()[0])


def _set_header(rec: Path, header: dict) -> None:
    lines = rec.read_text(encoding="utf-8").splitlines()
    lines[0] = json.dumps(header, ensure_ascii=False, separators=(",", ":"))
    rec.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _own_game(tmp_path: Path) -> Path:
    """A copy of Why First? as a game of one's own, to edit."""
    game = tmp_path / "mygame"
    shutil.copytree(WHY_FIRST, game)
    return game


def _played(tmp_path: Path, *args) -> Path:
    rec = tmp_path / "game.jsonl"
    r = invoke("play", *args, "--record", rec)
    assert r.exit_code == 0, r.output
    return rec


def test_the_header_names_each_rules_file_with_its_hash(tmp_path):
    rec = _played(tmp_path, "why-first", "-p", "3", "-v", "tactical")
    files = _header(rec)["files"]
    names = [f["file"] for f in files]
    assert "rules.pw" in names and names[-1] == "variants/tactical.pw"
    assert files[-1]["variant"] == "tactical" and "text" not in files[-1]
    rules = next(f for f in files if f["file"] == "rules.pw")
    assert rules["sha256"] == _short((WHY_FIRST / "rules.pw").read_text(encoding="utf-8"))


def test_a_variant_of_ones_own_replays_after_its_file_is_gone(tmp_path):
    variant = tmp_path / "elsewhere" / "rich.pw"
    variant.parent.mkdir()
    variant.write_text(OWN_VARIANT, encoding="utf-8")
    rec = _played(tmp_path, "street-illegal", "-p", "3", "--seed", "7", "-v", variant)
    header = _header(rec)
    assert header["variants"] == ["rich.pw"] and str(tmp_path) not in rec.read_text(encoding="utf-8").splitlines()[0]
    assert header["files"][-1] == {"file": "rich.pw", "sha256": _short(OWN_VARIANT), "variant": "rich.pw",
                                   "text": OWN_VARIANT}
    shutil.rmtree(variant.parent)
    r = invoke("replay", rec)
    assert r.exit_code == 0, r.output
    assert "Replay matches the record" in r.output
    r = invoke("replay", rec, "--rules-changed")
    assert r.exit_code == 0 and "Nothing differs" in r.output, r.output


def test_a_kept_text_that_does_not_match_its_hash_is_refused(tmp_path):
    variant = tmp_path / "rich.pw"
    variant.write_text(OWN_VARIANT, encoding="utf-8")
    rec = _played(tmp_path, "street-illegal", "-p", "3", "-v", variant)
    header = _header(rec)
    header["files"][-1]["text"] = OWN_VARIANT.replace("5", "9")
    _set_header(rec, header)
    r = invoke("replay", rec)
    assert r.exit_code == 2
    assert "game.jsonl:1:" in r.output and "error: the text of 'rich.pw' hashes to" in r.output


def test_an_edited_variant_is_named_with_both_hashes(tmp_path):
    game = _own_game(tmp_path)
    rec = _played(tmp_path, game, "-p", "3", "--seed", "2", "-v", "tactical")
    tactical = game / "variants" / "tactical.pw"
    before = tactical.read_text(encoding="utf-8")
    after = before.replace("reveals {card}", "shows {card}")
    assert after != before
    tactical.write_text(after, encoding="utf-8")
    r = invoke("replay", rec)
    assert r.exit_code == 2
    assert (f"mygame/variants/tactical.pw changed since the game was recorded (hash {_short(before)} "
            f"now {_short(after)})") in r.output
    assert "game.jsonl:1:" in r.output and "--rules-changed" in r.output and "^" in r.output


def test_a_changed_shipped_file_is_named_from_the_games_folder(tmp_path):
    rec = _played(tmp_path, "why-first", "-p", "2")
    header = _header(rec)
    i = next(i for i, f in enumerate(header["files"]) if f["file"] == "rules.pw")
    now = header["files"][i]["sha256"]
    header["files"][i]["sha256"] = "a1b2c3d4e5f6"
    _set_header(rec, header)
    r = invoke("replay", rec)
    assert r.exit_code == 2
    assert f"games/why_first/rules.pw changed since the game was recorded (hash a1b2c3d4e5f6 now {now})" in r.output


def test_rules_changed_shows_the_first_event_that_differs(tmp_path):
    game = _own_game(tmp_path)
    rec = _played(tmp_path, game, "-p", "3", "--seed", "2", "-v", "tactical")
    lines = rec.read_text(encoding="utf-8").splitlines()
    n, first = next((i, json.loads(line)) for i, line in enumerate(lines, 1) if '"event":"lays"' in line)
    tactical = game / "variants" / "tactical.pw"
    tactical.write_text(tactical.read_text(encoding="utf-8").replace("reveals {card}", "shows {card}"),
                        encoding="utf-8")
    r = invoke("replay", rec, "--rules-changed")
    assert r.exit_code == 1, r.output
    assert "variants/tactical.pw changed since the game was recorded" in r.output
    assert f"line {n} of {rec} differs" in r.output
    assert f"recorded: {first['text']}" in r.output
    assert f"now:      {first['text'].replace('reveals', 'shows')}" in r.output
    assert "recorded line: " + lines[n - 1] in r.output
    assert "new line:      " + lines[n - 1].replace("reveals", "shows") in r.output
    assert "Card round 1 of stage 1." in r.output  # narrated up to the difference


def test_rules_changed_with_unchanged_rules_exits_0(tmp_path):
    rec = _played(tmp_path, "why-first", "-p", "3", "--seed", "4", "-a", "random")
    r = invoke("replay", rec, "--rules-changed")
    assert r.exit_code == 0, r.output
    assert "Nothing differs" in r.output and "Winners:" in r.output


def test_rules_changed_reports_a_decision_no_longer_offered(tmp_path):
    rec = _played(tmp_path, "why-first", "-p", "2", "--seed", "1")
    lines = rec.read_text(encoding="utf-8").splitlines()
    n = next(i for i, line in enumerate(lines, 1) if '"decision":"card"' in line)
    line = json.loads(lines[n - 1])
    line["option"] = "+99"
    lines[n - 1] = json.dumps(line, separators=(",", ":"))
    rec.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = invoke("replay", rec, "--rules-changed")
    assert r.exit_code == 1, r.output
    assert f"line {n} of {rec} differs" in r.output
    assert f"recorded: {line['by']} chooses card: +99" in r.output
    assert f"now:      the game asks: {line['by']} chooses card among" in r.output


def test_rules_changed_on_a_bad_record_exits_2(tmp_path):
    rec = tmp_path / "game.jsonl"
    rec.write_text('{"record":"pitwall"}\n', encoding="utf-8")
    r = invoke("replay", rec, "--rules-changed")
    assert r.exit_code == 2 and "error: the header has no" in r.output


def test_old_records_without_files_replay_as_before(tmp_path):
    variant = tmp_path / "rich.pw"
    variant.write_text(OWN_VARIANT, encoding="utf-8")
    rec = _played(tmp_path, "street-illegal", "-p", "3", "-v", variant)
    header = _header(rec)
    del header["files"]
    header["variants"] = [str(variant.resolve())]  # as records named a variant of one's own before
    _set_header(rec, header)
    r = invoke("replay", rec)
    assert r.exit_code == 0, r.output
    header["rules_hash"] = "0" + header["rules_hash"][1:]
    _set_header(rec, header)
    r = invoke("replay", rec)
    assert r.exit_code == 2 and "error: the record was made with other rules" in r.output
    assert "--rules-changed" in r.output


def test_the_files_name_the_variants_and_nothing_else(tmp_path):
    rec = _played(tmp_path, "why-first", "-p", "2", "-v", "tactical")
    header = _header(rec)
    header["files"][-1]["variant"] = "other"
    _set_header(rec, header)
    r = invoke("replay", rec)
    assert r.exit_code == 2
    assert "error: games/why_first/variants/tactical.pw, with which the game was recorded, is not among" in r.output
    header["files"][-1]["variant"] = "tactical"
    header["files"][0]["extra"] = 1
    _set_header(rec, header)
    r = invoke("replay", rec)
    assert r.exit_code == 2 and "error: unknown key 'extra' in each of the header's 'files'" in r.output


def test_a_game_stopped_part_way_with_a_kept_variant_resumes(tmp_path):
    variant = tmp_path / "elsewhere" / "rich.pw"
    variant.parent.mkdir()
    variant.write_text(OWN_VARIANT, encoding="utf-8")
    rec = _played(tmp_path, "street-illegal", "-p", "3", "--seed", "3", "-v", variant)
    lines = rec.read_text(encoding="utf-8").splitlines()
    rec.write_text("\n".join(lines[: len(lines) // 2]) + "\n", encoding="utf-8")
    shutil.rmtree(variant.parent)
    r = invoke("resume", rec)
    assert r.exit_code == 0, r.output
    assert rec.read_text(encoding="utf-8").splitlines() == lines


def test_a_games_folder_moved_for_one_test_leaves_no_trace_in_later_records(tmp_path, monkeypatch):
    # The shipped games' folder, resolved once for speed, is resolved per folder: a test (or an
    # embedding program) that points the loader elsewhere first must not leave later records
    # naming the shipped games by their path. Found by running the suite in two processes.
    from pitwall.interpreter import load as load_module

    real = load_module.GAMES
    elsewhere = tmp_path / "games"
    elsewhere.mkdir()
    (elsewhere / "why_first").symlink_to(real / "why_first")
    monkeypatch.setattr(load_module, "GAMES", elsewhere)
    assert find_game("why-first").ref == "why_first"  # beside the games the loader sees: by name
    monkeypatch.setattr(load_module, "GAMES", real)
    assert find_game("why-first").ref == "why_first"
    load.cache_clear()
    assert _header(_played(tmp_path, "why-first", "-p", "2"))["game"] == "why_first"
    assert load_module.GameDir("mine", tmp_path / "mine").ref == str(tmp_path / "mine")
