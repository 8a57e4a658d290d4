"""Mutated rules never crash Pitwall: every edit a user might botch ends in a PitwallError.

Each case takes one of the real rules files, applies a few seeded edits (delete a few characters,
insert a keyword or symbol, swap a word for another word of the file), then parses, checks,
compiles and plays a couple of games with it. Whatever the edit does, the only exception that
may come out is a PitwallError (which the CLI prints with the file, line and caret and exits 2);
anything else is a bug in Pitwall. This is how an unknown player kind was once found to crash the
checker.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from pitwall.interpreter.agents import FirstLegal, RandomAgent
from pitwall.interpreter.errors import PitwallError
from pitwall.interpreter.load import build, find_game
from pitwall.interpreter.runtime import Game

GAMES = ("why_first", "street_illegal")
PIECES = ["{", "}", "(", ")", ",", "=", "==", "let x = 1", "rule", "int", "none", "[", "]", ".", "stop",
          "return 1", "-> bool", "players", "for", "in", "0", "-1", "if", "then", "else", "and", "not", "+",
          "-", "*", "/", "%", "len(", "[]", "first(", "max(", "sum(", "text(", '"x"', "true", "from 1"]
CASES = 40  # per game; the fixed seeds keep every run the same


def mutate(text: str, rnd: random.Random) -> str:
    words = sorted({w for w in text.split() if w.isidentifier()})
    edits, original = rnd.randint(1, 2), text
    while edits > 0 or text == original:
        edits -= 1
        at = rnd.randrange(len(text))
        kind = rnd.random()
        if kind < 0.3:
            text = text[:at] + text[at + rnd.randint(1, 6):]
        elif kind < 0.6:
            text = text[:at] + " " + rnd.choice(PIECES) + " " + text[at:]
        else:
            old, new = rnd.sample(words, 2)
            text = text.replace(" " + old, " " + new, 1)
    return text


def play_a_little(loaded) -> None:
    g = loaded.program.game
    players = max(g.min_players, min(2, g.max_players))
    names = [f"P{i}" for i in range(1, players + 1)]
    for seed in range(2):
        agents = [RandomAgent(seed, seat) for seat in range(players)]
        Game(loaded, names, agents, seed, budget=200_000, auto_agent=FirstLegal()).run()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("batch", range(4))
def test_mutated_rules_end_in_a_pitwall_error_or_a_game(tmp_path, game, batch):
    source = find_game(game).path
    for case in range(batch * CASES // 4, (batch + 1) * CASES // 4):
        rnd = random.Random(f"{game}-{case}")
        folder = tmp_path / f"{game}-{case}"
        shutil.copytree(source, folder, ignore=shutil.ignore_patterns("scenarios", "variants"))
        files = sorted(folder.glob("*.pw"))
        victim = rnd.choice(files)
        victim.write_text(mutate(victim.read_text(encoding="utf-8"), rnd), encoding="utf-8")
        try:
            play_a_little(build(files, []))
        except PitwallError:
            pass
        except Exception as e:  # noqa: BLE001 -- any other exception is the bug this test is for
            pytest.fail(f"case {case}: {victim.name} mutated, {type(e).__name__}: {e}\n"
                        f"rerun: random.Random({f'{game}-{case}'!r})")


def test_mutation_really_changes_the_rules():
    text = Path(find_game("why_first").path / "rules.pw").read_text(encoding="utf-8")
    assert all(mutate(text, random.Random(i)) != text for i in range(20))
