"""The memo parts of the code generator (compile.Gen inherits them): remembered pure functions,
functions and `let`s remembered per state of the game, and the lines that forget on a change.

Every remembered value keeps the steps its work cost, and a look-up charges them again, so the
budget runs exactly as if the work were done again (the steps follow from the same arguments and
state as the value). See purity.py for which functions qualify.
"""

from __future__ import annotations

import attrs

from . import ast
from .purity import reach
from .types import T

# A table holds at most MEMO_SIZE values (then starts again empty); lists and texts of more than
# MEMO_ITEM items are never keys (their keys would cost what the work does, and fill memory).
MEMO_SIZE, MEMO_ITEM = 4096, 64
# Every MEMO_TRIAL misses a table looks back: unless its answers from memory saved at least
# MEMO_WORTH steps of work per look-up (a look-up costs about what that many steps do), later
# games of the process skip it: a table that mostly misses, or remembers cheap work, only costs.
# Which way a call goes never changes a value or a step, only the time.
MEMO_TRIAL, MEMO_WORTH = 512, 30


class MemoGen:
    def remembered_name(self, f: ast.FunctionDecl, mods) -> str:
        """The Python name a function's own body is compiled under."""
        if mods:
            return f"_base_{f.name}"
        return f"_pure_{f.name}" if f.name in self.pure or f.name in self.per_state else f"f_{f.name}"

    def _key(self, params) -> tuple[str, str | None]:
        keys = "".join((f"tuple(l_{p.name})" if p.type.name in ("list", "pile") else f"l_{p.name}") + ", "
                       for p in params)
        big = [f"len(l_{p.name}) > {MEMO_ITEM}" for p in params if p.type.name in ("list", "pile", "text")]
        return keys, " or ".join(big) or None

    def memo(self, f: ast.FunctionDecl, inner: str) -> None:
        """f_NAME answers from a table: per function for a pure one (its arguments say all), the
        game's per-state table _SM otherwise (emptied by every change of the state). A pure
        function's lists are kept as tuples and handed out as fresh lists, as its body would."""
        pure = f.name in self.pure
        params = self.params(f.params)
        keys, big = self._key(f.params)
        table = f"_memo_{f.name}" if pure else "_SM"
        listy = f.ret.name == "list"
        out = "list(_hit[0])" if listy else "_hit[0]"
        if pure:
            self.line(f"{table} = {{}}", f.span)
            key = f"({keys})"
        else:
            key = f"({f.name!r}, {keys})"
        stats = self.memo_site(f.name)
        self.line(f"def f_{f.name}({params}):", f.span)
        self.indent += 1
        if big:
            self.line(f"if {big}: return {inner}({params})", f.span)
        self.line(f"_key = {key}", f.span)
        self.line(f"_hit = {table}.get(_key)", f.span)
        self.line("if _hit is None:", f.span)
        self.indent += 1
        self.line(f"_before = {self.B}", f.span)
        self.line(f"_value = {'tuple' if listy else ''}({inner}({params}))", f.span)
        self.line(f"if len({table}) >= {MEMO_SIZE}: {table}.clear()", f.span)
        self.line(f"{table}[_key] = _hit = (_value, _before - {self.B})", f.span)
        self.missed(stats, f.span)
        self.line(f"return {out}", f.span)
        self.indent -= 1
        self.line(f"{stats}[1] += 1", f.span)
        self.line(f"{stats}[3] += _hit[1]", f.span)
        self.pay("_hit[1]", f.span)
        self.line(f"return {out}", f.span)
        self.indent -= 1
        # _bind points f_NAME at this or at the body, as the table's record says (compile.Gen.bind)
        self.line(f"_w_{f.name} = f_{f.name}", f.span)
        self.memo_switches.append((f.name, inner, stats))

    def memo_site(self, name) -> str:
        """A table's record at module level, shared by the games of a process: [misses, hits, on,
        steps saved]."""
        self.memo_sites.append(f"_M_{name}")
        return f"_M_{name}"

    def missed(self, stats: str, span) -> None:
        self.line(f"{stats}[0] += 1", span)
        worth = f"{stats}[3] >= {MEMO_WORTH} * ({stats}[0] + {stats}[1])"
        self.line(f"if not {stats}[0] % {MEMO_TRIAL}: {stats}[2] = {worth}", span)

    def shared_run(self, stmts: list, deps: tuple[str, ...]) -> int:
        """How many of the statements after a shared `let` go in its entry: up to the last shared
        `let` of the same parameters, with only other `let`s between (worked out on every call,
        in their place)."""
        end = 0
        for i, s in enumerate(stmts):
            if self.lets.get(id(s)) == deps:
                end = i + 1
            elif not isinstance(s, ast.Let) or id(s) in self.lets:
                break
        return end

    def shared_lets(self, group: list[ast.Let], deps: tuple[str, ...]) -> None:
        """`let`s of a remembered function whose values depend on the same strict part of its
        parameters (see purity.shared_lets): worked out once per state for each value of those,
        kept together in one entry of the state's table (one look-up for all of them). Other
        `let`s between them are worked out on every call, in their place."""
        params = [p for p in self.function_params if p.name in deps]
        keys, big = self._key(params)
        first = group[0]
        sid = self.sid(first.span)
        stats = self.memo_site(sid)
        self.line(f"if not {stats}[2]:", first.span)  # skipped by now: worked out every time
        self.indent += 1
        for s in group:
            self.stmt_Let(s)
        self.indent -= 1
        self.line("else:", first.span)
        self.indent += 1
        self.shared_lets_remembered(group, deps, sid, stats, keys, big)
        self.indent -= 1

    def shared_lets_remembered(self, group: list[ast.Let], deps, sid: int, stats: str, keys: str,
                               big: str | None) -> None:
        # an entry: the shared values, then the steps each cost, charged again each at its own line
        first = group[0]
        shared = {id(s): i for i, s in enumerate(s for s in group if self.lets.get(id(s)) == deps)}
        names = [s.name for s in group if id(s) in shared]
        n = len(shared)
        self.line(f"_key = ({sid}, {keys})", first.span)
        self.line("_hit = _SM.get(_key)" + (f" if not ({big}) else None" if big else ""), first.span)
        self.line("if _hit is None:", first.span)
        self.indent += 1
        for s in group:
            if id(s) not in shared:
                self.stmt_Let(s)
                continue
            i = shared[id(s)]
            self.line(f"_m{i} = {self.B}", s.span)
            self.line(f"l_{s.name} = {self.top(s.value, s.span)}", s.span)  # its own lines come first, in the block
            self.check_value(f"l_{s.name}", s.value, self.type_of(s.value), s.span)
            self.line(f"_m{i} -= {self.B}", s.span)
        if big:
            self.line(f"if not ({big}):", first.span)
            self.indent += 1
        entry = [f"l_{name}" for name in names] + [f"_m{i}" for i in range(n)]
        self.line(f"if len(_SM) >= {MEMO_SIZE}: _SM.clear()", first.span)
        self.line(f"_SM[_key] = ({', '.join(entry)})", first.span)
        if big:
            self.indent -= 1
        self.missed(stats, first.span)
        self.indent -= 1
        self.line("else:", first.span)
        self.indent += 1
        self.line(f"{stats}[1] += 1", first.span)
        self.line(f"{stats}[3] += " + " + ".join(f"_hit[{n + i}]" for i in range(n)), first.span)
        for s in group:
            if id(s) not in shared:
                self.stmt_Let(s)
                continue
            i = shared[id(s)]
            self.line(f"l_{s.name} = _hit[{i}]", s.span)
            self.pay(f"_hit[{n + i}]", s.span)
        self.indent -= 1

    def changes_state(self, target) -> bool:
        """Does assigning to this place change the game (not a local, nor a local map's entry)?"""
        if isinstance(target, ast.Var):
            return not self.is_local(target)
        if isinstance(target, ast.Index) and isinstance(target.obj, ast.Var) and self.is_local(target.obj):
            return self.type_of(target.obj).kind != "map"
        return True

    def forget(self, span, place=None, piles=()) -> None:
        """The state changed: what was remembered of the one before no longer holds. A change
        nothing in the state's table can have read (place: the target of an assignment or choice;
        piles: the lists a statement changes in place) forgets nothing: most changes of a game
        (cards moved between piles) touch nothing a kept value reads."""
        if place is None and not piles or self.memo_sees(place, piles):
            self.line("if _SM: _SM.clear()", span)

    def memo_sees(self, place, piles) -> bool:
        """Can a value kept in the state's table have read what this change changes? A field or a
        global assigned: if a function whose values the table keeps reads it by name (through the
        functions it calls). A list changed in place (a card moved, an item assigned): if such a
        function reads any list of its kind of items: lists are shared by reference, but the type
        system keeps a list of cards apart from a list of figures (every path to the state has a
        declared type), so only the items' type tells which lists may be this one."""
        reads = self.memo_reads()
        containers = list(piles) + ([place.obj] if isinstance(place, ast.Index) else [])
        for c in containers:
            changed = items(self.type_of(c))
            # a list typed of `none` may be any pile (types.join of [none] and a pile is one)
            if changed & reads.items or reads.any_items or any(t.kind in _ANY_ITEMS for t in changed):
                return True
        if isinstance(place, ast.Field):
            return place.name in reads.fields
        if isinstance(place, ast.Var):
            return place.name in reads.globals
        return place is not None and not isinstance(place, ast.Index)

    def memo_reads(self) -> StateReads:
        """What the values of the state's table may read: the bodies (and modifiers) of the
        functions remembered per state and of those with shared lets, and every function they call."""
        if self.state_reads is None:
            kept = set(self.per_state) | {n for n, f in self.prog.functions.items() if self.lets_of(f)}
            reached = reach(self.calls, kept)
            nodes = [self.bodies[n] for n in reached if n in self.bodies]
            nodes += [(m.when, m.value) for m in self.prog.modifiers if m.target in reached]
            self.state_reads = _reads(self.prog, self.types, nodes)
        return self.state_reads


@attrs.frozen
class StateReads:
    fields: frozenset[str]
    globals: frozenset[str]
    items: frozenset[T]  # the types of the items of every list, pile and map read, at any depth
    any_items: bool  # a list of `none` was read: any list of cards or figures may be it


def items(t: T | None) -> set[T]:
    """The types of the items a value of type t holds, at any depth (a tuple's lists' items too)."""
    out: set[T] = set()
    work = [t]
    while work:
        t = work.pop()
        if t is None:
            continue
        if t.kind in ("list", "pile"):
            parts = [t.arg]
        elif t.kind in ("map", "tuple"):
            parts = list(t.arg)
        else:
            continue
        for a in parts:
            if t.kind != "tuple" and a not in out:
                out.add(a)
            work.append(a)
    return out


def _reads(prog, types: dict[int, T], roots: list) -> StateReads:
    fields, names, found = set(), set(), set()
    work = list(roots)
    while work:
        node = work.pop()
        if isinstance(node, ast.Field):
            fields.add(node.name)
        elif isinstance(node, ast.Var) and (node.name in prog.globals or node.name == "players"):
            names.add(node.name)
        found |= items(types.get(id(node)))
        work.extend(ast.children(node))
    # read: a list of `nothing` is an empty list written out, never the state's (join gives a
    # state's list its own type), so only `none` and `any` make every list a suspect
    suspect = any(t.kind in ("none", "any") for t in found)
    return StateReads(frozenset(fields), frozenset(names), frozenset(found), suspect)


# Items of these types may be of any kind: a list typed of `none` may be a pile of cards or a list of
# figures (types.join of [none] and a pile is a list of none); `nothing` and `any` to be safe
_ANY_ITEMS = ("none", "nothing", "any")
