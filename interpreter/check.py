"""Static checks over a linked Program, before anything runs.

Resolves every name, infers every expression's type, and gathers all errors at once
(unknown names with suggestions, wrong types, bad fields, arity, unreachable code, misuse of
decisions). Returns the type of each expression for the compiler; never mutates nodes.

This module holds the entry, the declarations and the soundness gate; the checks of statements
(check_stmt), expressions (check_expr) and templates (check_templates) are mixins of Checker, and
the scopes and built-in names they share are in check_scope.
"""

from __future__ import annotations

import contextlib
import difflib
import keyword

from . import ast
from .blame import reads, walk
from .check_expr import AGGREGATES as AGGREGATES  # re-exported: the checker's names stay importable from here
from .check_expr import BUILTINS as BUILTINS
from .check_expr import ExpressionChecks
from .check_scope import BUILTIN_FIELDS, BUILTIN_GLOBALS, Context, Scope
from .check_stmt import StatementChecks
from .check_templates import TemplateChecks
from .errors import ErrorCollector, Span
from .limits import DECK_MAX
from .link import Program, bounds_text, kind_word, literal_int, setting_kind, within_bounds
from .types import ANY, BOOL, INT, TEXT, T, fits, list_of, unchecked

# The rules a scenario's setup and run become: named so that no rules file can declare them.
SCENARIO_PREFIX = "__scenario_"
SETUP, RUN = SCENARIO_PREFIX + "setup", SCENARIO_PREFIX + "run"


class Checker(StatementChecks, ExpressionChecks, TemplateChecks):
    static: tuple[str, set[str], bool] | None = None  # (what, names it may use, may call functions)
    # Where `roll` and `new` may not stand (see `pure`): code that runs only for some agents or
    # listeners would draw from the game's generator, or make participants, in one run and not in
    # its replay.
    no_roll: str | None = None
    sim_var: str | None = None  # the participant of the simultaneous block being checked

    def __init__(self, prog: Program):
        self.prog = prog
        self.err = ErrorCollector()
        self.split_sources: dict[str, list[str]] = {}  # file -> its lines (check_templates.source_lines)
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
            seen.add(c.name)  # in place: a new set per constant took quadratic time
        self.const_types = consts.vars
        self.check_replacements(consts)
        for r in p.requires:  # relations between constants and decks, fixed when the rules load
            self.static = ("a requirement", set(p.consts) | set(p.enums) | set(p.decks), False)
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
            self.check_later_globals(g, seen)
            seen.add(g.name)
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

    def check_later_globals(self, g: ast.FieldDecl, seen: set[str]) -> None:
        """A global's starting value may call functions: none of them may read a global that is
        set up after it (globals start in order)."""
        if g.default is None:
            return
        direct = {n.name for n in walk(g.default) if isinstance(n, ast.Var)}  # told by the order check
        later = {n for n in reads(self.prog, g.default) - direct if n in self.prog.globals and n not in seen}
        for name in sorted(later - {g.name}):
            self.add(f"the starting value of {g.name!r} reads {name!r} (through the functions it calls), "
                     f"which is set up after it", g.default.span, f"declare {name!r} before {g.name!r}")

    def check_names(self) -> None:
        """Declared names, like fields and locals (see check_python_name), avoid Python's reserved words."""
        p = self.prog
        # decks and cards are named as written (a table, a record)
        for what, decls in (("a constant", p.consts), (None, p.decks), ("an enum", p.enums),
                            (None, p.cards), ("a participant kind", p.participants), ("a rule", p.rules),
                            ("a function", p.functions), ("an event", p.events)):
            for name, d in decls.items():
                if not name.startswith(SCENARIO_PREFIX):
                    self.check_python_name(name, d.span, what or f"a {kind_word(d)}")
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
            new = self.prog.named(name)
            where = f"the base rules use it as declared at {old.span}"
            if isinstance(old, (ast.FunctionDecl, ast.RuleDecl, ast.EventDecl)) and type(new) is type(old):
                if self.signature(old) != self.signature(new):
                    self.add(f"the replacement of {name!r} takes {self.signature(new)}, the original "
                             f"{self.signature(old)}", new.span, where)
                    self.mismatched[name] = old  # callers are checked against what they were written for

    def declared(self, name: str):
        """A function, rule or event as its callers are checked against: as first declared, when
        a replacement changed its signature (that is told once, at the replacement)."""
        return self.mismatched.get(name) or self.prog.named(name)

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
        first: dict[str, int] = {}  # member -> where it is first listed (no scan per member)
        for i, member in enumerate(e.members):
            span = e.member_spans[i] if e.member_spans else e.span
            text = e.texts[first.setdefault(member, i)] if e.texts else member  # e.text_of(member)
            if first[member] != i:
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
        self.check_workbench(g)

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

    def check_workbench(self, g: ast.GameDecl) -> None:
        """rank, leader and board: functions of no parameters of the stated types; turns: an int global."""
        kind = T("participant", g.player_kind)
        wanted = {"rank": (list_of(kind), f"list of {g.player_kind}"), "leader": (kind, g.player_kind),
                  "board": (list_of(TEXT), "list of text")}
        for setting, (ret, written) in wanted.items():
            name = getattr(g, setting)
            if name is None:
                continue
            f = self.prog.functions.get(name)
            if f is None:
                self.add(f"the game's {setting} {name!r} is not a function", g.span,
                         self.suggest(name, self.prog.functions) or f"function {name}() -> {written}")
            elif f.params or self.resolve_type(f.ret) != ret:
                self.add(f"the game's {setting} {name!r} must take no parameters and give {written}", f.span,
                         f"function {name}() -> {written}")
        if g.turns is not None:
            glob = self.prog.globals.get(g.turns)
            if glob is None or self.resolve_type(glob.type) != INT:
                self.add(f"the game's turns {g.turns!r} must be a global of type int", g.span,
                         self.suggest(g.turns, self.prog.globals) or f"global {g.turns}: int = 0")

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
            what = "card" if d.word == "deck" else "record"
            self.add(f"unknown {what} type {d.card!r}", d.span, self.suggest(d.card, self.prog.cards))
            return
        self.check_deck_entries(d.entries, card, Scope(), "card" if d.word == "deck" else "row")

    def check_deck_entries(self, entries, card: ast.RecordDecl, scope: Scope, unit: str) -> None:
        required = [f for f in card.fields if f.default is None]
        for e in entries:
            if isinstance(e, ast.DeckFor):
                inner = Scope(scope)
                self.declare(e.var, self.iterable(e.iter, scope), inner, e.span)
                self.check_deck_entries(e.entries, card, inner, unit)
                continue
            if e.count > DECK_MAX:
                self.add(f"{e.count} copies of a {unit}: the decks and tables hold at most {DECK_MAX} "
                         f"{unit}s together", e.span)
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
        # the parameters, and the constants: "draws {HAND} cards" follows a replaced constant
        values = dict(self.const_types)
        values.update((p.name, self.resolve_type(p.type)) for p in e.params)
        self.check_template(e.template, values, e.span)

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
