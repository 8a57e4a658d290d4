"""The checker's expressions: each one's type, with names, fields, indexing, calls of functions
and builtins, aggregates and comprehensions, literals and operators (a mixin of check.Checker)."""

from __future__ import annotations

from . import ast
from .check_scope import BUILTIN_FIELDS, BUILTIN_GLOBALS, Scope
from .types import ANY, BOOL, INT, NONE, NOTHING, TEXT, T, elem, fits, join, list_of

AGGREGATES = {"sum", "min", "max", "count", "any", "all", "sort", "first", "list"}
# name -> (min args, max args)
BUILTINS = {
    "len": (1, 1), "sum": (1, 1), "min": (1, 9), "max": (1, 9), "any": (1, 1), "all": (1, 1),
    "abs": (1, 1), "clamp": (3, 3), "sort": (1, 1), "reverse": (1, 1), "unique": (1, 1), "first": (1, 1),
    "last": (1, 1), "top": (1, 1), "player": (1, 1), "range": (2, 2), "text": (1, 1), "roll": (1, 1),
    "index_of": (2, 2), "count": (1, 1), "plural": (2, 2),
}


class ExpressionChecks:
    """Checks of expressions, dispatched by `expr` to `expr_<node class>`, which records each
    expression's type (see `typed`); for Checker."""

    def typed(self, e, t: T) -> T:
        self.types[id(e)] = t
        self.nodes[id(e)] = e  # kept alive too, so no id is reused for another node
        return t

    def want(self, e, t: T, scope, what: str) -> None:
        got = self.expr(e, scope)
        if not fits(got, t):
            self.add(f"{what} must be {t}, not {got}", e.span)

    def condition(self, e, scope) -> None:
        self.want(e, BOOL, scope, "a condition")

    def iterable(self, e, scope) -> T:
        t = self.expr(e, scope)
        el = elem(t)
        if el is None:
            self.add(f"expected a list or pile here, not {t}", e.span)
            return ANY
        return el

    def expr(self, e, scope: Scope) -> T:
        return self.typed(e, getattr(self, "expr_" + type(e).__name__)(e, scope))

    def expr_Int(self, e, scope):
        return INT

    def expr_Str(self, e, scope):
        return TEXT

    def expr_Bool(self, e, scope):
        return BOOL

    def expr_NoneLit(self, e, scope):
        return NONE

    def expr_Var(self, e: ast.Var, scope: Scope) -> T:
        t = scope.get(e.name)
        if t is not None:
            return t
        p = self.prog
        if self.static and e.name not in self.static[1] and (
                e.name in p.globals or e.name in p.consts or e.name in p.decks or e.name in BUILTIN_GLOBALS):
            what = self.static[0]
            self.add(f"{what} is worked out before {e.name!r} exists", e.span,
                     "constants may use earlier constants; defaults and deck rows, constants; requirements, "
                     "constants and decks (or tables); globals, constants, decks, players and earlier globals")
        if e.name in p.globals:
            return self.resolve_type(p.globals[e.name].type)
        if e.name in p.consts:
            return getattr(self, "const_types", {}).get(e.name, ANY)
        if e.name in p.decks:
            return list_of(T("card", p.decks[e.name].card))
        if e.name == "players":
            return list_of(self.player_type)
        if e.name in p.enums:
            return T("enumtype", e.name)
        known = scope.names() + list(p.globals) + list(p.consts) + list(p.decks) + list(p.enums) + ["players"]
        self.add(f"unknown name {e.name!r}", e.span, self.suggest(e.name, known))
        return ANY

    def field_type(self, e: ast.Field, obj: T) -> T:
        if obj.kind == "any":
            return ANY
        if obj.kind == "enumtype":
            members = self.prog.enums[obj.name].members
            if e.name not in members:
                self.add(f"{obj.name} has no member {e.name!r}", e.span,
                         self.suggest(e.name, members) or f"members: {', '.join(members)}")
            return T("enum", obj.name)
        if obj.kind in ("card", "participant"):
            rec = (self.prog.cards if obj.kind == "card" else self.prog.participants)[obj.name]
            for f in rec.fields:
                if f.name == e.name:
                    return self.resolve_type(f.type)
            if obj.kind == "participant" and e.name in BUILTIN_FIELDS:
                return BUILTIN_FIELDS[e.name]
            names = [f.name for f in rec.fields] + (list(BUILTIN_FIELDS) if obj.kind == "participant" else [])
            self.add(f"{obj.name} has no field {e.name!r}", e.span,
                     self.suggest(e.name, names) or f"fields of {obj.name}: {', '.join(names)}")
            return ANY
        self.add(f"{obj} has no fields; cannot read .{e.name}", e.span)
        return ANY

    def expr_Field(self, e: ast.Field, scope) -> T:
        return self.field_type(e, self.expr(e.obj, scope))

    def expr_Index(self, e: ast.Index, scope) -> T:
        obj = self.expr(e.obj, scope)
        idx = self.expr(e.index, scope)
        if obj.kind == "map":
            sim = getattr(self, "sim_var", None)
            if sim is not None and not (isinstance(e.index, ast.Var) and e.index.name == sim):
                self.add(f"inside a simultaneous block only {sim}'s own choices can be read", e.span,
                         "the others' choices are secret until the block ends")
            key, value = obj.arg
            if not fits(idx, key):
                self.add(f"the choices are kept by {key}, not {idx}", e.index.span)
            return value
        if obj.kind == "tuple":
            return self.tuple_item(e, obj, idx)
        el = elem(obj)
        if el is None:
            self.add(f"cannot index {obj}", e.span)
            return ANY
        if not fits(idx, INT):
            self.add(f"a list index must be int, not {idx}", e.index.span)
        return el

    def tuple_item(self, e: ast.Index, obj: T, idx: T) -> T:
        """A tuple's item by a literal position, or by any number when all its items share a type."""
        if isinstance(e.index, ast.Int):
            if 0 <= e.index.value < len(obj.arg):
                return obj.arg[e.index.value]
            self.add(f"{obj} has items 0 to {len(obj.arg) - 1}, not {e.index.value}", e.index.span)
            return ANY
        if not fits(idx, INT):
            self.add(f"a tuple's position must be int, not {idx}", e.index.span)
        if any(a != obj.arg[0] for a in obj.arg):
            self.add(f"the items of {obj} differ in type: only a number written out can pick one", e.index.span,
                     "write t[0], t[1], ...; or use a list, whose items share a type")
            return ANY
        return obj.arg[0]

    def call_args(self, c: ast.Call, params, scope) -> None:
        if len(c.args) != len(params):
            self.add(f"{c.name!r} takes {len(params)} argument{'s' * (len(params) != 1)}, "
                     f"not {len(c.args)}", c.span, f"({', '.join(p.name for p in params)})")
        for a, p in zip(c.args, params):
            got, want = self.expr(a, scope), self.resolve_type(p.type)
            if not fits(got, want):
                self.add(f"argument {p.name!r} of {c.name!r} must be {want}, not {got}", a.span)
        for a in c.args[len(params):]:
            self.expr(a, scope)

    def expr_Call(self, c: ast.Call, scope) -> T:
        p = self.prog
        if c.name in p.functions:
            f = self.declared(c.name)
            if self.static and not self.static[2]:
                self.add(f"{self.static[0]} is worked out before any function can run", c.span)
            self.call_args(c, f.params, scope)
            return self.resolve_type(f.ret)
        if c.name in p.rules:
            if p.rules[c.name].ret is not None:
                self.add(f"{c.name!r} is a rule: only 'let' or '=' can take its result", c.span,
                         f"let x = {c.name}(...)  first, then use x")
            else:
                self.add(f"{c.name!r} is a rule; rules do things and have no value", c.span,
                         "call it as a statement, or make it a function")
            return ANY
        if c.name not in BUILTINS:
            self.add(f"unknown function {c.name!r}", c.span, self.suggest(c.name, list(p.functions) + list(BUILTINS)))
            for a in c.args:
                self.expr(a, scope)
            return ANY
        lo, hi = BUILTINS[c.name]
        if not lo <= len(c.args) <= hi:
            self.add(f"{c.name!r} takes {lo if lo == hi else f'{lo} to {hi}'} argument(s), not {len(c.args)}", c.span)
            return ANY
        args = [self.expr(a, scope) for a in c.args]
        return self.builtin(c, args)

    def ordered(self, t: T, span, what: str) -> None:
        """sort, min and max compare values: numbers or texts (or tuples of them), not cards or people."""
        if t.kind == "tuple":  # compared item by item: each item must have an order
            for item in t.arg:
                self.ordered(item, span, what)
            return
        if t.kind in ("int", "text", "bool", "any"):
            return
        self.add(f"{what} compares values, and {t} values have no order", span,
                 "order them by a number or text: sort(x for x in xs by x.value)")

    def builtin(self, c: ast.Call, args: list[T]) -> T:
        n = c.name
        if n in ("min", "max") and len(args) > 1:
            for a, t in zip(c.args, args):
                if not fits(t, INT):
                    self.add(f"{n} of several values needs numbers, not {t}", a.span)
            return INT
        if n in ("len", "count", "sum", "min", "max", "any", "all", "sort", "reverse", "unique", "first",
                 "last", "top"):
            el = elem(args[0])
            if el is None:
                self.add(f"{n!r} needs a list or pile, not {args[0]}", c.args[0].span)
                return ANY
            if n in ("sum",) and not fits(el, INT):
                self.add(f"sum adds numbers, not {el}", c.args[0].span)
            if n in ("sort", "min", "max"):
                self.ordered(el, c.args[0].span, n)
            if n in ("any", "all") and not fits(el, BOOL):
                self.add(f"{n} needs conditions, not {el}", c.args[0].span)
            if n == "unique" and _holds_collection(el):
                what = f"a {el.kind}" if el.kind != "tuple" else f"{el}, which holds a collection,"
                self.add(f"unique compares values; {what} is not one", c.args[0].span)
            return {"len": INT, "count": INT, "sum": INT, "any": BOOL, "all": BOOL,
                    "sort": list_of(el), "reverse": list_of(el), "unique": list_of(el)}.get(n, el)
        if n in ("roll", "player") and self.static and not self.static[2]:
            self.add(f"{self.static[0]} is worked out when the rules load, before any game: {n} cannot stand in it",
                     c.span, "use it in a rule, or in a global's starting value")
        if n == "roll" and self.no_roll:
            self.add(f"roll draws from the game's generator and cannot stand in {self.no_roll}", c.span,
                     "roll in a rule ('let r = roll(6)') and pass the result on")
        if n in ("abs", "clamp", "roll"):
            for a, t in zip(c.args, args):
                if not fits(t, INT):
                    self.add(f"{n} needs numbers, not {t}", a.span)
            return INT
        if n == "player":
            if not fits(args[0], TEXT):
                self.add("player(NAME) takes the player's name as text", c.args[0].span)
            return self.player_type
        if n == "range":
            for a, t in zip(c.args, args):
                if not fits(t, INT):
                    self.add(f"range(FROM, TO) counts whole numbers, not {t}", a.span)
            return list_of(INT)
        if n in ("text", "plural"):
            if n == "plural" and not (fits(args[0], INT) and fits(args[1], TEXT)):
                self.add("plural(COUNT, WORD) takes a number and a word", c.span)
            return TEXT
        if n == "index_of":
            el = elem(args[0])
            if el is None:
                self.add(f"index_of(LIST, VALUE) looks in a list or pile, not {args[0]}", c.args[0].span)
            elif not fits(args[1], el) and not fits(el, args[1]):
                self.add(f"index_of looks for {el} values, not {args[1]}", c.args[1].span)
            return INT
        return ANY

    def expr_Aggregate(self, e: ast.Aggregate, scope) -> T:
        if e.name not in AGGREGATES:
            self.add(f"{e.name!r} cannot take a comprehension", e.span,
                     f"these can: {', '.join(sorted(AGGREGATES))}")
        el = self.comprehension(e.comp, scope)
        n = e.name
        if e.comp.key is not None and n not in ("min", "max", "sort"):
            self.add(f"'by' orders elements; {n!r} does not use an order", e.comp.key.span)
        if n in ("sum", "count"):
            if n == "sum" and not fits(el, INT):
                self.add(f"sum adds numbers, not {el}", e.comp.elem.span)
            return INT
        if n in ("any", "all"):
            if not fits(el, BOOL):
                self.add(f"{n} needs conditions, not {el}", e.comp.elem.span)
            return BOOL
        if n in ("sort", "min", "max"):
            key = e.comp.key
            self.ordered(self.types.get(id(key), ANY) if key is not None else el,
                         key.span if key is not None else e.comp.elem.span, n)
        if n in ("sort", "list"):
            return list_of(el)
        return el

    def comprehension(self, c: ast.Comprehension, scope) -> T:
        inner = Scope(scope)
        self.declare(c.var, self.iterable(c.iter, scope), inner, c.span)
        if c.cond is not None:
            self.condition(c.cond, inner)
        if c.key is not None:
            self.expr(c.key, inner)
        return self.expr(c.elem, inner)

    def expr_ListComp(self, e: ast.ListComp, scope) -> T:
        if e.comp.key is not None:
            self.add("a list comprehension cannot order by 'by'; use sort(...)", e.comp.key.span)
        return list_of(self.comprehension(e.comp, scope))

    def expr_ListLit(self, e: ast.ListLit, scope) -> T:
        t = None
        for item in e.items:
            it = self.expr(item, scope)
            t = it if t is None else self.one_type(t, it, item.span)
        return list_of(t or NOTHING)

    def one_type(self, a: T, b: T, span) -> T:
        """A list holds values of one type (none stands in for a card or participant)."""
        if not (fits(a, b) or fits(b, a)):
            self.add(f"a list holds values of one type, not {a} and {b}", span)
        return join(a, b)

    def expr_TupleLit(self, e: ast.TupleLit, scope) -> T:
        return T("tuple", arg=tuple(self.expr(i, scope) for i in e.items))

    def expr_BinOp(self, e: ast.BinOp, scope) -> T:
        a, b = self.expr(e.left, scope), self.expr(e.right, scope)
        op = e.op
        if op in ("+", "-", "*", "/", "%"):
            if op == "+" and a.kind in ("list", "pile") and b.kind in ("list", "pile"):
                return list_of(self.one_type(a.arg, b.arg, e.span))
            if op == "+" and fits(a, TEXT) and fits(b, TEXT) and TEXT in (a, b):
                return TEXT
            for side, t in ((e.left, a), (e.right, b)):
                if not fits(t, INT):
                    self.add(f"'{op}' needs numbers, not {t}", side.span)
            return INT
        if op in ("and", "or"):
            for side, t in ((e.left, a), (e.right, b)):
                if not fits(t, BOOL):
                    self.add(f"'{op}' needs conditions, not {t}", side.span)
            return BOOL
        if op in ("in", "notin"):
            el = elem(b)
            if el is None:
                self.add(f"'in' looks inside a list or pile, not {b}", e.right.span)
            elif not (fits(a, el) or fits(el, a)):
                self.add(f"a {a} is never in a collection of {el}", e.span)
            return BOOL
        if op in ("<", "<=", ">", ">="):
            if not (fits(a, b) or fits(b, a)) or a.kind not in ("int", "any", "tuple", "text"):
                self.add(f"cannot order {a} against {b}", e.span)
            elif a.kind == "tuple":  # compared item by item: each item must have an order
                self.ordered(a, e.span, f"'{op}'")
            return BOOL
        if not (fits(a, b) or fits(b, a)):
            self.add(f"{a} and {b} are never equal", e.span, "compare values of the same type")
        return BOOL

    def expr_UnOp(self, e: ast.UnOp, scope) -> T:
        t = self.expr(e.operand, scope)
        if e.op == "not":
            if not fits(t, BOOL):
                self.add(f"'not' needs a condition, not {t}", e.operand.span)
            return BOOL
        if not fits(t, INT):
            self.add(f"'{e.op}' needs a number, not {t}", e.operand.span)
        return INT

    def expr_Cond(self, e: ast.Cond, scope) -> T:
        self.condition(e.cond, scope)
        a, b = self.expr(e.then, scope), self.expr(e.orelse, scope)
        if not (fits(a, b) or fits(b, a)):
            self.add(f"the two branches give {a} and {b}", e.span)
        return join(a, b)

    def expr_New(self, e: ast.New, scope) -> T:
        if self.no_roll:
            self.add(f"'new' makes a participant of the game: it cannot stand in {self.no_roll}", e.span,
                     "make participants in a rule")
        if e.kind not in self.prog.participants:
            self.add(f"unknown participant kind {e.kind!r}", e.span, self.suggest(e.kind, self.prog.participants))
            return ANY
        self.want(e.name, TEXT, scope, "a participant's name")
        return T("participant", e.kind)


def _holds_collection(t: T) -> bool:
    """A list, pile or map, or a tuple holding one: such values cannot be told apart by unique."""
    if t.kind in ("list", "pile", "map"):
        return True
    return t.kind == "tuple" and any(_holds_collection(a) for a in t.arg)
