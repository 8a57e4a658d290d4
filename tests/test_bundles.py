"""A bundle variant (`variant NAME "Title" includes A, B`): the variants it includes, then itself."""

from __future__ import annotations

import shutil

import pytest
from clihelp import invoke


@pytest.fixture
def game(tmp_path, monkeypatch):
    """Why First? copied into a games folder of its own, so tests can add variant files to it."""
    from pitwall.interpreter import load as load_module

    games = tmp_path / "games"
    games.mkdir()
    shutil.copytree(load_module.GAMES / "why_first", games / "wf")
    monkeypatch.setattr(load_module, "GAMES", games)
    load_module.load.cache_clear()
    yield games / "wf"
    load_module.load.cache_clear()


def add_variant(game, name: str, text: str):
    path = game / "variants" / (name + ".pw")
    path.write_text(text)
    return path


def played(*args):
    r = invoke("play", "wf", "--seed", 7, *args)
    assert r.exit_code == 0, r.output
    return r.output


def test_a_bundle_plays_as_its_variants_given_in_order(game):
    add_variant(game, "both", 'variant both "Both variants" includes all_together_score, tactical\n')
    separate = played("-v", "all_together_score", "-v", "tactical")
    assert played("-v", "both") == separate
    assert separate != played()  # the check can fail: the variants change the game
    assert "--variant both: Both variants (all_together_score, tactical)" in invoke("games").output
    outline = invoke("outline", "wf", "-v", "both").output
    assert "variants/all_together_score.pw:6" in outline and "variants/tactical.pw:14" in outline


def test_a_bundle_adds_its_own_declarations_after_its_includes(game):
    add_variant(game, "both", 'variant both "Both" includes tactical\nreplace const PLAYER_COUNT_NOTE = 1\n')
    r = invoke("play", "wf", "-v", "both")
    assert r.exit_code == 2  # its own lines are linked after tactical's: here a replace of nothing
    assert "both.pw:2:" in r.output and "PLAYER_COUNT_NOTE" in r.output


def test_a_variant_given_before_its_bundle_is_applied_once_in_its_place(game):
    add_variant(game, "both", 'variant both "Both" includes all_together_score, tactical\n')
    assert played("-v", "tactical", "-v", "both") == played("-v", "tactical", "-v", "all_together_score")


def test_a_record_of_a_bundle_replays(game, tmp_path):
    from pitwall.interpreter.load import load

    add_variant(game, "both", 'variant both "Both" includes all_together_score, tactical\n')
    rec = tmp_path / "g.jsonl"
    r = invoke("play", "wf", "-v", "both", "--seed", 3, "--record", rec)
    assert r.exit_code == 0, r.output
    again = invoke("replay", rec)
    assert again.exit_code == 0, again.output
    # an included file changed since: the record's rules hash no longer matches
    path = game / "variants" / "tactical.pw"
    path.write_text(path.read_text() + "\n# changed\n")
    load.cache_clear()  # as a new process would
    changed = invoke("replay", rec)
    assert changed.exit_code == 2 and "variants/tactical.pw changed since the game was recorded" in changed.output


def test_an_unknown_include_is_an_error_at_its_name(game):
    add_variant(game, "both", 'variant both "Both" includes tactical, nowhere\n')
    r = invoke("play", "wf", "-v", "both")
    assert r.exit_code == 2
    assert "both.pw:1:40: error: variant 'both' includes 'nowhere', which is not a variant here" in r.output
    assert "^^^^^^^" in r.output and "tactical" in r.output.split("hint:")[1]


def test_a_bundle_that_includes_itself_is_refused(game):
    add_variant(game, "one", 'variant one "One" includes two\n')
    add_variant(game, "two", 'variant two "Two" includes one\n')
    r = invoke("check", game / "variants" / "one.pw")
    assert r.exit_code == 2
    assert "two.pw:1:28: error: variant 'two' includes 'one', which includes it again" in r.output


def test_bundles_nested_too_deep_end_in_an_error_not_a_crash(game):
    from pitwall.interpreter.limits import INCLUDE_DEPTH_MAX

    for i in range(INCLUDE_DEPTH_MAX + 2):
        add_variant(game, f"b{i}", f'variant b{i} "Bundle {i}" includes b{i + 1}\n')
    add_variant(game, f"b{INCLUDE_DEPTH_MAX + 2}", f'variant b{INCLUDE_DEPTH_MAX + 2} "Last" includes tactical\n')
    r = invoke("play", "wf", "-v", "b0")
    assert r.exit_code == 2
    assert f"b{INCLUDE_DEPTH_MAX}.pw:1:" in r.output and f"bundles nest more than {INCLUDE_DEPTH_MAX} deep" in r.output


def test_a_bundle_of_ones_own_names_the_games_variants_and_its_record_travels(game, tmp_path, monkeypatch):
    own = tmp_path / "elsewhere"
    own.mkdir()
    (own / "mine.pw").write_text('variant mine "Mine" includes all_together_score, tactical\n')
    monkeypatch.chdir(tmp_path)
    rec = tmp_path / "g.jsonl"
    r = invoke("play", "wf", "-v", own / "mine.pw", "--seed", 7, "--record", rec)
    assert r.exit_code == 0, r.output
    assert r.output.replace(f"Record written to {rec}\n", "") == played("-v", "all_together_score", "-v", "tactical")
    (own / "mine.pw").unlink()  # the record keeps the bundle's text; its includes are the game's
    again = invoke("replay", rec)
    assert again.exit_code == 0, again.output
