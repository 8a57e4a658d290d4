"""The user's cache directory: compiled programs and the parser's tables are read back as they
were made, under a key that changes with anything that decides them, and the folder is kept under
its bound (these tests each have a folder of their own; the rest of the suite uses the user's)."""

from __future__ import annotations

import os
import pickle
import time
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


def _entries(root) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in root.glob("*.pickle")}


def test_the_cache_keeps_under_its_bound_dropping_what_was_used_longest_ago(cache):
    from pitwall.interpreter import cache as store

    cache.mkdir(parents=True)
    now = time.time()
    for i in range(10):  # ten entries of 10 kB, e0 written longest ago
        path = cache / f"e{i}.pickle"
        path.write_bytes(b"x" * 10_000)
        os.utime(path, (now - 1000 + i, now - 1000 + i))
    (cache / "e1.pickle").write_bytes(pickle.dumps(b"y" * 9_990))
    os.utime(cache / "e1.pickle", (now - 2000, now - 2000))
    assert store.load(cache / "e1.pickle") == b"y" * 9_990  # read now: used most recently
    store.trim(cache, limit=50_000)  # 100 kB over a bound of 50: down to 37.5
    kept = _entries(cache)
    assert sum(kept.values()) <= 37_500 and set(kept) == {"e1.pickle", "e8.pickle", "e9.pickle"}, kept
    store.trim(cache, limit=50_000)  # under the bound: nothing goes
    assert _entries(cache) == kept


def test_the_temporary_files_of_writers_that_died_go_and_a_writer_s_at_work_stays(cache):
    from pitwall.interpreter import cache as store

    cache.mkdir(parents=True)
    dead, alive = cache / "ast-1.123.tmp", cache / "ast-2.456.tmp"
    for path in (dead, alive):
        path.write_bytes(b"half")
    old = time.time() - 2 * 3600
    os.utime(dead, (old, old))
    store.trim(cache)
    assert not dead.exists() and alive.exists()


def test_writes_look_over_the_folder_at_the_first_and_every_so_many_after(cache, monkeypatch):
    from pitwall.interpreter import cache as store

    monkeypatch.setattr(store, "CACHE_MAX_BYTES", 41_000)  # three quarters: three entries of 10 kB and a little
    monkeypatch.setattr(store, "TRIM_EVERY", 4)
    monkeypatch.setattr(store, "_writes", 0)
    looked = []
    real = store.trim
    monkeypatch.setattr(store, "trim", lambda root, limit=None: looked.append(len(_entries(root))) or real(root))
    for i in range(12):
        store.store(cache / f"e{i}.pickle", b"x" * 10_000)
    # at writes 1, 5 and 9: at 5, 50 kB over the 41 of the bound, the 3 newest kept; at 9, 7 entries
    # (3 kept and 4 written since), the 3 newest kept again; then 3 more came in
    assert looked == [1, 5, 7], looked
    assert sorted(_entries(cache)) == [f"e{i}.pickle" for i in (10, 11, 6, 7, 8, 9)]


def test_games_load_and_play_alike_with_a_cache_too_small_to_keep_anything(cache, monkeypatch):
    from pitwall.interpreter import cache as store

    monkeypatch.setattr(store, "CACHE_MAX_BYTES", 1)
    monkeypatch.setattr(store, "_writes", 0)
    made = _build()
    again = _build()
    assert again.compiled.source == made.compiled.source
    assert _record(again, 1) == _record(made, 1)
