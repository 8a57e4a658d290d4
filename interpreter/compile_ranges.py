"""Which stored whole numbers need their range checked (compile.Gen inherits this).

Every whole number a variable, field or parameter holds stays within -INT_MAX..INT_MAX: it is
checked where it is stored. A value the compiler can show to be in range needs no check there:
a literal in range, a constant, a global, a participant's or card's field (each checked where it
was stored), a `let` or parameter of the function (checked when bound), a `repeat` count (it
cannot outrun the step budget), `len`, `count` and `index_of` (bounded by the longest list),
a product (`*` checks its own result), and `-`, `abs`, `/`, `%`, `min`, `max`, `clamp` and
conditions of such values. Sums and differences are checked, and so are loop variables, chosen
values and list items (a list's items are not checked when it is made), and what a function
returns unless its body is itself such a value.

A parameter is checked where the function or rule is entered, unless every call of it in the
program passes a value known in range there (calls_in_range, worked out before the code). A
function whose body is one expression may be inlined, skipping its entry: in its body, its
parameters are not known.
"""

from __future__ import annotations

import attrs

from . import ast
from .limits import INT_MAX

_BOUNDED_CALLS = ("len", "count", "index_of")
_OF_ARGUMENTS = ("min", "max", "abs")
ALL = None  # `unknown` where no local at all is known (a body that may be inlined)


class RangeGen:
    unchecked: frozenset[str] | None = frozenset()  # locals of the body being compiled not known in range
    known_functions: dict[str, bool]  # _known_function's answers
    checked_params: dict[str, set[str]]  # per function and rule: the int parameters its entry checks

    def enter_body(self, decl, body) -> None:  # noqa: ARG002 - decl: what the body belongs to
        """Before a function's or rule's body: which of its locals are bound to unchecked values."""
        self.unchecked = _unknown_locals(body)

    def check_value(self, place: str, value, t, span) -> None:
        """The range check of a whole number stored at `place`, unless `value` is known in range."""
        if not self.known_in_range(value, self.unchecked):
            self.check_int(place, t, span)

    def known_in_range(self, e, unknown, calls: tuple[str, ...] = ()) -> bool:
        """Is the whole number e surely within the range, where the locals in `unknown` (all, if
        ALL) are not known to be? `calls`: the functions whose bodies are being looked into."""
        if isinstance(e, ast.Int):
            return abs(e.value) <= INT_MAX
        if isinstance(e, ast.Var):
            p = self.prog
            if e.name in p.consts or e.name in p.globals:
                return True
            arg = self.argument(e)
            if arg is not None:  # an inlined function's parameter
                return not calls and arg.known
            if self.subst is not None and e.name in self.subst:
                return False  # a comprehension's variable: an item of a list
            return unknown is not ALL and self.is_local(e) and e.name not in unknown
        if isinstance(e, ast.Field):
            return self.type_of(e.obj).kind in ("participant", "card")
        if isinstance(e, ast.UnOp):
            return e.op in ("-", "+") and self.known_in_range(e.operand, unknown, calls)
        if isinstance(e, ast.Cond):
            return self.known_in_range(e.then, unknown, calls) and self.known_in_range(e.orelse, unknown, calls)
        if isinstance(e, ast.BinOp):
            return e.op == "*" or e.op in ("/", "%") and self.known_in_range(e.left, unknown, calls) \
                and self.known_in_range(e.right, unknown, calls)
        if isinstance(e, ast.Aggregate):
            if e.name in ("min", "max") and e.comp.key is None:
                inner = ALL if unknown is ALL else unknown | {e.comp.var}
                return self.known_in_range(e.comp.elem, inner, calls)
            return e.name == "count"
        if isinstance(e, ast.Call):
            return self._known_call(e, unknown, calls)
        return False

    def _known_call(self, e: ast.Call, unknown, calls) -> bool:
        n = e.name
        f = self.prog.functions.get(n)
        if f is not None:  # an expression body in range whatever its parameters are
            return self._known_function(n)
        if n in self.prog.rules:
            return False
        if n in _BOUNDED_CALLS:
            return True
        if n in _OF_ARGUMENTS:
            return all(self.known_in_range(a, unknown, calls) for a in e.args) and (n != "abs" or len(e.args) == 1)
        if n == "clamp":  # between its bounds, or the upper one where they cross
            return self.known_in_range(e.args[1], unknown, calls) and self.known_in_range(e.args[2], unknown, calls)
        if n == "roll":
            return self.known_in_range(e.args[0], unknown, calls)
        return False

    def _known_function(self, name: str) -> bool:
        """Is what the function gives known in range, whatever its arguments? Worked out once per
        function (a function calling another twice, and so on, would take exponential time)."""
        known = self.known_functions.get(name)
        if known is None:
            self.known_functions[name] = False  # within its own body (a recursive call): not known
            body = self.body_expression(self.prog.functions[name]) if name not in self.modified else None
            known = self.known_functions[name] = body is not None and self.known_in_range(body, ALL, (name,))
        return known

    def calls_in_range(self) -> None:
        """checked_params: the int parameters of each function and rule that some call of it
        passes a value not known in range (and the entry must check)."""
        p = self.prog
        self.checked_params = {}
        for f in p.functions.values():
            # a function that may be inlined runs with its caller's arguments, not its own entry
            inlinable = self.may_inline(f)
            self._calls_of(f.body, ALL if inlinable else _unknown_locals(f.body))
            for m in p.modifiers:
                if m.target == f.name:  # `result` is what the function gave, unchecked
                    self._calls_of((m.when, m.value), ALL if inlinable else frozenset({"option", "result"}))
        for r in p.rules.values():
            self._calls_of((r.body, *r.extensions), _unknown_locals((r.body, *r.extensions)))
        self._calls_of([g.default for g in p.globals.values()], frozenset())  # worked out as a game starts

    def _calls_of(self, node, unknown) -> None:
        if isinstance(node, (list, tuple)):
            for n in node:
                self._calls_of(n, unknown)
            return
        if node is None or not attrs.has(type(node)):
            return
        if isinstance(node, ast.Call):
            decl = self.prog.functions.get(node.name) or self.prog.rules.get(node.name)
            if decl is not None:
                for param, arg in zip(decl.params, node.args):
                    if param.type.name == "int" and not self.known_in_range(arg, unknown):
                        self.checked_params.setdefault(node.name, set()).add(param.name)
        if isinstance(node, ast.Comprehension) and unknown is not ALL:
            unknown = unknown | {node.var}
        for f in attrs.fields(type(node)):
            if f.name != "span":
                self._calls_of(getattr(node, f.name), unknown)


def _unknown_locals(body) -> frozenset[str]:
    """The locals of a body bound by a loop over a collection, a simultaneous block or a choice:
    they hold an item of a list, which nobody checked. A prefer's `option` too."""
    names = {"option"}
    _unchecked_bindings(body, names)
    return frozenset(names)


def _unchecked_bindings(node, names: set[str]) -> None:
    if isinstance(node, (list, tuple)):
        for n in node:
            _unchecked_bindings(n, names)
        return
    if isinstance(node, (ast.For, ast.Simultaneous)):
        names.add(node.var)
    elif isinstance(node, ast.Choose) and isinstance(node.target, ast.Var):
        names.add(node.target.name)
    if isinstance(node, ast.Block):
        _unchecked_bindings(node.stmts, names)
    elif isinstance(node, ast.If):
        _unchecked_bindings([b for _, b in node.branches], names)
        if node.orelse is not None:
            _unchecked_bindings(node.orelse, names)
    elif isinstance(node, (ast.For, ast.While, ast.Repeat, ast.Simultaneous)):
        _unchecked_bindings(node.body, names)
