"""With every seat played by the same heuristic, no seat may win more or less often than the
others beyond chance: a difference a designer sees between seats must come from the rules, never
from how the agent breaks ties (the first option is usually the first player).

Each configuration plays a few thousand games on fixed seeds (deterministic, serial and parallel
alike) and checks every seat's win rate against the mean of the seats with a 95% Wilson interval,
Bonferroni-corrected for the number of seats so that testing several seats at once still errs
less than one time in twenty when the game is fair.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest
from pitwall.interpreter.engine import player_names
from pitwall.interpreter.load import load
from pitwall.interpreter.simulate import simulate

SEED = 1_000  # fixed: the test gives the same figures on every run
ALPHA = 0.05


def wilson(wins: int, n: int, z: float) -> tuple[float, float]:
    """The Wilson score interval of a rate of wins out of n, at a normal quantile z."""
    rate = wins / n
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def seat_rates(game: str, variants: tuple[str, ...], players: int, games: int) -> tuple[list[str], list[int]]:
    """Each player's games won (a shared win counts for each who shares it), every seat heuristic."""
    names = player_names(load(game, variants), players)
    outcomes = simulate(game, variants, names, ["heuristic"] * players, games, SEED, jobs=2)
    return names, [sum(1 for o in outcomes if name in o.winners) for name in names]


def unfair_seats(names: list[str], wins: list[int], n: int) -> list[str]:
    """The seats whose Bonferroni-corrected 95% interval misses the mean win rate of the seats."""
    z = NormalDist().inv_cdf(1 - ALPHA / (2 * len(names)))
    mean = sum(wins) / len(wins) / n
    out = []
    for name, w in zip(names, wins):
        lo, hi = wilson(w, n, z)
        if not lo <= mean <= hi:
            out.append(f"{name} wins {w / n:.1%} (interval {lo:.1%} to {hi:.1%}), the seats' mean is {mean:.1%}")
    return out


FAIR = [
    ("why_first", (), 3, 2500),
    ("why_first", (), 4, 2000),
    # positions bid for, not given by the seat: Street Illegal's fair start
    ("street_illegal", ("tactical_starting_positions",), 3, 2500),
    # the base game seats the first-listed (youngest) player last, the next one ahead of him, and
    # so on: a real seat effect of the rules (Alex about 19%, Bob 22%, Chris 32% with 3 players),
    # which this test must see. Should the rules change, this says so.
    pytest.param("street_illegal", (), 3, 2500,
                 marks=pytest.mark.xfail(strict=True, reason="the rules give the starting order by seat")),
]


@pytest.mark.parametrize(("game", "variants", "players", "games"), FAIR,
                         ids=["why_first-p3", "why_first-p4", "street_illegal+tactical-p3", "street_illegal-p3"])
def test_identical_heuristic_seats_win_alike(game, variants, players, games):
    names, wins = seat_rates(game, variants, players, games)
    bad = unfair_seats(names, wins, games)
    assert not bad, f"{game} with {players} heuristic seats, {games} games: " + "; ".join(bad)


def test_the_check_sees_a_seat_that_wins_too_little():
    # the figures of Why First? with 4 heuristic seats when ties went to the first option
    assert unfair_seats(["Anne", "Ben", "Chris", "Dana"], [1018, 1265, 1293, 1339], 4000)[0].startswith("Anne")
    assert not unfair_seats(["Anne", "Ben", "Chris", "Dana"], [1207, 1223, 1181, 1209], 4000)
