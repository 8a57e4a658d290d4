"""What a designer reads of many games: summaries of one configuration, and comparisons of two
played on the same seeds, each figure with its 95% interval and each difference with a stated
test. Pure Python (math.erf, math.lgamma): the core needs no numerical library.

A Stat is {"mean", "sd", "lo", "hi", "n"} (lo..hi: the 95% interval of the mean, Student's t);
a Rate is {"value", "lo", "hi", "n"} (lo..hi: the Wilson 95% interval).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

from .simulate import Outcome

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval
ALPHA = 0.05  # a difference is `significant` when p < ALPHA
T_EXACT_DF = 1e5  # beyond, Student's t is the normal distribution to 5 decimals


# ---------------------------------------------------------------- distributions
def normal_p(z: float) -> float:
    """Two-sided p of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


def t_p(t: float, df: float) -> float:
    """Two-sided p of Student's t with df degrees of freedom (the regularized incomplete beta)."""
    if df >= T_EXACT_DF:
        return normal_p(t)
    return _ibeta(df / 2, 0.5, df / (df + t * t))


@lru_cache(maxsize=4096)
def t95(df: float) -> float:
    """The t with a two-sided p of 0.05 (12.706 for 1 degree of freedom, 1.960 for very many)."""
    if df >= T_EXACT_DF:
        return Z95
    lo, hi = Z95, 20.0
    while t_p(hi, df) > ALPHA:  # a fraction of a degree of freedom has very heavy tails
        hi *= 2
    for _ in range(100):  # bisection: p falls as t grows
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_p(mid, df) > ALPHA else (lo, mid)
    return (lo + hi) / 2


def _ibeta(a: float, b: float, x: float) -> float:
    """I_x(a, b), by its continued fraction (Numerical Recipes, betai)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        for aa in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                   -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + aa * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


# ---------------------------------------------------------------- figures
def stat(values: Sequence[float]) -> dict | None:
    """Mean, sample sd and the t interval of the mean; None for no values. With one value the
    interval is that value: one game says nothing of the spread."""
    n = len(values)
    if n == 0:
        return None
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in values) / (n - 1)) if n > 1 else 0.0
    half = t95(n - 1) * sd / math.sqrt(n) if n > 1 else 0.0
    return {"mean": mean, "sd": sd, "lo": mean - half, "hi": mean + half, "n": n}


def rate(k: int, n: int) -> dict:
    """k in n, with the Wilson interval: unlike rate +- z*sd it is not empty for a participant that
    never (or always) won, which would claim a certainty a few games cannot give."""
    if n == 0:
        return {"value": 0.0, "lo": 0.0, "hi": 1.0, "n": 0}
    p = k / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    lo, hi = (0.0 if k == 0 else centre - half), (1.0 if k == n else centre + half)  # exact at the ends
    return {"value": p, "lo": lo, "hi": hi, "n": n}


def summarize(outcomes: list[Outcome], *, game: str, variants, settings, seed: int, players: list[str],
              agents: list[str]) -> dict:
    """The Summary of one configuration (docs/variants.md §4 shows it): every participant the
    games rank or crown (players first, then the rules' own in name order), game length, margin,
    lead changes, and per-game event counts when they were counted."""
    n = len(outcomes)
    names = participants(outcomes, players)
    seats = dict(zip(players, agents))
    places = max((len(o.ranking) for o in outcomes), default=0)
    rows = [_participant(name, seats.get(name, "rules"), outcomes, places) for name in names]
    return {
        "game": game, "variants": list(variants), "settings": dict(settings), "games": n, "seed": seed,
        "length": {"turns": stat(_present(o.turns for o in outcomes)),
                   "decisions": stat([o.decisions for o in outcomes]),
                   "events": stat([o.told for o in outcomes])},
        "margin": stat(_present(o.margin for o in outcomes)),
        "lead_changes": stat(_present(o.lead_changes for o in outcomes)),
        "participants": rows,
        "events": _events(outcomes),
    }


def participants(outcomes: list[Outcome], players: list[str]) -> list[str]:
    others = {name for o in outcomes for name in o.winners + o.ranking if name not in players}
    return list(players) + sorted(others, key=_natural)


def _natural(name: str) -> list:
    """Names with numbers in numeric order: P2 before P10."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", name) if part]


def _participant(name: str, agent: str, outcomes: list[Outcome], places: int) -> dict:
    n = len(outcomes)
    sole = sum(1 for o in outcomes if o.winners == (name,))
    shared = sum(1 for o in outcomes if len(o.winners) > 1 and name in o.winners)
    placed = [0] * places
    for o in outcomes:
        if name in o.ranking:
            placed[o.ranking.index(name)] += 1
    scores = [score for o in outcomes for who, score in o.scores if who == name]
    return {"name": name, "agent": agent, "sole_wins": sole, "shared_wins": shared,
            "sole_win_rate": rate(sole, n), "shared_win_rate": rate(shared, n),
            "placings": [rate(k, n) for k in placed], "score": stat(scores)}


def _events(outcomes: list[Outcome]) -> dict:
    """Per-game counts of each declared event (when counted), most told first."""
    if not outcomes or not outcomes[0].events:
        return {}
    counts = {name: [] for name, _ in outcomes[0].events}
    for o in outcomes:
        for name, k in o.events:
            counts[name].append(k)
    stats = {name: stat(ks) for name, ks in counts.items()}
    return dict(sorted(stats.items(), key=lambda item: -item[1]["mean"]))  # stable: ties keep the rules' order


def _present(values) -> list:
    return [v for v in values if v is not None]


# ---------------------------------------------------------------- comparisons
TEST_RATES = "two-proportion z"
TEST_PAIRED = "paired t"
TEST_WELCH = "Welch t"


def compare_summaries(base: dict, other: dict, outcomes: tuple[list[Outcome], list[Outcome]] | None = None) -> dict:
    """The Comparison of two configurations: a row per figure, with the difference (other minus
    base), its 95% interval and the p of a stated test. Rates: the two-proportion z-test and
    Newcombe's interval from the two Wilson intervals. Means: with `outcomes` (the games of both,
    on the same seeds), the paired t-test on per-seed differences wherever every game has the
    figure on both sides (the seeds pair the games: the same deal, the same dice until the rules
    part); else Welch's t-test."""
    pairs = _pairs(outcomes)
    rows = []
    for metric, a, b, per_game in _metrics(base, other):
        if a is None and b is None:
            continue
        if "value" in (a or b):  # a Rate
            rows.append(_rate_row(metric, a or _no_rate(b), b or _no_rate(a)))
        elif a is not None and b is not None:  # a Stat both configurations have
            rows.append(_mean_row(metric, a, b, pairs and per_game(pairs)))
    told = pairs and [(dict(a.events), dict(b.events)) for a, b in pairs]  # once, not once per event
    events = [_mean_row(f"event: {e}", base["events"].get(e) or _nothing(base["games"]),
                        other["events"].get(e) or _nothing(other["games"]),
                        told and [(a.get(e, 0), b.get(e, 0)) for a, b in told])
              for e in _union(base["events"], other["events"])]
    events.sort(key=lambda row: -abs(row["difference"]))  # stable: equal changes keep the order of the base
    return {"base": base, "with": other, "rows": rows + events}


def _pairs(outcomes) -> list[tuple[Outcome, Outcome]] | None:
    if outcomes is None:
        return None
    a, b = outcomes
    if [o.seed for o in a] != [o.seed for o in b]:
        return None
    return list(zip(a, b))


def _metrics(base: dict, other: dict):
    """(metric, base figure, other figure, per-seed pairs of values) for each figure; a rate's pairs
    are not used (see compare_summaries)."""
    for key, label, field in (("turns", "turns", "turns"), ("decisions", "decisions", "decisions"),
                              ("events", "events told", "told")):
        yield label, base["length"][key], other["length"][key], _per_game(lambda o, f=field: getattr(o, f))
    yield "margin", base["margin"], other["margin"], _per_game(lambda o: o.margin)
    yield "lead changes", base["lead_changes"], other["lead_changes"], _per_game(lambda o: o.lead_changes)
    mine = {p["name"]: p for p in base["participants"]}
    theirs = {p["name"]: p for p in other["participants"]}
    for name in _union(mine, theirs):
        p, q = mine.get(name), theirs.get(name)
        yield f"{name}: sole win rate", _get(p, "sole_win_rate"), _get(q, "sole_win_rate"), _unpaired
        yield f"{name}: shared win rate", _get(p, "shared_win_rate"), _get(q, "shared_win_rate"), _unpaired
        places = max(len(_get(p, "placings") or []), len(_get(q, "placings") or []))
        for i in range(places):
            yield (f"{name}: {ordinal(i + 1)} place", _place(p, i, base["games"]), _place(q, i, other["games"]),
                   _unpaired)
        yield f"{name}: score", _get(p, "score"), _get(q, "score"), _per_game(lambda o, w=name: dict(o.scores).get(w))


def _per_game(value):
    """The per-seed pairs of one figure, when every game has it on both sides."""

    def pairs_of(pairs):
        got = [(value(a), value(b)) for a, b in pairs]
        return got if all(x is not None and y is not None for x, y in got) else None

    return pairs_of


def _unpaired(pairs) -> None:
    return None


def _get(row: dict | None, key: str):
    return row[key] if row is not None else None


def _place(row: dict | None, i: int, games: int) -> dict:
    placings = _get(row, "placings") or []
    return placings[i] if i < len(placings) else rate(0, games)


def _no_rate(like: dict) -> dict:
    """The rate of a participant one configuration does not have: it never wins."""
    return rate(0, like["n"])


def _nothing(games: int) -> dict:
    """An event one configuration does not have: told 0 times a game."""
    return {"mean": 0.0, "sd": 0.0, "lo": 0.0, "hi": 0.0, "n": games}


def _union(a, b) -> list:
    return list(a) + [k for k in b if k not in a]


def ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def _row(metric: str, a: float, b: float, lo: float, hi: float, p: float, test: str) -> dict:
    return {"metric": metric, "base": a, "with": b, "difference": b - a, "lo": lo, "hi": hi, "p": p,
            "significant": p < ALPHA, "test": test}


def _rate_row(metric: str, a: dict, b: dict) -> dict:
    p1, p2, n1, n2 = a["value"], b["value"], a["n"], b["n"]
    pooled = (p1 * n1 + p2 * n2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    p = normal_p((p2 - p1) / se) if se > 0 else 1.0  # se 0: both always, or both never
    d = p2 - p1
    lo = d - math.sqrt((p2 - b["lo"]) ** 2 + (a["hi"] - p1) ** 2)  # Newcombe's hybrid score interval
    hi = d + math.sqrt((b["hi"] - p2) ** 2 + (p1 - a["lo"]) ** 2)
    return _row(metric, p1, p2, lo, hi, p, TEST_RATES)


def _mean_row(metric: str, a: dict, b: dict, pairs) -> dict:
    if pairs:
        return _paired_row(metric, a, b, pairs)
    d = b["mean"] - a["mean"]
    va, vb = a["sd"] ** 2 / a["n"], b["sd"] ** 2 / b["n"]
    se = math.sqrt(va + vb)
    if se == 0:  # no spread on either side: the difference is what it is
        return _row(metric, a["mean"], b["mean"], d, d, 1.0 if d == 0 else 0.0, TEST_WELCH)
    parts = [v * v / (n - 1) for v, n in ((va, a["n"]), (vb, b["n"])) if n > 1 and v > 0]
    df = (va + vb) ** 2 / sum(parts)  # Welch-Satterthwaite
    half = t95(df) * se
    return _row(metric, a["mean"], b["mean"], d - half, d + half, t_p(d / se, df), TEST_WELCH)


def _paired_row(metric: str, a: dict, b: dict, pairs: list[tuple[float, float]]) -> dict:
    diffs = [y - x for x, y in pairs]
    s = stat(diffs)
    d, n = s["mean"], s["n"]
    if s["sd"] == 0 or n < 2:
        return _row(metric, a["mean"], b["mean"], d, d, 1.0 if d == 0 else 0.0, TEST_PAIRED)
    se = s["sd"] / math.sqrt(n)
    return _row(metric, a["mean"], b["mean"], s["lo"], s["hi"], t_p(d / se, n - 1), TEST_PAIRED)
