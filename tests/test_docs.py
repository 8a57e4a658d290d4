"""docs/variants.md does what it says: its example files are the ones shown, and every `pitwall`
command in it runs, from the root of the checkout, with exit status 0."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from pitwall.cli import cli

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "variants.md"
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.S)


def blocks(language: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(GUIDE.read_text(encoding="utf-8")) if lang == language]


def commands() -> list[str]:
    return [line for body in blocks("") for line in body.splitlines() if line.startswith("pitwall ")]


def test_the_guide_shows_each_example_file_whole():
    shown = blocks("pitwall")
    files = sorted((ROOT / "docs" / "examples").glob("*.pw"))
    assert len(shown) == len(files) >= 7
    for body in shown:
        name = re.match(r"variant (\w+)", body).group(1)
        assert body == (ROOT / "docs" / "examples" / f"{name}.pw").read_text(encoding="utf-8")


@pytest.mark.parametrize("command", commands())
def test_every_command_in_the_guide_runs(command, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    args = shlex.split(command)[1:]
    # Files the guide writes (a record) go to a temporary folder, not into the checkout.
    args = [str(tmp_path / a) if a.endswith(".jsonl") else a for a in args]
    if args[0] == "replay":  # each command runs alone: make the record the guide's play command writes
        CliRunner().invoke(cli, ["play", "street-illegal", "--players", "3", "--seed", "7", "-v",
                                 "docs/examples/rich_start.pw", "--record", args[1]])
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output


def test_the_sponsor_pays_and_the_misspelt_constant_is_caught(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    r = CliRunner().invoke(cli, ["play", "street-illegal", "-p", "3", "-s", "7", "-v", "docs/examples/sponsors.pw"])
    assert "Alex's sponsor pays 1 chip for starting last." in r.output
    bad = tmp_path / "rich_start.pw"
    bad.write_text((ROOT / "docs" / "examples" / "rich_start.pw").read_text().replace("START_CHIPS", "START_CHIP"))
    r = CliRunner().invoke(cli, ["check", "--game", "street-illegal", str(bad)])
    assert r.exit_code == 2
    assert "there is no 'START_CHIP' to replace" in r.output and "did you mean 'START_CHIPS'?" in r.output
