"""Statement code and expression code agree: a seeded fuzz of the compiler's two ways of writing
an expression.

Where a statement works a value out, the compiler writes comprehensions as loops, `and`, `or`
and conditions as `if`s, calls of small functions in place with their arguments in locals
(compile_flat.py, compile_inline.py); where nothing can come before it (an event's values) the
same expression is one Python expression. Each case is a random expression over whole numbers,
truth values and lists (comprehensions in comprehensions, aggregates, min, max, clamp, `in`,
division, functions of one expression and of `if`s that return), worked out both ways in games of
its own: the values must be equal, and so must the errors (division by zero, max of nothing, an
index out of range), message for message.
"""

from __future__ import annotations

import random

import pytest
from pitwall.interpreter.agents import FirstLegal
from pitwall.interpreter.errors import PitwallError
from pitwall.interpreter.load import build
from pitwall.interpreter.runtime import Game

HEAD = """game g "G" {
    players P 2 to 2
    play main
}
participant P {
    n: int = 0
}
global xs: list of int = [3, -1, 4, 1, -5, 9]
global ys: list of int = [2, 7, 0]
event told(v: int) "{v}"
event told_b(v: bool) "{v}"
function twice(a: int) -> int = a + a
function pick(a: int, b: int) -> int {
    if a > b {
        return a - b
    } elif a == b {
        return 0
    }
    return b + 1
}
function big(l: list of int) -> int = max(x for x in l if x > 0)
"""


class Exprs:
    """Random typed expressions: int, bool, or list of int; locals in scope are ints."""

    def __init__(self, rnd: random.Random):
        self.rnd = rnd
        self.n = 0

    def fresh(self) -> str:
        self.n += 1
        return f"v{self.n}"

    def int_(self, depth: int, names: list[str]) -> str:
        r = self.rnd
        if depth <= 0 or r.random() < 0.2:
            return r.choice([str(r.randint(-3, 9)), "players[0].seat", "players[1].seat", *names])
        d = depth - 1
        i, b, lst = (lambda: self.int_(d, names)), (lambda: self.bool_(d, names)), (lambda: self.list_(d, names))
        forms = [
            lambda: f"({i()} {r.choice(['+', '-', '*'])} {i()})",
            lambda: f"({i()} {r.choice(['/', '%'])} {i()})",
            lambda: f"(if {b()} then {i()} else {i()})",
            lambda: f"{r.choice(['min', 'max'])}({i()}, {i()})",
            lambda: f"clamp({i()}, {i()}, {i()})",
            lambda: self.aggregate(d, names),
            lambda: self.aggregate(d, names),
            lambda: f"len({lst()})",
            lambda: f"twice({i()})",
            lambda: f"pick({i()}, {i()})",
            lambda: f"{lst()}[{i()}]",
            lambda: f"big({lst()})",
            lambda: self.extreme_by(d, names),
            lambda: f"abs({i()})",
            lambda: self.first(d, names),  # none where nothing passes: then adding or comparing it fails
        ]
        return r.choice(forms)()

    def aggregate(self, d: int, names: list[str]) -> str:
        r, v = self.rnd, self.fresh()
        agg = r.choice(["sum", "count", "max", "min"])
        cond = f" if {self.bool_(d, names + [v])}" if r.random() < 0.6 else ""
        return f"{agg}({self.int_(d, names + [v])} for {v} in {self.list_(d, names)}{cond})"

    def first(self, d: int, names: list[str]) -> str:
        v = self.fresh()
        return f"first({v} for {v} in {self.list_(d, names)} if {self.bool_(d, names + [v])})"

    def extreme_by(self, d: int, names: list[str]) -> str:
        """min or max by a key: the first of equal keys wins."""
        r, v = self.rnd, self.fresh()
        elem = v if r.random() < 0.5 else self.int_(d, names + [v])
        return f"{r.choice(['min', 'max'])}({elem} for {v} in {self.list_(d, names)} by {v} % 2)"

    def bool_(self, depth: int, names: list[str]) -> str:
        r = self.rnd
        d = depth - 1
        if depth <= 0 or r.random() < 0.2:
            return f"({self.int_(0, names)} {r.choice(['<', '>', '==', '!='])} {self.int_(0, names)})"
        pick = r.randrange(5)
        if pick == 0:
            return f"({self.bool_(d, names)} {r.choice(['and', 'or'])} {self.bool_(d, names)})"
        if pick == 1:
            v = self.fresh()
            return f"{r.choice(['any', 'all'])}({self.bool_(d, names + [v])} for {v} in {self.list_(d, names)})"
        if pick == 2:
            return f"({self.int_(d, names)} in {self.list_(d, names)})"
        if pick == 3:
            return f"not {self.bool_(d, names)}"
        return f"({self.int_(d, names)} {r.choice(['<', '<=', '>=', '!='])} {self.int_(d, names)})"

    def list_(self, depth: int, names: list[str]) -> str:
        r = self.rnd
        d = depth - 1
        if depth <= 0 or r.random() < 0.3:
            return r.choice(["xs", "ys", "[1, 2, 3]", "range(0, 3)"])
        pick = r.randrange(3)
        if pick == 0:
            v = self.fresh()
            cond = f" if {self.bool_(d, names + [v])}" if r.random() < 0.5 else ""
            return f"[{self.int_(d, names + [v])} for {v} in {self.list_(d, names)}{cond}]"
        if pick == 1:  # a short range: at most six numbers
            a = self.int_(0, names)
            return f"range({a}, clamp({self.int_(d, names)}, {a} - 1, {a} + 5))"
        return f"sort(x for x in {self.list_(d, names)} by {r.choice(['x', '0 - x'])})"


def _outcome(tmp_path, name: str, body: str):
    path = tmp_path / f"{name}.pw"
    path.write_text(HEAD + body)
    loaded = build([path], [])
    told = []
    game = Game(loaded, ["A", "B"], [FirstLegal()] * 2, 1, budget=10**6, record=False,
                listener=lambda entry: told.append(entry[2][0]), auto_agent=FirstLegal())
    try:
        game.run()
    except PitwallError as e:
        return "error", e.message
    return "value", told[0]


@pytest.mark.parametrize("seed", range(150))
def test_statements_and_expressions_work_a_value_out_alike(tmp_path, seed):
    rnd = random.Random(seed)
    gen = Exprs(rnd)
    kind = rnd.choice(["int", "bool"])
    expr = gen.int_(4, []) if kind == "int" else gen.bool_(4, [])
    event = "told" if kind == "int" else "told_b"
    # a list, which nothing checks (a whole number stored is checked, a told one is not)
    stated = f"rule main() {{\n    let got = [{expr}]\n    emit {event}(got[0])\n    finish players\n}}\n"
    told = f"rule main() {{\n    emit {event}({expr})\n    finish players\n}}\n"
    a = _outcome(tmp_path, "stated", stated)
    b = _outcome(tmp_path, "told", told)
    assert a == b, expr
