"""Comprehensions written as loops, where a statement works out its values (compile.Gen inherits this).

In Python 3.11 a comprehension is a function of its own: `sum(c.value for c in p.hand)` makes and
calls one, and builds a list, for a pile of two cards; a comprehension over a function that
holds one makes two, one inside the other. Where a statement works out a value (a `let`, an
assignment, a `return`, a condition, the options of a choice, a rule's arguments), the compiler
writes such a value as lines before the statement instead, a plain loop into a local:

    _t1 = l_f.v_front                  # the collection, paid for as the comprehension paid
    if (_B := _B - (len(_t1) * 4)) < 0: _over()
    _t3 = 0
    for t2_c in _t1:
        _t3 += t2_c.v_value
    l_total = _t3

A comprehension inside the element or condition of one written so is written so too (a loop in
the loop); `and`, `or` and conditional expressions become `if`s, so a part is worked out exactly
when the expression would have worked it out. Parts a loop's value needs before it (a call's
earlier arguments) are worked out first into locals, so everything happens in the order it did.
The loop's variable has a name of its own (no rules local is overwritten); slots of the loop's
invariant parts (compile_hoist.py) are made just before it, once per pass as before.

The values, the steps charged (a collection's cost up front, when it is worked out), the order of
evaluation, where `any`, `all` and `first` stop, and the errors (`max` of nothing) are those of
the comprehension. Expressions that cannot have lines before them (a prefer's lambda, an inlined
function's body, an event's values) keep their comprehensions.
"""

from __future__ import annotations

from . import ast
from .compile_arith import PLAIN, plain
from .costs import ITEM_COST, pair_measure
from .errors import Span
from .limits import LIST_MAX, TEXT_MAX

_COMPS = (ast.Aggregate, ast.ListComp)
# Loops nested in one Python function: CPython allows 20 blocks; rules nest theirs up to 16
LOOPS_MAX = 12


class FlatGen:
    flattening = True  # off in the fallback for rules too deeply nested for Python
    loops_max = LOOPS_MAX
    loop_depth = 0  # loops open around the code being written (the rules' own and written ones)

    def flat(self, e, span: Span) -> str:
        """e's value as an expression, after lines that work out its comprehensions as loops."""
        if not self.flattening or self.loop_depth >= LOOPS_MAX or not self._has_comp(e):
            return self.expr(e)
        if id(e) in self.pre:
            return self.pre[id(e)]
        kept = self.kept_lines(e, span)  # the same for every pass of a loop around it: worked out once
        if kept is not None:
            return kept
        return self.flat_unkept(e, span)

    def flat_unkept(self, e, span: Span) -> str:
        """flat, where e itself is not kept by a loop around it (its parts may be)."""
        if isinstance(e, _COMPS):
            return self._flat_loop(e, span)
        if isinstance(e, ast.BinOp) and e.op in ("and", "or"):
            return self._flat_logic(e, span)
        if isinstance(e, ast.Cond):
            return self._flat_cond(e, span)
        if isinstance(e, ast.BinOp) and e.op in ("in", "notin") and self._shallow(self.type_of(e.right)) \
                and self._has_comp(e.right):
            return self._flat_in(e, span)
        truth = self.truth_test(e) if isinstance(e, ast.BinOp) else None
        if truth is not None:  # `len([c for c in xs if ...]) > 0`: the loop's list, tested
            return f"({truth[0]}{self.flat(truth[1], span)})"
        if isinstance(e, ast.Call) and e.name in self.prog.functions:
            inlined = self._flat_inline(e, span)
            if inlined is not None:
                return inlined
        return self._flat_parts(e, span)

    def _flat_inline(self, e: ast.Call, span: Span) -> str | None:
        """A small function's body in place of its call, its comprehensions written as loops: its
        arguments are worked out first, in order, into locals the body reads (so any argument
        will do, not only one cheap to repeat)."""
        found = self.inlinable(e.name)
        if found is None or not self._has_comp(found[1]) and all(_name_or_literal(a) for a in e.args):
            return None
        f, body = found
        codes, checked = [], set()
        for i, (p, a) in enumerate(zip(f.params, e.args)):
            codes.append(self._spilled(self.flat(a, span), span))
            if p.type.name == "int" and not self.known_in_range(a, self.unchecked):
                self.check_int(codes[-1], self.type_of(a), span)  # as the function's entry would
                checked.add(i)
        return self.inlined(f, self.arguments(f, e.args, codes, checked), lambda: self.flat(body, span))

    def _has_comp(self, e) -> bool:
        """Does e need lines before it: does it hold a comprehension, here or in the body of a
        small function it calls, or call such a function with an argument that is more than a
        name or literal (to work out into a local first)?"""
        key = id(e)
        known = self.comp_seen.get(key)
        if known is None:
            self.comp_seen[key] = False  # a function calling itself holds none by that call
            known = self.comp_seen[key] = self._holds_comp(e)
        return known

    def _holds_comp(self, node) -> bool:
        if isinstance(node, _COMPS):
            return True
        if isinstance(node, ast.Call) and node.name in self.prog.functions:
            f = self.prog.functions[node.name]
            if self.may_inline(f) and (self._has_comp(self.body_expression(f))
                                       or not all(_name_or_literal(a) for a in node.args)):
                return True
        return any(self._holds_comp(c) for c in ast.children(node))

    def _flat_parts(self, e, span: Span) -> str:
        """A node whose own code Gen.expr writes, its parts (up to the last with a comprehension)
        worked out first, in order, into locals it then reads."""
        parts = _parts(e)
        last = max((i for i, p in enumerate(parts) if self._has_comp(p)), default=None)
        if last is None:  # its comprehensions are in a body it calls, which is not inlined here
            return self.expr(e)
        done = []
        try:
            for p in parts[:last + 1]:
                code = self.flat(p, span) if self._has_comp(p) else self.expr(p)
                code = plain(code) or code
                if not PLAIN.fullmatch(code):
                    t = self.fresh()
                    self.line(f"{t} = {code}", span)
                    code = t
                self.pre[id(p)] = code
                done.append(id(p))
            return self.expr(e)
        finally:
            for key in done:
                del self.pre[key]

    def _flat_in(self, e: ast.BinOp, span: Span) -> str:
        """`x in xs` over a list a comprehension makes: the list is only read (a kept one is not
        copied), its reading paid as Gen.read pays it."""
        left = self._spilled(self.flat(e.left, span), span)
        right = self.kept_lines(e.right, span, read=1)
        if right is None:
            right = self._spilled(self.flat_unkept(e.right, span), span)
            self.pay(f"len({right})", span)
        return f"({left} {'in' if e.op == 'in' else 'not in'} {right})"

    def _flat_logic(self, e: ast.BinOp, span: Span) -> str:
        t = self.fresh()
        self.line(f"{t} = {self.flat(e.left, span)}", span)
        self.line(f"if {'' if e.op == 'and' else 'not '}{t}:", span)
        self.indent += 1
        self.line(f"{t} = {self.flat(e.right, span)}", span)
        self.indent -= 1
        return t

    def _flat_cond(self, e: ast.Cond, span: Span) -> str:
        t = self.fresh()
        self.line(f"if {self.flat(e.cond, span)}:", span)
        self.indent += 1
        self.line(f"{t} = {self.flat(e.then, span)}", span)
        self.indent -= 1
        self.line("else:", span)
        self.indent += 1
        self.line(f"{t} = {self.flat(e.orelse, span)}", span)
        self.indent -= 1
        return t

    def _flat_loop(self, e, span: Span) -> str:
        c = e.comp
        how = "list" if isinstance(e, ast.ListComp) else e.name
        if c.key is not None and how in ("sort", "min", "max"):
            how += "_by"
        # What is added or compared may be none (a first(...) of nothing): then every item is worked
        # out first and the builtin takes the list, as the comprehension does, so that the error an
        # item raises comes before the one adding or comparing none raises
        whole = None
        if how in ("sum", "min", "max") and self.may_be_none(c.elem):
            whole, how = how, "list"
        elif how in ("min_by", "max_by") and self.may_be_none(c.key):
            whole, how = f"_{how}", "pairs"
        it = self._source(c, span)
        self.tmp += 1
        var = f"t{self.tmp}_{c.var}"
        start = len(self.lines)  # where the pass's slots go, once the loop is written
        acc = self.fresh()
        empty, best = (self.fresh(), self.fresh()) if how in _EXTREMES else (None, None)
        self.line(f"{acc} = {_START[how]}", span)
        if empty is not None:
            self.line(f"{empty} = True", span)  # no item yet
        saved = self.subst
        self.subst = {**(saved or {}), c.var: var}
        p = self.open_pass(var, loop=True)
        self.line(f"for {var} in {it}:", span)
        self.indent += 1
        self.loop_depth += 1
        try:
            if c.cond is not None:
                self.line(f"if {self.flat(c.cond, span)}:", span)
                self.indent += 1
            self._item(how, c, acc, empty, best, span)
        finally:
            self.loop_depth -= 1
            self.indent -= 1 + (c.cond is not None)
            self.subst = saved
            self.passes.pop()
        self.loop_slots(p, start, span)
        if whole is not None:
            self.line(f"{acc} = {whole}({acc})", span)
        else:
            self._after(how, c, acc, empty, span)
        return acc

    def may_be_none(self, e, params: bool = False) -> bool:
        """May the value be none where a whole number or text is expected? Not a stored whole
        number (checked where stored, a parameter where the function is entered or its call
        written in place), a whole-number field, a literal, what an operator or a builtin of
        several values makes, or a function giving none of the others; maybe a first, top or last,
        a min or max of one collection, or by a key, a list's item, a rule's result, a tuple where one
        of its items may be. `params`: e is a function's body, whose names are its parameters."""
        if isinstance(e, (ast.Int, ast.Str, ast.Bool, ast.BinOp, ast.UnOp)):
            return False
        if isinstance(e, ast.Field):
            return self.type_of(e).kind != "int"
        if isinstance(e, ast.Var):
            if self.type_of(e).kind != "int":
                return True
            return not params and not self.known_in_range(e, self.unchecked) and e.name not in self.prog.globals
        if isinstance(e, ast.Cond):
            return self.may_be_none(e.then, params) or self.may_be_none(e.orelse, params)
        if isinstance(e, ast.TupleLit):  # compared item by item: none only where an item may be
            return any(self.may_be_none(i, params) for i in e.items)
        if isinstance(e, ast.Aggregate):
            return e.name == "first" or e.name in ("min", "max") and e.comp.key is not None
        if isinstance(e, ast.Call):
            if e.name in self.prog.functions:
                return self._gives_none(e.name)
            return e.name in self.prog.rules or e.name in ("first", "last", "top") \
                or e.name in ("min", "max") and len(e.args) == 1
        return True

    def _gives_none(self, name: str) -> bool:
        """may_be_none of what a function gives, worked out once (within itself: maybe)."""
        if name not in self.none_results:
            self.none_results[name] = True
            body = self.body_expression(self.prog.functions[name])
            self.none_results[name] = body is None or self.may_be_none(body, params=True)
        return self.none_results[name]

    def _source(self, c: ast.Comprehension, span: Span) -> str:
        """The collection a loop runs over, in a local, paid for: its length times the nodes
        worked out for each item (as Gen.comp pays)."""
        cost = ITEM_COST + self.weight((c.elem, c.cond, c.key))
        it = self.fresh()
        kept = self.kept_lines(c.iter, span, read=cost)  # the same collection for every pass: paid as it is read
        if kept is not None:
            return kept
        self.line(f"{it} = {self.flat(c.iter, span)}", span)
        self.pay(self.length(it, c.iter) + (f" * {cost}" if cost != 1 else ""), span)
        return it

    def _item(self, how: str, c: ast.Comprehension, acc: str, empty, best, span: Span) -> None:
        """What one item (past the condition) does to the accumulator: the key is worked out
        before the element, as in the (key, element) pairs of the comprehension."""
        if how == "count":
            self.line(f"{acc} += 1", span)
            return
        key = self._spilled(self.flat(c.key, span), span) if how.endswith("_by") or how == "pairs" else None
        elem = self.flat(c.elem, span)
        if how == "sum":
            self.line(f"{acc} += {elem}", span)
        elif how in ("any", "all"):
            self.line(f"if {'' if how == 'any' else 'not '}({elem}):", span)
            self.line(f"    {acc} = {how == 'any'}", span)
            self.line("    break", span)
        elif how == "first":
            self.line(f"{acc} = {elem}", span)
            self.line("break", span)
        elif how in ("list", "sort"):
            self.line(f"{acc}.append({elem})", span)
        elif how in ("sort_by", "pairs"):
            self.line(f"{acc}.append(({key}, {elem}))", span)
        else:  # min or max (by a key): the first of equal extremes, as Python's own and _max_by keep
            x = self._spilled(elem, span)
            op = "<" if how.startswith("min") else ">"
            if key is None:
                self.line(f"if {empty} or {x} {op} {acc}:", span)
                self.line(f"    {acc} = {x}; {empty} = False", span)
            else:
                self.line(f"if {empty} or {key} {op} {best}:", span)
                self.line(f"    {best} = {key}; {acc} = {x}; {empty} = False", span)

    def joined(self, e: ast.BinOp, span: Span) -> str:
        """A statement's whole value `name + b` of texts or lists (`out = out + [card]`, in a loop):
        what _cat does, as lines, no call. b is worked out first into a local; then the length is
        bounded (_cat raises the limit's error) and paid for. The left side is a name, so never a
        list written out (two of those are joined unpaid: compile.Gen.expr_BinOp)."""
        left = self._spilled(self.expr(e.left), span)  # a name: plain, but an inlined body's may not be
        right = self._spilled(self.flat(e.right, span), span)
        size, limit = self.fresh(), TEXT_MAX if self.type_of(e).kind == "text" else LIST_MAX
        self.line(f"{size} = len({left}) + {self.length(right, e.right)}", span)
        self.line(f"if {size} > {limit!r}: _cat({left}, {right})", span)
        self.pay(size, span)
        return f"({left} + {right})"

    def _spilled(self, code: str, span: Span) -> str:
        """The value in a local (a line at span), unless it is plain already."""
        if plain(code):
            return plain(code)
        t = self.fresh()
        self.line(f"{t} = {code}", span)
        return t

    def _after(self, how: str, c: ast.Comprehension, acc: str, empty, span: Span) -> None:
        if how in ("min", "max"):
            self.line(f"if {empty}: {how}(())", span)  # of nothing: Python's own error
        elif how == "sort":
            self.line(f"{acc} = sorted(_sort_spend({acc}), reverse={c.desc})", span)
        elif how == "sort_by":
            per = pair_measure(c.key, self.type_of(c.key), self.type_of(c.elem))
            if per is not None:
                # one pair or none: nothing to compare, so no call (most sorts of a game's small collections);
                # one pair costs what _sort_pairs charges for it, 1 * (2 + 1 + per * 1)
                self.line(f"if len({acc}) > 1: {acc} = _sort_pairs({acc}, {per}, {c.desc})", span)
                self.line(f"elif {acc}:", span)
                self.indent += 1
                self.pay(str(3 + per), span)
                self.line(f"{acc} = [{acc}[0][1]]", span)
                self.indent -= 1
            else:
                self.line(f"{acc} = _sort_by(_sort_spend({acc}), {c.desc})", span)


_START = {"sum": "0", "count": "0", "any": "False", "all": "True", "first": "None", "list": "[]", "sort": "[]",
          "sort_by": "[]", "pairs": "[]", "min": "None", "max": "None", "min_by": "None", "max_by": "None"}
_EXTREMES = ("min", "max", "min_by", "max_by")


def _name_or_literal(e) -> bool:
    """A name or a literal: it cannot fail, and is as cheap to name again as a local (a field may
    fail, on a participant that is none: a call works it out before its body, as a local)."""
    return isinstance(e, (ast.Var, ast.Int, ast.Str, ast.Bool, ast.NoneLit))


def _parts(e) -> list:
    """An expression's own sub-expressions, in the order its code works them out."""
    if isinstance(e, ast.Call):
        return list(e.args)
    if isinstance(e, ast.BinOp):
        return [e.left, e.right]
    if isinstance(e, ast.UnOp):
        return [e.operand]
    if isinstance(e, ast.Field):
        return [e.obj]
    if isinstance(e, ast.Index):
        return [e.obj, e.index]
    if isinstance(e, (ast.ListLit, ast.TupleLit)):
        return list(e.items)
    if isinstance(e, ast.New):
        return [e.name]
    return []
