"""A constant changed from the command line: `-v NAME=VALUE` is the one-line variant
`replace const NAME = VALUE`, made in memory and linked after the variants before it.

The value must be a literal (a whole number, true/false or a text), written into the variant
by this module, never copied as rules text: nothing but a value reaches the rules. Everything
else is the linker's and the checker's, as for a variant file: the constant must exist (with a
suggestion), the value must keep its type, and the game's `require`s still apply. A setting is
changed with `--set` instead, which keeps its bounds.
"""

from __future__ import annotations

import re

import attrs

from . import ast
from .errors import PitwallError
from .limits import INT_DIGITS_MAX, INT_MAX, STRING_MAX
from .link import Program
from .parse import parse

EXT = ".pw"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INT = re.compile(r"[+-]?[0-9]+\Z")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def is_override(variant: str) -> bool:
    """`NAME=VALUE` (a variant file's name ends in .pw; a shipped variant's has no '=')."""
    name, eq, _ = variant.partition("=")
    return bool(eq) and not variant.endswith(EXT) and _NAME.match(name.strip()) is not None


def value_kind(value) -> str | None:
    """int, bool or text: the kind of a constant's worked-out value that an override may replace."""
    if isinstance(value, bool):  # before int: a bool is an int to Python
        return "bool"
    return {int: "int", str: "text"}.get(type(value))


def parse_value(raw: str, kind: str | None = None):
    """A value as the command line gives it: a whole number, true/false or a text. With `kind`,
    the value must be of that kind (a number or true/false in quotes is a text; a text need
    not be quoted); without, its form decides."""
    text = raw.strip()
    quoted = len(text) >= 2 and text[0] == text[-1] == '"'
    if not quoted and kind in (None, "int") and _INT.match(text):
        if len(text.lstrip("+-")) > INT_DIGITS_MAX or abs(int(text)) > INT_MAX:
            raise PitwallError(f"{_shown(text)} is not a whole number from -{INT_MAX} to {INT_MAX}")
        return int(text)
    if not quoted and kind in (None, "bool") and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if kind in (None, "text"):
        return _text(text[1:-1] if quoted else text)
    words = {"int": "a whole number", "bool": "true or false"}[kind]
    raise PitwallError(f"{_shown(text)} is not {words}")


def _text(text: str) -> str:
    if _CONTROL.search(text):
        raise PitwallError("a text given on the command line cannot hold control characters", hint="\\n is a new line")
    if len(text) > STRING_MAX:
        raise PitwallError(f"a text of {len(text):,} characters is longer than {STRING_MAX:,}")
    return text


def literal(value) -> str:
    """A value as the rules write it (a text quoted and escaped)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def canonical_override(name: str, value) -> str:
    """How -v names an override, one spelling per value: so equal overrides are equal runs."""
    return f"{name}={literal(value)}"


def override_variant(variant: str):
    """The in-memory variant file of `NAME=VALUE`, ready for load.build, and its canonical name."""
    from .load import ParsedPath

    name, _, raw = variant.partition("=")
    name = name.strip()
    try:
        value = parse_value(raw)
    except PitwallError as e:
        e.message = f"-v {_shown(variant)}: {e.message}"
        e.hint = e.hint or 'a constant takes a whole number, true/false or a text: -v NAME=5, -v NAME="text"'
        raise
    given = canonical_override(name, value)
    # The file's name is the override as -v gives it: errors and `-v` hints name it so.
    source = f'variant {name} "{name} from the command line"\nreplace const {name} = {literal(value)}\n'
    parsed = parse(source, given)
    # named as given, so "variants in force" and a broken require's hint say which value it was
    parsed = attrs.evolve(parsed, items=tuple(attrs.evolve(i, name=given) if isinstance(i, ast.VariantDecl) else i
                                              for i in parsed.items))
    path = ParsedPath(parsed)
    path.source_text = source
    return path, given


def refuse_settings(prog: Program, given: list[str]) -> None:
    """An override of a setting would drop its bounds: --set changes a setting."""
    for variant in given:
        name, _, value = variant.partition("=")
        old = prog.replaced.get(name)
        if getattr(old, "setting", False):
            raise PitwallError(f"{name!r} is a setting: it is changed with --set, not -v",
                               hint=f"--set {name}={value.strip(chr(34))}")


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")
