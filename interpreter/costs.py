"""What work costs, read off the AST: the steps generated code charges for a pass of a loop or an
item of a comprehension, and the measures of values the compiler knows ahead (compile.py)."""

from __future__ import annotations

import attrs

from . import ast
from .limits import CHOOSE_STEPS
from .types import T

# What a loop pass and a comprehension item cost beyond the nodes they work out: Python's own work
# for a pass (the jump, the budget) is worth a few nodes, and the cheapest loop must not outrun
# the budget's few seconds.
PASS_COST, ITEM_COST = 8, 2
_LOOPS = (ast.For, ast.While, ast.Repeat, ast.Simultaneous, ast.DeckFor)


def weight(node) -> int:
    """The nodes worked out once per pass of the code that holds them: a nested loop or
    comprehension counts its header here and pays for its own passes."""
    if isinstance(node, (list, tuple)):
        return sum(weight(n) for n in node)
    if not attrs.has(type(node)):
        return 0
    if isinstance(node, _LOOPS):
        return 1 + weight(getattr(node, "iter", None) or getattr(node, "cond", None) or getattr(node, "count", None))
    if isinstance(node, ast.Comprehension):
        return 1 + weight(node.iter)
    own = CHOOSE_STEPS if isinstance(node, ast.Choose) else 1  # a decision: paid with the code around it
    return own + sum(weight(getattr(node, f.name)) for f in attrs.fields(type(node)) if f.name != "span")


def pair_measure(node, key: T, elem: T) -> int | None:
    """budget.measure of a (key, element) pair plus its own item, where that is the same for
    every pair: measure looks into texts, lists and tuples only, so the element must be none of
    them and the key either (a number, truth value, card or participant), or a tuple written out
    of such values, which counts its items."""
    flat = ("int", "bool", "card", "participant", "none")
    if elem.kind not in flat:
        return None
    if key.kind in flat:
        inner = 0
    elif isinstance(node, ast.TupleLit) and key.kind == "tuple" and all(a.kind in flat for a in key.arg):
        inner = len(key.arg)
    else:
        return None
    return 1 + 2 + inner  # the pair as an item of the list, its two items, the key's tuple


def holds_words(t: T) -> bool:
    """Is comparing values of type t work in proportion to what they hold (texts, collections)?"""
    if t.kind in ("text", "list", "pile"):
        return True
    return t.kind == "tuple" and any(holds_words(a) for a in t.arg)


def holds_list(t: T) -> bool:
    if t.kind in ("list", "pile"):
        return True
    return t.kind == "tuple" and any(holds_list(a) for a in t.arg)


def size(node) -> int:
    """How many AST nodes an expression holds: inlining copies it into every caller."""
    if isinstance(node, (list, tuple)):
        return sum(size(n) for n in node)
    if not attrs.has(type(node)):
        return 0
    return 1 + sum(size(getattr(node, f.name)) for f in attrs.fields(type(node)) if f.name != "span")
