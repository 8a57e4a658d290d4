"""The user's cache directory: compiled programs and the parser's tables are read back as they
were made, under a key that changes with anything that decides them (the rest of the suite runs
with PITWALL_NO_CACHE=1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pitwall.interpreter import parse
from pitwall.interpreter.engine import new_game, player_names
from pitwall.interpreter.load import build, find_game


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.delenv("PITWALL_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "pitwall"


def _build(settings=(), base=None):
    g = find_game("race_formula_90")
    return build(base or g.base_files(), [], g, settings=settings)


def _record(loaded, seed: int):
    names = player_names(loaded, 4)
    game, _ = new_game(loaded, names, ["heuristic", "random", "heuristic", "random"], seed)
    game.run()
    return [e[:2] + e[3:] if e[0] == "e" else e for e in game.log], game.budget[0]


def test_a_cached_program_plays_as_the_one_just_compiled(cache):
    made = _build()
    entries = sorted(cache.glob("compiled-*.pickle"))
    assert len(entries) == 1
    read = _build()
    assert read.compiled.source == made.compiled.source and read.compiled.spans == made.compiled.spans
    assert sorted(cache.glob("compiled-*.pickle")) == entries  # read, not made again
    for seed in range(3):
        assert _record(read, seed) == _record(made, seed)


def test_settings_and_changed_files_are_other_entries(cache, tmp_path):
    _build()
    _build((("track", "hungaroring"),))
    assert len(list(cache.glob("compiled-*.pickle"))) == 2
    # a copy of the game whose rules say one word more: another key
    copy = tmp_path / "copy"
    copy.mkdir()
    files = []
    for f in find_game("race_formula_90").base_files():
        (copy / f.name).write_text(f.read_text(encoding="utf-8") + ("\n# changed\n" if f.name == "rules.pw" else ""),
                                   encoding="utf-8")
        files.append(copy / f.name)
    _build(base=files)
    assert len(list(cache.glob("compiled-*.pickle"))) == 3


def test_a_broken_entry_is_made_again(cache):
    made = _build()
    for entry in cache.glob("compiled-*.pickle"):
        entry.write_bytes(b"not a pickle")
    assert _build().compiled.source == made.compiled.source


def test_the_parsers_tables_from_the_cache_parse_alike(cache, monkeypatch):
    text = find_game("why_first").path.joinpath("rules.pw").read_text(encoding="utf-8")
    monkeypatch.setattr(parse, "_machine", None)
    fresh = parse.parse(text, "rules.pw")
    assert len(list(cache.glob("machine-*.pickle"))) == 1
    monkeypatch.setattr(parse, "_machine", None)
    assert parse.parse(text, "rules.pw") == fresh  # this time from the pickled tables


def test_checking_rules_compiled_before_never_imports_the_checker_or_the_code_generator(cache):
    # compile_cache.compile_program imports the checker and the generator only when they must run: a
    # check of rules in the cache reads them back without either (40% of `pitwall check`'s instructions)
    import os
    import subprocess
    import sys

    probe = ("import sys\nfrom click.testing import CliRunner\nfrom pitwall.cli import cli\n"
             "r = CliRunner().invoke(cli, ['check', 'games/why_first/rules.pw'])\n"
             "print(r.exit_code, 'pitwall.interpreter.compile' in sys.modules, "
             "'pitwall.interpreter.check' in sys.modules)\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "XDG_CACHE_HOME": str(cache.parent)}
    env.pop("PITWALL_NO_CACHE", None)
    runs = [subprocess.run([sys.executable, "-c", probe], cwd=root, env=env, capture_output=True, text=True)
            for _ in range(2)]
    assert [r.stdout.split() for r in runs] == [["0", "True", "True"], ["0", "False", "False"]], \
        [r.stderr for r in runs]
    assert any(cache.glob("compiled-*.pickle"))


def test_the_checker_runs_for_every_program_the_cache_does_not_hold(cache, tmp_path, monkeypatch):
    # An entry is kept only for a program that passed the checker, under a key of all it reads:
    # rules found there are not checked again, and any other program is, errors and all.
    from pitwall.interpreter import check as checker
    from pitwall.interpreter.errors import CheckErrors

    calls = []
    real = checker.check
    monkeypatch.setattr(checker, "check", lambda prog: calls.append(1) or real(prog))
    counted = []
    for settings in ((), (), (("track", "hungaroring"),), (("track", "hungaroring"),)):
        calls.clear()
        _build(settings)
        counted.append(len(calls))
    assert counted == [1, 0, 1, 0]
    # a copy whose rules say a wrong thing, once compiled rules beside it are in the cache: checked, refused
    copy = tmp_path / "copy"
    copy.mkdir()
    files = []
    for f in find_game("race_formula_90").base_files():
        extra = "\nfunction broken() -> int = true\n" if f.name == "rules.pw" else ""
        (copy / f.name).write_text(f.read_text(encoding="utf-8") + extra, encoding="utf-8")
        files.append(copy / f.name)
    calls.clear()
    with pytest.raises(CheckErrors) as raised:
        _build(base=files)
    rules = copy / "rules.pw"
    last = len(rules.read_text(encoding="utf-8").splitlines())  # the broken function's line
    assert calls == [1], calls
    where = [(Path(e.span.file).name, e.span.line) for e in raised.value.errors]
    assert where == [("rules.pw", last)], str(raised.value)
    assert len(list(cache.glob("compiled-*.pickle"))) == 2  # nothing kept for it


def test_a_parsed_file_is_cached_under_a_key_of_every_module_its_tree_is_made_of(cache):
    # A tree read back from the cache is made of the classes it was pickled as: a module that
    # defines one (ast.py's nodes, errors.py's Span) must be part of the key, or a field renamed
    # there would read an old tree with the old fields.
    import io
    import pickle

    parse.parse_file(find_game("why_first").path / "rules.pw")
    (entry,) = cache.glob("ast-*.pickle")
    modules = set()

    class Seen(pickle.Unpickler):
        def find_class(self, module, name):
            modules.add(module)
            return super().find_class(module, name)

    Seen(io.BytesIO(entry.read_bytes())).load()
    ours = {m.rsplit(".", 1)[-1] + ".py" for m in modules if m.startswith("pitwall.")}
    assert ours >= {"ast.py", "errors.py"}
    assert ours <= set(parse._CODE_FILES)


def test_a_game_is_loaded_once_a_process_however_the_call_names_its_arguments():
    from pitwall.interpreter.load import load

    load.cache_clear()
    first = load("why_first")
    assert load("why_first", (), ()) is first and load("why_first", variants=[], settings=()) is first
    assert load("why_first", ("tactical",)) is not first
    load.cache_clear()
    assert load("why_first") is not first
