"""Every number of a rulebook is a named constant: narration names the constant, so one
`replace const` changes the rules and what they tell alike."""

from __future__ import annotations

import re

import pytest
from pitwall.interpreter.agents import FirstLegal
from pitwall.interpreter.load import build, games, load
from pitwall.interpreter.runtime import Game
from pitwall.interpreter.templates import parse_template

CONFIGS = [(g.name, vs) for g in games() for vs in [(), *((v,) for v in g.variant_files())]]


@pytest.mark.parametrize(("game", "variants"), CONFIGS, ids=lambda x: x if isinstance(x, str) else "+".join(x))
def test_no_shipped_narration_writes_out_a_constants_value(game, variants):
    loaded = load(game, variants)
    values = {}
    for name, value in loaded.consts.items():
        if type(value) is int and value > 1:  # 0 and 1 are words ("no card", "one chip"), not rules numbers
            values.setdefault(value, []).append(name)
    found = []
    for event in loaded.program.events.values():
        for part in parse_template(event.template):
            if isinstance(part, str):
                found += [f"{event.name} at {event.span}: {m.group()} (name it: "
                          f"{' or '.join('{' + n + '}' for n in values[int(m.group())])})"
                          for m in re.finditer(r"\b\d+\b", part) if int(m.group()) in values]
    assert not found, "narration writes out constants' values:\n" + "\n".join(found)


def test_a_replaced_constant_changes_the_narration(tmp_path):
    rules = tmp_path / "rules.pw"
    rules.write_text('game g "G" { players P 1 to 2  play main }\nparticipant P { n: int = 0 }\n'
                     'const HAND = 8\nevent deals(p: P) "{p} draws {HAND} cards."\n'
                     "rule main() {\n    emit deals(players[0])\n    finish players\n}\n")
    variant = tmp_path / "v.pw"
    variant.write_text('variant nine "Nine"\nreplace const HAND = 9\n')
    for extra, told in (([], "A draws 8 cards."), ([variant], "A draws 9 cards.")):
        game = Game(build([rules], extra), ["A"], [FirstLegal()], 1, auto_agent=FirstLegal())
        game.run()
        assert game.log[0][3] == told
