"""A comprehension's loop-invariant parts (compile_hoist.py): worked out once per pass, reused
with their steps charged again, never when they roll dice, never before the pass reaches them,
and lists handed out fresh. Each program runs compiled with and without the fast paths, which
must agree on every value and every step."""

from __future__ import annotations

import re
import sys

import pytest
from pitwall.interpreter import compiled as compile_module
from pitwall.interpreter import runtime
from pitwall.interpreter.agents import FirstLegal
from pitwall.interpreter.load import build
from pitwall.interpreter.runtime import Game

HEAD = """
game g "G" { players P 1 to 4  play main }
card C "{v}" { v: int }
participant P { n: int = 0  m: int = 0  hand: pile of C }
deck cards of C { (1) (2) (3) (4) (5) }
global pile: pile of C = cards
function total() -> int = sum(c.v for c in pile)
function values() -> list of int = [c.v for c in pile]
"""


def play(tmp_path, body: str, monkeypatch, fast: bool, players=("A", "B", "C", "D")):
    """The players' (n, m) after the game, the steps left, and how often parts were kept and reused."""
    monkeypatch.setattr(compile_module, "REMEMBER", fast)
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    loaded = build([path], [])
    counts = {"_keep": 0, "_again": 0, "_keep_list": 0, "_again_list": 0, "_again_read": 0}
    made = runtime.metered

    def counting(budget):
        helpers = made(budget)
        for name in counts:
            helpers[name] = _counted(helpers[name], name, counts)
        return helpers

    monkeypatch.setattr(runtime, "metered", counting)
    game = Game(loaded, list(players), [FirstLegal()] * len(players), 7, auto_agent=FirstLegal())
    reuses = _reuse_lines(loaded.compiled.source)

    def tracer(frame, event, _arg):  # a reuse written as lines (compile_hoist._again_lines) is no call
        if frame.f_code.co_filename != runtime.GENERATED:
            return None
        if event == "line" and frame.f_lineno in reuses:
            counts[reuses[frame.f_lineno]] += 1
        return tracer

    sys.settrace(tracer)
    try:
        game.run()
    finally:
        sys.settrace(None)
    return [(p.v_n, p.v_m) for p in game.participants], game.budget[0], counts, loaded.compiled.source


_REUSE = re.compile(r"_t\d+ = (list\()?_h\d+\[0\]\)?")


def _reuse_lines(source: str) -> dict[int, str]:
    """The generated lines that hand out a kept part again, by line number, with the helper each
    stands for: a copy of a list (_again_list), a list read in place (_again_read, whose charge, the
    line before, pays for the reading too) or a value (_again)."""
    lines = source.splitlines()
    found = {}
    for n, text in enumerate(lines, 1):
        m = _REUSE.fullmatch(text.strip())
        if m:
            found[n] = "_again_list" if m[1] else "_again_read" if "+ len(" in lines[n - 2] else "_again"
    return found


def _counted(fn, name, counts):
    def wrapper(*args):
        counts[name] += 1
        return fn(*args)
    return wrapper


def both(tmp_path, body, monkeypatch):
    fast = play(tmp_path, body, monkeypatch, True)
    plain = play(tmp_path, body, monkeypatch, False)
    assert fast[:2] == plain[:2]  # the same values and the same steps spent
    assert "_keep(" not in plain[3]
    return fast


def test_an_invariant_part_is_worked_out_once_per_pass_and_its_steps_charged_at_each_use(tmp_path, monkeypatch):
    body = """rule main() {
    let got = [total() + p.seat for p in players]
    repeat len(players) as i {
        players[i - 1].n = got[i - 1]
    }
    finish players
}
"""
    values, _, counts, source = both(tmp_path, body, monkeypatch)
    assert values == [(15, 0), (16, 0), (17, 0), (18, 0)]
    assert counts["_keep"] == 1 and counts["_again"] == 3
    assert "_keep(" in source


def test_a_part_invariant_to_two_passes_is_kept_by_the_outer_one(tmp_path, monkeypatch):
    body = """rule main() {
    for p in players {
        p.n = sum(sum(total() + q.seat + r for r in range(1, 2)) for q in players)
    }
    finish players
}
"""
    values, _, counts, _ = both(tmp_path, body, monkeypatch)
    assert values == [(4 * 2 * 15 + 2 * (0 + 1 + 2 + 3) + 4 * (1 + 2), 0)] * 4  # seats 0..3, r in 1..2
    # one outer pass per player, each keeping total() once for all its inner passes
    assert counts["_keep"] == 4 and counts["_again"] == 4 * (4 * 2 - 1)


def test_a_part_the_pass_never_reaches_is_never_worked_out(tmp_path, monkeypatch):
    # max of nothing fails: kept eagerly, it would fail a game that never asks for it
    body = """function worst() -> int = max(c.v for c in pile if c.v > 100)
rule main() {
    for p in players {
        p.n = sum(if q.m > 0 then worst() else 1 for q in players)
    }
    finish players
}
"""
    values, _, counts, _ = both(tmp_path, body, monkeypatch)
    assert values == [(4, 0)] * 4
    assert counts["_keep"] == 0 and counts["_again"] == 0


def test_dice_are_rolled_again_for_every_item(tmp_path, monkeypatch):
    body = """rule main() {
    let rolls = [sum(roll(1000000) for i in range(1, 2)) for p in players]
    repeat len(players) as i {
        players[i - 1].n = rolls[i - 1]
    }
    finish players
}
"""
    values, _, counts, _ = both(tmp_path, body, monkeypatch)
    assert len({n for n, _ in values}) == 4  # four different sums of two rolls of a million sides
    assert counts["_keep"] == 0


def test_a_kept_list_is_handed_out_fresh_at_each_use(tmp_path, monkeypatch):
    # each item gets a list of its own: changing one leaves the others as values() made them
    body = """rule main() {
    let lists = [values() for p in players if len(values()) > 0]
    let first = lists[0]
    first[0] = 100
    players[0].n = lists[0][0]
    players[1].n = lists[1][0]
    players[2].n = sum(x for x in lists[3])
    finish players
}
"""
    values, _, counts, _ = both(tmp_path, body, monkeypatch)
    assert values[:3] == [(100, 0), (1, 0), (15, 0)]
    assert counts["_keep_list"] == 1 and counts["_again_list"] >= 3


@pytest.mark.parametrize("budget", [60, 90, 120, 200])
def test_a_budget_runs_out_at_the_same_line_with_or_without_kept_parts(tmp_path, monkeypatch, budget):
    from pitwall.interpreter.errors import BudgetError

    body = """rule main() {
    let got = [total() + p.seat for p in players]
    players[0].n = sum(got)
    finish players
}
"""
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    lines = []
    for fast in (True, False):
        monkeypatch.setattr(compile_module, "REMEMBER", fast)
        game = Game(build([path], []), ["A", "B", "C", "D"], [FirstLegal()] * 4, 7, budget=budget,
                    auto_agent=FirstLegal())
        try:
            game.run()
            lines.append(("done", game.budget[0]))
        except BudgetError as e:
            lines.append(("out", e.span.line))
    assert lines[0] == lines[1]


def test_a_small_function_is_inlined_with_cheap_arguments_named_at_most_twice(tmp_path, monkeypatch):
    # in an expression nothing can be worked out before (an event's values): only arguments that
    # cannot fail, cheap to repeat and named at most twice, whole numbers known in range (as the
    # function's entry would check them)
    body = """event told(a: int, b: int, c: int, d: int) "{a} {b} {c} {d}"
function twice(x: int) -> int = x + x
function thrice(x: int) -> int = x + x + x
rule main() {
    for p in players {
        let s = p.seat
        emit told(twice(-s), thrice(-s) + twice(7 / (s + 1)), twice(p.seat), twice(s + 1))
    }
    finish players
}
"""
    _, _, _, source = both(tmp_path, body, monkeypatch)
    main = source[source.index("def r_main"):]
    assert "(((-l_s) + (-l_s))), " in main  # repeated twice
    assert "f_thrice((-l_s))" in main  # named three times: called
    assert "f_twice((7 // (l_s + 1)))" in main  # a division may fail: called
    assert "f_twice(l_p.seat)" in main  # a field may fail (p may be none): called, it is worked out first
    assert "f_twice((l_s + 1))" in main  # a sum may be out of range: called, its entry checks it


def test_where_a_statement_works_a_call_out_its_arguments_go_into_locals_and_the_body_in_place(tmp_path,
                                                                                              monkeypatch):
    body = """function twice(x: int) -> int = x + x
function thrice(x: int) -> int = x + x + x
function pick(x: int, y: int) -> int {
    if x > y {
        return x - y
    }
    return y
}
rule main() {
    for p in players {
        p.n = twice(p.seat + 1) + pick(p.seat * 3, 4)
        p.m = thrice(p.seat + 1) + twice(7 / (p.seat + 1))
    }
    finish players
}
"""
    values, _, _, source = both(tmp_path, body, monkeypatch)
    assert values == [(2 * (s + 1) + (3 * s - 4 if 3 * s > 4 else 4), 3 * (s + 1) + 2 * (7 // (s + 1)))
                      for s in range(4)]
    main = source[source.index("def r_main"):source.index("def _init")]
    assert "f_" not in main  # every call in place, `pick` (ifs that return) as a conditional expression
    assert main.count("7 // (l_p.seat + 1)") == 1  # worked out once, before the body


def test_a_part_a_statement_names_twice_is_worked_out_once_per_run_of_the_statement(tmp_path, monkeypatch):
    body = """rule main() {
    for p in players {
        p.n = if total() > 5 then total() + p.seat else 0
        draw 1 from pile to p.hand
        p.m = total()
    }
    finish players
}
"""
    values, _, counts, source = both(tmp_path, body, monkeypatch)
    # the pile loses a card after each player's n: each run of the statement works total() out anew
    assert values == [(15, 10), (11, 6), (8, 3), (0, 1)]
    assert counts["_keep"] == 4 and counts["_again"] == 3  # the last run's test is false: asked once
    assert source.count("= [None, None]") == 1  # p.m's total() is named once: no slot


READ_BODY = """rule main() {
    for p in players {
        p.n = len([c for c in pile if c.v in values()])
        p.m = sum(x * 2 for x in values() if x > p.seat)
    }
    finish players
}
"""


def test_a_kept_list_only_read_is_not_copied_and_costs_the_same(tmp_path, monkeypatch):
    # `c.v in values()` and a pass over values(): read in place, the reading paid with the part
    values, _, counts, source = both(tmp_path, READ_BODY, monkeypatch)
    assert values == [(5, 30), (5, 28), (5, 24), (5, 18)]
    assert "_keep_read(" in source and "_again_list(" not in source and "list(_h" not in source
    assert counts["_keep_list"] == 0 and counts["_again_list"] == 0 and counts["_again_read"] > 0


@pytest.mark.parametrize("budget", range(150, 700, 23))
def test_a_budget_runs_out_at_the_same_line_when_kept_lists_are_read(tmp_path, monkeypatch, budget):
    assert _outcomes(tmp_path, READ_BODY, monkeypatch, budget, FirstLegal)


SHARED_BODY = """function score(p: P, t: int, v: int) -> int {
    let spread = [c.v + t + v for c in pile]
    let best = max(x + t for x in spread)
    let mine = best - p.seat
    let over = len([x for x in spread if x > mine - v])
    let count = len([x for x in spread if x > v + 3])
    return mine + count - over
}
rule main() {
    for p in players {
        choose k from [1, 2, 3] by p "pick" prefer score(p, 1, option) + score(p, 2, option) - option * p.seat
        p.n = k
    }
    finish players
}
"""


def test_consecutive_lets_of_the_same_arguments_share_one_entry(tmp_path, monkeypatch):
    from pitwall.interpreter.agents import Heuristic

    path = tmp_path / "g.pw"
    path.write_text(HEAD + SHARED_BODY)
    got = []
    for fast in (True, False):
        monkeypatch.setattr(compile_module, "REMEMBER", fast)
        loaded = build([path], [])
        game = Game(loaded, ["A", "B", "C"], [Heuristic(7, s) for s in range(3)], 7, auto_agent=FirstLegal())
        game.run()
        got.append(([p.v_n for p in game.participants], game.budget[0], game.side[0], loaded.compiled.source))
    assert got[0][:3] == got[1][:3]
    assert got[0][0] == [3, 1, 1]
    # spread, best and count read (t, v) only: one entry; mine and over, between, read p as well
    assert "_SM[_key] = (l_spread, l_best, l_count, _m0, _m1, _m2)" in got[0][3]


@pytest.mark.parametrize("budget", range(200, 1400, 29))
def test_a_budget_runs_out_at_the_same_line_with_lets_kept_together(tmp_path, monkeypatch, budget):
    from pitwall.interpreter.agents import Heuristic

    assert _outcomes(tmp_path, SHARED_BODY, monkeypatch, budget, lambda: Heuristic(7, 0))


def _outcomes(tmp_path, body, monkeypatch, budget, agent) -> bool:
    """Both paths end alike: the same steps left, or out of steps at the same line."""
    from pitwall.interpreter.errors import BudgetError

    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    ends = []
    for fast in (True, False):
        monkeypatch.setattr(compile_module, "REMEMBER", fast)
        game = Game(build([path], []), ["A", "B", "C"], [agent() for _ in range(3)], 7, budget=budget,
                    auto_agent=FirstLegal())
        try:
            game.run()
            ends.append(("done", game.budget[0], game.side[0]))
        except BudgetError as e:
            ends.append(("out", e.span.line, e.span.col, str(e)))
    return ends[0] == ends[1]


def test_a_cheap_part_never_none_starts_its_slot_as_none_and_one_that_may_be_none_as_unset(tmp_path, monkeypatch):
    # `slot is not None` is one bytecode where `slot is not _UNSET` is three; a condition may give
    # none (a `first` of nothing), so its slot cannot use none for "not yet worked out"; a part
    # whose code is a name is read again, not kept
    body = """const CAP = 3
function cap() -> int = CAP
rule main() {
    for p in players {
        p.n = count(c for c in pile if c.v <= p.seat + 2)
        let low = count(c for c in pile if c.v <= (if p.seat > 1 then p.seat else 9))
        p.m = low * 10 + count(c for c in pile if c.v <= cap())
    }
    finish players
}
"""
    values, _, _, source = both(tmp_path, body, monkeypatch)
    assert values == [(2, 53), (3, 53), (4, 23), (5, 33)]
    never = re.search(r"\((_k\d+) if \1 is not None else \(\1 := \(l_p\.seat \+ 2\)\)\)", source)
    maybe = re.search(r"\((_k\d+) if \1 is not _UNSET else \(\1 := \(l_p\.seat if", source)
    assert never and maybe
    assert f"{never[1]} = None\n" in source and f"{maybe[1]} = _UNSET\n" in source
    assert "<= (C_CAP))" in source and not re.search(r":= \(?C_CAP", source)
