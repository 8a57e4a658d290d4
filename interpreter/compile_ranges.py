"""Which stored whole numbers need their range checked (compile.Gen inherits this).

Every whole number a variable, field or parameter holds stays within -INT_MAX..INT_MAX: it is
checked where it is stored. A value the compiler can show to be in range needs no check there:
a literal in range, a constant, a global, a participant's or card's field (each checked where it
was stored), a `let` or parameter of the function (checked when bound), a `repeat` count (it
cannot outrun the step budget), `len`, `count` and `index_of` (bounded by the longest list),
a product (`*` checks its own result), and `-`, `abs`, `/`, `%`, `min`, `max`, `clamp` and
conditions of such values. Sums and differences are checked unless the sizes of their parts add
up to no more than the range (literals, constants, lengths, counts and positions, and the fields
of cards: cards are printed, so a field holds one of the numbers the decks' rows print there; see
magnitude). `x += v` and `x -= v` test only the end of the range x moves towards where v's sign
is known (check_step): x was in range before. Loop variables,
chosen values and list items are checked (a list's items are not checked when it is made), and
so is what a function returns unless its body is itself such a value. A value chosen from a
`range` whose ends are known in range is not checked, and a map's entry (made only by a choice)
is known in range.

A parameter is checked where the function or rule is entered, unless every call of it in the
program passes a value known in range there (calls_in_range, worked out before the code). A
function whose body is one expression may be inlined, skipping its entry: in its body, its
parameters are not known.
"""

from __future__ import annotations

from . import ast
from .compile_arith import QUICK
from .limits import INT_MAX, LIST_MAX
from .types import INT

_BOUNDED_CALLS = ("len", "count", "index_of")
BOUND_CALLS = 20  # functions looked into for a bound, one in the next
_OF_ARGUMENTS = ("min", "max", "abs")
ALL = None  # `unknown` where no local at all is known (a body that may be inlined)


class RangeGen:
    unchecked: frozenset[str] | None = frozenset()  # locals of the body being compiled not known in range
    known_functions: dict[str, bool]  # _known_function's answers
    const_signs: dict[str, int | None] | None = None  # sign's, of every constant: worked out at the first use
    checked_params: dict[str, set[str]]  # per function and rule: the int parameters its entry checks

    def enter_body(self, decl, body) -> None:  # noqa: ARG002 - decl: what the body belongs to
        """Before a function's or rule's body: which of its locals are bound to unchecked values."""
        self.unchecked = _unknown_locals(body)

    def check_step(self, place: str, op: str, value, span) -> None:
        """The range check after `place += value` or `-= value`: the number was in range before (every
        stored number is), so where value's sign is known it can leave the range on one side only,
        and only that side is tested (_overflow still tells a number in range from one beyond)."""
        s = self.sign(value)
        if s is None:
            self.check_int(place, INT, span)
        elif s == 0:
            return  # moved by nothing
        elif (op == "-") == (s > 0):
            self.line(f"if {place} < {-QUICK!r}: _overflow({place})", span)
        else:
            self.line(f"if {place} > {QUICK!r}: _overflow({place})", span)

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
            if e.op in ("+", "-"):  # a sum of small enough values: cards' printed numbers
                bound = self.magnitude(e, unknown, calls)
                return bound is not None and bound <= INT_MAX
            return e.op == "*" or e.op in ("/", "%") and self.known_in_range(e.left, unknown, calls) \
                and self.known_in_range(e.right, unknown, calls)
        if isinstance(e, ast.Aggregate):
            if e.name in ("min", "max") and e.comp.key is None:
                inner = ALL if unknown is ALL else unknown | {e.comp.var}
                return self.known_in_range(e.comp.elem, inner, calls)
            if e.name == "sum":  # of at most LIST_MAX items, each of a size known
                bound = self.magnitude(e, unknown, calls)
                return bound is not None and bound <= INT_MAX
            return e.name == "count"
        if isinstance(e, ast.Call):
            return self._known_call(e, unknown, calls)
        if isinstance(e, ast.Index):  # a map's entry: a chosen value, in range where it was chosen
            return self.type_of(e.obj).kind == "map"
        return False

    def options_in_range(self, options) -> bool:
        """Are the options of a choice whole numbers known in range: a `range` whose ends are?"""
        return (isinstance(options, ast.Call) and options.name == "range" and options.name not in self.prog.functions
                and all(self.known_in_range(a, self.unchecked) for a in options.args))

    def magnitude(self, e, unknown, calls: tuple[str, ...] = ()) -> int | None:
        """A bound of the whole number e's size (None: not known), for sums: a literal's, a
        constant's, a card's field (cards are printed: the largest number its deck rows print
        there), and sums, differences, negations and conditions of those, also as the body of a
        function of one expression; INT_MAX for any other value known in range."""
        if isinstance(e, ast.Var) and e.name in self.prog.consts:
            return self.bounds_of_consts().get(e.name)
        arg = self.argument(e) if isinstance(e, ast.Var) else None
        if arg is not None:  # an inlined function's parameter (not known within another's body)
            return None if calls else arg.bound
        if isinstance(e, ast.Field) and self.type_of(e.obj).kind == "card":
            return self.card_bound(self.type_of(e.obj).name, e.name)
        if isinstance(e, ast.UnOp) and e.op in ("-", "+"):
            return self.magnitude(e.operand, unknown, calls)
        if isinstance(e, (ast.BinOp, ast.Cond)) and (not isinstance(e, ast.BinOp) or e.op in ("+", "-")):
            a, b = (e.left, e.right) if isinstance(e, ast.BinOp) else (e.then, e.orelse)
            x, y = self.magnitude(a, unknown, calls), self.magnitude(b, unknown, calls)
            if x is None or y is None:
                return None
            return x + y if isinstance(e, ast.BinOp) else max(x, y)
        if isinstance(e, ast.Call) and e.name in self.prog.functions and e.name not in calls:
            return self._function_bound(e.name, calls)
        if isinstance(e, ast.Aggregate) and e.name in ("sum", "min", "max") and e.comp.key is None:
            # a list holds at most LIST_MAX items: a sum of cards' printed numbers stays small
            inner = ALL if unknown is ALL else unknown | {e.comp.var}
            item = self.magnitude(e.comp.elem, inner, calls)
            return None if item is None else item * LIST_MAX if e.name == "sum" else item
        if isinstance(e, ast.Int):
            return abs(e.value)
        if _counted(self.prog, e):
            return LIST_MAX  # a length, a count or a position: `len(xs) - 1` needs no check
        return INT_MAX if self.known_in_range(e, unknown, calls) else None

    def sign(self, e) -> int | None:
        """How the whole number e compares with 0 where it shows (_sign): 1 at least 0, -1 at most 0,
        0 zero, None not known."""
        if self.const_signs is None:
            self.const_signs = const_signs(self.prog)
        return _sign(self.prog, e, self.const_signs)

    def bounds_of_consts(self) -> dict[str, int | None]:
        if self.const_bounds is None:
            self.const_bounds = const_bounds(self.prog)
        return self.const_bounds

    def _function_bound(self, name: str, calls: tuple[str, ...]) -> int | None:
        """magnitude of what the function gives, whatever its arguments: worked out once. Not
        known through more than BOUND_CALLS functions, so a long chain of them cannot go deeper
        than Python's frames (the sums stay checked)."""
        if len(calls) >= BOUND_CALLS:
            return None
        if name not in self.function_bounds:
            self.function_bounds[name] = None  # within its own body: not known
            body = self.body_expression(self.prog.functions[name]) if name not in self.modified else None
            self.function_bounds[name] = None if body is None else self.magnitude(body, ALL, (*calls, name))
        return self.function_bounds[name]

    def card_bound(self, kind: str, field: str) -> int | None:
        """The largest size of a number the decks of this kind of card print in the field (its
        default where a row leaves it out); None where a row's value is not worked out from
        literals and constants alone."""
        key = (kind, field)
        if key not in self.card_bounds:
            rec = self.prog.cards[kind]
            at = [f.name for f in rec.fields].index(field)
            rows = [b for d in self.prog.decks.values() if d.card == kind
                    for b in _row_bounds(self.prog, d.entries, {}, at, rec.fields[at].default,
                                         self.bounds_of_consts())]
            self.card_bounds[key] = None if None in rows else max(rows, default=0)
        return self.card_bounds[key]

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
            if len(e.args) == 1 and self.type_of(e.args[0]).kind in ("list", "pile"):
                return False  # an item of a list, never checked where the list was made: maybe none
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
        if isinstance(node, ast.Call):
            decl = self.prog.functions.get(node.name) or self.prog.rules.get(node.name)
            if decl is not None:
                for param, arg in zip(decl.params, node.args):
                    if param.type.name == "int" and not self.known_in_range(arg, unknown):
                        self.checked_params.setdefault(node.name, set()).add(param.name)
        if isinstance(node, ast.Comprehension) and unknown is not ALL:
            unknown = unknown | {node.var}
        for c in ast.children(node):
            self._calls_of(c, unknown)


def _row_bounds(prog, entries, env: dict, at: int, default, consts: dict):
    """The size bound of field number `at` on each deck row (the rows of `for` blocks with the
    bound of their variable's values)."""
    for e in entries:
        if isinstance(e, ast.DeckFor):
            inner = dict(env)
            inner[e.var] = _items_bound(prog, e.iter, env, consts)
            yield from _row_bounds(prog, e.entries, inner, at, default, consts)
        else:
            value = e.args[at] if at < len(e.args) else default
            yield None if value is None else _bound(prog, value, env, consts)


def _items_bound(prog, e, env: dict, consts: dict) -> int | None:
    """The bound of the items of a deck's `for` over a list literal, a constant list or a range."""
    seen = set()
    while isinstance(e, ast.Var) and e.name in prog.consts and e.name not in env and e.name not in seen:
        seen.add(e.name)
        e = prog.consts[e.name].value
    if isinstance(e, ast.ListLit):
        bounds = [_bound(prog, x, env, consts) for x in e.items]
        return None if None in bounds else max(bounds, default=0)
    if isinstance(e, ast.Call) and e.name == "range" and len(e.args) == 2:
        lo, hi = (_bound(prog, a, env, consts) for a in e.args)
        return None if lo is None or hi is None else max(lo, hi)
    return None


def const_bounds(prog) -> dict[str, int | None]:
    """Each constant's bound, in the order they are declared (and worked out): a loop, not a
    recursion, so a chain of thousands of constants is no deeper than one."""
    out: dict[str, int | None] = {}
    for name, c in prog.consts.items():
        out[name] = _bound(prog, c.value, {}, out)
    return out


def const_signs(prog) -> dict[str, int | None]:
    """Each constant's sign where its value shows it (_sign), in the order they are declared: a
    loop, as const_bounds."""
    out: dict[str, int | None] = {}
    for name, c in prog.consts.items():
        out[name] = _sign(prog, c.value, out)
    return out


def _sign(prog, e, consts: dict) -> int | None:
    """1 where the whole number e is surely at least 0, -1 where at most 0, 0 where it is 0, None
    where not known: literals, constants (no local hides one), lengths, counts and positions, and
    negations, sums and differences of such."""
    if isinstance(e, ast.Int):
        return (e.value > 0) - (e.value < 0)
    if isinstance(e, ast.Var):
        return consts.get(e.name)
    if _counted(prog, e):
        return 1
    if isinstance(e, ast.UnOp) and e.op in ("-", "+"):
        s = _sign(prog, e.operand, consts)
        return None if s is None else -s if e.op == "-" else s
    if isinstance(e, ast.BinOp) and e.op in ("+", "-"):
        a, b = _sign(prog, e.left, consts), _sign(prog, e.right, consts)
        if a is None or b is None:
            return None
        b = -b if e.op == "-" else b
        return a or b if a * b >= 0 else None  # both on one side of 0 (or 0): that side
    return None


def _counted(prog, e) -> bool:
    """A length, a count or a position in a list: between 0 and LIST_MAX."""
    if isinstance(e, ast.Aggregate):
        return e.name == "count"
    return isinstance(e, ast.Call) and e.name in _BOUNDED_CALLS and e.name not in prog.functions


def _bound(prog, e, env: dict, consts: dict) -> int | None:
    """A bound of the size of a whole number worked out from literals, the bounds of constants
    (`consts`, those worked out so far) and the variables of `env` alone, before any game (a deck
    row, a constant); None if not known, or not within the range (so bounds stay small numbers,
    however constants multiply)."""
    if isinstance(e, ast.Int):
        got = abs(e.value)
    elif isinstance(e, ast.Var):
        return env[e.name] if e.name in env else consts.get(e.name)
    elif isinstance(e, ast.UnOp) and e.op in ("-", "+"):
        return _bound(prog, e.operand, env, consts)
    elif isinstance(e, (ast.BinOp, ast.Cond)) and (not isinstance(e, ast.BinOp) or e.op in ("+", "-", "*")):
        a, b = (e.left, e.right) if isinstance(e, ast.BinOp) else (e.then, e.orelse)
        x, y = _bound(prog, a, env, consts), _bound(prog, b, env, consts)
        if x is None or y is None:
            return None
        got = max(x, y) if isinstance(e, ast.Cond) else x * y if e.op == "*" else x + y
    else:
        return None
    return got if got <= INT_MAX else None


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
