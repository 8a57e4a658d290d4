"""Static checks over a linked Program, before anything runs.

Resolves every name, infers every expression's type, and gathers all errors at once
(unknown names with suggestions, wrong types, bad fields, arity, unreachable code, misuse of
decisions). Returns the type of each expression for the compiler; never mutates nodes.
"""

from __future__ import annotations

import contextlib
import difflib
import keyword

from . import ast
from .errors import ErrorCollector, Span
from .limits import DECK_MAX
from .link import Program, bounds_text, literal_int, setting_kind, within_bounds
from .templates import Hole, TemplateError, scan
from .types import ANY, BOOL, INT, NONE, NOTHING, TEXT, T, elem, fits, join, list_of, unchecked

BUILTIN_FIELDS = {"name": TEXT, "seat": INT, "is_player": BOOL}
AGGREGATES = {"sum", "min", "max", "count", "any", "all", "sort", "first", "list"}
# name -> (min args, max args)
BUILTINS = {
    "len": (1, 1), "sum": (1, 1), "min": (1, 9), "max": (1, 9), "any": (1, 1), "all": (1, 1),
    "abs": (1, 1), "clamp": (3, 3), "sort": (1, 1), "reverse": (1, 1), "unique": (1, 1), "first": (1, 1),
    "last": (1, 1), "top": (1, 1), "player": (1, 1), "range": (2, 2), "text": (1, 1), "roll": (1, 1),
    "index_of": (2, 2), "count": (1, 1), "plural": (2, 2),
}
BUILTIN_GLOBALS = {"players"}
# The rules a scenario's setup and run become: named so that no rules file can declare them.
SCENARIO_PREFIX = "__scenario_"
SETUP, RUN = SCENARIO_PREFIX + "setup", SCENARIO_PREFIX + "run"


class Scope:
    def __init__(self, parent: Scope | None = None):
        self.vars: dict[str, T] = {}
        self.parent = parent

    def get(self, name: str) -> T | None:
        s = self
        while s is not None:
            if name in s.vars:
                return s.vars[name]
            s = s.parent
        return None

    def names(self) -> list[str]:
        out, s = [], self
        while s is not None:
            out.extend(s.vars)
            s = s.parent
        return out


class Context:
    """Where a body is being checked: rule or function, inside a simultaneous block or not."""

    def __init__(self, kind: str, ret: T | None = None):
        self.kind = kind  # rule | function | scenario
        self.ret = ret
        self.sim_var: str | None = None


class Checker:
    static: tuple[str, set[str], bool] | None = None  # (what, names it may use, may call functions)
    # Where `roll` and `new` may not stand (see `pure`): code that runs only for some agents or
    # listeners would draw from the game's generator, or make participants, in one run and not in
    # its replay.
    no_roll: str | None = None
    sim_var: str | None = None  # the participant of the simultaneous block being checked

    def __init__(self, prog: Program):
        self.prog = prog
        self.err = ErrorCollector()
        self.types: dict[int, T] = {}
        self.nodes: dict[int, object] = {}
        self.mismatched: dict[str, object] = {}
        known_kind = prog.game is not None and prog.game.player_kind in prog.participants
        # An unknown player kind is reported once (check_game); its players are then of any type.
        self.player_type = T("participant", prog.game.player_kind) if known_kind else ANY

    # ------------------------------------------------------------ entry
    def run(self) -> dict[int, T]:
        p = self.prog
        self.check_game()
        for e in p.enums.values():
            self.check_enum(e)
        # Values computed at load time may use only what exists by then (see compile.Gen.module).
        consts, seen = Scope(), set(p.enums)
        for c in p.consts.values():
            self.static = ("a constant", seen, False)
            consts.vars[c.name] = self.expr(c.value, consts)
            self.check_replaced_const(c, consts)
            if c.setting and setting_kind(c) is None:
                self.add(f"setting {c.name!r} must default to a number, true/false or a text", c.value.span,
                         "a run overrides it with --set NAME=VALUE; use 'const' for a computed value")
            if c.bounds is not None:
                self.check_bounds(c)
            seen = seen | {c.name}
        self.const_types = consts.vars
        self.check_replacements(consts)
        for r in p.requires:  # relations between constants, like a constant's value
            self.static = ("a requirement", set(p.consts) | set(p.enums), False)
            self.condition(r.cond, consts)
        fixed = set(p.enums) | set(p.consts)
        self.static = ("a field's default", fixed, False)
        for rec in list(p.cards.values()) + list(p.participants.values()):
            self.check_record(rec)
        self.static = ("a deck row", fixed, False)
        for d in p.decks.values():
            self.check_deck(d)
        seen = fixed | set(p.decks) | BUILTIN_GLOBALS
        for g in p.globals.values():
            self.static = ("a global's starting value", seen, True)
            self.check_field(g, "global")
            seen = seen | {g.name}
        self.static = None
        for e in p.events.values():
            self.check_event(e)
        for f in p.functions.values():
            self.check_function(f)
        for r in p.rules.values():
            self.check_rule(r)
        for m in p.modifiers:
            self.check_modifier(m)
        self.check_names()
        self.err.raise_if_any()
        self.sound()
        return self.types

    def check_names(self) -> None:
        """Declared names, like fields and locals (see check_python_name), avoid Python's reserved words."""
        p = self.prog
        for what, decls in (("a constant", p.consts), ("a deck", p.decks), ("an enum", p.enums),
                            ("a card", p.cards), ("a participant kind", p.participants), ("a rule", p.rules),
                            ("a function", p.functions), ("an event", p.events)):
            for name, d in decls.items():
                if not name.startswith(SCENARIO_PREFIX):
                    self.check_python_name(name, d.span, what)
        for e in p.enums.values():
            for member in e.members:
                self.check_python_name(member, e.span, f"a member of {e.name}")

    def sound(self) -> None:
        """The type system's promise, checked on the checker's own result: after a clean check no
        expression is of unknown type (ANY is only for what was reported), and nothing is read
        out of an empty list. A rule of the checker that let one through is caught here."""
        for key, t in self.types.items():
            node = self.nodes[key]
            if t.kind == "nothing":
                self.add("this reads an item of an empty list: its items have no type", node.span,
                         "give the list a type: let xs: list of TYPE = []")
            elif unchecked(t):
                self.add(f"the type of this value cannot be worked out ({t})", node.span,
                         "give it a type: let NAME: TYPE = ...")
        self.err.raise_if_any()

    def check_replacements(self, consts: Scope) -> None:
        """A replacement keeps the type of what it replaces: the base rules still use it so."""
        for name, old in self.prog.replaced.items():
            new = self.prog.all_names().get(name)
            where = f"the base rules use it as declared at {old.span}"
            if isinstance(old, (ast.FunctionDecl, ast.RuleDecl, ast.EventDecl)) and type(new) is type(old):
                if self.signature(old) != self.signature(new):
                    self.add(f"the replacement of {name!r} takes {self.signature(new)}, the original "
                             f"{self.signature(old)}", new.span, where)
                    self.mismatched[name] = old  # callers are checked against what they were written for

    def declared(self, name: str):
        """A function, rule or event as its callers are checked against: as first declared, when
        a replacement changed its signature (that is told once, at the replacement)."""
        return self.mismatched.get(name) or self.prog.all_names()[name]

    def check_replaced_const(self, c: ast.ConstDecl, consts: Scope) -> None:
        """A replaced constant keeps its type, checked where it stands, before anything reads it:
        a wrong type is told once, at the variant, and the base rules are checked as declared."""
        old = self.prog.replaced.get(c.name)
        if not isinstance(old, ast.ConstDecl):
            return
        was, now = self.expr(old.value, consts), consts.vars[c.name]
        if not fits(now, was):
            self.add(f"{c.name!r} was {was}; its replacement is {now}", c.value.span,
                     f"the base rules use it as declared at {old.span}")
            consts.vars[c.name] = was

    def signature(self, d) -> str:
        params = ", ".join(str(self.resolve_type(p.type)) for p in d.params)
        ret = getattr(d, "ret", None)
        return f"({params})" + (f" -> {self.resolve_type(ret)}" if ret is not None else "")

    def add(self, msg: str, span: Span, hint: str | None = None) -> None:
        self.err.add(msg, span, hint)

    def suggest(self, name: str, candidates) -> str | None:
        close = difflib.get_close_matches(name, list(candidates), n=1)
        return f"did you mean {close[0]!r}?" if close else None

    # ------------------------------------------------------------ declarations
    def check_bounds(self, c: ast.ConstDecl) -> None:
        """`from LO to HI` is for whole-number settings, and must hold their default."""
        if setting_kind(c) != "int":
            self.add(f"setting {c.name!r} has a range but is not a whole number", c.span,
                     "'from LO to HI' limits whole-number settings only")
            return
        lo, hi = c.bounds
        if hi is not None and hi < lo:
            self.add(f"setting {c.name!r}: the range from {lo} to {hi} is empty", c.span,
                     "write the smaller bound first")
        elif not within_bounds(c, literal_int(c.value)):
            self.add(f"setting {c.name!r}: its default {literal_int(c.value)} is outside its range {bounds_text(c)}",
                     c.value.span, "a default must be one of the values a run may choose")

    def check_enum(self, e: ast.EnumDecl) -> None:
        seen: dict[str, str] = {}
        for i, member in enumerate(e.members):
            span = e.member_spans[i] if e.member_spans else e.span
            text = e.text_of(member)
            if member in e.members[:i]:
                self.add(f"{e.name}.{member} is listed twice", span)
            elif text in seen:
                self.add(f"{e.name}.{member} reads {text!r} like {e.name}.{seen[text]}", span,
                         "each member needs its own text: values are told apart by it")
            seen.setdefault(text, member)

    def check_game(self) -> None:
        g = self.prog.game
        if g is None:
            return
        kind = self.prog.participants.get(g.player_kind)
        if kind is None:
            self.add(f"unknown participant kind {g.player_kind!r} for the players", g.span,
                     self.suggest(g.player_kind, self.prog.participants) or "declare: participant NAME { ... }")
        if not 1 <= g.min_players <= g.max_players:
            self.add(f"player count {g.min_players} to {g.max_players} is not a range", g.span)
        if g.score and kind and g.score not in {f.name for f in kind.fields}:
            self.add(f"score field {g.score!r} is not a field of {g.player_kind}", g.span,
                     self.suggest(g.score, [f.name for f in kind.fields]))
        rule = self.prog.rules.get(g.play)
        if rule is None:
            self.add(f"the game plays rule {g.play!r}, which does not exist", g.span,
                     self.suggest(g.play, self.prog.rules))
        elif rule.params:
            self.add(f"the rule that plays the game, {g.play!r}, must take no parameters", rule.span)
        if g.view is not None:
            self.check_view(g)

    def check_view(self, g: ast.GameDecl) -> None:
        f = self.prog.functions.get(g.view)
        if f is None:
            self.add(f"the game's view {g.view!r} is not a function", g.span,
                     self.suggest(g.view, self.prog.functions) or "function NAME(me: KIND) -> list of text")
            return
        wanted = T("participant", g.player_kind)
        ok = len(f.params) == 1 and self.resolve_type(f.params[0].type) == wanted
        if not ok or self.resolve_type(f.ret) not in (TEXT, list_of(TEXT)):
            self.add(f"the view {g.view!r} must take one {g.player_kind} and give text or a list of text",
                     f.span, f"function {g.view}(me: {g.player_kind}) -> list of text")

    def resolve_type(self, ref: ast.TypeRef) -> T:
        if ref.name in ("list", "pile"):
            return T(ref.name, arg=self.resolve_type(ref.arg))
        simple = {"int": INT, "bool": BOOL, "text": TEXT}
        if ref.name in simple:
            return simple[ref.name]
        if ref.name in self.prog.enums:
            return T("enum", ref.name)
        if ref.name in self.prog.cards:
            return T("card", ref.name)
        if ref.name in self.prog.participants:
            return T("participant", ref.name)
        known = ["int", "bool", "text", *self.prog.enums, *self.prog.cards, *self.prog.participants]
        self.add(f"unknown type {ref.name!r}", ref.span, self.suggest(ref.name, known))
        return ANY

    def check_record(self, rec: ast.RecordDecl) -> None:
        seen: dict[str, ast.FieldDecl] = {}
        builtin = set(BUILTIN_FIELDS) if rec.what == "participant" else set()
        for f in rec.fields:
            if f.name in seen:
                self.add(f"field {f.name!r} is defined twice in {rec.name}", f.span)
            elif f.name in builtin:
                self.add(f"every participant has a field {f.name!r} already", f.span, "choose another name")
            seen[f.name] = f
            self.check_field(f, rec.what)
        if rec.show and rec.what == "participant":
            self.add("participants are shown by their name; a display template is for cards", rec.span)
        elif rec.show:
            self.check_template(rec.show, {f.name: self.resolve_type(f.type) for f in rec.fields}, rec.span)

    def check_python_name(self, name: str, span, what: str) -> None:
        """Fields and globals become Python attributes: a reserved word or a leading _ cannot be one."""
        if keyword.iskeyword(name) or name.startswith("_") or name == "self":
            self.add(f"{what} {name!r} cannot be named so: the word is reserved", span,
                     "choose another name (words like 'class', 'from', 'self', or names starting with _)")

    def check_field(self, f: ast.FieldDecl, owner: str) -> None:
        self.check_python_name(f.name, f.span, "a global" if owner == "global" else "a field")
        t = self.resolve_type(f.type)
        if f.default is not None:
            got = self.expr(f.default, Scope())
            if not fits(got, t):
                self.add(f"field {f.name!r} is {t} but its default is {got}", f.default.span)
        if f.refill is not None:
            src = self.prog.globals.get(f.refill)
            if t.kind != "pile":
                self.add(f"only a pile can refill; {f.name!r} is {t}", f.span)
            elif src is None:
                self.add(f"refill from unknown global pile {f.refill!r}", f.span,
                         self.suggest(f.refill, self.prog.globals))
            elif (rt := self.resolve_type(src.type)) != t:
                self.add(f"{f.name!r} is {t} but refills from {f.refill!r}, which is {rt}", f.span)

    def check_deck(self, d: ast.DeckDecl) -> None:
        card = self.prog.cards.get(d.card)
        if card is None:
            self.add(f"unknown card type {d.card!r}", d.span, self.suggest(d.card, self.prog.cards))
            return
        self.check_deck_entries(d.entries, card, Scope())

    def check_deck_entries(self, entries, card: ast.RecordDecl, scope: Scope) -> None:
        required = [f for f in card.fields if f.default is None]
        for e in entries:
            if isinstance(e, ast.DeckFor):
                inner = Scope(scope)
                self.declare(e.var, self.iterable(e.iter, scope), inner, e.span)
                self.check_deck_entries(e.entries, card, inner)
                continue
            if e.count > DECK_MAX:
                self.add(f"{e.count} copies of a card: the decks hold at most {DECK_MAX} cards", e.span)
            if not len(required) <= len(e.args) <= len(card.fields):
                self.add(f"a {card.name} row needs {len(required)} values "
                         f"({', '.join(f.name for f in required)}), this one has {len(e.args)}", e.span)
                continue
            for f, a in zip(card.fields, e.args):
                got, want = self.expr(a, scope), self.resolve_type(f.type)
                if not fits(got, want):
                    self.add(f"field {f.name!r} of {card.name} is {want}, not {got}", a.span)

    def check_event(self, e: ast.EventDecl) -> None:
        seen = set()
        for p in e.params:  # only the template reads them, so they may reuse declared names
            self.check_python_name(p.name, p.span, "a parameter")
            self.resolve_type(p.type)
            if p.name in seen:
                self.add(f"parameter {p.name!r} is named twice", p.span)
            seen.add(p.name)
        # the parameters, and the constants: "draws {START_HAND} cards" follows a replaced constant
        values = dict(self.const_types)
        values.update((p.name, self.resolve_type(p.type)) for p in e.params)
        self.check_template(e.template, values, e.span)

    def check_template(self, template: str, types: dict[str, T], span: Span, what: str = "narration template") -> None:
        """Each hole `{a.b.c:spec}` starts from a value the template has, reads declared fields only,
        and its spec suits the value it formats: nothing else of a value can be reached."""
        parts = scan(template)
        for exc in (p for p in parts if isinstance(p, TemplateError)):
            bad = template[exc.offset:].split("}")[0] + ("}" if "}" in template[exc.offset:] else "")
            self.add(f"bad {what}: {exc.message}", self.text_span(span, bad),
                     exc.hint or "write {name} for a value, {{ for a brace")
        for hole in (p for p in parts if isinstance(p, Hole)):
            where = self.text_span(span, hole.text)  # errors underline the hole, not the whole line
            t = types.get(hole.root)
            if t is None:
                self.add(f"{what} names {hole.root!r}, which is not one of its values", where,
                         self.suggest(hole.root, types) or f"known: {', '.join(sorted(types))}")
                continue
            for attr in hole.path:
                t = self.template_attr(t, attr, hole.text, where)
                if t is None:
                    break
            if t is not None and not self.template_value(t, hole, where):
                self.add(f"template field {hole.text}: the format does not suit {t}", where,
                         "numbers take specs like +, >3 or 03; words take widths like <8 or ^10")

    def text_span(self, span: Span, text: str) -> Span:
        """Where `text` first stands in the source within `span` (a template's hole in its event)."""
        lines = self.prog.sources.get(span.file, "").splitlines()
        for n in range(span.line, min(span.end_line, len(lines)) + 1):
            col = lines[n - 1].find(text, span.col - 1 if n == span.line else 0) if text else -1
            if col >= 0:
                return Span(span.file, n, col + 1, n, col + 1 + len(text))
        return span

    def template_value(self, t: T, hole: Hole, span: Span) -> bool:
        """A hole shows a number, or words for anything else; a sign or '=' needs a number."""
        if t.kind in ("any", "enumtype", "map") or unchecked(t):
            self.add(f"template field {hole.text}: a {t} cannot be shown", span, "show a value or one of its fields")
            return True
        return t.kind == "int" or not hole.numeric_spec

    def template_attr(self, t: T, attr: str, field: str, span: Span) -> T | None:
        if t.kind in ("card", "participant"):
            rec = (self.prog.cards if t.kind == "card" else self.prog.participants).get(t.name)
            found = next((f for f in rec.fields if f.name == attr), None) if rec else None
            if found is not None:
                return self.resolve_type(found.type)
            if t.kind == "participant" and attr in BUILTIN_FIELDS:
                return BUILTIN_FIELDS[attr]
            names = [f.name for f in rec.fields] if rec else []
            self.add(f"template field {field}: {t} has no field {attr!r}", span,
                     self.suggest(attr, names + (list(BUILTIN_FIELDS) if t.kind == "participant" else [])))
            return None
        self.add(f"template field {field}: {t} has no fields to read", span)
        return None

    def params_scope(self, params) -> Scope:
        scope = Scope()
        for p in params:
            self.check_python_name(p.name, p.span, "a parameter")
            if p.name in scope.vars:
                self.add(f"parameter {p.name!r} is named twice", p.span)
            if self.is_value_name(p.name):
                self.add(f"parameter {p.name!r} hides a declared name of the rules", p.span, "choose another name")
            scope.vars[p.name] = self.resolve_type(p.type)
        return scope

    @contextlib.contextmanager
    def pure(self, where: str):
        """Code that only computes (a function, a modifier, a prefer score, an event's values) and
        may run for some agents or listeners and not others: no roll, no new participant."""
        outer, self.no_roll = self.no_roll, self.no_roll or where
        try:
            yield
        finally:
            self.no_roll = outer

    def check_function(self, f: ast.FunctionDecl) -> None:
        with self.pure("a function"):
            self._check_function(f)

    def _check_function(self, f: ast.FunctionDecl) -> None:
        scope = self.params_scope(f.params)
        ret = self.resolve_type(f.ret)
        if isinstance(f.body, ast.Block):
            ctx = Context("function", ret)
            self.block(f.body, scope, ctx)
            if not _ends(f.body):
                self.add(f"function {f.name!r} can reach its end without 'return'", f.span)
        else:
            got = self.expr(f.body, scope)
            if not fits(got, ret):
                self.add(f"function {f.name!r} returns {ret} but its value is {got}", f.body.span)

    def check_rule(self, r: ast.RuleDecl) -> None:
        ret = self.resolve_type(r.ret) if r.ret is not None else None
        self.block(r.body, self.params_scope(r.params), Context("rule", ret))
        for body in r.extensions:  # each on its own: the parameters, not the body's locals
            self.block(body, self.params_scope(r.params), Context("rule", ret))
        if ret is not None and not _ends(r.body):
            self.add(f"rule {r.name!r} gives {ret} but can reach its end without 'return'", r.span)

    def check_modifier(self, m: ast.ModifyDecl) -> None:
        with self.pure("a modifier"):
            self._check_modifier(m)

    def _check_modifier(self, m: ast.ModifyDecl) -> None:
        f = self.prog.functions.get(m.target)
        if f is None:
            self.add(f"'modify' needs a function; {m.target!r} is not one", m.span,
                     self.suggest(m.target, self.prog.functions))
            return
        scope = self.params_scope(f.params)
        ret = self.resolve_type(f.ret)
        scope.vars["result"] = ret
        if m.when is not None:
            self.condition(m.when, scope)
        got = self.expr(m.value, scope)
        if not fits(got, ret):
            self.add(f"modifier of {m.target!r} gives {got}, the function returns {ret}", m.value.span)

    # ------------------------------------------------------------ statements
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
            self.typed(t.obj, T("map", arg=(key, opts)))
            self.typed(t, opts)
        else:
            self.add("a choice is stored in a name (choose card ...) or a map entry (choose card[p] ...)", t.span)

    def visible(self, scope: Scope) -> dict[str, T]:
        """The values a prompt may name, with their types: locals, globals, constants and players."""
        p = self.prog
        seen = {"players": list_of(self.player_type)}
        seen.update((n, self.resolve_type(g.type)) for n, g in p.globals.items())
        seen.update((n, self.const_types.get(n, ANY)) for n in p.consts)
        for name in reversed(scope.names()):  # inner scopes last: they hide outer names
            seen[name] = scope.get(name)
        return seen

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

    # ------------------------------------------------------------ expressions
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
                     "constants may use earlier constants; defaults and deck rows, constants; "
                     "globals, constants, decks, players and earlier globals")
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
            if n == "unique" and el.kind in ("list", "pile", "map"):
                self.add(f"unique compares values; a {el.kind} is not one", c.args[0].span)
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


def _spec_fits(t: T, spec: str) -> bool:
    """Would `format(value, spec)` work for a value of type t as a template shows it?"""
    sample = 0 if t.kind == "int" else "" if t.kind in ("text", "bool", "none", "list", "pile", "participant",
                                                         "card", "enum") else None
    if sample is None:
        return True
    try:
        format(sample, spec)
    except ValueError:
        return False
    return True


def _outside_sim(scope: Scope, ctx: Context) -> Scope:
    """Maps filled by a simultaneous block live in the scope around the block."""
    s = scope
    while s is not None and not hasattr(s, "sim_outer"):
        s = s.parent
    return s.sim_outer if s is not None else scope


def _holds_nothing(t: T) -> bool:
    return t.kind == "nothing" or (t.kind in ("list", "pile") and _holds_nothing(t.arg))


def _ends(b: ast.Block) -> bool:
    if not b.stmts:
        return False
    last = b.stmts[-1]
    if isinstance(last, (ast.Return, ast.Finish)):
        return True
    if isinstance(last, ast.If) and last.orelse is not None:
        return all(_ends(body) for _, body in last.branches) and _ends(last.orelse)
    return False


def check(prog: Program) -> dict[int, T]:
    return Checker(prog).run()


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
