"""Which variant a runtime failure may come from: the names the failing line reads that a variant
replaced, extended or modified. A constant changed in a variant often breaks a base rule far
away (`replace const ROUNDS = 4` runs a deck dry); the error then says so."""

from __future__ import annotations

import attrs

from . import ast
from .errors import Span
from .link import Program


def blame(prog: Program, span: Span | None, required: Span | None = None) -> str | None:
    """A hint naming the variants in force and what of theirs the failing code reads (and the
    requirement it breaks, if given: a deck row's); None without variants."""
    if not prog.variants:
        return None
    in_force = ", ".join(v.name for v in prog.variants)
    names: set[str] = set()
    for place in (span, required):
        node = _find(prog, place) if place is not None else None
        names |= reads(prog, node) if node is not None else set()
    suspects = _changed(prog, names)
    if not suspects:
        return f"variants in force: {in_force}"
    what = "this line reads " if required is None else "this line and the requirement read "
    return f"variants in force: {in_force}; {what}" + "; ".join(suspects)


def _declarations(prog: Program):
    yield from prog.rules.values()
    yield from prog.functions.values()
    yield from prog.modifiers
    yield from prog.consts.values()
    yield from prog.globals.values()
    yield from prog.decks.values()
    yield from prog.requires


def walk(node):
    """Every node below (and with) `node`, iteratively: rules may nest deeply."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (list, tuple)):
            stack.extend(n)
        elif attrs.has(type(n)):
            yield n
            stack.extend(getattr(n, f.name) for f in attrs.fields(type(n)) if f.name != "span")


def _find(prog: Program, span: Span):
    for decl in _declarations(prog):
        for n in walk(decl):
            if getattr(n, "span", None) == span and not isinstance(n, ast.Block):
                return n
    return None


def reads(prog: Program, node) -> set[str]:
    """The names a node reads, and those read by the functions it calls (values it depends on)."""
    seen: set[str] = set()
    todo = [node]
    while todo:
        for n in walk(todo.pop()):
            name = n.name if isinstance(n, (ast.Var, ast.Call)) else None
            if name is None or name in seen:
                continue
            seen.add(name)
            if name in prog.functions:
                todo.append(prog.functions[name].body)
    return seen


def _changed(prog: Program, names: set[str]) -> list[str]:
    out = []
    for name in sorted(names):
        if name in prog.changed_by:
            variant, how, _ = prog.changed_by[name]
            out.append(f"{name}, {'extended' if how == 'extend' else 'replaced'} by variant {variant!r}")
        for m in prog.modifiers:
            if m.target == name and m.span.file in {v.span.file for v in prog.variants}:
                out.append(f"{name}, modified at {m.span}")
    return out
