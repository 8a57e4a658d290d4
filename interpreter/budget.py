"""The step budget and size limits as generated code meets them: the helpers that spend from a
budget (metered), and the exceptions that end a game when a budget or a limit is passed."""

from __future__ import annotations

from operator import itemgetter

from .limits import DECK_MAX, LIST_MAX, TEXT_MAX


class LimitExceeded(Exception):
    """A value outgrew a limit of limits.py; reported at the rules line that made it."""


class OutOfSteps(Exception):
    """The step budget ran out; reported at the rules line that spent the last step."""


_KEY = itemgetter(0)


def metered(budget: list) -> dict:
    """The helpers of generated code that spend from one step budget: a game's, or the load's."""

    def over():
        raise OutOfSteps

    def spend(xs, weight=1):
        # work in proportion to a collection (a loop over it, a scan, a copy) costs its length,
        # times the nodes worked out for each item
        budget[0] -= len(xs) * weight
        if budget[0] < 0:
            raise OutOfSteps
        return xs

    def cat(a, b):
        # text + text and list + list: bounded in size, and paid for like a copy
        n = len(a) + len(b)
        limit = TEXT_MAX if type(a) is str else LIST_MAX
        if n > limit:
            raise LimitExceeded(f"joining gives {n} {'characters' if type(a) is str else 'items'}; "
                                f"at most {limit} are allowed")
        budget[0] -= n
        if budget[0] < 0:
            raise OutOfSteps
        return a + b

    def range_(lo: int, hi: int) -> list:
        # a range is a list: bounded like every list, and paid for number by number
        if hi - lo >= LIST_MAX:
            raise LimitExceeded(f"range({lo}, {hi}) holds {hi - lo + 1} numbers; at most {LIST_MAX} are allowed")
        if hi >= lo:  # each number a new object kept in memory: dearer than a step
            budget[0] -= (hi - lo + 1) * 20
            if budget[0] < 0:
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
        # _sort_by after sort_spend, for (key, element) pairs whose measure the compiler knows:
        # `per` for each
        n = len(xs)
        bits = n.bit_length()
        budget[0] -= n * (2 + bits + per * bits)  # the pairs' walk and the comparisons, at once
        if budget[0] < 0:
            raise OutOfSteps
        xs.sort(key=_KEY, reverse=desc)  # stable, also reversed: equal keys keep their order
        return [v for _, v in xs]

    def index_of(xs, x):
        # _spend(xs).index(x) in one call: a scan of the whole list, wherever x is
        budget[0] -= len(xs)
        if budget[0] < 0:
            raise OutOfSteps
        return xs.index(x)

    def charge(steps: int):
        budget[0] -= steps
        if budget[0] < 0:
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
        slot[0], slot[1] = value, before - budget[0]
        return value

    def keep_list(slot: list, before: int, value: list):
        slot[0], slot[1] = tuple(value), before - budget[0]  # a copy: the caller may change its list
        return value

    def again_list(slot: list):
        budget[0] -= slot[1]
        if budget[0] < 0:
            raise OutOfSteps
        return list(slot[0])

    def keep_read(slot: list, before: int, value: list, weight: int):
        # a kept list for a reader that neither keeps nor changes it (`x in part`, a pass over
        # it): the same slot as keep_list's, and the reader pays for the length as _spend would
        slot[0], slot[1] = tuple(value), before - budget[0]
        budget[0] -= len(value) * weight
        if budget[0] < 0:
            raise OutOfSteps
        return value

    def again_read(slot: list, weight: int):
        # ... and reused with no copy: the steps of its work and of the reading, in one charge
        budget[0] -= slot[1] + len(slot[0]) * weight
        if budget[0] < 0:
            raise OutOfSteps
        return slot[0]

    def again(slot: list):
        # ... and reused, charging its steps again: the budget runs as if it were worked out anew
        budget[0] -= slot[1]
        if budget[0] < 0:
            raise OutOfSteps
        return slot[0]

    return {"_budget": budget, "_over": over, "_spend": spend, "_cat": cat, "_room": room, "_range": range_,
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
