"""The static types of the rules language."""

from __future__ import annotations

import attrs


@attrs.frozen
class T:
    kind: str  # int bool text none any enum card participant list pile map tuple
    name: str | None = None
    arg: object = None  # element type for list/pile/map, item types for tuple

    def __str__(self) -> str:
        if self.kind in ("list", "pile"):
            return f"{self.kind} of {self.arg}"
        if self.kind == "map":
            return f"map of {self.arg}"
        if self.kind == "tuple":
            return "(" + ", ".join(str(a) for a in self.arg) + ")"
        return self.name or self.kind


INT, BOOL, TEXT, NONE, ANY = T("int"), T("bool"), T("text"), T("none"), T("any")


def list_of(t: T) -> T:
    return T("list", arg=t)


def elem(t: T) -> T | None:
    """The element type of a collection, or None if t is not one."""
    if t.kind in ("list", "pile"):
        return t.arg
    if t.kind == "enumtype":  # an enum's name lists its members, in order
        return T("enum", t.name)
    if t.kind == "any":
        return ANY
    return None


def fits(actual: T, expected: T) -> bool:
    """Can a value of type `actual` stand where `expected` is wanted?"""
    if actual == expected or ANY in (actual, expected):
        return True
    if actual.kind == "none":
        return expected.kind in ("card", "participant", "none")
    if actual.kind in ("list", "pile") and expected.kind in ("list", "pile"):
        # a pile can be read as a list; a fresh list may initialise a pile
        return fits(actual.arg, expected.arg)
    if actual.kind == "tuple" and expected.kind == "tuple":
        return len(actual.arg) == len(expected.arg) and all(fits(a, e) for a, e in zip(actual.arg, expected.arg))
    return False


def join(a: T, b: T) -> T:
    if fits(a, b):
        return b if a.kind == "none" or a == ANY else a
    if fits(b, a):
        return a
    return ANY
