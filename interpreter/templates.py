"""Templates of narration, prompts and card faces: text with `{value.field:spec}` holes.

A template is parsed here once, into literal text and `Hole`s, and worded by `render` in the
runtime. It is never handed to `str.format` with the game's objects: a hole names a value and
then declared fields only (the checker proves each against the declarations), and its spec is a
small closed language (fill, align, sign, zero, width up to TEMPLATE_WIDTH_MAX), so a template
can reach no attribute, index, conversion or nested spec of Python's.
"""

from __future__ import annotations

import re

import attrs

from .limits import TEMPLATE_WIDTH_MAX

_PATH = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*")
# [[fill]align][sign][0][width]: what a designer needs to line up numbers and names
_SPEC = re.compile(r"(?:(?P<fill>[^{}])?(?P<align>[<>^=]))?(?P<sign>[-+ ])?(?P<zero>0)?(?P<width>[0-9]+)?")


class TemplateError(ValueError):
    """A malformed template; `offset` is where in the template text the problem starts."""

    def __init__(self, message: str, offset: int, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.hint = hint


@attrs.frozen
class Hole:
    root: str  # the value the hole starts from
    path: tuple[str, ...]  # declared fields read from it, in order
    spec: str  # checked: fill, align, sign, zero, width
    text: str  # the hole as written, for messages
    offset: int  # where '{' stands in the template

    @property
    def numeric_spec(self) -> bool:
        """Does the spec need a number (a sign, or '=' padding)?"""
        m = _SPEC.fullmatch(self.spec)
        return bool(m and (m["sign"] or m["align"] == "="))


Part = str | Hole


def parse_template(template: str) -> tuple[Part, ...]:
    """Literal text and holes, in order; TemplateError if anything is out of the template language."""
    parts = scan(template)
    bad = next((p for p in parts if isinstance(p, TemplateError)), None)
    if bad is not None:
        raise bad
    return tuple(parts)


def scan(template: str) -> list[Part | TemplateError]:
    """Literal text, holes and the errors of malformed holes, in order: every mistake is told."""
    parts: list[Part | TemplateError] = []
    text: list[str] = []
    i, n = 0, len(template)
    while i < n:
        ch = template[i]
        if ch in "{}" and template.startswith(ch * 2, i):  # {{ and }} stand for a brace
            text.append(ch)
            i += 2
        elif ch == "}":
            parts.append(TemplateError("a '}' closes no '{'", i, "write }} for a brace in the text"))
            i += 1
        elif ch == "{":
            end = _close(template, i)
            if end < 0:
                parts.append(TemplateError("a '{' is not closed", i,
                                           "close the field with '}', or write {{ for a brace"))
                break
            if text:
                parts.append("".join(text))
                text = []
            try:
                parts.append(_hole(template[i + 1:end], i))
            except TemplateError as exc:
                parts.append(exc)
            i = end + 1
        else:
            text.append(ch)
            i += 1
    if text:
        parts.append("".join(text))
    return parts


def _close(template: str, start: int) -> int:
    """Where the '}' that closes the '{' at start stands (nested braces counted), or -1."""
    depth = 0
    for i in range(start, len(template)):
        depth += {"{": 1, "}": -1}.get(template[i], 0)
        if depth == 0:
            return i
    return -1


def _hole(inner: str, offset: int) -> Hole:
    name, _, spec = inner.partition(":")
    if "{" in inner:
        raise TemplateError("a field cannot hold another field", offset, "write {name} or {name:>8}")
    if "!" in name:
        raise TemplateError(f"{{{inner}}}: conversions like !r are not part of templates", offset,
                            "values are worded by the rules: {name}")
    if not _PATH.fullmatch(name):
        raise TemplateError(f"{{{inner}}}: a field names a value and its fields, like {{p}} or {{p.score}}", offset,
                            "no indexing or other expressions: compute the value in the rules and pass it on")
    m = _SPEC.fullmatch(spec)
    if m is None:
        raise TemplateError(f"{{{inner}}}: {spec!r} is not a format", offset,
                            "formats are [fill]align, sign and width: + >3 03 <8 ^10")
    if m["width"] is not None and int(m["width"]) > TEMPLATE_WIDTH_MAX:
        raise TemplateError(f"{{{inner}}}: a width of {m['width']} is more than {TEMPLATE_WIDTH_MAX}", offset)
    root, *path = name.split(".")
    return Hole(root, tuple(path), spec, "{" + inner + "}", offset)


def template_roots(template: str) -> list[str]:
    """The names the holes start from, each once, in order (none for a malformed template)."""
    try:
        parts = parse_template(template)
    except TemplateError:
        return []
    return list(dict.fromkeys(p.root for p in parts if isinstance(p, Hole)))
