"""Edges of the compiler's faster code, each found by a hostile review and each a small game of its
own: values that a kept part or an inlined call must not confuse, whole numbers that must be
checked wherever they are stored, the order things are worked out in (so the same error is
reported), decisions in generated code against the general path, and inputs that must end in a
positioned error rather than hang or blow up."""

from __future__ import annotations

import dis
import time

import pytest
from leaks import garbage_of_ours
from pitwall.interpreter import runtime
from pitwall.interpreter.agents import FirstLegal, Heuristic
from pitwall.interpreter.compile_fold import with_constants
from pitwall.interpreter.errors import BudgetError, PitwallError
from pitwall.interpreter.load import build
from pitwall.interpreter.runtime import Game

HEAD = """game g "G" {
    players P 2 to 2
    play main
}
card C "{v}" { v: int }
deck cards of C { (1) (2) (3) }
participant P {
    n: int = 0
    hand: pile of C
}
event told(v: int) "{v}"
event told_l(v: list of int) "{v}"
global xs: list of int = [3, -1, 4, 1, -5, 9]
global ys: list of int = [2, 7, 0]
global big: int = 9223372036854775807
global nobody: P
"""
BIG_PLUS = "beyond the range of whole numbers"


def _game(loaded, agents=None, budget: int = 10**6, record: bool = False) -> tuple[Game, list]:
    """A game of two first-legal seats, and the list its events' first values are told into."""
    told = []
    game = Game(loaded, ["A", "B"], agents or [FirstLegal(), FirstLegal()], 1, budget=budget,
                record=record, listener=lambda e: told.append(e[2][0]) if e[0] == "e" else None,
                auto_agent=FirstLegal())
    return game, told


def _play(tmp_path, body: str, agents=None, budget: int = 10**6, record: bool = False):
    """(what the game told, or the error: message and line)"""
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    game, told = _game(build([path], []), agents, budget, record)
    try:
        game.run()
    except PitwallError as e:
        return "error", e.message, e.span.line if e.span else None
    return "told", told


def _line(body: str, text: str) -> int:
    return (HEAD + body).splitlines().index(text) + 1


def test_two_calls_of_one_small_function_keep_a_part_each(tmp_path):
    body = """function h2(a: int) -> int = a * 2 + 1
function rec(n: int) -> int = if n <= 0 then 0 else n + rec(n - 1)
rule main() {
    let k = players[1].n
    emit told_l([h2(k + 1) + h2(k + 2) for v in [1]])
    let got = [h2(k + 1) + h2(k + 2) for v in [1]]
    emit told_l(got)
    emit told_l([rec(rec(k + 2) % 5) for v in [1]])
    let again = [rec(rec(k + 2) % 5) for v in [1]]
    emit told_l(again)
    finish players
}
"""
    assert _play(tmp_path, body) == ("told", [(8,), (8,), (6,), (6,)])


def test_a_function_inlined_in_another_sees_each_item(tmp_path):
    body = """function g(b: int) -> int = (b + 1) * 2
function f(a: int) -> int = g(a)
rule main() {
    let v = sum(f(x * 3) for x in xs)
    emit told(v)
    emit told(sum(f(x * 3) for x in xs))
    finish players
}
"""
    assert _play(tmp_path, body) == ("told", [78, 78])


def test_a_heuristic_seat_picks_in_generated_code_as_the_general_path_does(tmp_path, monkeypatch):
    body = """function cnt2(a: int, b: int) -> int = count(x for x in xs if x > a) + b
rule main() {
    let k = players[1].n
    choose o from [1, 2, 3] by players[0]
        prefer (if cnt2(k, option) - cnt2(k + 3, option) == 2 then option else 0 - option)
    emit told(o)
    finish players
}
"""
    quick = _play(tmp_path, body, [Heuristic(1, 0), Heuristic(1, 1)])
    monkeypatch.setattr(runtime, "QUICK_SEATS", False)
    assert quick == _play(tmp_path, body, [Heuristic(1, 0), Heuristic(1, 1)]) == ("told", [3])


@pytest.mark.parametrize("call", ["let v = f(xs[0] + big)", "emit told(f(xs[0] + big))",
                                  "let v = g(big + 1)", "let v = g2(big + 1)"])
def test_a_parameter_of_an_inlined_function_is_checked_as_its_entry_would(tmp_path, call):
    body = f"""function f(a: int) -> int = a - a
function g(a: int) -> int {{
    if a > 0 {{
        return half(a)
    }}
    return 0
}}
function g2(a: int) -> int = if a > 0 then a - a else 0
function half(b: int) -> int {{
    let y = b
    return y / 2
}}
rule main() {{
    {call}
    finish players
}}
"""
    got = _play(tmp_path, body)
    assert got[0] == "error" and BIG_PLUS in got[1]


def test_a_global_worked_out_by_a_function_is_checked(tmp_path):
    body = """function f(a: int) -> int {
    let y = a
    return y / 2
}
global g: int = f(big + 1)
rule main() {
    emit told(g)
    finish players
}
"""
    got = _play(tmp_path, body)
    assert got[0] == "error" and BIG_PLUS in got[1]


def test_a_chosen_whole_number_is_checked_where_it_is_stored(tmp_path):
    body = """global g: int = 0
rule main() {
    choose g from [big + 1, big + 3] by players[0]
    emit told(g / 2)
    finish players
}
"""
    got = _play(tmp_path, body)
    assert got[:2] == ("error", f"{2**63} is beyond the range of whole numbers (-{2**63 - 1} to {2**63 - 1})")
    assert got[2] == _line(body, "    choose g from [big + 1, big + 3] by players[0]")


@pytest.mark.parametrize(("statement", "message"), [
    # a call works its argument out first, whether written in place or not
    ("let v = pick2(true, nobody.n + 1)", "a value is 'none' here"),
    ("emit told(pick2(true, nobody.n + 1))", "a value is 'none' here"),
    ("let v = tenth(nobody.n + 1)", "a value is 'none' here"),
    ("emit told(tenth(nobody.n + 1))", "a value is 'none' here"),
    # Python works out a place before the value added to it
    ("xs[nobody.n] += sum(10 / y for y in ys)", "a value is 'none' here"),
    # a draw works out its count first
    ("draw (10 / players[0].n) from nobody.hand to players[0].hand", "division by zero"),
    # every item first, then the sum: the division fails before none is added
    ("let v = sum((if x == 9 then 10 / (x - 9) else first(y for y in ys if y > x * 2)) for x in xs)",
     "division by zero"),
    ("emit told(sum((if x == 9 then 10 / (x - 9) else first(y for y in ys if y > x * 2)) for x in xs))",
     "division by zero"),
    ("let v = max((if x == 9 then 10 / (x - 9) else first(y for y in ys if y > x * 2)) for x in xs)",
     "division by zero"),
])
def test_values_are_worked_out_in_the_order_of_the_expression(tmp_path, statement, message):
    body = f"""function pick2(c: bool, a: int) -> int = if c then 0 else a
function tenth(a: int) -> int = 10 / players[0].n + a
rule main() {{
    {statement}
    finish players
}}
"""
    got = _play(tmp_path, body)
    assert got[0] == "error" and got[1].startswith(message), got


def test_a_prefer_score_that_is_none_is_a_positioned_error_on_both_paths(tmp_path, monkeypatch):
    body = """rule main() {
    choose o from [1, 2, 3] by players[0] prefer first(x for x in [2] if x > option)
    emit told(o)
    finish players
}
"""
    line = _line(body, "    choose o from [1, 2, 3] by players[0] prefer first(x for x in [2] if x > option)")
    for quick, record in ((True, False), (False, False), (False, True)):
        monkeypatch.setattr(runtime, "QUICK_SEATS", quick)
        got = _play(tmp_path, body, [Heuristic(1, 0), Heuristic(1, 1)], record=record)
        assert got[0] == "error" and got[1].startswith("the prefer score of an option is 'none'") and got[2] == line


@pytest.mark.parametrize(("statement", "message"), [
    # a negative count would give steps back: a loop of such draws never ended
    ("draw -1000000000 from pile to players[0].hand", "cannot draw -1000000000 cards: a draw takes none or more"),
    # a pile refilled from the pile it is drawn into: the count is paid before the first card
    ("draw 1000000000000 from stock to spent", "the rules ran more than 100000000 steps in one game"),
])
def test_draws_that_would_never_end_end_in_a_positioned_error(tmp_path, statement, message):
    body = f"""global pile: pile of C = cards
global stock: pile of C = cards refill from spent
global spent: pile of C
rule main() {{
    while true {{
        {statement}
    }}
}}
"""
    start = time.monotonic()
    assert _play(tmp_path, body, budget=10**8) == ("error", message, _line(body, "        " + statement))
    assert time.monotonic() - start < 10


def test_deeply_nested_clamps_compile(tmp_path):
    e = "x"
    for _ in range(50):
        e = f"clamp({e}, 0, 5)"
    body = f"""rule main() {{
    let x = players[0].n + 1
    let v = {e}
    emit told(v)
    finish players
}}
"""
    assert _play(tmp_path, body) == ("told", [1])


def test_a_long_elif_chain_of_comprehensions_keeps_the_fast_code(tmp_path):
    chain = "    if any(x == 100 for x in xs) {\n        players[0].n = 0\n    }"
    for i in range(1, 150):
        chain += f" elif any(x == {100 + i} for x in xs) {{\n        players[0].n = {i}\n    }}"
    chain += " else {\n        players[0].n = 7\n    }"
    body = f"""function twice(a: int) -> int = a + a
rule main() {{
{chain}
    players[1].n = twice(players[0].n)
    emit told(players[1].n)
    finish players
}}
"""
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    source = build([path], []).compiled.source
    # an `else` for each branch would nest past Python's limit, and the plainer code it falls back
    # to would call `twice` instead of writing it in place
    assert "f_twice(" not in source[source.index("def r_main"):source.index("def _init")]
    assert _play(tmp_path, body) == ("told", [14])


def test_functions_calling_functions_twice_compile_in_linear_time(tmp_path):
    fns = [f"function f{i}(a: int) -> int = f{i + 1}(a + 1) + f{i + 1}(a - 1)" for i in range(20)]
    fns.append("function f20(a: int) -> int = a + 1")
    stmts = "\n".join(f"    players[0].n = f0(players[0].n + {k}) / 1000000" for k in range(100))
    body = "\n".join(fns) + f"\nrule main() {{\n{stmts}\n    finish players\n}}\n"
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    start = time.monotonic()
    loaded = build([path], [])
    assert time.monotonic() - start < 10 and len(loaded.compiled.source) < 2_000_000


def test_a_side_budget_running_out_while_recording_leaves_no_cycle(tmp_path):
    body = """rule main() {
    repeat 20 {
        choose o from [1, 2, 3] by players[0]
    }
    finish players
}
"""
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    loaded = build([path], [])

    def play():
        game = Game(loaded, ["A", "B"], [FirstLegal(), FirstLegal()], 1, budget=2000, auto_agent=FirstLegal())
        with pytest.raises(BudgetError):
            game.run()
        game.close()

    assert garbage_of_ours(play) == []


# Cards are printed: a sum of their numbers needs no range check when the decks print small ones
# (compile_ranges.magnitude), and keeps it when they may add up past the range.
CARDS = """game g "G" {{
    players P 2 to 2
    play main
}}
const HALF = 5000000000000000000
const SMALL = 7
const BIGS = [1, HALF]
card C "{{v}}" {{
    v: int = {default}
    w: int = 0
}}
deck cards of C {{
    {rows}
}}
participant P {{ n: int = 0 }}
event told(v: int) "{{v}}"
global stack: pile of C = cards
function worth(c: C) -> int = c.v + c.w
rule main() {{
    emit told(worth(stack[0]))
    emit told(stack[1].v)
    emit told(stack[2].v)
    let s = worth(stack[0]) + stack[1].v - stack[2].v
    emit told(s)
    finish players
}}
"""
SUM_LINE = "    let s = worth(stack[0]) + stack[1].v - stack[2].v"


@pytest.mark.parametrize(("rows", "default", "small"), [
    ("(1) (2) (3)", "0", True),
    ("(SMALL) (SMALL * 2) (0 - SMALL)", "0", True),
    ("for x in [1, 2, 3] { (x * SMALL, x) }", "0", True),
    ("for x in range(1, 3) { (x) }", "0", True),
    ("3 * ()", "SMALL", True),
    ("(HALF) (HALF) (1)", "0", False),
    ("(0 - HALF) (1) (HALF)", "0", False),
    ("for x in BIGS { (x) } (1)", "0", False),
    ("3 * ()", "HALF", False),
    ("(HALF / 2) (HALF / 2) (HALF / 2)", "0", False),  # a division: not worked out here, so checked
])
def test_a_sum_of_printed_card_numbers_is_checked_only_where_it_may_leave_the_range(tmp_path, rows, default,
                                                                                      small):
    text = CARDS.format(rows=rows, default=default)
    loaded, told, e = _told(tmp_path, text)
    assert ("_overflow(l_s)" not in loaded.compiled.source) == small
    if e is not None:
        first, second, third = told
        assert not -2**63 < first + second - third < 2**63
        assert BIG_PLUS in e.message and e.span.line == text.splitlines().index(SUM_LINE) + 1
    else:
        first, second, third, total = told
        assert total == first + second - third
    if rows.startswith("(HALF) (HALF)") or rows.startswith("(0 - HALF)"):
        assert len(told) == 3  # out of range: the error above


SUMS = CARDS.replace("""    let s = worth(stack[0]) + stack[1].v - stack[2].v
    emit told(s)
""", """    let s = sum(c.v for c in stack)
    emit told(s)
    let n = sum(p.n for p in players)
    emit told(n)
""")
SUMS_LINE = "    let s = sum(c.v for c in stack)"


@pytest.mark.parametrize(("rows", "small"), [
    ("(1) (2) (3)", True),
    ("(SMALL) (SMALL * 2) (0 - SMALL)", True),
    ("(9223372036854) (1) (0 - 9223372036854)", True),  # LIST_MAX of them stay within INT_MAX
    ("(9223372036855) (1) (2)", False),  # LIST_MAX of them may not
    ("(HALF) (HALF) (1)", False),
])
def test_a_sum_over_a_pile_of_printed_numbers_is_checked_only_where_a_full_list_may_leave_the_range(tmp_path, rows,
                                                                                                    small):
    text = SUMS.format(rows=rows, default="0")
    loaded, told, e = _told(tmp_path, text)
    assert ("_overflow(l_s)" not in loaded.compiled.source) == small
    assert "_overflow(l_n)" in loaded.compiled.source  # participants' numbers: any size in range
    if e is not None:
        assert not small and BIG_PLUS in e.message and e.span.line == text.splitlines().index(SUMS_LINE) + 1
        assert sum(told) >= 2**63  # the three cards told
    else:
        first, second, third, total, n = told
        assert total == first + second + third and n == 0


def _told(tmp_path, text: str):
    """The rules built and played by two first-legal seats: the loaded rules, the first value of
    each event told, and the error that stopped the game (None if it finished)."""
    (tmp_path / "g.pw").write_text(text)
    loaded = build([tmp_path / "g.pw"], [])
    told = []
    game = Game(loaded, ["A", "B"], [FirstLegal(), FirstLegal()], 1,
                listener=lambda e: told.append(e[2][0]) if e[0] == "e" else None)
    try:
        game.run()
    except PitwallError as e:
        return loaded, told, e
    return loaded, told, None

def test_a_chain_of_thousands_of_constants_is_bounded_in_a_loop(tmp_path):
    # each constant's bound is worked out in declaration order, not by following the chain back
    chain = "const K0 = 1\n" + "".join(f"const K{i} = K{i - 1} + 1\n" for i in range(1, 3000))
    text = f"""game g "G" {{
    players P 2 to 2
    play main
}}
{chain}card C "{{v}}" {{ v: int }}
deck cards of C {{ (K2999) (1) }}
participant P {{ n: int = 0 }}
event told(v: int) "{{v}}"
global stack: pile of C = cards
rule main() {{
    let s = stack[0].v + stack[1].v + K2999
    emit told(s)
    finish players
}}
"""
    (tmp_path / "g.pw").write_text(text)
    loaded = build([tmp_path / "g.pw"], [])
    assert "_overflow(l_s)" not in loaded.compiled.source
    told = []
    Game(loaded, ["A", "B"], [FirstLegal(), FirstLegal()], 1,
         listener=lambda e: told.append(e[2][0]) if e[0] == "e" else None).run()
    assert told == [6001]


def test_functions_on_a_cycle_of_calls_are_those_that_reach_themselves():
    # Tarjan's parts (purity.on_cycles) against the definition: a search from every function
    import random

    from pitwall.interpreter.purity import on_cycles

    def reach_themselves(graph):
        found = set()
        for start in graph:
            seen, todo = set(), list(graph[start])
            while todo:
                n = todo.pop()
                if n == start:
                    found.add(start)
                    break
                if n not in seen:
                    seen.add(n)
                    todo.extend(graph[n])
        return found

    rng = random.Random(15)
    for _ in range(2000):
        n = rng.randint(1, 12)
        edges = rng.random() * 2.5
        graph = {f"f{i}": {f"f{rng.randrange(n)}" for _ in range(int(rng.random() * edges * 2))} for i in range(n)}
        assert on_cycles(graph) == reach_themselves(graph), graph


def test_the_ends_of_lists_and_the_equality_of_cards_and_participants(tmp_path):
    # first/last/top compile to `(xs or (None,))[i]`, and == of cards and participants to `is`
    body = """global stack: pile of C = cards
rule main() {
    let a = first(players)
    let b = last(players)
    draw 2 from stack to a.hand
    let t = top(a.hand)
    let f = first(a.hand)
    emit told(if t == f then 1 else 0)
    emit told(if t == top(a.hand) and t != f then 1 else 0)
    emit told(if top(b.hand) == none and first(b.hand) == none and none == last(b.hand) then 1 else 0)
    emit told(if t != none and a != none and nobody == none then 1 else 0)
    emit told(if a == b or a != first(players) then 1 else 0)
    emit told(last([x for x in xs if x > 0]))
    emit told(first(if a == b then ys else xs))
    emit told(last(xs + ys))
    emit told(if top(if t == f then b.hand else a.hand) == t then 1 else 0)
    emit told(if first(y for y in ys if y > 100) == last(ys) then 1 else 0)
    finish [a]
}
"""
    assert _play(tmp_path, body) == ("told", [0, 1, 1, 1, 0, 9, 3, 0, 1, 0])
    made = build([tmp_path / "g.pw"], []).compiled.source
    assert "(l_t is l_f)" in made and "(l_b.v_hand or (None,))[-1]" in made


def test_a_field_of_an_empty_piles_top_is_a_positioned_error(tmp_path):
    body = """rule main() {
    emit told(top(last(players).hand).v)
    finish players
}
"""
    got = _play(tmp_path, body)
    assert got == ("error", "a value is 'none' here (an empty pile's top, or an unset participant)",
                   _line(body, "    emit told(top(last(players).hand).v)"))


def test_a_value_chosen_from_a_range_needs_no_check_and_a_maps_entries_are_in_range(tmp_path):
    # each option of `range(a, b)` lies between ends known in range, and a map's entries are chosen
    # values: neither is checked again; a value chosen from a list still is
    body = """global total: int = 0
rule add(x: int) {
    total += x
}
rule main() {
    choose n from range(1, 3) by first(players)
    choose k from [5, 6] by first(players)
    simultaneous p in players {
        choose bid[p] from range(0, len(xs))
    }
    add(n)
    add(k)
    add(bid[first(players)] + bid[last(players)])
    emit told(total)
    finish players
}
"""
    assert _play(tmp_path, body) == ("told", [1 + 5 + 0 + 0])  # the first legal option of each
    made = build([tmp_path / "g.pw"], []).compiled.source
    assert "_overflow(l_n)" not in made and "_overflow(l_k)" in made
    assert "_overflow(l_bid" not in made


def test_a_map_entry_chosen_from_a_list_is_checked_where_it_is_chosen(tmp_path):
    body = """rule main() {
    simultaneous p in players {
        choose bid[p] from [big + 1, big + 3]
    }
    emit told(bid[first(players)] / 2)
    finish players
}
"""
    got = _play(tmp_path, body)
    assert got == ("error", f"{2**63} is beyond the range of whole numbers (-{2**63 - 1} to {2**63 - 1})",
                   _line(body, "        choose bid[p] from [big + 1, big + 3]"))


def test_a_length_compared_with_zero_or_one_is_the_truth_of_the_list(tmp_path):
    # `len(xs) == 0` and its kin compile to `not xs` and `not not xs`, also where the list is a
    # comprehension written as a loop before a `let`; each comparison told as 1 or 0, for lists
    # of none, one and six items, and `len` against other numbers unchanged
    checks = ["len(e) == 0", "len(e) <= 0", "len(e) < 1", "len(e) != 0", "len(e) > 0", "len(e) >= 1",
              "count(e) == 0", "count(e) > 0", "len(e) > 1", "len(e) == 1", "len(e) >= 0"]
    lists = {"[]": 0, "[5]": 1, "xs": 6, "[x for x in xs if x > 100]": 0, "[x for x in ys if x > 5]": 1}
    lines = "\n".join(f"    let v{i} = if {c.replace('e)', f'{name})')} then 1 else 0\n    emit told(v{i})"
                      for i, (name, c) in enumerate((name, c) for name in lists for c in checks))
    body = f"""rule main() {{
{lines}
    let cond = len(xs) != 0 and not (len(ys) < 1)
    emit told(if cond then 1 else 0)
    finish players
}}
"""
    ops = {"==": int.__eq__, "<=": int.__le__, "<": int.__lt__, "!=": int.__ne__, ">": int.__gt__, ">=": int.__ge__}
    want = [int(ops[c.split()[1]](n, int(c.split()[2]))) for n in lists.values() for c in checks]
    assert _play(tmp_path, body) == ("told", want + [1])
    made = build([tmp_path / "g.pw"], []).compiled.source
    assert "(not not _S.g_xs)" in made and "(not [5])" in made and "len(_S.g_xs) > 1" in made
    assert "if (not not _t" in made or "((1) if (not not _t" in made


def _names_read_by_rules(loaded) -> set[str]:
    """The global names the game's functions load (LOAD_GLOBAL), all nested code objects included."""
    names, todo = set(), [loaded.namespace["_new_game"].__code__]
    while todo:
        code = todo.pop()
        names |= {i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"}
        todo += [c for c in code.co_consts if hasattr(c, "co_code")]
    return names


def test_constants_are_loaded_as_the_literals_the_program_runs_with(tmp_path):
    # a whole-number or truth-value constant whose value is a literal, or names one, is a constant
    # of the bytecode (no LOAD_GLOBAL); a text, or one worked out (`A + 1`), stays a name; a
    # variant's and a setting's values are the ones loaded. The code's text is unchanged.
    rules = HEAD + """const A = -3
const B = A
const T = "tee"
const F = true
const S = A + 1
const Q = "it's C_A # and \\"C_B\\""
setting K = 4 from 1 to 9 "a setting"
event said(t: text) "{t}"
rule main() {
    emit said(Q + " C_A")
    emit told(A)
    emit told(B)
    emit told(if F and T == "tee" then 1 else 0)
    emit told(S)
    emit told(K * 10)
    finish players
}
"""
    (tmp_path / "g.pw").write_text(rules)
    (tmp_path / "v.pw").write_text('variant v "V"\nreplace const A = 8\n')

    def told(variants=(), settings=()):
        loaded = build([tmp_path / "g.pw"], [tmp_path / v for v in variants], settings=settings)
        game, heard = _game(loaded)
        game.run()
        return heard, loaded

    heard, loaded = told()
    assert heard == ['it\'s C_A # and "C_B" C_A', -3, -3, 1, -2, 40]
    names = _names_read_by_rules(loaded)
    assert {"C_T", "C_S"} <= names and not {"C_A", "C_B", "C_F", "C_K"} & names
    assert "C_A" in loaded.compiled.source
    assert told(["v.pw"])[0][1:] == [8, 8, 1, 9, 40]
    assert told(settings=(("K", "7"),))[0][1:] == [-3, -3, 1, -2, 70]


def test_constants_loaded_as_literals_in_conditions_and_inlined_calls(tmp_path):
    # constants in comparisons, `and`, `or`, `not`, conditional expressions and the arguments of a
    # function written in place: the values are those of the names; a text stays a name (a long
    # one named many times would be copied as often)
    rules = HEAD + """const SLOW = 10
const ON = false
const NAME = "x"
function small(slower: int, v: int) -> bool = slower == 0 or v <= 5 - slower
rule main() {
    emit told(if SLOW == 0 or xs[0] > 2 then 1 else 0)
    emit told(if ON and xs[0] > 2 then 1 else 0)
    emit told(if not ON or xs[9] > 2 then 1 else 0)
    emit told(if NAME == "x" then 1 else 0)
    emit told(if NAME < "y" and SLOW >= 10 and -SLOW < 0 then 1 else 0)
    let a = if ON then sum(q for q in xs) else sum(y for y in ys)
    emit told(a)
    emit told(len([x for x in xs if small(SLOW, x)]))
    emit told(len([x for x in xs if small(0, x)]))
    emit told(if NEG < 0 and ON == false and NEG != SLOW and not (NEG >= 4) then 1 else 0)
    emit told(if (NAME == "(1 == 2)") == false then 1 else 0)
    finish players
}
"""
    rules = rules.replace("const ON = false", "const ON = false\nconst NEG = -3")
    (tmp_path / "g.pw").write_text(rules)
    loaded = build([tmp_path / "g.pw"], [])
    game, heard = _game(loaded)
    game.run()
    assert heard == [1, 0, 1, 1, 1, 9, 1, 6, 1, 1]
    assert "C_NAME" in _names_read_by_rules(loaded) and not {"C_SLOW", "C_ON"} & _names_read_by_rules(loaded)
    # a comparison of two literals is written as its value, which Python drops from a test; a
    # text that looks like one is left as it is
    ran = with_constants(loaded.compiled.source, loaded.program)
    assert "((False) or " in ran and "(10 == 0)" not in ran and "(slower == 0)" not in ran
    for folded in ("((-3) < 0)", "(False == False)", "((-3) != 10)", "((-3) >= 4)"):
        assert folded not in ran
    assert "'(1 == 2)'" in ran


@pytest.mark.parametrize("count", ["2", "N", "n", "5", "FIVE", "five"])
def test_a_draw_of_a_literal_count_does_what_a_draw_of_a_worked_out_count_does(tmp_path, count):
    # `draw 2` and `draw N` (N a constant) are written with the count as a literal; `draw n` (a local)
    # is not: the cards drawn, and the error of too few cards, must be the same
    body = f"""const N = 2
const FIVE = 5
global pile: pile of C = cards
rule main() {{
    let n = 2
    let five = 5
    draw {count} from pile to players[0].hand
    emit told_l([c.v for c in players[0].hand])
    emit told(len(pile))
    finish players
}}
"""
    got = _play(tmp_path, body)
    if count in ("2", "N", "n"):
        assert got == ("told", [(3, 2), 1])
    else:
        assert got[0] == "error" and got[1] == "cannot draw 5 card(s): the pile holds 3"
        assert got[2] == _line(body, f"    draw {count} from pile to players[0].hand")
    assert (") < 2: _draw(2, " in build([tmp_path / "g.pw"], []).compiled.source) == (count == "2")


def _told_and_left(tmp_path, body: str) -> tuple[list, int]:
    """What the game told, and the steps left of its budget at the end."""
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    game, told = _game(build([path], []))
    game.run()
    return told, game.budget[0]


@pytest.mark.parametrize("cond", ["x > 100", "x > 5", "x > 3", "x > 0", "true"])
@pytest.mark.parametrize("how", ["sort", "max", "min"])
def test_a_loop_sorting_or_picking_by_a_key_tells_what_python_would(tmp_path, how, cond):
    # written as a loop before a `let`: a sort of one pair or none skips _sort_pairs, and a min or
    # max by a tuple of whole numbers compares in the loop (the first of equal keys wins)
    key = "(x % 2, 0 - x)" if how != "sort" else "0 - x"
    expr = f"{how}(x for x in xs if {cond} by {key})"
    if how != "sort":
        expr = f"(if len([x for x in xs if {cond}]) == 0 then 0 else {expr})"  # max of nothing: none
    told, _ = _told_and_left(tmp_path, f"""rule main() {{
    let a = {expr}
    emit {"told_l" if how == "sort" else "told"}(a)
    finish players
}}
""")
    made = build([tmp_path / "g.pw"], []).compiled.source
    assert "_max_by" not in made and "_min_by" not in made
    assert ("_sort_pairs(_t" in made) == (how == "sort")  # the loop's, after its length test
    items = [x for x in (3, -1, 4, 1, -5, 9) if eval(cond.replace("true", "True"))]
    if how == "sort":
        assert told == [tuple(sorted(items, key=lambda x: -x))]
    else:
        pick = max if how == "max" else min
        assert told == [pick(items, key=lambda x: (x % 2, -x)) if items else 0]


def test_a_sort_of_one_pair_or_none_costs_what_sort_pairs_charges(tmp_path):
    # the comprehension pays for every item of xs whatever passes; what differs between none, one
    # and two items passing is the sort's own charge, which must be _sort_pairs' for that many
    from pitwall.interpreter.budget import metered

    def charged(n: int) -> int:
        helpers = metered(1000)
        helpers["_sort_pairs"]([(-i, i) for i in range(n)], 3, False)
        return 1000 - helpers["_budget"][0]

    left = {}
    for n, cond in ((0, "x > 100"), (1, "x > 5"), (2, "x > 3")):
        told, left[n] = _told_and_left(tmp_path, f"""rule main() {{
    let a = sort(x for x in xs if {cond} by 0 - x)
    emit told(len(a))
    finish players
}}
""")
        assert told == [n]
    assert "_B - (6)" in build([tmp_path / "g.pw"], []).compiled.source
    assert (left[0] - left[1], left[0] - left[2]) == (charged(1), charged(2)) == (6, 20)


@pytest.mark.parametrize("store", ["let a = {m}(zs)", "g = {m}(zs)", "players[0].n = {m}(zs)"])
@pytest.mark.parametrize("m", ["max", "min"])
def test_the_min_or_max_of_a_list_holding_none_is_an_error_where_it_is_stored(tmp_path, store, m):
    # a list's items are not checked where the list is made ([first(...)] may hold none), so the
    # min or max of one is checked where it is stored, like any whole number that may be none;
    # else the none went on, to fail later at another line (a key comparing it) or never
    body = f"""global g: int = 0
rule main() {{
    let zs = [first([x for x in xs if x > 100])]
    {store.format(m=m)}
    let b = max(x for x in xs by (if x > 0 then 1 else 1, 10 / (x - 1)))
    emit told(b)
    finish players
}}
"""
    got = _play(tmp_path, body)
    assert got == ("error", "a value is 'none' here (an empty pile's top or first, or an unset participant)",
                   _line(body, "    " + store.format(m=m)))


# x += v and x -= v where v's sign is known: only the side the number moves to is tested, and the
# number still ends where the range does, at either end
@pytest.mark.parametrize(("start", "op", "value", "tested"), [
    ("big", "+=", "1", ">"),
    ("big - 1", "+=", "1", ">"),
    ("0 - big", "-=", "1", "<"),
    ("0 - big + 1", "-=", "1", "<"),
    ("big", "-=", "DOWN", ">"),  # a constant below zero
    ("0 - big", "+=", "DOWN", "<"),
    ("big - 4", "+=", "UP", ">"),
    ("0 - big", "+=", "-UP", "<"),  # a negated constant
    ("big", "+=", "len(xs)", ">"),  # a length
    ("0 - big + 5", "-=", "count(x for x in xs if x > 0)", "<"),
    ("big", "-=", "0", "none"),  # zero moves nowhere
    ("big", "+=", "players[0].n + 1", "both"),  # a sign not known: both sides
    ("big", "+=", "UP + DOWN", "both"),  # signs on both sides of 0
    ("0 - big", "-=", "players[0].n + 1", "both"),
])
def test_a_number_moved_by_a_value_of_known_sign_is_tested_on_that_side_only(tmp_path, start, op, value, tested):
    body = f"""const UP = 5
const DOWN = 0 - UP
global start_at: int = {start}
rule main() {{
    let x = start_at
    x {op} {value}
    emit told(x)
    finish players
}}
"""
    got = _play(tmp_path, body)
    big = 2**63 - 1
    start_n = {"big": big, "big - 1": big - 1, "big - 4": big - 4, "0 - big": -big, "0 - big + 1": 1 - big,
               "0 - big + 5": 5 - big}[start]
    moved = {"1": 1, "DOWN": -5, "UP": 5, "-UP": -5, "len(xs)": 6, "count(x for x in xs if x > 0)": 4, "0": 0,
             "players[0].n + 1": 1, "UP + DOWN": 0}[value]
    want = start_n + moved if op == "+=" else start_n - moved
    if -2**63 < want < 2**63:
        assert got == ("told", [want])
    else:
        assert got[:2] == ("error", f"{want} is beyond the range of whole numbers (-{2**63 - 1} to {2**63 - 1})")
        assert got[2] == _line(body, f"    x {op} {value}")
    made = build([tmp_path / "g.pw"], []).compiled.source
    checks = [line.strip() for line in made.splitlines() if "_overflow(l_x)" in line]  # a global: known at the let
    tests = {"both": ["l_x > 1073741823", "l_x < -1073741823"], ">": ["l_x > 1073741823"],
             "<": ["l_x < -1073741823"], "none": []}[tested]
    assert checks == ([f"if {' or '.join(tests)}: _overflow(l_x)"] if tests else [])


def test_a_length_count_or_position_near_a_small_number_needs_no_check(tmp_path):
    # each is at most LIST_MAX, so a small number added or taken away stays in range; a large one not
    body = """rule main() {
    let a = len(xs) - 1
    let b = count(x for x in xs if x > 0) + 2
    let c = index_of(xs, 4) + 1
    emit told_l([a, b, c])
    let d = len(xs) + big
    emit told(d)
    finish players
}
"""
    got = _play(tmp_path, body)
    assert got[:2] == ("error", f"{2**63 + 5} is beyond the range of whole numbers (-{2**63 - 1} to {2**63 - 1})")
    assert got[2] == _line(body, "    let d = len(xs) + big")
    made = build([tmp_path / "g.pw"], []).compiled.source
    assert [n for n in "abcd" if f"_overflow(l_{n})" in made] == ["d"]
    assert _play(tmp_path, body.replace("big", "0"))[1] == [(5, 6, 3), 6]
