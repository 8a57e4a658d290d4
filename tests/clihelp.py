"""What CLI tests share: invoking pitwall in-process, and a throwaway game beside the shipped ones."""

from __future__ import annotations

from click.testing import CliRunner
from pitwall.cli import cli


def invoke(*args, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


def add_game(tmp_path, monkeypatch, name: str, rules: str) -> str:
    """A throwaway game folder, found by the loader beside the shipped games."""
    from pitwall.interpreter import load as load_module

    games = tmp_path / "games"
    if not games.exists():
        games.mkdir()
        for game in load_module.GAMES.iterdir():
            if game.is_dir():
                (games / game.name).symlink_to(game)
        monkeypatch.setattr(load_module, "GAMES", games)
    (games / name).mkdir()
    (games / name / "rules.pw").write_text(rules)
    load_module.load.cache_clear()
    return name
