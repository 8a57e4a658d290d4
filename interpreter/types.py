"""The static types of the rules language."""

from __future__ import annotations

import attrs


@attrs.frozen
class T:
    kind: str  # int bool text none nothing any enum enumtype card participant list pile map tuple
    name: str | None = None
    arg: object = None  # element type for list/pile, (key, value) for map, item types for tuple

    def __str__(self) -> str:
        if self.kind in ("list", "pile"):
            return f"{self.kind} of {self.arg}"
        if self.kind == "map":
            return f"map of {self.arg[1]} by {self.arg[0]}"
        if self.kind == "nothing":
            return "nothing (an empty list)"
        if self.kind == "tuple":
            return "(" + ", ".join(str(a) for a in self.arg) + ")"
        return self.name or self.kind


INT, BOOL, TEXT, NONE = T("int"), T("bool"), T("text"), T("none")
# ANY is the type of an expression the checker has already reported as wrong: it fits anything so
# that one mistake is told once. A program whose types still hold ANY after a clean check is
# refused (see check.Checker.sound): no value of unknown type reaches the compiler.
ANY = T("any")
# The items of an empty list `[]`: there are none, so an item of this type can never be read;
# `[]` fits a list of any type.
NOTHING = T("nothing")


def unchecked(t: T) -> bool:
    """Does t hold ANY anywhere (a list of any, a tuple with an any)?"""
    if t.kind == "any":
        return True
    if t.kind in ("list", "pile"):
        return unchecked(t.arg)
    if t.kind in ("map", "tuple"):
        return any(unchecked(a) for a in t.arg)
    return False


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
    if actual == expected or ANY in (actual, expected) or actual.kind == "nothing":
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
        return b if a.kind in ("none", "nothing", "any") or (a.kind in ("list", "pile") and a.arg.kind == "nothing") \
            else a
    if fits(b, a):
        return a
    return ANY
