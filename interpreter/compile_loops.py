"""A statement's whole value that is an aggregate, written as a loop (compile.Gen inherits this).

`let total = sum(c.value for c in f.front)` compiled to `sum([... for ...])` makes and calls a
function and builds a list for a pile of two cards: in Python 3.11 a comprehension is a function
of its own. Written as lines before the statement, the same work is a plain loop into a local:

    _t1 = l_f.v_front                  # the collection, paid for as before (Gen.paid)
    _t2 = 0
    for t3_c in _t1:
        _t2 += t3_c.v_value
    l_total = _t2

The loop's variable has a name of its own (no rules local is overwritten); slots of loop-invariant
parts (compile_hoist.py) are made before the loop, once per pass as before. The values, the steps
charged (all up front, as the collection is paid for), the order of evaluation, where `any`,
`all` and `first` stop, and the errors (`max` of nothing) are those of the comprehension.
"""

from __future__ import annotations

from . import ast
from .costs import ITEM_COST, weight
from .errors import Span

LOOPED = ("sum", "count", "any", "all", "first", "min", "max")


class LoopGen:
    def looped(self, e, span: Span) -> str | None:
        """The name of a local holding e's value, worked out by lines before the statement; None
        where e is no aggregate written as a loop."""
        if not isinstance(e, ast.Aggregate) or e.name not in LOOPED or e.comp.key is not None \
                or self.subst is not None:
            return None
        c, name = e.comp, e.name
        self.hoisted = (c, span)
        it = self.paid(self.expr(c.iter), ITEM_COST + weight((c.elem, c.cond, c.key)))
        self.tmp += 1
        var = f"t{self.tmp}_{c.var}"
        self.subst = {c.var: var}
        p = self.open_pass(var)
        try:
            cond = self.expr(c.cond) if c.cond is not None else None
            elem = self.expr(c.elem) if name != "count" else "1"
        finally:
            self.subst = None
            self.passes.pop()
        for slot in p.slots:
            self.line(f"{slot} = [None, None]", span)
        acc = self.fresh()
        getattr(self, "_loop_" + name)(acc, var, it, cond, elem, span)
        return acc

    def _loop(self, acc: str, start: str, var: str, it: str, test: str | None, body: list[str], span) -> None:
        """acc = start; for var in it: [if test:] body"""
        self.line(f"{acc} = {start}", span)
        self.line(f"for {var} in {it}:", span)
        inner = "    "
        if test is not None:
            self.line(f"    if {test}:", span)
            inner = "        "
        for text in body:
            self.line(inner + text, span)

    def _loop_sum(self, acc, var, it, cond, elem, span):
        self._loop(acc, "0", var, it, cond, [f"{acc} += {elem}"], span)

    _loop_count = _loop_sum

    def _loop_any(self, acc, var, it, cond, elem, span):
        test = f"({cond}) and ({elem})" if cond is not None else elem
        self._loop(acc, "False", var, it, test, [f"{acc} = True", "break"], span)

    def _loop_all(self, acc, var, it, cond, elem, span):
        test = f"({cond}) and not ({elem})" if cond is not None else f"not ({elem})"
        self._loop(acc, "True", var, it, test, [f"{acc} = False", "break"], span)

    def _loop_first(self, acc, var, it, cond, elem, span):
        self._loop(acc, "None", var, it, cond, [f"{acc} = {elem}", "break"], span)

    def _extreme(self, acc, var, it, cond, elem, span, name: str, op: str):
        # Python's own min/max: the first of equal extremes is kept; of nothing, its error
        x, empty = self.fresh(), self.fresh()
        self.line(f"{empty} = True", span)
        self._loop(acc, "None", var, it, cond, [f"{x} = {elem}", f"if {empty} or {x} {op} {acc}:",
                                                f"    {acc} = {x}", f"    {empty} = False"], span)
        self.line(f"if {empty}: {name}(())", span)

    def _loop_min(self, acc, var, it, cond, elem, span):
        self._extreme(acc, var, it, cond, elem, span, "min", "<")

    def _loop_max(self, acc, var, it, cond, elem, span):
        self._extreme(acc, var, it, cond, elem, span, "max", ">")
