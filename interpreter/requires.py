"""`require` when the rules load: which requirements wait for the decks, and where a failing one
points.

A requirement relates constant data: constants, enums, and the decks and tables fixed when the
rules load. One of the form `all(COND for X in DECK [if FILTER])` checks every row of a deck or
table; when it fails, the author's mistake is most often in the row, not in the requirement, so
the error points at the row that made the first element failing it (in a variant's file, when a
variant added or replaced the rows), and a note names the requirement. Any other failing
requirement points at itself.
"""

from __future__ import annotations

from . import ast
from .blame import walk
from .errors import RuleRuntimeError, Span
from .runtime import field_of

SHOWN_MAX = 120  # characters of the failing element shown in the note


def row_check(prog, r: ast.RequireDecl) -> tuple[ast.Comprehension, ast.DeckDecl] | None:
    """The comprehension and deck of a requirement over every row of a deck or table, else None."""
    cond = r.cond
    if not (isinstance(cond, ast.Aggregate) and cond.name == "all" and cond.comp.key is None):
        return None
    it = cond.comp.iter
    # no local can hide a deck (the checker refuses it), so the name is the deck's
    if isinstance(it, ast.Var) and it.name in prog.decks:
        return cond.comp, prog.decks[it.name]
    return None


def reads_decks(prog, r: ast.RequireDecl) -> bool:
    """Does the requirement read a deck? It is then checked once the decks are made."""
    return any(isinstance(n, ast.Var) and n.name in prog.decks for n in walk(r.cond))


class Unmet(Exception):
    """A `require` that the constant data do not meet; `row` is the deck row at fault, if known."""

    def __init__(self, require: ast.RequireDecl, row: Span | None = None, note: str | None = None):
        super().__init__(require.message)
        self.require, self.row, self.note = require, row, note


def _value(value, type_name: str) -> str:
    """A field's value as a row writes it: texts quoted, true/false, a list by its length."""
    if type_name == "text":
        escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        return f'"{escaped}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return f"{len(value)} items"
    return "none" if value is None else str(value)


def shown(prog, deck: ast.DeckDecl, item) -> str:
    """The element by its fields' values: of the rows one entry makes (in a loop), which one."""
    rec = prog.cards[deck.card]
    text = f"{rec.name}(" + ", ".join(f"{f.name}: {_value(field_of(item, f.name), f.type.name)}"
                                      for f in rec.fields) + ")"
    return text if len(text) <= SHOWN_MAX else text[:SHOWN_MAX - 3] + "..."


def unmet(prog, spans: tuple[Span, ...]):
    """The function generated code calls when requirement i does not hold: with the position of the
    first failing element in the deck, and the deck's items and row places, for a check of rows."""

    def fail(i: int, at: int | None = None, items=(), rows=()):
        r = prog.requires[i]
        if at is None:
            raise Unmet(r)
        _, deck = row_check(prog, r)
        unit = "card" if deck.word == "deck" else "row"
        note = (f"required at {r.span} of every {unit} of {deck.word} {deck.name!r}: {unit} {at + 1} of "
                f"{len(items)}, {shown(prog, deck, items[at])}, breaks it")
        raise Unmet(r, spans[rows[at]], note)

    return fail


def unmet_error(exc: Unmet, span: Span | None) -> RuleRuntimeError:
    """The error of a failing requirement: at the row behind it, or at the requirement's own line."""
    message = f"the rules require: {exc}"
    if exc.row is None:
        return RuleRuntimeError(message, span, "the constants it relates do not fit it: a setting's value given "
                                               "to this run (--set NAME=VALUE), or a variant's change")
    return RuleRuntimeError(message, exc.row, "correct the row, or the requirement if the row is right", exc.note)
