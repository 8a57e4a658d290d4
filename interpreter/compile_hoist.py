"""Loop-invariant work out of comprehensions (compile.Gen inherits this).

`min(p for p in players by gap(p, leader()))` works `leader()` out again for every participant,
though it is the same for all of them: no expression can change the game, so a part of a
comprehension's element, condition or key that reads none of the names the comprehension binds
has one value for the whole pass. Such a part is worked out the first time the pass reaches it,
kept in a slot of its own, and reused after that.

The same goes for a part a statement's value names twice or more (`cost(p, cards)` on both
sides of a test): its slot is made just before the statement.

The steps stay exactly what they were: the first evaluation spends what it spends, and every reuse
charges the same number again (the work depends on the same state and names, so it costs the same),
so budgets and records are unchanged; a budget that runs out is named at the same line, except
where it runs out while a kept part is reused: then at the line that reuses it (the statement, or
the `choose` whose options share it), where the code that works everything out again names the
line of the function doing the work. The slot is filled
lazily, so a part under a condition the pass never meets is never worked out (and cannot fail).
Only values nobody can change in place are kept (numbers, truth values, texts, members, cards,
participants, tuples of them), and lists of such values as a copy, handed out as a fresh list at
each reuse as the part itself would make one; only parts that do real work (a pass over a
collection, a function that makes one); never a part with dice or `new`.
"""

from __future__ import annotations

import ast as pyast
import re

import attrs

from . import ast
from .purity import _worth

_NAMES = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_KEPT = ("int", "bool", "text", "enum", "card", "participant")
_CANDIDATES = (ast.Call, ast.Aggregate)
# Kept cheaply: parts whose code only reads and computes (no call of the runtime's that charges
# steps, no rule's or function's call, no dice); their names and operators
_CHEAP_PARTS = (ast.Field, ast.BinOp, ast.UnOp, ast.Cond, ast.Call, ast.Index)
_CALLED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_COSTLESS = {"if", "else", "and", "or", "not", "is", "in", "len", "abs", "min", "max", "_at", "_mul"}


def _over_collection(e) -> bool:
    """A builtin's pass over one collection (`min(SPEEDS)` for every card of a hand)."""
    return isinstance(e, ast.Call) and e.name in ("min", "max", "sum", "any", "all", "sort") and len(e.args) == 1


def _trivial(e) -> bool:
    """Cheaper to work out again than to keep: a field of a name, an operator on names and
    literals (`n == 0`)."""
    if isinstance(e, ast.Field):
        return isinstance(e.obj, ast.Var)
    return isinstance(e, (ast.BinOp, ast.UnOp)) and all(isinstance(n, _LEAVES) for n in _operands(e))


_LEAVES = (ast.Var, ast.Int, ast.Str, ast.Bool, ast.NoneLit)


def _read_at_once(n) -> bool:
    """Is the Python expression n a name, a literal or a chain of fields of a name
    (`_S.g_current.v_limit`, a constant that names its number)? Read again in as few bytecodes as
    a kept slot is."""
    while isinstance(n, pyast.Attribute):
        n = n.value
    return isinstance(n, (pyast.Name, pyast.Constant))


def _gives_value(n) -> bool:
    """Is the value of the Python expression n never None? Then a slot keeping it starts as None:
    `slot is not None` is one bytecode (POP_JUMP_IF_NONE) where `slot is not _UNSET` is three.
    On the numbers, texts, lists, cards and participants of generated code, an arithmetic
    operator, a comparison, `not`, `-`, `len`, `abs` and `_mul` give a value or fail; a condition,
    `and`, `or` and `:=` give one of their parts; a field, an item or another call may give none."""
    if isinstance(n, (pyast.BinOp, pyast.Compare, pyast.UnaryOp)):
        return True
    if isinstance(n, pyast.IfExp):
        return _gives_value(n.body) and _gives_value(n.orelse)
    if isinstance(n, pyast.BoolOp):
        return all(_gives_value(v) for v in n.values)
    if isinstance(n, pyast.NamedExpr):
        return _gives_value(n.value)
    if isinstance(n, pyast.Call):
        return isinstance(n.func, pyast.Name) and n.func.id in ("len", "abs", "_mul")
    return isinstance(n, pyast.Constant) and n.value is not None


def _operands(e) -> tuple:
    return (e.left, e.right) if isinstance(e, ast.BinOp) else (e.operand,)


def _flat_tuple(t) -> bool:
    return all(a.kind not in ("list", "pile", "map") and (a.kind != "tuple" or _flat_tuple(a)) for a in t.arg)


@attrs.define
class Pass:
    """A comprehension being compiled: the Python name its variable has, and its slots."""
    var: str
    slots: list[str] = attrs.field(factory=list)
    known: dict = attrs.field(factory=dict)  # (part, its names' code) -> its slot: one slot for the same part twice
    statement: bool = False  # a statement's value: only its parts named twice or more are kept
    loop: bool = False  # a loop of lines (compile_flat.py, compile_choose.py): cheap parts kept too
    cheap: dict = attrs.field(factory=dict)  # (part, its names' code) -> the local keeping it


class HoistGen:
    passes: list[Pass]
    hoisting: bool
    keeping_cheap = True  # off while a kept part's own code is written

    def cheap_kept(self, e) -> str | None:
        """A part of a loop's item that does not depend on the loop (`total(p)` in
        `max(worth(p, total(p) + c.value) for c in p.hand)`), whose code costs no
        steps (no call that works or charges), as a local worked out the first time the loop
        reaches it and read after that: its value cannot change within the loop, and no step is
        charged either way. Only where the loop is lines of code (a local may be bound in place)."""
        if not (self.hoisting and self.keeping_cheap and self.walrus_ok and self.passes and self.passes[-1].loop
                and isinstance(e, _CHEAP_PARTS) and not _trivial(e)):
            return None
        t = self.types.get(id(e))
        if t is None or t.kind in ("list", "pile", "map") or t.kind == "tuple" and not _flat_tuple(t):
            return None
        p = self.passes[-1]
        reads = frozenset(self._reads(e, frozenset()))
        if p.var in set().union(*(_NAMES.findall(code) for _, code in reads)):
            return None
        kept = p.cheap.get((e, reads))
        if kept is None:
            self.keeping_cheap = False
            try:
                code = self.expr_plain(e)
            finally:
                self.keeping_cheap = True
            if not set(_CALLED.findall(code)) <= _COSTLESS:
                return None
            tree = pyast.parse(code, mode="eval").body
            if _read_at_once(tree):
                return None
            self.tmp += 1
            kept = p.cheap[(e, reads)] = (f"_k{self.tmp}", code, "None" if _gives_value(tree) else "_UNSET")
        slot, code, unset = kept
        return f"({slot} if {slot} is not {unset} else ({slot} := {code}))"

    def loop_slots(self, p: Pass, start: int, span) -> None:
        """The lines that make a loop's slots, put before it (at line `start`) once it is written."""
        made = [f"{slot} = [None, None]" for slot in p.slots]
        made += [f"{slot} = {unset}" for slot, _, unset in p.cheap.values()]
        for text in reversed(made):
            self.lines.insert(start, "    " * self.indent + text)
            self.linemap.insert(start, span)

    def hoistable(self, e, read: int | None = None) -> str | None:
        """`e` as a slot of the outermost pass it does not depend on, or None to compile it as is.
        `read`: a list for a reader that only reads it (`x in e`, a pass over it), paying `read`
        steps an item: reused with no copy, its steps and the reading's charged at once."""
        found = self._slot(e, read)
        if found is None:
            return None
        slot, level = found
        inner, self.passes = self.passes, self.passes[:level]  # compiled where it could stand
        try:
            code = self.expr_plain(e)
        finally:
            self.passes = inner
        keep, again = self._keeping(e, slot, read)
        return f"({again} if {slot}[1] is not None else {keep.format(before=self.B, code=code)})"

    def kept_lines(self, e, span, read: int | None = None) -> str | None:
        """hoistable's slot, filled by lines before the statement where the code is lines itself
        (compile_flat.py): the part is compiled as the plain code compiles it there (loops, and
        calls inlined alike), so both spend the same steps."""
        found = self._slot(e, read)
        if found is None:
            return None
        slot, level = found
        value, before = self.fresh(), self.fresh()
        keep, _ = self._keeping(e, slot, read)
        self.line(f"if {slot}[1] is None:", span)
        self.indent += 1
        self.line(f"{before} = {self.B}", span)
        inner, self.passes = self.passes, self.passes[:level]  # compiled where it could stand
        try:
            code = self.flat_unkept(e, span)
        finally:
            self.passes = inner
        self.line(f"{value} = {keep.format(before=before, code=code)}", span)
        self.indent -= 1
        self.line("else:", span)
        self.indent += 1
        self._again_lines(e, slot, read, value, span)
        self.indent -= 1
        return value

    def _again_lines(self, e, slot: str, read: int | None, value: str, span) -> None:
        """What _again, _again_list or _again_read does, as lines: no call where the part is reused,
        which in a loop is every pass but the first."""
        self.pay(f"{slot}[1]" + ("" if read is None else f" + len({slot}[0]) * {read}"), span)
        copy = read is None and self.types[id(e)].kind == "list"  # the reader may change its list
        self.line(f"{value} = " + (f"list({slot}[0])" if copy else f"{slot}[0]"), span)

    def _keeping(self, e, slot: str, read: int | None) -> tuple[str, str]:
        """The calls that keep a part's value (a template of `before` and `code`) and reuse it."""
        if read is not None:
            return f"_keep_read({slot}, {{before}}, {{code}}, {read})", f"_again_read({slot}, {read})"
        listy = "_list" if self.types[id(e)].kind == "list" else ""
        return f"_keep{listy}({slot}, {{before}}, {{code}})", f"_again{listy}({slot})"

    def _slot(self, e, read: int | None) -> tuple[str, int] | None:
        """The slot that keeps e, and the level of the pass it belongs to; None where e is not kept."""
        if not self.hoisting or not self.passes or not isinstance(e, _CANDIDATES) or not self._keepable(e) \
                or read is not None and self.types[id(e)].kind != "list":
            return None
        reads = frozenset(self._reads(e, frozenset()))
        names = set().union(*(_NAMES.findall(code) for _, code in reads))
        level = len(self.passes)
        while level > 0 and self.passes[level - 1].var not in names:
            level -= 1
        if level < len(self.passes) and self.passes[level].statement and (e, reads) not in self.passes[level].known:
            level += 1  # named once in the statement: kept by the comprehension around it, if any
        if level == len(self.passes):
            return None  # it reads the innermost pass's variable
        p = self.passes[level]
        slot = p.known.get((e, reads))
        if slot is None:
            self.tmp += 1
            slot = p.known[(e, reads)] = f"_h{self.tmp}"
            p.slots.append(slot)
        return slot, level

    def _keepable(self, e) -> bool:
        t = self.types.get(id(e))
        if t is None or not (t.kind in _KEPT or t.kind == "tuple" and all(a.kind in _KEPT for a in t.arg)
                             or t.kind == "list" and t.arg.kind in _KEPT):
            return False
        return (_worth(self.prog, e) or _over_collection(e)) and not self._acts(e)

    def _acts(self, node) -> bool:
        """Does the expression roll dice, make a participant or run a rule (a value per evaluation)?"""
        if isinstance(node, ast.New) or isinstance(node, ast.Call) and (
                node.name == "roll" or node.name in self.prog.rules):
            return True
        return any(self._acts(c) for c in ast.children(node))

    def _reads(self, node, bound: frozenset[str]) -> set[tuple[str, str]]:
        """The locals of its surroundings the expression reads: (name, the Python code it stands for)."""
        if isinstance(node, ast.Var):
            if node.name in bound or not self.is_local(node) or self.types.get(id(node)) is not None \
                    and self.types[id(node)].kind == "enumtype":
                return set()
            arg = self.argument(node)
            if arg is not None:  # an inlined function's parameter: what its argument reads, where
                return set(arg.reads)
            code = self.subst.get(node.name, f"l_{node.name}") if self.subst is not None else f"l_{node.name}"
            return {(node.name, code)}
        if isinstance(node, ast.Comprehension):
            inner = bound | {node.var}
            return self._reads(node.iter, bound) | self._reads((node.elem, node.cond, node.key), inner)
        if isinstance(node, ast.Call):  # a function's body reads its parameters, bound to the arguments
            return self._reads(node.args, bound)
        return set().union(*(self._reads(c, bound) for c in ast.children(node)))

    def open_statement(self, e, span) -> Pass | None:
        """A statement's value that names a part twice or more (`cost(p, cards)` on both
        sides of a test): a slot for each such part, made afresh by lines just before the statement,
        so the part is worked out once per run of the statement."""
        if not self.hoisting or self.passes:
            return None
        seen: dict = {}
        self._count(e, seen)
        p = Pass("", statement=True)
        for key, n in seen.items():
            if n > 1:
                self.tmp += 1
                p.known[key] = slot = f"_h{self.tmp}"
                self.line(f"{slot} = [None, None]", span)
        if not p.known:
            return None
        self.passes.append(p)
        return p

    def _count(self, node, seen: dict) -> None:
        if isinstance(node, _CANDIDATES) and self._keepable(node):
            key = (node, frozenset(self._reads(node, frozenset())))
            seen[key] = seen.get(key, 0) + 1
        for c in ast.children(node):
            self._count(c, seen)

    def open_pass(self, var: str, loop: bool = False) -> Pass:
        p = Pass(var, loop=loop)
        self.passes.append(p)
        return p

    def close_pass(self, p: Pass) -> str:
        """The clauses that make the pass's slots, fresh for each pass, before `for VAR in ITER`."""
        self.passes.pop()
        return "".join(f"for {s} in ([None, None],) " for s in p.slots)
