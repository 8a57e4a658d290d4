"""The step budget and size limits as generated code meets them: the helpers that spend from a
budget (metered), and the exceptions that end a game when a budget or a limit is passed."""

from __future__ import annotations

from operator import itemgetter

from .limits import DECK_MAX, LIST_MAX, RANGE_STEPS, TEXT_MAX


class LimitExceeded(Exception):
    """A value outgrew a limit of limits.py; reported at the rules line that made it."""


class OutOfSteps(Exception):
    """The step budget ran out; reported at the rules line that spent the last step."""


_KEY = itemgetter(0)


class BudgetView:
    """The budget as a one-item list, `budget[0]`, for the code that is not a closure over it: the
    runtime's rare charges (a shuffle, a draw, a participant made), the viewer, the load's module
    code, tests. Generated rules functions read and write the variable itself (the cell), which
    costs a third of the bytecodes of a list's item and allocates nothing more."""

    __slots__ = ("cell",)

    def __init__(self, cell):
        self.cell = cell

    def __getitem__(self, i: int) -> int:
        if i != 0:
            raise IndexError(i)
        return self.cell.cell_contents

    def __setitem__(self, i: int, steps: int) -> None:
        if i != 0:
            raise IndexError(i)
        self.cell.cell_contents = steps


def metered(start: int) -> dict:
    """The helpers of generated code that spend from one step budget (a game's, or the load's),
    `start` steps: closures over its variable _B, whose cell (`_budget.cell`) the rules' functions
    of a game share (runtime.CodeSet), and `_budget`, its view for everyone else."""
    _B = start

    def over():
        raise OutOfSteps

    def spend(xs, weight=1):
        nonlocal _B
        # work in proportion to a collection (a loop over it, a scan, a copy) costs its length,
        # times the nodes worked out for each item
        _B -= len(xs) * weight
        if _B < 0:
            raise OutOfSteps
        return xs

    def cat(a, b):
        nonlocal _B
        # text + text and list + list: bounded in size, and paid for like a copy
        n = len(a) + len(b)
        limit = TEXT_MAX if type(a) is str else LIST_MAX
        if n > limit:
            raise LimitExceeded(f"joining gives {n} {'characters' if type(a) is str else 'items'}; "
                                f"at most {limit} are allowed")
        _B -= n
        if _B < 0:
            raise OutOfSteps
        return a + b

    def range_(lo: int, hi: int) -> list:
        nonlocal _B
        # a range is a list: bounded like every list, and paid for number by number
        if hi - lo >= LIST_MAX:
            raise LimitExceeded(f"range({lo}, {hi}) holds {hi - lo + 1} numbers; at most {LIST_MAX} are allowed")
        if hi >= lo:  # each number a new object kept in memory: dearer than a step
            _B -= (hi - lo + 1) * RANGE_STEPS
            if _B < 0:
                raise OutOfSteps
        return list(range(lo, hi + 1))

    decked = [0]  # cards made so far, in all decks

    def room(cards: list, n: int):
        # a deck row of N copies, at load time: all decks together hold at most DECK_MAX cards
        decked[0] += n
        if decked[0] > DECK_MAX:
            raise LimitExceeded(f"the decks and tables would hold more than {DECK_MAX} cards and rows together")
        spend(range(n))

    def sort_spend(xs):
        # sorting costs n log n comparisons, not n; comparing texts costs their length
        spend(xs, 2 + len(xs).bit_length())
        if xs and type(xs[0]) in (str, tuple, list):
            charge(measure(xs) * len(xs).bit_length())
        return xs

    def sort_pairs(xs, per, desc):
        nonlocal _B
        # _sort_by after sort_spend, for (key, element) pairs whose measure the compiler knows:
        # `per` for each
        n = len(xs)
        bits = n.bit_length()
        _B -= n * (2 + bits + per * bits)  # the pairs' walk and the comparisons, at once
        if _B < 0:
            raise OutOfSteps
        xs.sort(key=_KEY, reverse=desc)  # stable, also reversed: equal keys keep their order
        return [v for _, v in xs]

    def index_of(xs, x):
        nonlocal _B
        # _spend(xs).index(x) in one call: a scan of the whole list, wherever x is
        _B -= len(xs)
        if _B < 0:
            raise OutOfSteps
        return xs.index(x)

    def charge(steps: int):
        nonlocal _B
        _B -= steps
        if _B < 0:
            raise OutOfSteps

    def deep(xs):
        # comparing or scanning a collection of texts or collections: every character and item
        charge(measure(xs))
        return xs

    def chars(s: str) -> str:
        charge(len(s) >> 6)  # a step per 64 characters compared
        return s

    def keep(slot: list, before: int, value):
        # a comprehension's loop-invariant part, worked out once (compile_hoist.py): its value and steps
        slot[0], slot[1] = value, before - _B
        return value

    def keep_list(slot: list, before: int, value: list):
        slot[0], slot[1] = tuple(value), before - _B  # a copy: the caller may change its list
        return value

    def again_list(slot: list):
        nonlocal _B
        _B -= slot[1]
        if _B < 0:
            raise OutOfSteps
        return list(slot[0])

    def keep_read(slot: list, before: int, value: list, weight: int):
        nonlocal _B
        # a kept list for a reader that neither keeps nor changes it (`x in part`, a pass over
        # it): the same slot as keep_list's, and the reader pays for the length as _spend would
        slot[0], slot[1] = tuple(value), before - _B
        _B -= len(value) * weight
        if _B < 0:
            raise OutOfSteps
        return value

    def again_read(slot: list, weight: int):
        nonlocal _B
        # ... and reused with no copy: the steps of its work and of the reading, in one charge
        _B -= slot[1] + len(slot[0]) * weight
        if _B < 0:
            raise OutOfSteps
        return slot[0]

    def again(slot: list):
        nonlocal _B
        # ... and reused, charging its steps again: the budget runs as if it were worked out anew
        _B -= slot[1]
        if _B < 0:
            raise OutOfSteps
        return slot[0]

    cell = (lambda: _B).__closure__[0]  # the variable itself, which the helpers above share
    return {"_budget": BudgetView(cell), "_over": over, "_spend": spend, "_cat": cat, "_room": room, "_range": range_,
            "_sort_spend": sort_spend, "_sort_pairs": sort_pairs, "_deep": deep, "_chars": chars,
            "_keep": keep, "_again": again, "_keep_list": keep_list, "_again_list": again_list,
            "_keep_read": keep_read, "_again_read": again_read, "_index_of": index_of, "_charge": charge}


def measure(x) -> int:
    """The work of comparing a value with another: a step per item, and per 64 characters of text."""
    if type(x) is str:
        return 1 + (len(x) >> 6)
    if isinstance(x, (list, tuple)):
        return len(x) + sum(measure(i) for i in x if type(i) in (str, list, tuple))
    return 1
