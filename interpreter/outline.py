"""What a variant can change: the linked program's named declarations, with where each is written.

`pitwall outline GAME` prints this, so that a designer sees the constants, settings, functions,
rules, events and decks a variant may `replace`, `extend` or `modify` without reading every file.
"""

from __future__ import annotations

from pathlib import Path

from . import ast
from .errors import Span
from .link import Program, bounds_text


def type_text(t: ast.TypeRef) -> str:
    return f"{t.name} of {type_text(t.arg)}" if t.arg is not None else t.name


def params_text(params) -> str:
    return ", ".join(f"{p.name}: {type_text(p.type)}" for p in params)


def source_of(prog: Program, span: Span) -> str:
    """The source text a span covers, on one line."""
    lines = prog.sources.get(span.file, "").splitlines()
    if not lines or span.line < 1:
        return "?"
    if span.line == span.end_line:
        return lines[span.line - 1][span.col - 1: span.end_col - 1]
    parts = [lines[span.line - 1][span.col - 1:]] + lines[span.line: span.end_line - 1]
    parts.append(lines[span.end_line - 1][: span.end_col - 1])
    return " ".join(p.strip() for p in parts)


def where(span: Span, root: Path | None) -> str:
    path = Path(span.file)
    try:
        shown = path.resolve().relative_to(root.resolve()) if root is not None else path.name
    except ValueError:  # a variant from elsewhere
        shown = path
    return f"{shown}:{span.line}"


def outline(prog: Program, root: Path | None = None) -> list[tuple[str, list[tuple[str, str]]]]:
    """Sections of (declaration as written, file:line), in the order a variant author needs them."""
    consts = [c for c in prog.consts.values() if not c.setting]
    settings = [c for c in prog.consts.values() if c.setting]
    sections = [
        ("constants", [(f"{c.name} = {source_of(prog, c.value.span)}", c.span) for c in consts]),
        ("settings (pitwall play --set NAME=VALUE, or --NAME VALUE)",
         [(f"{c.name} = {source_of(prog, c.value.span)}" + (f"  ({bounds_text(c)})" if c.bounds else ""), c.span)
          for c in settings]),
        ("functions (replace or modify)",
         [(f"{f.name}({params_text(f.params)}) -> {type_text(f.ret)}", f.span) for f in prog.functions.values()]),
        ("rules (replace or extend)",
         [(f"{r.name}({params_text(r.params)})" + (f" -> {type_text(r.ret)}" if r.ret else "")
           + "".join(f"  (extended at {where(b.span, root)})" for b in r.extensions), r.span)
          for r in prog.rules.values()]),
        ("events (narration)", [(f"{e.name}({params_text(e.params)}) {e.template!r}", e.span)
                                for e in prog.events.values()]),
        ("decks and tables (replace or extend)", [(f"{d.name} of {d.card}", d.span) for d in prog.decks.values()]),
    ]
    return [(title, [(text, where(span, root)) for text, span in items]) for title, items in sections if items]
