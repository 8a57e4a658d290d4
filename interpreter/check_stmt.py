"""The checker's statements: blocks, locals, assignments, piles, choices, simultaneous blocks,
events and the ways a body ends (a mixin of check.Checker)."""

from __future__ import annotations

from . import ast
from .check_scope import BUILTIN_FIELDS, BUILTIN_GLOBALS, Context, Scope
from .errors import Span
from .types import ANY, INT, T, fits


class StatementChecks:
    """Checks of statements, dispatched by `stmt` to `stmt_<node class>`; for Checker."""

    def block(self, b: ast.Block, scope: Scope, ctx: Context) -> None:
        inner = Scope(scope)
        for i, s in enumerate(b.stmts):
            self.stmt(s, inner, ctx)
            if isinstance(s, (ast.Finish, ast.Return, ast.StopRule)) and i + 1 < len(b.stmts):
                self.add("this statement can never run: the one before it ends the "
                         + ("game" if isinstance(s, ast.Finish) else "rule"), b.stmts[i + 1].span)

    def stmt(self, s, scope: Scope, ctx: Context) -> None:
        method = getattr(self, "stmt_" + type(s).__name__)
        if ctx.sim_var is not None and not isinstance(s, (ast.Choose, ast.Let, ast.If)):
            self.add("only choose, let and if may stand in a simultaneous block", s.span,
                     "the choices stay secret until the block ends; act on them after it")
        if ctx.kind == "function" and isinstance(s, (ast.Choose, ast.Simultaneous, ast.Emit, ast.Finish, ast.Draw,
                                                      ast.Move, ast.Empty, ast.Shuffle, ast.CallStmt, ast.StopRule)):
            self.add("a function only computes a value; this statement belongs in a rule", s.span)
        method(s, scope, ctx)

    def declare(self, name: str, t: T, scope: Scope, span: Span) -> None:
        self.check_python_name(name, span, "a local")
        if self.is_value_name(name):
            self.add(f"local {name!r} hides a declared name of the rules", span, "choose another name")
        scope.vars[name] = t

    def is_value_name(self, name: str) -> bool:
        p = self.prog
        return any(name in t for t in (p.globals, p.consts, p.decks, p.enums, BUILTIN_GLOBALS))

    def stmt_Let(self, s: ast.Let, scope, ctx):
        t = self.value(s.value, scope, ctx)
        if t.kind == "enumtype":
            self.add(f"{t.name} names a kind of value, not a value", s.value.span,
                     f"write {t.name}.MEMBER, or list the members with [m for m in {t.name}]")
        if s.type is not None:
            want = self.resolve_type(s.type)
            if not fits(t, want):
                self.add(f"{s.name!r} is declared {want} but its value is {t}", s.value.span)
            t = want
        elif _holds_nothing(t):
            self.add(f"the type of {s.name!r} cannot be told from an empty list", s.span,
                     f"say it: let {s.name}: list of TYPE = []")
        self.declare(s.name, t, scope, s.span)

    def value(self, e, scope, ctx) -> T:
        """The value of `let` and `=`: an expression, or the result of a rule that gives one."""
        if not (isinstance(e, ast.Call) and e.name in self.prog.rules):
            return self.expr(e, scope)
        r = self.declared(e.name)
        if r.ret is None:
            self.add(f"rule {e.name!r} gives no result", e.span,
                     f"declare one, 'rule {e.name}(...) -> TYPE', and 'return' it")
        if ctx.kind == "function":
            self.add(f"a function only computes a value; it cannot run rule {e.name!r}", e.span)
        elif ctx.sim_var is not None:
            self.add("a simultaneous block only chooses; run the rule after the block", e.span)
        self.call_args(e, r.params, scope)
        return self.typed(e, self.resolve_type(r.ret) if r.ret is not None else ANY)

    def function_target(self, target, scope, ctx) -> None:
        if ctx.kind == "function" and not (isinstance(target, ast.Var) and scope.get(target.name) is not None):
            self.add("a function only computes a value; it may change its own locals, not the game", target.span)

    def stmt_Assign(self, s: ast.Assign, scope, ctx):
        self.function_target(s.target, scope, ctx)
        want = self.target(s.target, scope)
        if want is not None:
            self.typed(s.target, want)
        got = self.value(s.value, scope, ctx)
        if want is not None and not fits(got, want):
            self.add(f"cannot assign {got} to a place that holds {want}", s.value.span)

    def stmt_AugAssign(self, s: ast.AugAssign, scope, ctx):
        self.function_target(s.target, scope, ctx)
        want = self.target(s.target, scope)
        got = self.expr(s.value, scope)
        if want is not None and not (fits(want, INT) and fits(got, INT)):
            self.add(f"'{s.op}=' works on numbers, not {want} and {got}", s.span)

    def target(self, e, scope) -> T | None:
        if isinstance(e, ast.Var):
            if scope.get(e.name) is not None:
                return self.typed(e, scope.get(e.name))
            if e.name in self.prog.globals:
                return self.typed(e, self.resolve_type(self.prog.globals[e.name].type))
            if e.name in self.prog.consts or e.name in self.prog.decks:
                self.add(f"{e.name!r} is a constant and cannot change", e.span,
                         "a variant can 'replace const' it; the rules cannot")
                return None
            self.add(f"unknown variable {e.name!r}", e.span,
                     self.suggest(e.name, scope.names() + list(self.prog.globals)) or "declare it with 'let' first")
            return None
        if isinstance(e, ast.Field):
            obj = self.expr(e.obj, scope)
            if obj.kind == "card":
                self.add("cards are printed; their fields cannot change", e.span,
                         "keep changing values on a participant or a global")
                return None
            if obj.kind == "enumtype":
                self.add(f"the members of {obj.name} are fixed", e.span)
                return None
            if obj.kind == "participant" and e.name in BUILTIN_FIELDS:
                self.add(f"a participant's {e.name!r} is fixed", e.span,
                         "records, results and player() rely on it; keep changing values in fields of your own")
                return None
            return self.field_type(e, obj)
        if isinstance(e, ast.Index):
            return self.expr(e, scope)
        self.add("cannot assign to this", e.span)
        return None

    def stmt_CallStmt(self, s: ast.CallStmt, scope, ctx):
        c = s.call
        if c.name in self.prog.rules:
            self.call_args(c, self.declared(c.name).params, scope)
        elif c.name in self.prog.functions:
            self.add(f"{c.name!r} is a function; its value would be lost", s.span, "use it in an expression")
        else:
            self.add(f"unknown rule {c.name!r}", s.span, self.suggest(c.name, self.prog.rules))

    def stmt_If(self, s: ast.If, scope, ctx):
        for cond, body in s.branches:
            self.condition(cond, scope)
            self.block(body, scope, ctx)
        if s.orelse is not None:
            self.block(s.orelse, scope, ctx)

    def stmt_For(self, s: ast.For, scope, ctx):
        inner = Scope(scope)
        self.declare(s.var, self.iterable(s.iter, scope), inner, s.span)
        self.block(s.body, inner, ctx)

    def stmt_While(self, s: ast.While, scope, ctx):
        self.condition(s.cond, scope)
        self.block(s.body, scope, ctx)

    def stmt_Repeat(self, s: ast.Repeat, scope, ctx):
        self.want(s.count, INT, scope, "repeat count")
        inner = Scope(scope)
        if s.var:
            self.declare(s.var, INT, inner, s.span)
        self.block(s.body, inner, ctx)

    def pile(self, e, scope, what: str) -> T:
        t = self.expr(e, scope)
        if t.kind not in ("pile", "any"):
            self.add(f"{what} must be a pile, not {t}", e.span,
                     "piles are declared as 'pile of CARD' fields or globals")
            return ANY
        return t.arg if t.kind == "pile" else ANY

    def stmt_Draw(self, s: ast.Draw, scope, ctx):
        self.want(s.count, INT, scope, "number of cards to draw")
        a, b = self.pile(s.source, scope, "'draw ... from'"), self.pile(s.dest, scope, "'draw ... to'")
        if not fits(a, b):
            self.add(f"cannot draw {a} cards into a pile of {b}", s.span)

    def stmt_Move(self, s: ast.Move, scope, ctx):
        card = self.expr(s.card, scope)
        a, b = self.pile(s.source, scope, "'move ... from'"), self.pile(s.dest, scope, "'move ... to'")
        if not fits(card, a):
            self.add(f"moves {card} out of a pile of {a}", s.card.span)
        if not fits(a, b):
            self.add(f"cannot move {a} cards into a pile of {b}", s.span)

    def stmt_Empty(self, s: ast.Empty, scope, ctx):
        a, b = self.pile(s.source, scope, "'empty'"), self.pile(s.dest, scope, "'empty ... into'")
        if not fits(a, b):
            self.add(f"cannot move {a} cards into a pile of {b}", s.span)
        elif _place(s.source) is not None and _place(s.source) == _place(s.dest):
            self.add("empties a pile into itself", s.span, "name two different piles")

    def stmt_Shuffle(self, s: ast.Shuffle, scope, ctx):
        self.pile(s.pile, scope, "'shuffle'")

    def stmt_Choose(self, s: ast.Choose, scope, ctx):
        if ctx.kind == "function":
            return
        opts = self.iterable(s.options, scope)
        by = None
        if s.by is not None:
            by = self.expr(s.by, scope)
            if by.kind not in ("participant", "any"):
                self.add(f"'by' names who decides: a participant, not {by}", s.by.span)
        elif ctx.sim_var is None:
            self.add("who makes this choice? add 'by PARTICIPANT'", s.span)
        if s.prompt:
            # A prompt may name the values around it: "pay {cost} or pass"
            self.check_template(s.prompt, self.visible(scope), s.span, "prompt")
        if s.prefer is not None:
            inner = Scope(scope)
            inner.vars["option"] = opts
            with self.pure("a 'prefer' score"):
                got = self.expr(s.prefer, inner)
            if not (fits(got, INT) or got.kind == "tuple"):
                self.add(f"'prefer' scores an option with a number (or tuple), not {got}", s.prefer.span)
        t = s.target
        if isinstance(t, ast.Var):
            existing = scope.get(t.name)
            if existing is None and t.name in self.prog.globals:
                existing = self.resolve_type(self.prog.globals[t.name].type)
            if existing is None:
                self.declare(t.name, opts, scope, t.span)
            elif not fits(opts, existing):
                self.add(f"{t.name!r} holds {existing}; it cannot take a choice among {opts}", t.span)
            self.typed(t, opts)
        elif isinstance(t, ast.Index) and ctx.sim_var is None:
            self.add("choices go into a map (choose card[p] ...) only in a simultaneous block", t.span,
                     "outside one, choose into a name: choose card from ...")
        elif isinstance(t, ast.Index) and isinstance(t.obj, ast.Var):
            m = scope.get(t.obj.name)
            key = self.expr(t.index, scope)
            if m is None:
                self.declare(t.obj.name, T("map", arg=(key, opts)), _outside_sim(scope, ctx), t.span)
            elif m.kind != "map":
                self.add(f"{t.obj.name!r} is {m}, not a map of choices", t.span)
            elif not (fits(key, m.arg[0]) and fits(opts, m.arg[1])):  # a map holds one type of choice
                self.add(f"{t.obj.name!r} is a {m}; it cannot take a choice among {opts} by {key}", t.span,
                         "choose into a map of another name")
            self.typed(t.obj, T("map", arg=(key, opts)))
            self.typed(t, opts)
        else:
            self.add("a choice is stored in a name (choose card ...) or a map entry (choose card[p] ...)", t.span)

    def stmt_Simultaneous(self, s: ast.Simultaneous, scope, ctx):
        if ctx.sim_var is not None:
            self.add("simultaneous blocks do not nest", s.span)
        who = self.iterable(s.iter, scope)
        if who.kind not in ("participant", "any"):
            self.add(f"simultaneous decisions are made by participants, not {who}", s.iter.span)
        inner = Scope(scope)
        inner.sim_outer = scope
        self.declare(s.var, who, inner, s.span)
        ctx.sim_var = self.sim_var = s.var
        try:
            self.block(s.body, inner, ctx)
        finally:
            ctx.sim_var = self.sim_var = None

    def stmt_Emit(self, s: ast.Emit, scope, ctx):
        e = self.declared(s.event) if s.event in self.prog.events else None
        if e is None:
            self.add(f"unknown event {s.event!r}", s.span,
                     self.suggest(s.event, self.prog.events) or "declare it: event NAME(...) \"text\"")
            for a in s.args:
                self.expr(a, scope)
            return
        with self.pure("an event's values"):
            self.call_args(ast.Call(s.event, s.args, span=s.span), e.params, scope)

    def stmt_Finish(self, s: ast.Finish, scope, ctx):
        t = self.expr(s.winners, scope)
        if not (t.kind in ("list", "pile") and t.arg.kind in ("participant", "any")) and t != ANY:
            self.add(f"'finish' takes the list of winners, not {t}", s.winners.span)

    def stmt_Return(self, s: ast.Return, scope, ctx):
        if ctx.ret is None:
            self.add("this rule gives no result to 'return'; to leave a rule early, write 'stop'", s.span,
                     "a rule that gives a result says so: 'rule NAME(...) -> TYPE'")
            self.expr(s.value, scope)
            return
        got = self.expr(s.value, scope)
        if not fits(got, ctx.ret):
            self.add(f"returns {got} but the {ctx.kind} returns {ctx.ret}", s.value.span)

    def stmt_StopRule(self, s, scope, ctx):
        if ctx.kind == "rule" and ctx.ret is not None:
            self.add(f"'stop' would leave without a result; this rule gives {ctx.ret}", s.span,
                     "leave with 'return VALUE'")


def _outside_sim(scope: Scope, ctx: Context) -> Scope:
    """Maps filled by a simultaneous block live in the scope around the block."""
    s = scope
    while s is not None and not hasattr(s, "sim_outer"):
        s = s.parent
    return s.sim_outer if s is not None else scope


def _holds_nothing(t: T) -> bool:
    return t.kind == "nothing" or (t.kind in ("list", "pile") and _holds_nothing(t.arg))


def _place(e):
    """A span-free shape of a place (name, field, index) to tell that two are the same; else None."""
    if isinstance(e, ast.Var):
        return ("var", e.name)
    if isinstance(e, ast.Field):
        inner = _place(e.obj)
        return None if inner is None else ("field", inner, e.name)
    if isinstance(e, ast.Index):
        obj, idx = _place(e.obj), _place(e.index)
        return None if obj is None or idx is None else ("index", obj, idx)
    if isinstance(e, (ast.Int, ast.Str)):
        return ("lit", e.value)
    return None
