"""Values remembered per state of the game (compile_memo.py): a change forgets them only where a
remembered value can have read what it changes. A field or global by its name; a list changed in
place (a card moved, drawn, emptied) by the type of its items, since lists are shared by
reference and another name may reach the same one."""

from __future__ import annotations

import pytest
from pitwall.interpreter import compiled as compile_module
from pitwall.interpreter.agents import FirstLegal, Heuristic
from pitwall.interpreter.load import build
from pitwall.interpreter.runtime import Game

RULES = """game g "G" { players P 1 to 3  play main }
card C "{v}" { v: int }
card T "{w}" { w: int }
participant P { hand: pile of C  table: pile of C  tokens: pile of T  n: int = 0  m: int = 0 }
deck cards of C { (1) (2) (3) (4) (5) (6) }
deck chips of T { (1) (2) }
global pile: pile of C = cards
global stash: pile of T = chips
global seen: list of C
global level: int = 0
global other: int = 0
# remembered per state (only prefer reaches it; a let keeps it from being written in place):
# reads `seen`, a list of C, and `level`
function score(v: int) -> int {
    let here = len([c for c in seen if c.v == v])
    if here > 0 {
        return 10 - v + level
    }
    return level
}
rule main() {
    draw 6 from pile to players[0].hand
    seen = players[0].hand
    for p in players {
        choose k from [1, 2, 3] by p "pick" prefer score(option)
        p.m = k
        p.n += k
        other += 1
        move top(players[0].hand) from players[0].hand to p.table
        draw 1 from stash to p.tokens
        empty p.tokens into stash
    }
    level += 1
    finish players
}
"""
FORGETS = "if _SM: _SM.clear()"


def _loaded(tmp_path, remember: bool, monkeypatch):
    monkeypatch.setattr(compile_module, "REMEMBER", remember)
    path = tmp_path / "g.pw"
    path.write_text(RULES)
    return build([path], [])


def _line(text: str) -> int:
    return RULES.split("\n").index(text) + 1


def test_a_change_forgets_only_where_a_remembered_value_can_have_read_it(tmp_path, monkeypatch):
    loaded = _loaded(tmp_path, True, monkeypatch)
    source = loaded.compiled.source.split("\n")
    forgetting = {span.line for text, span in zip(source, loaded.compiled.linemap) if FORGETS in text and span}
    assert forgetting == {
        _line("    draw 6 from pile to players[0].hand"),  # a pile of C: `seen` is a list of C
        _line("    seen = players[0].hand"),  # a global score reads
        _line("        move top(players[0].hand) from players[0].hand to p.table"),  # the hand, which `seen` is
        _line("    level += 1"),  # a global score reads
    }  # not: p.m and p.n (fields nothing remembered reads), `other`, the piles of T


def test_nothing_remembered_nothing_forgotten(tmp_path, monkeypatch):
    assert FORGETS not in _loaded(tmp_path, False, monkeypatch).compiled.source.split("def _init():")[0]


@pytest.mark.parametrize("record", [True, False])  # a decision through Game.choose, or in generated code
def test_a_card_moved_out_of_a_list_another_name_reaches_is_forgotten(tmp_path, monkeypatch, record):
    # A picks 1, the smallest card in `seen`; the move of that card out of the hand (which `seen`
    # is) must forget score's values, or B would pick 1 again from what was remembered
    got = []
    for remember in (True, False):
        loaded = _loaded(tmp_path, remember, monkeypatch)
        game = Game(loaded, ["A", "B"], [Heuristic(3, 0), Heuristic(3, 1)], 3, record=record, auto_agent=FirstLegal())
        game.run()
        got.append(([(p.v_m, p.v_n) for p in game.participants], game.budget[0], game.side[0]))
    assert got[0] == got[1]
    assert got[0][0] == [(1, 1), (2, 2)]


ALIAS_OF_NONE = """game g "G" { players P 1 to 3  play main }
card C "{v}" { v: int }
participant P { hand: pile of C  m: int = 0 }
deck cards of C { (1) (2) (3) (4) (5) (6) }
global pile: pile of C = cards
global seen: list of C
function score(v: int) -> int {
    let here = len([c for c in seen if c != none])
    if here == 6 {
        return v
    }
    return 0 - v
}
rule main() {
    draw 6 from pile to players[0].hand
    seen = players[0].hand
    choose a from [1, 2, 3] by players[0] "pick" prefer score(option)
    players[0].m = a
    let xs = if len(players) > 50 then [none] else players[0].hand
    xs[0] = none
    choose b from [1, 2, 3] by players[1] "pick" prefer score(option)
    players[1].m = b
    finish players
}
"""


@pytest.mark.parametrize("record", [True, False])
def test_a_change_through_a_list_typed_of_none_is_forgotten(tmp_path, monkeypatch, record):
    # `if ... then [none] else a pile` is typed a list of none (types.join), and is the pile: a
    # change through it changes what score reads (found by a review of the forgetting rule)
    got = []
    path = tmp_path / "g.pw"
    path.write_text(ALIAS_OF_NONE)
    for remember in (True, False):
        monkeypatch.setattr(compile_module, "REMEMBER", remember)
        game = Game(build([path], []), ["A", "B"], [Heuristic(3, 0), Heuristic(3, 1)], 3, record=record,
                    auto_agent=FirstLegal())
        game.run()
        got.append([p.v_m for p in game.participants])
    assert got[0] == got[1] == [3, 1]
