"""What work costs, read off the AST: the steps generated code charges for a pass of a loop or an
item of a comprehension, and the measures of values the compiler knows ahead (compile.py)."""

from __future__ import annotations

import attrs

from . import ast
from .limits import CHOOSE_STEPS, INT_MAX
from .types import T

# What a loop pass and a comprehension item cost beyond the nodes they work out: Python's own work
# for a pass (the jump, the budget) is worth a few nodes, and the cheapest loop must not outrun
# the budget's few seconds.
PASS_COST, ITEM_COST = 8, 2
BRANCH_PAID_OVER = 100  # see branch_cost
# Parts worked out as side work (a heuristic's scores, an event's values when someone listens):
# their nodes count where they stand, the calls in them are paid from the side budget as they run
_SIDE_WORK = {ast.Choose: "prefer", ast.Emit: "args"}
_LOOPS = (ast.For, ast.While, ast.Repeat, ast.Simultaneous, ast.DeckFor)


def weight(node, entries: dict[str, int] | None = None, paid_branches: bool = False) -> int:
    """The nodes worked out once per pass of the code that holds them: a nested loop or
    comprehension counts its header here and pays for its own passes. A call of a function or
    rule of entries costs what entries says as well (entry_costs: the callee pays nothing on
    entry). Of an `if`, its conditions and its dearest branch (one of them runs); with
    paid_branches, the nodes of all its branches but not their calls: each branch pays for the
    calls in it as it is taken (branch_cost). Of a choice of values (`a if c else b`), its
    condition and its dearer side."""
    if isinstance(node, (list, tuple)):
        return sum(weight(n, entries, paid_branches) for n in node)
    if not attrs.has(type(node)):
        return 0
    if isinstance(node, _LOOPS):
        header = getattr(node, "iter", None) or getattr(node, "cond", None) or getattr(node, "count", None)
        return 1 + weight(header, entries, paid_branches)
    if isinstance(node, ast.Comprehension):
        return 1 + weight(node.iter, entries, paid_branches)
    if isinstance(node, ast.If) and entries is not None:
        conds = 1 + sum(weight(c, entries, paid_branches) for c, _ in node.branches)
        bodies = [body for _, body in node.branches] + [node.orelse]
        if paid_branches:  # the nodes of all, the cheap calls of the dearest (the others pay as taken)
            cheap = max(c if (c := branch_cost(b, entries)) <= BRANCH_PAID_OVER else 0 for b in bodies)
            return conds + sum(weight(b, None, True) for b in bodies) + cheap
        return conds + max(weight(b, entries) for b in bodies)
    if isinstance(node, ast.Cond):
        sides = max(weight(node.then, entries, paid_branches), weight(node.orelse, entries, paid_branches))
        return 1 + weight(node.cond, entries, paid_branches) + sides
    own = CHOOSE_STEPS if isinstance(node, ast.Choose) else 1  # a decision: paid with the code around it
    if entries and isinstance(node, ast.Call):
        own += entries.get(node.name, 0)
    side = _SIDE_WORK.get(type(node))
    return own + sum(weight(getattr(node, f.name), None if f.name == side else entries, paid_branches)
                     for f in attrs.fields(type(node)) if f.name != "span")


def branch_cost(body, entries: dict[str, int]) -> int:
    """What the calls in a branch of an `if` cost, where the code around it paid its nodes
    (weight with paid_branches), those of its own branches and loops' bodies left to them. Up to
    BRANCH_PAID_OVER, the code around it pays for the dearest branch's (a charge of its own would
    cost more time than such calls take); past it, the branch pays as it is taken, so the steps stay
    close to the work done (`if d.is_player { turn(d) }` in a loop over everyone)."""
    return weight(body, entries, True) - weight(body, None, True)


def entry_costs(bodies: dict[str, tuple[object, bool]], graph: dict[str, set[str]]) -> dict[str, int]:
    """What entering each function or rule of bodies costs (PASS_COST and its body's nodes, the
    calls in it of others of bodies included): paid by the code around each call instead of on
    entry, so a call in a loop adds to the loop's charge and makes none of its own. bodies holds
    none that can call itself (graph: who calls whom), each with paid_branches (see weight): do the
    branches of its `if`s pay for their own calls? Callees are worked out first, without recursion
    (a hostile chain of thousands of calls). A cost is at most INT_MAX, past any budget a game can
    have: a call that dear stops the game either way, and its number stays short."""
    costs: dict[str, int] = {}
    for root in bodies:
        work = [root]
        while work:
            name = work[-1]
            if name in costs:
                work.pop()
                continue
            todo = [c for c in graph.get(name, ()) if c in bodies and c not in costs]
            if todo:
                work.extend(todo)
                continue
            body, paid_branches = bodies[name]
            costs[name] = min(PASS_COST + weight(body, costs, paid_branches), INT_MAX)
            work.pop()
    return costs


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
