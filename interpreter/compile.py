"""Program -> Python source -> code object, once per (game, variants).

Like jinja2's CodeGenerator: one visit method per node kind (statements in compile_stmt.py, decisions
in compile_choose.py; how values are worked out in compile_flat, compile_inline, compile_arith,
compile_hoist, compile_memo, compile_ranges and compile_guard). Each rule and function becomes a
nested Python function inside `_new_game(_m)`, so per-game state lives in closure cells and the hot
loop never walks a tree; one set of them serves game after game (runtime.CodeSet), bound to each in
turn.
Every generated line remembers the rules span it came from, so a failure inside generated code is
reported at the rules' file, line and column.
"""

from __future__ import annotations

import ast as pyast
import re

from . import ast, compiled
from .compile_arith import QUICK, ArithGen
from .compile_choose import ChooseGen
from .compile_flat import FlatGen
from .compile_fold import FoldGen, with_constants
from .compile_guard import guarded
from .compile_hoist import HoistGen
from .compile_inline import InlineGen
from .compile_memo import MemoGen
from .compile_ranges import RangeGen
from .compile_stmt import StmtGen
from .compiled import Compiled
from .costs import (
    BRANCH_PAID_OVER,
    ITEM_COST,
    PASS_COST,
    branch_cost,
    entry_costs,
    holds_list,
    holds_words,
    pair_measure,
    weight,
)
from .errors import PitwallError, Span
from .limits import DEFS_MAX, RULES_LINES_MAX
from .link import Program
from .purity import bodies_and_calls, on_cycles, pure_functions, recursive_functions, shared_lets, state_memo_functions
from .requires import reads_decks, row_check
from .runtime import BUILTIN_FIELDS, FIELD_PREFIX, GENERATED, GLOBAL_PREFIX
from .templates import parse_template
from .types import INT, T

# Builtins over one collection that cost its length once (len costs nothing, sort n log n)
PAID_ONCE = ("sum", "any", "all", "min", "max")
AGG_PY = {"sum": "sum", "any": "any", "all": "all"}
SIMPLE_BUILTINS = {"len": "len", "count": "len", "sum": "sum", "abs": "abs", "any": "any", "all": "all",
                   "sort": "sorted", "min": "min", "max": "max"}
# What generated code takes of a game, by _bind (see Gen.bind): its methods and its state
GAME_SOURCES = ("choose", "tell", "draw", "refill", "move", "shuffle", "finish", "player", "new",
                "roll", "side", "decided", "state", "memo", "telling", "tally")
GAME_BOUND = tuple("_" + ("S" if s == "state" else "SM" if s == "memo" else s) for s in GAME_SOURCES)
# The names generated code gives a rules function's locals: its parameters and lets, loop variables,
# temporaries (what Gen.bound binds)
_LOCAL = re.compile(r"l_\w+|t\d+_\w+|_[a-z]\d+")
_READ = re.compile(r"(?<![\w.])_at\(")  # a call of _at, not of a rules function named ..._at
# A call of a runtime helper (_spend, _range, _cat, ...) in generated code: it may spend steps
_HELPER_CALL = re.compile(r"\b_[a-z]\w*\(")
# A def as the compiler writes it, inside a game: its body says `nonlocal _B` first (Gen.line)
_DEF = re.compile(r"\s*def \w+\(.*\):")
# The helpers that spend from the budget a set of functions keeps (budget.metered)
METERED = ("_over", "_spend", "_cat", "_range", "_sort_spend", "_sort_pairs", "_deep", "_chars",
           "_keep", "_again", "_keep_list", "_again_list", "_keep_read", "_again_read", "_index_of", "_charge")


class Gen(StmtGen, MemoGen, HoistGen, FlatGen, FoldGen, ArithGen, RangeGen, ChooseGen, InlineGen):
    def __init__(self, prog: Program, types: dict[int, T]):
        self.prog = prog
        self.types = types
        self.lines: list[str] = []
        self.linemap: list[Span | None] = []
        self.indent = 0
        self.spans: list[Span] = []
        self.span_ids: dict[Span, int] = {}
        self.events = list(prog.events)
        self.event_number = {name: i for i, name in enumerate(self.events)}
        self.locals: list[set[str]] = []
        self.tmp = 0
        self.subst: dict[str, str] | None = None  # parameter -> argument code, inside an inlined call
        self.inlining: list[str] = []
        self.modified = {m.target for m in prog.modifiers}
        self.parts: list[tuple] = []
        self.inline_ok = True  # off when a first try made Python's own nesting limits overflow
        pure = pure_functions(prog, types)
        self.bodies, self.calls = bodies_and_calls(prog)  # who calls whom, worked out once
        self.recursive = recursive_functions(prog, self.calls)  # never written in place, nor remembered per state
        per_state = state_memo_functions(prog, self.recursive) - pure
        self.pure = pure if compiled.REMEMBER else set()  # remembered: see compile_memo.py
        self.per_state = per_state if compiled.REMEMBER else set()
        self.lets: dict[int, tuple[str, ...]] = {}  # the shared lets of the function being compiled
        self.state_reads = None  # what the state's table may read (compile_memo.MemoGen.memo_reads)
        self.function_params: tuple = ()
        self.memo_sites: list[str] = []  # each table's record of misses and hits (compile_memo.py)
        self.memo_switches: list[tuple[str, str, str]] = []  # (function, body's name, record): see bind
        self.passes = []  # the comprehensions around the expression being compiled (compile_hoist.py)
        self.hoisting = compiled.REMEMBER  # loop-invariant parts kept (compile_hoist.py): a fast path too
        self.pre: dict[int, str] = {}  # expressions already worked out into locals (compile_flat.py)
        self.comp_seen: dict[int, bool] = {}  # does an expression hold a comprehension?
        self.as_expressions: dict[str, object] = {}  # functions of `if`s and `return`s as one expression
        self.args: dict = {}  # the arguments of the calls being written in place (compile_inline.Arg)
        self.expanded_sizes: dict[str, int] = {}  # compile_inline.InlineGen.expanded
        self.defs = 0  # Python functions generated so far (limits.DEFS_MAX)
        self.game_start: int | None = None  # the line of _new_game, once written (limits.RULES_LINES_MAX)
        self.record_fields: dict[int, set[str]] = {}  # id of a record -> its fields' names (field_names)
        self.last_span: Span | None = None  # of the last line that had one: where a def without one stands
        self.known_functions: dict[str, bool] = {}  # compile_ranges.RangeGen._known_function
        # compile_ranges.RangeGen.magnitude's bounds, each worked out once
        self.function_bounds: dict[str, int | None] = {}
        self.card_bounds: dict[tuple[str, str], int | None] = {}
        self.const_bounds: dict[str, int | None] | None = None  # worked out at the first use
        self.none_results: dict[str, bool] = {}  # compile_flat.FlatGen._gives_none
        self.entry_costs = self.paid_at_calls(pure | per_state)  # remembered or not, the same steps
        # Do the branches of an `if` pay for their calls? Not at the top of a function whose callers
        # pay for its body, dearest branch and all (paid_at_calls); elsewhere they do
        self.branch_pays = True
        self.calls_in_range()

    def paid_at_calls(self, remembered: set[str]) -> dict[str, int]:
        """The functions and rules whose calls pay for their bodies (costs.entry_costs), with what
        each costs: all but those that can call themselves (each call pays on entry, so a runaway
        recursion stops), those with modifiers and those that may be remembered (a remembered
        value's steps are its body's, charged again: compile_memo.py), with REMEMBER on or off,
        so that both spend the same steps."""
        keep = on_cycles(self.calls) | remembered | self.modified
        return entry_costs({n: (b, not self.paid_whole(n)) for n, b in self.bodies.items() if n not in keep},
                           self.calls)

    def paid_whole(self, name: str) -> bool:
        """Do the callers of this function pay for its dearest branch, not its branches as they are
        taken? So for a function that may be written in place of its call as one expression
        (compile_inline.py), where no branch of it could pay."""
        f = self.prog.functions.get(name)
        return f is not None and self.body_expression(f) is not None

    def weight(self, node) -> int:
        """costs.weight of the code a charge pays for: the calls of functions and rules in it
        included, but not those in the branches of its `if`s, which pay as they are taken."""
        return weight(node, self.entry_costs, paid_branches=True)

    def branch(self, body: ast.Block) -> None:
        """A branch of an `if`: the calls in it paid first, where the charge around it left them
        to the branch (branch_pays), then its statements."""
        cost = branch_cost(body, self.entry_costs) if self.branch_pays else 0
        if cost > BRANCH_PAID_OVER:
            self.pay(str(cost), body.span)
        self.block(body)

    def template(self, text: str) -> str:
        """A template, parsed (the checker proved it), for generated code to name by number."""
        self.parts.append(parse_template(text))
        return f"_T[{len(self.parts) - 1}]"

    def field(self, kind: str, record: str, name: str) -> str:
        """The Python attribute of a declared field: prefixed into its own namespace, and only
        for a field the record declares (the checker proved it; this makes sure)."""
        decls = self.prog.cards if kind == "card" else self.prog.participants
        rec = decls.get(record)
        if kind == "participant" and name in BUILTIN_FIELDS:
            return name
        if rec is None or name not in self.field_names(rec) or not _IDENT.fullmatch(name):
            raise PitwallError(f"internal error: field {name!r} of {record!r} reached the compiler unchecked")
        return FIELD_PREFIX + name

    def field_names(self, rec: ast.RecordDecl) -> set[str]:
        """A record's declared fields, as a set made once (a scan per field read was quadratic)."""
        names = self.record_fields.get(id(rec))
        if names is None:
            names = self.record_fields[id(rec)] = {f.name for f in rec.fields}
        return names

    def type_of(self, e) -> T:
        t = self.types.get(id(e))
        if t is None:
            raise PitwallError("internal error: an expression reached the compiler without a type", e.span)
        return t

    # ------------------------------------------------------------ output
    def line(self, text: str, span: Span | None = None) -> None:
        if text.startswith("def "):
            self.defs += 1
            if self.defs > DEFS_MAX:
                raise PitwallError(f"the rules make more than {DEFS_MAX:,} Python functions", span or self.last_span,
                                   "functions, rules, their extensions and each `prefer` count: rules of that size "
                                   "are not supported (a limit of docs/language.md §14)")
        # an item's read written in place, inside try (compile_guard.py): two lines for one
        parts = (guarded(text) if self.game_start is not None and _READ.search(text) else None) or (text,)
        if self.game_start is not None and len(self.lines) + len(parts) - self.game_start > RULES_LINES_MAX:
            raise PitwallError(f"the rules make more than {RULES_LINES_MAX:,} lines of Python", span or self.last_span,
                               "rules of that size are not supported (a limit of docs/language.md §14)")
        if span is not None:
            self.last_span = span
        for part in parts:
            self.lines.append("    " * self.indent + part)
            self.linemap.append(span)
        if self.game_start is not None and _DEF.fullmatch(text):
            # every function of a game may spend: the budget is the game's variable, not a local
            self.lines.append("    " * self.indent + text[: len(text) - len(text.lstrip())] + "    nonlocal _B")
            self.linemap.append(span)

    @property
    def B(self) -> str:
        """The budget in code: inside a game's functions the variable _B itself (a closure's cell:
        runtime.CodeSet), in the module's load-time code the view of the load's budget."""
        return "_budget[0]" if self.game_start is None else "_B"

    def sid(self, span: Span) -> int:
        if span not in self.span_ids:
            self.span_ids[span] = len(self.spans)
            self.spans.append(span)
        return self.span_ids[span]

    def fresh(self) -> str:
        self.tmp += 1
        return f"_t{self.tmp}"

    @staticmethod
    def bound(code: str, params: str = "") -> str:
        """The parameters of a function made inside a rules function (a lambda, a prefer's def),
        code its text: its own, then each local of the enclosing function it reads, bound by
        default. Read as a closure, those locals would be cells, made at every call of the rules
        function whether or not the inner one is made, and dearer at every read. Such a function is
        called at once (an event's values, a prompt, a score): the values are the same."""
        stored, read = set(), set()
        for n in pyast.walk(pyast.parse(code)):
            if isinstance(n, pyast.Name):
                (stored if isinstance(n.ctx, pyast.Store) else read).add(n.id)
            elif isinstance(n, pyast.arg):
                stored.add(n.arg)
        outer = sorted(n for n in read - stored if _LOCAL.fullmatch(n))
        return ", ".join(([params] if params else []) + [f"{n}={n}" for n in outer])

    def charge(self, span: Span, body, passes: str | None = None) -> None:
        """One shared step budget per game stops runaway loops and calls at their source line. A
        pass costs the nodes it evaluates (a long body is no cheaper than a loop over it); with
        passes (code), that many passes are paid at once."""
        cost = PASS_COST + self.weight(body)
        self.pay(str(cost) if passes is None else f"{passes} * {cost}", span)

    def pay(self, steps: str, span: Span | None) -> None:
        """Spend steps (code) from the budget, stopping the game where it runs out: in a game one
        line, the charge and its test (eight bytecodes and the amount's own)."""
        if self.game_start is None:
            self.line(f"_budget[0] -= {steps}", span)
            self.line("if _budget[0] < 0: _over()", span)
        else:
            self.line(f"if (_B := _B - ({steps})) < 0: _over()", span)

    def check_int(self, place: str, t: T, span: Span) -> None:
        """A whole number stored in a variable, field or parameter stays within the range."""
        if t.kind == "int":
            # the bounds as literals: a constant is cheaper to load than a name, and this runs at every
            # store; _overflow tells a number beyond QUICK but in range from one beyond the range
            self.line(f"if {place} > {QUICK!r} or {place} < {-QUICK!r}: _overflow({place})", span)

    # ------------------------------------------------------------ module
    def module(self) -> None:
        p = self.prog
        self.line("# Generated by pitwall from the rules; do not edit.")
        # load order, which the checker enforces: enums, constants, card and participant kinds, decks
        for e in p.enums.values():
            self.line(f"E_{e.name} = {tuple(e.texts or e.members)!r}", e.span)
        for c in p.consts.values():
            self.line(f"C_{c.name} = {self.expr(c.value)}", c.span)
            self.check_int(f"C_{c.name}", self.type_of(c.value), c.span)
        # requirements of constants alone come first, so they fail before a deck row they guard
        self.line("_ROWS = {}")
        for i, r in enumerate(p.requires):
            if not reads_decks(p, r):
                self.require(i, r)
        for rec in list(p.cards.values()) + list(p.participants.values()):
            self.record_class(rec)
        for d in p.decks.values():
            self.deck(d)
        for i, r in enumerate(p.requires):
            if reads_decks(p, r):
                self.require(i, r)
        # One set of the rules' functions serves game after game (runtime.CodeSet): made with the
        # budget and helpers it keeps, then bound to each game in turn by _bind (the game's methods
        # and state), and unbound when the game closes. Making them anew took a fifth of a short game.
        # The budget is a variable of the game's functions, _B, free in _new_game: the maker around
        # it gives it one, and runtime.CodeSet makes _new_game anew around the cell of its helpers'.
        self.line("def _new_game_maker():")
        self.indent += 1
        self.line("_B = 0")
        self.line("def _new_game(_m):")
        self.game_start = len(self.lines)
        self.indent += 1
        self.line("nonlocal _B")
        self.line(f"{', '.join(METERED)} = (_m[n] for n in {METERED!r})")
        self.line(" = ".join(GAME_BOUND) + " = None")
        for f in p.functions.values():
            self.function(f)
        for r in p.rules.values():
            self.rule(r)
        self.line("def _init():")
        self.indent += 1
        for name, g in p.globals.items():
            calls = branch_cost(g.default, self.entry_costs)  # _init pays for nothing else: a call pays here
            if calls:
                self.pay(str(calls), g.span)
            self.line(f"_S.{GLOBAL_PREFIX}{name} = {self.initial(g)}", g.span)
            self.check_default(f"_S.{GLOBAL_PREFIX}{name}", g)
        self.forget(None)
        self.line("return None")
        self.indent -= 1
        self.bind()
        self.paid_calls()
        view = self.called_from_outside(p.game.view, "f_") if p.game and p.game.view else "None"
        rules = ", ".join(f"{r!r}: {self.called_from_outside(r, 'r_')}" for r in p.rules)
        values = ", ".join(f"{f!r}: {self.called_from_outside(f, 'f_')}" for f in p.functions
                           if not p.functions[f].params)
        self.line(f"return _bind, _init, {{{rules}}}, {view}, {{{values}}}")
        self.indent -= 1
        self.line("return _new_game")
        self.indent -= 1
        self.game_start = None  # module level again: the lines below are the load's
        self.line("_new_game = _new_game_maker()")
        for site in self.memo_sites:  # module level: read by every game of the process
            self.line(f"{site} = [0, 0, True, 0]")

    def paid_calls(self) -> None:
        """_paid(f, n, sid): f for the runtime to call, paying first what a call of it costs (see
        paid_at_calls: generated code pays where it calls); running out there is an error at its
        declaration (sid)."""
        self.line("def _paid(_f, _n, _sid):")
        self.line("    def _entered(*_a):")
        self.line("        if (_B := _B - _n) < 0: _out_at(_sid)")
        self.line("        return _f(*_a)")
        self.line("    return _entered")

    def called_from_outside(self, name: str, prefix: str) -> str:
        cost = self.entry_costs.get(name)
        if cost is None:
            return f"{prefix}{name}"
        decl = self.prog.functions.get(name) or self.prog.rules[name]
        return f"_paid({prefix}{name}, {cost!r}, {self.sid(decl.span)})"

    def bind(self) -> None:
        """_bind(game) points the functions at a game; _bind(None) lets go of it."""
        self.line("def _bind(_rt):")
        self.indent += 1
        self.line("nonlocal " + ", ".join(GAME_BOUND))
        self.line("if _rt is None:")
        self.line("    " + " = ".join(GAME_BOUND) + " = None")
        self.line("    return")
        for name, source in zip(GAME_BOUND, GAME_SOURCES):
            self.line(f"{name} = _rt.{source}")
        # A set serves game after game: each takes the memo tables as the games before left them
        # (a table that did not pay for itself is skipped from then on).
        if self.memo_switches:
            self.line("nonlocal " + ", ".join(f"f_{name}" for name, _, _ in self.memo_switches))
        for name, inner, stats in self.memo_switches:
            self.line(f"f_{name} = _w_{name} if {stats}[2] else {inner}")
        self.indent -= 1

    def record_class(self, rec: ast.RecordDecl) -> None:
        self.walrus_ok = False  # a default value is worked out in the class body
        try:
            self._record_class(rec)
        finally:
            self.walrus_ok = True

    def _record_class(self, rec: ast.RecordDecl) -> None:
        base = "_Participant" if rec.what == "participant" else "_Card"
        names = [f.name for f in rec.fields]
        slots = tuple(self.field(rec.what, rec.name, n) for n in names)
        self.line(f"class K_{rec.name}({base}):", rec.span)
        self.indent += 1
        self.line(f"__slots__ = {slots!r}")
        self.line(f"_kind = {rec.name!r}")
        self.line(f"_show = {self.template(rec.show) if rec.show else None}")
        self.line(f"_fields = {tuple(names)!r}")
        self.line(f"_secret = {tuple(f.name for f in rec.fields if f.visibility != 'public')!r}")
        self.line(f"_hidden = {tuple(f.name for f in rec.fields if f.visibility == 'hidden')!r}")
        if rec.what == "card":
            params = ", ".join(f"{slot}" + ("" if f.default is None else f"={self.expr(f.default)}")
                               for f, slot in zip(rec.fields, slots))
            self.line(f"def __init__(self, {params}):" if params else "def __init__(self):")
            self.indent += 1
            for f, slot in zip(rec.fields, slots):  # made while the rules load: deck rows
                self.line(f"self.{slot} = {slot}", f.span)
                self.check_int(f"self.{slot}", self.prog_type(f), f.span)
            self.line("pass")
            self.indent -= 1
        else:
            firsts = [self.initial(f) for f in rec.fields]
            if any(_HELPER_CALL.search(code) for code in firsts):
                self.line("_spends = True")  # its first values spend steps: runtime.Game.made
            self.line("def __init__(self, name, seat, is_player):")
            self.indent += 1
            self.line("_Participant.__init__(self, name, seat, is_player)")
            for f, slot, first in zip(rec.fields, slots, firsts):
                self.line(f"self.{slot} = {first}", f.span)
                self.check_default(f"self.{slot}", f)
            self.indent -= 1
        self.indent -= 1

    def check_default(self, place: str, f: ast.FieldDecl) -> None:
        if f.default is not None:
            self.check_value(place, f.default, self.prog_type(f), f.span)

    def prog_type(self, f: ast.FieldDecl) -> T:
        simple = {"int": "int", "bool": "bool", "text": "text"}
        return T(simple.get(f.type.name, "other"))

    def initial(self, f: ast.FieldDecl) -> str:
        kind = f.type.name
        if f.default is None:
            if kind in self.prog.enums:
                decl = self.prog.enums[kind]  # an enum starts at its first member
                return repr(decl.text_of(decl.members[0]))
            return {"int": "0", "bool": "False", "text": "''", "list": "[]", "pile": "[]"}.get(kind, "None")
        value = self.expr(f.default)
        return f"list(_spend({value}))" if kind in ("list", "pile") else value

    def require(self, i: int, r: ast.RequireDecl) -> None:
        """`if not COND: fail`; over every row of a deck, the first failing element's position is
        found in the same pass, at the same cost, so the error can point at its row."""
        rows = row_check(self.prog, r)
        if rows is None:
            self.line(f"if not {self.expr(r.cond)}: _unmet({i})", r.span)
            return
        c, d = rows
        test = f"not ({self.expr(c.elem)})"
        if c.cond is not None:
            test = f"({self.expr(c.cond)}) and {test}"
        cost = ITEM_COST + self.weight((c.elem, c.cond, c.key))
        self.line(f"_at_row = next((_i for _i, l_{c.var} in enumerate(_spend(D_{d.name}, {cost})) if {test}), None)",
                  r.span)
        self.line(f"if _at_row is not None: _unmet({i}, _at_row, D_{d.name}, _ROWS[{d.name!r}])", r.span)

    def deck(self, d: ast.DeckDecl) -> None:
        """D_NAME, the deck's cards; _ROWS[NAME], the span of the row that made each one."""
        self.line(f"def _make_{d.name}():", d.span)
        self.indent += 1
        self.line("_cards = []")
        self.line("_rows = []")
        self.deck_entries(d.entries, d.card)
        self.line(f"_ROWS[{d.name!r}] = tuple(_rows)")
        self.line("return tuple(_cards)")
        self.indent -= 1
        self.line(f"D_{d.name} = _make_{d.name}()")

    def deck_entries(self, entries, card: str) -> None:
        for e in entries:
            if isinstance(e, ast.DeckFor):
                self.line(f"for l_{e.var} in _spend({self.expr(e.iter)}, {PASS_COST + weight(e.entries)}):", e.span)
                self.indent += 1
                self.deck_entries(e.entries, card)
                self.line("pass")
                self.indent -= 1
            else:
                args = ", ".join(self.expr(a) for a in e.args)
                self.line(f"_room(_cards, {e.count!r})", e.span)
                self.line(f"for _ in range({e.count!r}): _cards.append(K_{card}({args}))", e.span)
                self.line(f"_rows.extend(({self.sid(e.span)},) * {e.count!r})", e.span)

    # ------------------------------------------------------------ bodies
    def params(self, params) -> str:
        return ", ".join(f"l_{p.name}" for p in params)

    def lets_of(self, f: ast.FunctionDecl) -> dict[int, tuple[str, ...]]:
        """The shared lets of a function (compile_memo.py), kept in the state's table."""
        if not compiled.REMEMBER or f.ret.name in ("list", "pile") or not isinstance(f.body, ast.Block):
            return {}
        # a list worked out in a let cannot leave through a value that is no list: shared safely
        return shared_lets(self.prog, f)

    def function(self, f: ast.FunctionDecl) -> None:
        mods = [m for m in self.prog.modifiers if m.target == f.name]
        remembered = f.name in self.pure or f.name in self.per_state
        self.branch_pays = f.name not in self.entry_costs or not self.paid_whole(f.name)
        self.line(f"def {self.remembered_name(f, mods)}({self.params(f.params)}):", f.span)
        self.indent += 1
        self.enter_body(f, f.body)
        self.entry(f, (f.body, [(m.when, m.value) for m in mods]) if mods else None)  # its modifiers' work too
        if isinstance(f.body, ast.Block):
            self.lets = self.lets_of(f)
            self.function_params = f.params
            self.block(f.body)
            self.lets = {}
        else:
            self.line(f"return {self.top(f.body, f.body.span)}", f.body.span)
        self.indent -= 1
        if mods:
            outer = f"_pure_{f.name}" if remembered else f"f_{f.name}"
            self.line(f"def {outer}({self.params(f.params)}):", f.span)
            self.indent += 1
            self.line(f"l_result = _base_{f.name}({self.params(f.params)})", f.span)
            for m in mods:
                if m.when is not None:
                    self.line(f"if {self.expr(m.when)}:", m.span)
                    self.indent += 1
                self.line(f"l_result = {self.expr(m.value)}", m.value.span)
                self.check_int("l_result", self.type_of(m.value), m.value.span)
                if m.when is not None:
                    self.indent -= 1
            self.line("return l_result")
            self.indent -= 1
        if remembered:
            self.memo(f, f"_pure_{f.name}")

    def rule(self, r: ast.RuleDecl) -> None:
        params = self.params(r.params)
        parts = (r.body, *r.extensions)
        self.enter_body(r, parts)
        self.branch_pays = True
        if r.extensions:  # each part a function, so a `stop` ends its own part only
            for i, body in enumerate(parts):
                self.line(f"def p{i}_{r.name}({params}):", body.span)
                self.indent += 1
                self.block(body)
                self.indent -= 1
        self.line(f"def r_{r.name}({params}):", r.span)
        self.indent += 1
        self.entry(r, parts)
        if r.extensions:
            for i in range(len(parts)):
                self.line(f"p{i}_{r.name}({params})", r.span)
        else:
            self.block(r.body)
        self.indent -= 1

    def entry(self, d, parts=None) -> None:
        """Every call costs its body's steps (a rule calling itself twice per level stops): paid
        here, or by the code around each call (paid_at_calls); whole-number parameters are in range
        like every stored number."""
        if d.name not in self.entry_costs:
            self.charge(d.span, parts or d.body)
        for p in d.params:  # unless every call passes a value known in range (compile_ranges.py)
            if p.type.name == "int" and p.name in self.checked_params.get(d.name, ()):
                self.check_int(f"l_{p.name}", INT, d.span)

    def block(self, b: ast.Block) -> None:
        start = len(self.lines)
        stmts = list(b.stmts)
        while stmts:
            s = stmts.pop(0)
            if id(s) in self.lets:  # with the shared lets of the same parameters after it
                group = [s] + stmts[:self.shared_run(stmts, self.lets[id(s)])]
                del stmts[:len(group) - 1]
                self.shared_lets(group, self.lets[id(s)])
                continue
            getattr(self, "stmt_" + type(s).__name__)(s)
        if len(self.lines) == start:
            self.line("pass")

    # ------------------------------------------------------------ expressions
    def expr(self, e) -> str:
        if id(e) in self.pre:
            return self.pre[id(e)]
        return self.hoistable(e) or self.cheap_kept(e) or self.expr_plain(e)

    def expr_plain(self, e) -> str:
        return getattr(self, "expr_" + type(e).__name__)(e)

    def expr_Int(self, e):
        return repr(e.value)

    def expr_Str(self, e):
        return repr(e.value)

    def expr_Bool(self, e):
        return repr(e.value)

    def expr_NoneLit(self, e):
        return "None"

    def expr_Var(self, e: ast.Var) -> str:
        t = self.types.get(id(e))
        p = self.prog
        n = e.name
        if t is not None and t.kind == "enumtype":
            return f"E_{n}"
        if self.is_local(e):
            return self.subst.get(n, f"l_{n}") if self.subst is not None else f"l_{n}"
        if n == "players":
            return "_S.players"
        if n in p.globals:
            return f"_S.{GLOBAL_PREFIX}{n}"
        if n in p.consts:
            return f"C_{n}"
        if n in p.decks:
            return f"D_{n}"
        return f"l_{n}"

    def is_local(self, e: ast.Var) -> bool:
        # The checker typed every Var; globals, consts and decks are the declared names.
        p = self.prog
        return not any(e.name in t for t in (p.globals, p.consts, p.decks, p.enums)) and e.name != "players"

    def expr_Field(self, e: ast.Field) -> str:
        t = self.type_of(e.obj)
        if t.kind == "enumtype":
            return repr(self.prog.enums[t.name].text_of(e.name))
        if t.kind not in ("card", "participant"):
            raise PitwallError(f"internal error: a field of {t} reached the compiler", e.span)
        return f"{self.expr(e.obj)}.{self.field(t.kind, t.name, e.name)}"

    def expr_Index(self, e: ast.Index) -> str:
        if self.type_of(e.obj).kind in ("list", "pile"):
            return f"_at({self.expr(e.obj)}, {self.expr(e.index)})"  # a failure tells the index and the length
        return self.place(e)

    def place(self, e) -> str:
        """An assignment's target: a name, a field or an element, written as Python can assign it."""
        if isinstance(e, ast.Index):
            return f"{self.expr(e.obj)}[{self.expr(e.index)}]"
        return self.expr(e)

    def expr_Call(self, c: ast.Call) -> str:
        function = c.name in self.prog.functions  # whether it is written in place reads its arguments' code
        self.call_args += function
        try:
            args = [self.expr(a) for a in c.args]
        finally:
            self.call_args -= function
        if function:
            return self.inline(c, args) or f"f_{c.name}({', '.join(args)})"
        if c.name in self.prog.rules:
            return f"r_{c.name}({', '.join(args)})"
        n = c.name
        if n in ("min", "max") and len(args) > 1:  # of several: the first extreme, one after the other
            code = args[0]
            for a in args[1:]:
                code = self.extreme(n, code, a)
            return code
        if n in ("len", "count"):  # the length is known: no work in proportion to it
            return f"len({args[0]})"
        if self.hoisted is not None and self.hoisted[0] is c:  # a statement's whole value: see top
            return f"{SIMPLE_BUILTINS[n]}({self.paid(args[0], 1)})"
        if n in SIMPLE_BUILTINS:  # over a collection, the work is in proportion to its length
            spend = "_sort_spend" if n == "sort" else "_spend"
            arg = f"{spend}({args[0]})" if self.type_of(c.args[0]).kind in ("list", "pile") else args[0]
            return f"{SIMPLE_BUILTINS[n]}({arg})"
        return {
            "clamp": lambda: self.clamp(*args),
            "reverse": lambda: f"list(reversed(_spend({args[0]})))",
            "unique": lambda: f"list(dict.fromkeys(_spend({args[0]}, 3)))",
            "first": lambda: _end_of(args[0], "0"),
            "last": lambda: _end_of(args[0], "-1"),
            "top": lambda: _end_of(args[0], "-1"),
            "player": lambda: f"_player({args[0]}, {self.sid(c.span)})",
            "range": lambda: f"_range({args[0]}, {args[1]})",
            "text": lambda: f"_text({args[0]})",
            "roll": lambda: f"_roll({args[0]}, {self.sid(c.span)})",
            "index_of": lambda: f"_index_of({args[0]}, {args[1]})",
            "plural": lambda: f"_plural({args[0]}, {args[1]})",
        }[n]()

    def top(self, e, span: Span) -> str:
        """A statement's whole value. Where that is a comprehension or an aggregate, its collection
        is the first thing the statement works out, so the collection and its cost can be lines
        of their own before it (see comp): no call of _spend, in the hottest lines of most games."""
        statement = self.open_statement(e, span)  # parts it names twice: see compile_hoist.py
        try:
            return self.top_value(e, span)
        finally:
            if statement is not None:
                self.passes.pop()

    def top_value(self, e, span: Span) -> str:
        if (isinstance(e, ast.Call) and e.name in PAID_ONCE and e.name not in self.prog.functions
                and e.name not in self.prog.rules
                and len(e.args) == 1 and self.type_of(e.args[0]).kind in ("list", "pile") and self.subst is None):
            self.hoisted = (e, span)
        elif self.flattening and isinstance(e, ast.BinOp) and e.op == "+" and isinstance(e.left, ast.Var) \
                and self.type_of(e).kind in ("list", "text") and self.game_start is not None:
            return self.joined(e, span)
        elif self.flattening:
            return self.flat(e, span)
        elif isinstance(e, (ast.ListComp, ast.Aggregate)) and self.subst is None:
            self.hoisted = (e.comp, span)
        try:
            return self.expr(e)
        finally:
            self.hoisted = None

    hoisted: tuple | None = None

    def paid(self, collection: str, weight: int) -> str:
        """The hoisted collection in a temporary, paid for as _spend would: lines before the statement."""
        span, self.hoisted = self.hoisted[1], None
        it = self.fresh()
        self.line(f"{it} = {collection}", span)
        self.pay(f"len({it})" + (f" * {weight}" if weight != 1 else ""), span)
        return it

    def comp(self, c: ast.Comprehension, elem=None) -> str:
        """`ELEM for VAR in ITER if COND`; elem() compiles a replacement element once VAR is bound."""
        # evaluated outside the comprehension, as in Python; each item costs the nodes worked out for it
        cost = ITEM_COST + self.weight((c.elem, c.cond, c.key))
        if self.hoisted is not None and self.hoisted[0] is c:
            it = self.paid(self.expr(c.iter), cost)
        else:
            it = self.iterable(lambda: self.read(c.iter, cost))
        saved = self.subst
        var = f"l_{c.var}"
        if saved is not None:  # inside an inlined function: a name of its own, outside the rules' l_ names
            self.tmp += 1
            var = f"t{self.tmp}_{c.var}"
            self.subst = {**saved, c.var: var}
        p = self.open_pass(var)
        try:
            cond = f" if {self.expr(c.cond)}" if c.cond is not None else ""
            body = elem() if elem else self.expr(c.elem)
        finally:
            self.subst = saved
            slots = self.close_pass(p)
        return f"{body} {slots}for {var} in {it}{cond}"

    def expr_Aggregate(self, e: ast.Aggregate) -> str:
        c, n = e.comp, e.name
        if n == "count":
            return f"len([{self.comp(c, lambda: '1')}])"
        if n in AGG_PY:  # a list is faster than a generator for the few items games hold
            return f"{AGG_PY[n]}([{self.comp(c)}])" if n == "sum" else f"{AGG_PY[n]}({self.comp(c)})"
        if n == "first":
            return f"next(({self.comp(c)}), None)"
        if n == "list":
            return f"[{self.comp(c)}]"
        if c.key is None:
            if n == "sort":
                return f"sorted(_sort_spend([{self.comp(c)}]), reverse={c.desc})"
            return f"{n}([{self.comp(c)}])"  # min or max: Python's own (of nothing: the same error)
        def pair():
            return f"({self.expr(c.key)}, {self.expr(c.elem)})"

        if n == "sort":
            per = pair_measure(c.key, self.type_of(c.key), self.type_of(c.elem))
            if per is not None:  # what measure() would find in each pair, known from the key's type
                return f"_sort_pairs([{self.comp(c, pair)}], {per}, {c.desc})"
            return f"_sort_by(_sort_spend([{self.comp(c, pair)}]), {c.desc})"
        return f"_{n}_by([{self.comp(c, pair)}])"

    @staticmethod
    def _shallow(t) -> bool:
        return t.kind in ("list", "pile") and not holds_words(t.arg)

    def read(self, e, weight: int) -> str:
        """A collection only read (scanned by `in`, passed over), paid for by `weight` steps an item."""
        kept = self.hoistable(e, read=weight) if id(e) not in self.pre else None
        if kept is not None:
            return kept
        return f"_spend({self.expr(e)})" if weight == 1 else f"_spend({self.expr(e)}, {weight})"

    def expr_ListLit(self, e):
        return "[" + ", ".join(self.expr(i) for i in e.items) + "]"

    def expr_ListComp(self, e):
        return f"[{self.comp(e.comp)}]"

    def expr_TupleLit(self, e):
        return "(" + "".join(self.expr(i) + ", " for i in e.items) + ")"

    def expr_BinOp(self, e: ast.BinOp) -> str:
        emptiness = self.emptiness(e)
        if emptiness is not None:
            return emptiness
        left = self.expr(e.left)
        if e.op in ("in", "notin") and self._shallow(self.type_of(e.right)):
            return f"({left} {'in' if e.op == 'in' else 'not in'} {self.read(e.right, 1)})"
        right = self.expr(e.right)
        if e.op == "*":
            return self.multiply(left, right)
        if e.op == "+" and self.type_of(e).kind != "int":
            if self.type_of(e).kind == "list" and _display(left) and _display(right):
                # two lists written out (`faces(d) + [fresh]`): a few items, each a node paid for
                return f"({left} + {right})"
            return f"_cat({left}, {right})"  # texts and lists: bounded, and paid for
        if e.op in ("in", "notin") or (e.op in ("==", "!=") and holds_list(self.type_of(e.left))):
            # a scan or comparison of a whole collection; of texts or collections, all they hold
            rt = self.type_of(e.right)
            shallow = rt.kind in ("list", "pile") and not holds_words(rt.arg)
            right = f"_spend({right})" if shallow else f"_deep({right})"
        elif e.op in ("==", "!=", "<", "<=", ">", ">=") and holds_words(self.type_of(e.left)):
            if self.type_of(e.left).kind == "tuple":
                right = f"_deep({right})"
            elif not (isinstance(e.right, ast.Str) and len(e.right.value) >> 6 == 0):  # _chars would charge 0
                right = f"_chars({right})"
        elif e.op in ("==", "!=") and self.type_of(e.left).kind in _ITSELF and self.type_of(e.right).kind in _ITSELF:
            # a card or participant is equal only to itself (none of their classes has __eq__):
            # `is` gives the same answer without Python's rich comparison, which CPython does not specialize
            return f"({left} {'is' if e.op == '==' else 'is not'} {right})"
        op = {"/": "//", "notin": "not in"}.get(e.op, e.op)
        return f"({left} {op} {right})"

    def expr_UnOp(self, e: ast.UnOp) -> str:
        op = "not " if e.op == "not" else e.op
        return f"({op}{self.expr(e.operand)})"

    def expr_Cond(self, e: ast.Cond) -> str:
        return f"({self.expr(e.then)} if {self.expr(e.cond)} else {self.expr(e.orelse)})"

    def expr_New(self, e: ast.New) -> str:
        return f"_new(K_{e.kind}, {self.expr(e.name)}, {self.sid(e.span)})"


def make_program(prog: Program, types: dict[int, T]) -> Compiled:
    """The program's Python code, made anew (compile_cache.compile_program: from the cache if it can)."""
    try:
        g, code = _generate(prog, types, inline=True)
    except (SyntaxError, RecursionError, MemoryError):
        # Inlining nests expressions in expressions; the parser's depth limits hold without it.
        try:
            g, code = _generate(prog, types, inline=False)
        except (SyntaxError, RecursionError, MemoryError) as exc:
            raise PitwallError(f"the rules are too deeply nested to run ({type(exc).__name__})",
                               hint="split deep expressions and blocks into functions and rules") from None
    return Compiled(
        source="\n".join(g.lines) + "\n", code=code, linemap=tuple(g.linemap), spans=tuple(g.spans),
        events=tuple(g.events), event_params=tuple(tuple(p.name for p in prog.events[e].params) for e in g.events),
        templates=tuple(parse_template(prog.events[e].template) for e in g.events), parts=tuple(g.parts),
    )


def _generate(prog: Program, types: dict[int, T], inline: bool):
    g = Gen(prog, types)
    g.inline_ok = g.flattening = g.written_out = inline
    g.module()
    return g, compile(with_constants("\n".join(g.lines) + "\n", prog), GENERATED, "exec")


_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_ITSELF = ("card", "participant", "none")  # kinds of values equal only to themselves
_PLACE = re.compile(r"[A-Za-z_][A-Za-z_0-9]*(\.[A-Za-z_][A-Za-z_0-9]*)*")


def _end_of(xs: str, index: str) -> str:
    """A list's or pile's first or last item, none if it is empty (a pile's top: hot in card games).
    `(xs or (None,))[i]` works xs out once, and an empty one's none comes from a constant: cheaper
    than testing xs and reading it again for the subscript."""
    return f"({xs} or (None,))[{index}]" if _PLACE.fullmatch(xs) else f"(({xs}) or (None,))[{index}]"


def _display(code: str) -> bool:
    """Is code a list written out item by item (no unpacking)?"""
    if not code.lstrip("(").startswith("["):
        return False
    e = pyast.parse(code, mode="eval").body
    return isinstance(e, pyast.List) and not any(isinstance(i, pyast.Starred) for i in e.elts)
