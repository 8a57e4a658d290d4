"""Small functions written in place of their calls (compile.Gen inherits this).

Card games call `speed(p)` and friends in every loop; a call costs a Python call, a budget
charge and the checks of its parameters. A small function whose body is one expression is written
in place of the call instead, its parameters standing for the arguments' code: with arguments
cheap to repeat (names, fields, literals; sums, comparisons and conditions of them named at most
twice: see _cheap), or, where a statement works the call out (compile_flat.py), with each argument
worked out first into a local. A function whose body is only `if`s that return, ending in a
`return` (`value(d, s)` of Street Illegal's heuristic), is one expression too: its conditions
nest as conditional expressions (body_expression). Never a function with modifiers, a recursive
one, or one nested in too many others. An inlined call costs the nodes of the call, not the
function's entry (docs/language.md, the step budget).
"""

from __future__ import annotations

import re

import attrs

from . import ast
from .costs import size


class InlineGen:
    def inline(self, name: str, args: list[str]) -> str | None:
        """The function's body in place of its call with args as they are, or None to call it."""
        found = self.inlinable(name)
        if found is None:
            return None
        f, body = found
        # a local bound by `:=` cannot go into a comprehension's iterable
        walrus_ok = not (self.flattening and self._has_comp(body))
        if not all(_PLAIN.fullmatch(a) or _cheap(a) and (walrus_ok or ":=" not in a) and _uses(body, p.name) <= 2
                   for p, a in zip(f.params, args)):
            return None
        return self.inlined(f, args, lambda: f"({self.expr(body)})")

    def inlinable(self, name: str) -> tuple[ast.FunctionDecl, object] | None:
        """The function and the expression to write in place of a call of it, if it may be."""
        f = self.prog.functions[name]
        if not self.inline_ok or name in self.modified or name in self.inlining or len(self.inlining) >= 8:
            return None
        body = self.body_expression(f)
        if body is None or size(body) > 40:
            return None
        return f, body

    def body_expression(self, f: ast.FunctionDecl):
        """The function's body as one expression, or None."""
        if not isinstance(f.body, ast.Block):
            return f.body
        if f.name not in self.as_expressions:
            self.as_expressions[f.name] = self._returns(list(f.body.stmts), None)
        return self.as_expressions[f.name]

    def _returns(self, stmts: list, after):
        """The value `stmts` return, as an expression: `after` is what a fall-through returns (the
        statements after an `if`); None where they do anything but test and return."""
        if not stmts:
            return after
        s = stmts[0]
        if isinstance(s, ast.Return):
            return s.value
        if not isinstance(s, ast.If):
            return None
        rest = self._returns(stmts[1:], after)
        value = self._returns(list(s.orelse.stmts), rest) if s.orelse is not None else rest
        for cond, body in reversed(s.branches):
            then = self._returns(list(body.stmts), rest)
            if then is None or value is None:
                return None
            value = ast.Cond(cond, then, value, span=cond.span)
            self.types[id(value)] = self.type_of(then)
        return value

    def inlined(self, f: ast.FunctionDecl, args: list[str], body, reads: dict | None = None):
        """body() compiled with f's parameters standing for args (`reads`: what each argument
        reads, where args are locals that hide it: compile_hoist.py)."""
        saved = self.subst, self.arg_reads, self.pre
        self.subst = {p.name: a for p, a in zip(f.params, args)}
        self.arg_reads = reads or {}
        self.pre = {}  # what was worked out for a node holds for the node under its own names only
        self.inlining.append(f.name)
        try:
            return body()
        finally:
            self.inlining.pop()
            self.subst, self.arg_reads, self.pre = saved


def _uses(node, name: str) -> int:
    """How often an expression names a parameter (an inlined body repeats its argument as often)."""
    if isinstance(node, (list, tuple)):
        return sum(_uses(n, name) for n in node)
    if not attrs.has(type(node)):
        return 0
    if isinstance(node, ast.Var):
        return node.name == name
    return sum(_uses(getattr(node, f.name), name) for f in attrs.fields(type(node)) if f.name != "span")


def _cheap(code: str) -> bool:
    """May an argument's code be repeated where the inlined body names its parameter (twice at
    most)? Short, and made of names, fields, numbers, + and -, comparisons, conditions and
    min/max/abs only (and the locals `:=` binds in their written-out forms, compile_arith.py,
    where the body holds no comprehension, whose iterable could not take them): no call that
    works, no operator that can fail (division, %), no text that could hide one."""
    return len(code) <= 240 and _SIMPLE.fullmatch(code) is not None and set(_CALLED.findall(code)) <= _CHEAP_WORDS


_CHEAP_WORDS = {"min", "max", "abs", "if", "else", "and", "or", "not", "is"}
_SIMPLE = re.compile(r"[A-Za-z0-9_ .()<>=!+\-,:]*")
_CALLED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*(\.[A-Za-z_][A-Za-z_0-9]*)*|-?[0-9]+|'[A-Za-z_0-9 ]*'|True|False|None")
