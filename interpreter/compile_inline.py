"""Small functions written in place of their calls (compile.Gen inherits this).

Rules call small functions (`total(p)` and friends) in every loop; a call costs a Python call, a
budget charge and the checks of its parameters. A small function whose body is one expression is
written in place of the call instead, its parameters standing for the arguments. A function whose
body is only `if`s that return, ending in a `return` (`if s > limit { return ... } return s`), is
one expression too: its conditions nest as conditional expressions (body_expression). Never a
function with modifiers, a recursive one, or one nested in too many others; and at most
INLINE_NODES nodes written in place for one statement, so that functions calling functions twice
cannot make code exponential in their number.

A call worked out where a statement works out its value (compile_flat.py) has its arguments
worked out first, in order, into locals, as a call would (any argument will do), each whole number
checked there unless known in range, as the function's entry would check it. An error in a body
written in place is reported at the line of the statement that calls it (whether a part is kept
for a loop or not: compile_hoist.py charges a kept part's steps where it is used). Within an expression that
nothing can come before (an event's values), an argument is written in as code, so it may be
worked out twice, or not at all where the body names it in a branch not taken: only arguments
that cannot fail and are cheap to repeat (names, literals, sums and comparisons of them, named
at most twice: see _cheap), and whole numbers known in range. An inlined call costs the nodes of
the call, not the function's entry (docs/language.md, the step budget).
"""

from __future__ import annotations

import re

import attrs

from . import ast
from .compile_hoist import _CALLED
from .costs import size
from .limits import INT_MAX

# Nodes a function's body may hold, once the small functions it calls are written into it in
# turn: a call of a bigger one is left a call. So functions calling functions twice (f0 calls f1
# twice, f1 calls f2 twice, ...) cannot make code exponential in their number; and whether a call
# is written in place never depends on the code around it (the plain and the fast code spend the
# same steps).
INLINE_NODES = 240


@attrs.frozen
class Arg:
    """An argument of a call written in place: the code its parameter stands for, what it reads
    (the locals around the call, for keeping parts: compile_hoist.py), whether a whole number it
    holds is known to be in range and a bound of its size if one is known (compile_ranges.py)."""
    code: str
    reads: frozenset
    known: bool
    bound: int | None = None


class InlineGen:

    def inline(self, c: ast.Call, args: list[str]) -> str | None:
        """The function's body in place of its call with args as they are, or None to call it."""
        found = self.inlinable(c.name)
        if found is None:
            return None
        f, body = found
        # a local bound by `:=` cannot go into a comprehension's iterable
        walrus_ok = not (self.flattening and self._has_comp(body))
        for p, a, code in zip(f.params, c.args, args):
            if not (_SAFE.fullmatch(code) or _cheap(code) and (walrus_ok or ":=" not in code)
                    and _uses(body, p.name) <= 2):
                return None
            if p.type.name == "int" and not self.known_in_range(a, self.unchecked):
                return None  # its entry would check it, and nothing can come before here
        return self.inlined(f, self.arguments(f, c.args, args), lambda: f"({self.expr(body)})")

    def arguments(self, f: ast.FunctionDecl, asts, codes: list[str], known=()) -> dict[str, Arg]:
        """Each parameter's Arg, for the call's argument expressions and their code here."""
        out = {}
        for i, (p, a, code) in enumerate(zip(f.params, asts, codes)):
            reads = frozenset(self._reads(a, frozenset())) | {(p.name, code)}  # the code: one key per argument
            bound = self.magnitude(a, self.unchecked) if p.type.name == "int" else None
            if i in known:  # checked where the call works it out
                bound = INT_MAX if bound is None else min(bound, INT_MAX)
            out[p.name] = Arg(code, reads, i in known or self.known_in_range(a, self.unchecked), bound)
        return out

    def inlinable(self, name: str) -> tuple[ast.FunctionDecl, object] | None:
        """The function and the expression to write in place of a call of it, if it may be."""
        f = self.prog.functions[name]
        if not self.inline_ok or name in self.modified or name in self.inlining or len(self.inlining) >= 8:
            return None
        body = self.body_expression(f)
        if body is None or size(body) > 40 or self.expanded(name) > INLINE_NODES:
            return None
        return f, body

    def expanded(self, name: str) -> int:
        """The nodes of a function's body with every call it writes in place written in (a call
        of a recursive function, or of one too big, counts as a call, and a recursive function
        as too big: it is never written in place)."""
        if name not in self.expanded_sizes:
            self._expand(name)
        return self.expanded_sizes[name]

    def _expand(self, root: str) -> None:
        """expanded_sizes of root and every function it calls, callees first. A loop, not a
        recursion, and each function worked out once: a hostile chain of thousands of calls, or
        functions calling each other in a ring, takes linear time (a recursion through every path
        of a ring took exponential time)."""
        sizes, todo = self.expanded_sizes, [(root, None)]
        while todo:
            name, known = todo.pop()  # known: (the body's own size, its calls), once its callees are worked out
            if known is not None:
                own, callees = known
                sizes[name] = own + sum(n for c in callees if (n := sizes[c]) <= INLINE_NODES)
                continue
            if name in sizes:
                continue
            body = self.body_expression(self.prog.functions[name]) if name not in self.modified else None
            own = size(body) if body is not None else 0
            if body is None or name in self.recursive or own > 40:
                sizes[name] = INLINE_NODES + 1
                continue
            callees = [c for c in _calls(body) if c in self.prog.functions]
            todo.append((name, (own, callees)))
            todo.extend((c, None) for c in callees if c not in sizes)

    def body_expression(self, f: ast.FunctionDecl):
        """The function's body as one expression, or None."""
        if not isinstance(f.body, ast.Block):
            return f.body
        if f.name not in self.as_expressions:
            self.as_expressions[f.name] = self._returns(list(f.body.stmts), None)
        return self.as_expressions[f.name]

    def may_inline(self, f: ast.FunctionDecl) -> bool:
        """Might a call of f be written in place somewhere (then its parameters are unchecked)?"""
        return self.inline_ok and self.expanded(f.name) <= INLINE_NODES

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

    def inlined(self, f: ast.FunctionDecl, args: dict[str, Arg], body):
        """body() compiled with f's parameters standing for their arguments."""
        saved = self.subst, self.args, self.pre
        self.subst = {name: a.code for name, a in args.items()}
        self.args = args
        self.pre = {}  # what was worked out for a node holds for the node under its own names only
        self.inlining.append(f.name)
        try:
            return body()
        finally:
            self.inlining.pop()
            self.subst, self.args, self.pre = saved

    def argument(self, e: ast.Var) -> Arg | None:
        """The argument a parameter of an inlined function stands for, where e is that parameter
        (not a comprehension's variable of the same name inside the body)."""
        a = self.args.get(e.name)
        if a is not None and self.subst is not None and self.subst.get(e.name) == a.code:
            return a
        return None


def _calls(node):
    """The names of the functions and rules an expression calls, once for each call."""
    if isinstance(node, ast.Call):
        yield node.name
    for c in ast.children(node):
        yield from _calls(c)


def _uses(node, name: str) -> int:
    """How often an expression names a parameter (an inlined body repeats its argument as often)."""
    if isinstance(node, ast.Var):
        return node.name == name
    return sum(_uses(c, name) for c in ast.children(node))


def _cheap(code: str) -> bool:
    """May an argument's code be repeated where the inlined body names its parameter (twice at
    most), or not be worked out at all? Short, and made of names that cannot fail (locals,
    constants, globals), numbers, + and -, comparisons, conditions and min/max/abs only (and the
    locals `:=` binds in their written-out forms, compile_arith.py, where the body holds no
    comprehension, whose iterable could not take them): no field (of a participant that may be
    none), no call that works, no operator that can fail (division, %), no text that could hide one."""
    return (len(code) <= 240 and _SIMPLE.fullmatch(code) is not None and not _FIELD.search(code)
            and set(_CALLED.findall(code)) <= _CHEAP_WORDS)


_CHEAP_WORDS = {"min", "max", "abs", "if", "else", "and", "or", "not", "is"}
_SIMPLE = re.compile(r"[A-Za-z0-9_ .()<>=!+\-,:]*")
# a field read that may fail: of anything but the state (`_S.g_NAME`, a global, never fails)
_FIELD = re.compile(r"(?<!_S)\.[A-Za-z_]")
# an argument that cannot fail: a local, constant or global, a literal
_SAFE = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|_S\.g_[A-Za-z_0-9]+|_S\.players|-?[0-9]+|'[A-Za-z_0-9 ]*'|True|False|None")
