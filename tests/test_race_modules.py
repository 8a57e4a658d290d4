"""Race! Formula 90's Advanced modules in combination: every property of test_race_formula_90.py
(cards of both decks conserved, resources within the charts, one turn per car per game turn, a
winner who leads, ...) checked after every event of races with modules on and off.

The default run takes a fixed sample of combinations: the whole Advanced game (the `advanced`
bundle), the Advanced game without each one of its modules, and the optional rules on top of it.
`pytest -m slow` runs every subset of the Advanced modules, and thousands of Advanced races
checked where they end."""

from __future__ import annotations

import itertools

import pytest
from pitwall.interpreter import ast
from pitwall.interpreter.engine import new_game, player_names
from pitwall.interpreter.load import find_game
from pitwall.interpreter.parse import parse_file
from race_checks import TRACKS, assert_ends_in_order, loaded_for, mixed, run_checked

GAME = "race_formula_90"
VARIANTS = find_game(GAME).variant_files()


def modules_of(bundle: str) -> tuple[str, ...]:
    """The variants a bundle includes, read from its file (so a module added to it is tested too)."""
    decl = next(i for i in parse_file(VARIANTS[bundle]).items if isinstance(i, ast.VariantDecl))
    return tuple(r.name for r in decl.includes)


ADVANCED = modules_of("advanced")
OPTIONAL = tuple(v for v in ("players_rescue", "short_race", "junior", "free_overtake_first") if v in VARIANTS)


def races(variants: tuple[str, ...], seed: int, n: int = 2):
    """`n` races of the combination, over both tracks and player counts, random and heuristic."""
    for i in range(n):
        track, players = TRACKS[(seed + i) % 2], 2 + (seed + i) % 5
        agents = ("random", "heuristic", mixed(players, seed))[(seed + i) % 3]
        yield run_checked(track, players, seed + i, agents, variants)


def assert_kept(variants: tuple[str, ...], seed: int, n: int = 2) -> None:
    for _, _, winners, checker in races(variants, seed, n):
        assert winners is not None and not checker.broken, (variants, checker.broken)


def test_the_advanced_bundle_is_its_modules():
    assert len(ADVANCED) >= 6 and all(m in VARIANTS for m in ADVANCED)
    assert not set(ADVANCED) & set(OPTIONAL)


SAMPLE = [("advanced",)] + [tuple(m for m in ADVANCED if m != left) for left in ADVANCED] \
    + [("advanced", extra) for extra in OPTIONAL]


@pytest.mark.parametrize("variants", SAMPLE, ids="-".join)
def test_a_sample_of_module_sets_keeps_every_property(variants):
    assert_kept(variants, seed=len(variants) * 7)


@pytest.mark.slow
@pytest.mark.parametrize("subset", range(2 ** len(ADVANCED)))
def test_every_set_of_advanced_modules_keeps_every_property(subset):
    variants = tuple(m for i, m in enumerate(ADVANCED) if subset >> i & 1)
    assert_kept(variants, seed=subset, n=1)


def end_checked(variants: tuple[str, ...], seed: int) -> None:
    """One race with no listener, checked where it ends."""
    track, players = TRACKS[seed % 2], 2 + seed % 5
    loaded = loaded_for(track, variants)
    agents = ["heuristic" if seed % 4 == 0 else "random"] * players
    game, _ = new_game(loaded, player_names(loaded, players), agents, seed, record=False)
    assert_ends_in_order(game, game.run(), f"{variants}, {track}, {players} players, seed {seed}")


def test_a_hundred_advanced_races_end_in_order():
    for seed in range(100):
        end_checked(("advanced",), seed)


@pytest.mark.slow
@pytest.mark.parametrize("extra", [()] + [(v,) for v in OPTIONAL])
def test_three_thousand_advanced_races_end_in_order(extra):
    for seed in itertools.islice(itertools.count(1000), 3000):
        end_checked(("advanced",) + extra, seed)
