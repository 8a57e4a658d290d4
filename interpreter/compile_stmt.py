"""Statements (compile.Gen inherits this): each rules statement as the Python lines that do it.

The runtime's card moves (draw, move, empty) are written out in place as Game.draw and Game.move
would do them, calling the runtime only to refill a pile or to say what went wrong; a statement's
values are worked out by FlatGen.flat (compile_flat.py), which may put lines before it.
"""

from __future__ import annotations

import re

from . import ast
from .costs import branch_cost
from .errors import Span
from .runtime import GLOBAL_PREFIX

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|-?[0-9]+")  # a name or a whole number: kept as it is


class StmtGen:
    def stmt_Let(self, s: ast.Let):
        self.line(f"l_{s.name} = {self.top(s.value, s.span)}", s.span)
        self.check_value(f"l_{s.name}", s.value, self.type_of(s.value), s.span)

    def stmt_Assign(self, s: ast.Assign):
        value = self.top(s.value, s.span)
        kinds = self.type_of(s.target).kind, self.type_of(s.value).kind
        if kinds[0] == "pile" and kinds[1] != "pile":
            value = f"list(_spend({value}))"  # a pile is filled with a copy: decks and lists stay as they are
        target = self.place(s.target)
        self.line(f"{target} = {value}", s.span)
        self.check_value(target, s.value, self.type_of(s.target), s.span)
        if self.changes_state(s.target):
            self.forget(s.span, place=s.target)

    def stmt_AugAssign(self, s: ast.AugAssign):
        if self.flattening and self._has_comp(s.value):
            # Python works out the place and reads it before the value: so do the lines
            target = self.spilled_place(s.target, s.span)
            now = self.fresh()
            self.line(f"{now} = {target}", s.span)
            self.line(f"{target} = {now} {s.op} {self.flat(s.value, s.span)}", s.span)
        else:
            target = self.place(s.target)
            self.line(f"{target} {s.op}= {self.flat(s.value, s.span)}", s.span)
        self.check_step(target, s.op, s.value, s.span)
        if self.changes_state(s.target):
            self.forget(s.span, place=s.target)

    def spilled_place(self, e, span: Span) -> str:
        """An assignment's target, its container and index worked out into locals first."""
        if isinstance(e, ast.Index):
            return f"{self._spilled(self.expr(e.obj), span)}[{self._spilled(self.expr(e.index), span)}]"
        if isinstance(e, ast.Field):
            return f"{self._spilled(self.expr(e.obj), span)}.{self.place(e).rsplit('.', 1)[1]}"
        return self.place(e)

    def stmt_CallStmt(self, s: ast.CallStmt):
        self.line(self.flat(s.call, s.span), s.span)

    def stmt_If(self, s: ast.If):
        self.branches(s.branches, s.orelse)

    def branches(self, branches, orelse) -> None:
        """if/elif/else (the first condition's own lines, compile_flat.py, before the if)."""
        if any(self.flattening and self._has_comp(cond) for cond, _ in branches[1:]):
            self.tried(branches, orelse)
            return
        for i, (cond, body) in enumerate(branches):
            self.line(f"{'if' if i == 0 else 'elif'} {self.flat(cond, cond.span)}:", cond.span)
            self.indent += 1
            self.branch(body)
            self.indent -= 1
        if orelse is not None:
            self.line("else:")
            self.indent += 1
            self.branch(orelse)
            self.indent -= 1

    def tried(self, branches, orelse) -> None:
        """if/elif/else where a later condition needs lines of its own: each branch tried in turn
        while none has been taken, its condition's lines first, all at one level (an else for
        each would nest a hundred branches past Python's limit)."""
        left = self.fresh()
        self.line(f"{left} = True")
        for i, (cond, body) in enumerate(branches):
            if i > 0:
                self.line(f"if {left}:")
                self.indent += 1
            self.line(f"if {self.flat(cond, cond.span)}:", cond.span)
            self.indent += 1
            self.line(f"{left} = False")
            self.branch(body)
            self.indent -= 1 + (i > 0)
        if orelse is not None:
            self.line(f"if {left}:")
            self.indent += 1
            self.branch(orelse)
            self.indent -= 1

    def stmt_For(self, s: ast.For):
        # the whole pass is paid on entry: a step per item (nested loops multiply); written out,
        # as a loop is the hottest place of all
        items = self.fresh()
        self.line(f"{items} = {self.flat(s.iter, s.span)}", s.span)
        self.charge(s.span, s.body, self.length(items, s.iter))
        it = f"tuple({items})" if self.type_of(s.iter).kind == "pile" else items
        self.line(f"for l_{s.var} in {it}:", s.span)
        self.loop_body(s.body)

    def loop_body(self, body: ast.Block, span: Span | None = None, cond=None) -> None:
        """A loop's body, one level in; with span, a pass is charged first (with the test of a
        `while` that comes after it: however wide a condition, each test is paid)."""
        self.indent += 1
        self.loop_depth += 1
        saved, self.branch_pays = self.branch_pays, True  # a pass pays for its branches' calls as they are taken
        if span is not None:
            self.charge(span, body if cond is None else (cond, body))
        self.block(body)
        self.branch_pays = saved
        self.loop_depth -= 1
        self.indent -= 1

    def stmt_While(self, s: ast.While):
        if not (self.flattening and self._has_comp(s.cond)):
            self.line(f"while {self.expr(s.cond)}:", s.span)
            self.loop_body(s.body, s.span, s.cond)
            return
        # the condition's own lines run before each test
        self.line("while True:", s.span)
        self.indent += 1
        self.line(f"if not ({self.flat(s.cond, s.span)}): break", s.span)
        self.indent -= 1
        self.loop_body(s.body, s.span, s.cond)

    def stmt_Repeat(self, s: ast.Repeat):
        var = f"l_{s.var}" if s.var else "_"
        if _leaves(s.body):  # `repeat N { ... return }` may be a search, `repeat N { turn() }` may
            # end with the game: each pass paid as it comes
            self.line(f"for {var} in range(1, {self.flat(s.count, s.span)} + 1):", s.span)
            self.loop_body(s.body, s.span)
            return
        # every pass runs: paid on entry, as `for` is (a runaway count stops before its first pass)
        n = self.fresh()
        self.line(f"{n} = {self.flat(s.count, s.span)}", s.span)
        self.line(f"if {n} > 0:", s.span)
        self.indent += 1
        self.charge(s.span, s.body, n)
        self.indent -= 1
        self.line(f"for {var} in range(1, {n} + 1):", s.span)
        self.loop_body(s.body)

    def refill_of(self, e) -> str | None:
        decl = None
        if isinstance(e, ast.Var):
            decl = self.prog.globals.get(e.name)
        elif isinstance(e, ast.Field):
            t = self.type_of(e.obj)
            if t is not None and t.kind == "participant":
                decl = next((f for f in self.prog.participants[t.name].fields if f.name == e.name), None)
        return decl.refill if decl is not None else None

    def stmt_Draw(self, s: ast.Draw):
        refill = self.refill_of(s.source)
        n = self.value(s.count, s.span)  # first, as Game.draw's first argument was
        src, dst = self.value(s.source, s.span), self.value(s.dest, s.span)
        sid = self.sid(s.span)
        if n != "1" and refill:  # one card after the other, the pile refilled whenever it runs out
            self.forget(s.span, piles=(s.source, s.dest))
            self.line(f"if {n} < 0: _draw({n}, {src}, {dst}, {sid})", s.span)  # its error
            self.pay(n, s.span)  # before the loop: it may refill for ever
            self.line(f"for _ in range({n}):", s.span)
            self.line(f"    if not {src}: _refill({src}, _S.{GLOBAL_PREFIX}{refill}, {self.sid(s.span)})", s.span)
            self.line(f"    {dst}.append({src}.pop())", s.span)
            return
        if n != "1":  # n cards from the top, one after the other (the top first), as Game.draw
            self.forget(s.span, piles=(s.source, s.dest))
            literal = n.isdigit() and int(n) > 0  # a count written as a literal: only the length to test
            short = f"len({src}) < {n}" if literal else f"not 0 <= {n} <= len({src})"
            self.line(f"if {short}: _draw({n}, {src}, {dst}, {sid})", s.span)  # its error
            self.pay(n, s.span)
            self.line(f"{'' if literal else f'if {n} > 0: '}{dst}.extend({src}[:-{n} - 1:-1]); del {src}[-{n}:]",
                      s.span)
            return
        # One card, the common draw, written out as Game.draw would do it: the runtime is called only
        # to refill an empty pile or to say it cannot. Its one step is among the statement's nodes,
        # paid with the code around it
        self.forget(s.span, piles=(s.source, s.dest))
        if refill:
            self.line(f"if not {src}: _refill({src}, _S.{GLOBAL_PREFIX}{refill}, {self.sid(s.span)})", s.span)
        else:
            self.line(f"if not {src}: _draw(1, {src}, {dst}, {self.sid(s.span)})", s.span)
        self.line(f"{dst}.append({src}.pop())", s.span)

    def stmt_Move(self, s: ast.Move):
        # Game.move written out: a card equals only itself, so list.index finds that very card; the
        # runtime is called only to say that the card is not there
        card, src = self.value(s.card, s.span), self.value(s.source, s.span)
        dst = self.value(s.dest, s.span)
        self.forget(s.span, piles=(s.source, s.dest))
        self.line(f"{self.B} -= len({src})", s.span)
        self.line(f"try: del {src}[{src}.index({card})]", s.span)
        self.line(f"except ValueError: _move({card}, {src}, {dst}, {self.sid(s.span)})", s.span)
        self.line(f"{dst}.append({card})", s.span)

    def stmt_Empty(self, s: ast.Empty):
        src, dst = self.value(s.source, s.span), self.value(s.dest, s.span)
        # `is not`: the same pile reached by two names (an alias) keeps its cards
        self.line(f"if {src} is not {dst}:", s.span)
        self.indent += 1
        self.pay(f"len({src})", s.span)
        self.line(f"{dst}.extend({src}); {src}.clear()", s.span)
        self.indent -= 1
        self.forget(s.span, piles=(s.source, s.dest))

    def value(self, e, span: Span) -> str:
        """An expression a statement names more than once: in a local of its own unless it is a
        plain name (worked out once, as a call of the runtime would take it)."""
        code = self.flat(e, span)
        if _NAME.fullmatch(code):
            return code
        t = self.fresh()
        self.line(f"{t} = {code}", span)
        return t

    def stmt_Shuffle(self, s: ast.Shuffle):
        self.line(f"_shuffle({self.expr(s.pile)})", s.span)

    def stmt_Emit(self, s: ast.Emit):
        # collections are snapshotted: the rules usually empty a pile right after telling of it
        args = "".join((f"tuple({self.expr(a)})" if self.type_of(a).kind in ("list", "pile")
                        else self.expr(a)) + ", " for a in s.args)
        # Nobody listens in a plain simulation: skip working out the event's values. When someone
        # does, that work has a budget of its own, so the game's is the same either way.
        # A game that only counts its events (simulate's Tallied) counts them here.
        event = self.event_number[s.event]
        self.line("if _telling:", s.span)
        values = f"({args})"
        calls = branch_cost(s.args, self.entry_costs)  # side work: the calls in them paid as they run
        if calls:
            values = f"(_charge({calls}), {values})[1]"
        self.line(f"    if _tally is None: _tell({event}, lambda {self.bound(values)}: {values})", s.span)
        self.line(f"    else: _tally[{event}] += 1", s.span)

    def stmt_Finish(self, s: ast.Finish):
        self.line(f"_finish({self.flat(s.winners, s.span)})", s.span)

    def stmt_Return(self, s: ast.Return):
        self.line(f"return {self.top(s.value, s.span)}", s.span)

    def stmt_StopRule(self, s):
        self.line("return", s.span)


_EXITS = (ast.Return, ast.StopRule, ast.Finish, ast.CallStmt)


def _leaves(node) -> bool:
    """Can a pass of this code end its loop early (return, stop, finish, or a rule it calls
    finishing the game)?"""
    return isinstance(node, _EXITS) or any(_leaves(c) for c in ast.children(node))
