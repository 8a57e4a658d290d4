"""The fast paths play every game exactly as the plain ones: the same records, line for line, and
the same steps spent, of the game's budget and of the side budget.

Fast: functions remembered by their arguments or per state of the game (compile_memo.py),
loop-invariant parts of comprehensions kept (compile_hoist.py), and, in a game nobody records,
random and heuristic seats picking in generated code without asking their agents
(compile_choose.py). Plain: code compiled with compiled.REMEMBER off, and every decision through
Game.choose's general path (runtime.QUICK_SEATS off). Seats mix heuristic, random and first-legal
agents, so every kind of decision meets both kinds of code.
"""

from __future__ import annotations

import pytest
from leaks import garbage_of_ours
from pitwall.interpreter import compiled as compile_module
from pitwall.interpreter import runtime
from pitwall.interpreter.engine import new_game, player_names
from pitwall.interpreter.load import build, find_game
from pitwall.interpreter.runtime import describe

GAMES = [  # game, players, settings, seeds
    ("why_first", 4, (), 300),
    ("street_illegal", 3, (), 300),
    ("race_formula_90", 4, (("track", "monza"),), 60),
]


def _loaded(game: str, settings, remember: bool, monkeypatch):
    monkeypatch.setattr(compile_module, "REMEMBER", remember)
    g = find_game(game)
    return build(g.base_files(), [], g, settings=settings)


def _play(loaded, players: int, seed: int, plain: bool):
    names = player_names(loaded, players)
    agents = ["heuristic" if (seat + seed) % 2 else "random" for seat in range(players)]
    game, _ = new_game(loaded, names, agents, seed)
    if plain:
        for agent in game.agents:
            agent.quick = None  # the random agent asked as any agent is
    result = game.run()
    # events hold the game's own participants and cards: compared by their words
    log = [e[:2] + (describe(list(e[2])),) + e[3:] if e[0] == "e" else e for e in game.log]
    return log, [p.name for p in result], game.budget[0], game.side[0]


@pytest.mark.parametrize(("game", "players", "settings", "seeds"), GAMES, ids=[g[0] for g in GAMES])
def test_fast_and_plain_paths_play_alike(game, players, settings, seeds, monkeypatch):
    fast = _loaded(game, settings, True, monkeypatch)
    plain = _loaded(game, settings, False, monkeypatch)
    assert "_hit = " in fast.compiled.source and "_hit = " not in plain.compiled.source
    for seed in range(seeds):
        assert _play(fast, players, seed, False) == _play(plain, players, seed, True), f"seed {seed}"


def _unrecorded(loaded, players: int, seed: int):
    """A game as `simulate` plays it (no record): seats of heuristic, random and first agents."""
    names = player_names(loaded, players)
    agents = [("heuristic", "random", "first")[(seat + seed) % 3] for seat in range(players)]
    game, _ = new_game(loaded, names, agents, seed, record=False)
    winners = [p.name for p in game.run()]
    ties = [a._rnd() if getattr(a, "_rnd", None) else None for a in [*game.agents, game.auto_agent]]
    return winners, game.budget[0], game.side[0], game.rng.random(), ties


@pytest.mark.parametrize(("game", "players", "settings", "seeds"), GAMES, ids=[g[0] for g in GAMES])
def test_seats_of_an_unrecorded_game_pick_in_generated_code_as_the_general_path_does(game, players, settings,
                                                                                     seeds, monkeypatch):
    """Random and heuristic seats picking in generated code (no record) against Game.choose's
    general path: the same winners, steps of both budgets, state of the game's own generator and
    of each heuristic agent's tie generator after the game."""
    loaded = _loaded(game, settings, True, monkeypatch)
    seeds //= 2
    quick = [_unrecorded(loaded, players, seed) for seed in range(seeds)]
    monkeypatch.setattr(runtime, "QUICK_SEATS", False)
    assert quick == [_unrecorded(loaded, players, seed) for seed in range(seeds)]


@pytest.mark.parametrize(("game", "players", "settings", "seeds"), GAMES, ids=[g[0] for g in GAMES])
def test_simulate_counts_decisions_events_and_lead_changes_alike_on_both_paths(game, players, settings, seeds,
                                                                              monkeypatch):
    """simulate's game counts each decision (the ones picked in generated code too), tallies the
    events and watches the leader exactly as it does when every decision takes the general path."""
    from pitwall.interpreter.simulate import play_many

    loaded = _loaded(game, settings, True, monkeypatch)
    names = player_names(loaded, players)
    for agents in (["random"] * players, ["heuristic"] * players, ["heuristic", "random"] * (players // 2)
                   + ["first"] * (players % 2)):
        quick = play_many(game, (), names, agents, range(seeds // 6), settings=settings, count_events=True)
        monkeypatch.setattr(runtime, "QUICK_SEATS", False)
        plain = play_many(game, (), names, agents, range(seeds // 6), settings=settings, count_events=True)
        monkeypatch.setattr(runtime, "QUICK_SEATS", True)
        assert quick == plain, agents
        assert all(o.decisions > 0 and o.told > 0 for o in quick)


@pytest.mark.parametrize(("game", "players", "settings", "seeds"), GAMES, ids=[g[0] for g in GAMES])
def test_simulate_never_asks_for_the_states_dict(game, players, settings, seeds, monkeypatch):
    """`state.__dict__` makes CPython build the dict of an object that keeps its attributes
    inline, and every later read of a global in generated code takes a slower path: simulate's
    games ran 15% more instructions a Race! than play's, for reading the turn that way."""
    from pitwall.interpreter.load import load
    from pitwall.interpreter.runtime import state_class
    from pitwall.interpreter.simulate import play_many

    loaded = load(game, (), settings)

    def asked(self):
        raise AssertionError("the state's __dict__ was asked for")

    spy = type("State", (state_class(loaded),), {"__dict__": property(asked)})
    monkeypatch.setitem(loaded.namespace, "_State", spy)
    names = player_names(loaded, players)
    done = play_many(game, (), names, ["random"] * players, range(2), settings=settings, count_events=True)
    assert [o.seed for o in done] == [0, 1] and all(o.decisions > 0 for o in done)


@pytest.mark.parametrize(("game", "players", "settings", "seeds"), GAMES, ids=[g[0] for g in GAMES])
def test_a_closed_game_leaves_nothing_for_the_cycle_collector(game, players, settings, seeds):
    # simulate closes each game after its outcome: its objects are freed at once, as it ends
    from pitwall.interpreter.simulate import play_many

    g = find_game(game)
    loaded = build(g.base_files(), [], g, settings=settings)
    names = player_names(loaded, players)
    play_many(game, (), names, ["heuristic"] * players, range(1), settings=settings)  # loaded, compiled
    agents = ["random" if seat % 2 else "heuristic" for seat in range(players)]
    outcomes = []

    def play():
        for seed in range(3):
            played, _ = new_game(loaded, names, agents, seed, record=False)
            played.run()
            played.close()

    def simulate():
        outcomes.extend(play_many(game, (), names, ["heuristic"] * players, range(2), settings=settings))

    assert garbage_of_ours(play) == [] and garbage_of_ours(simulate) == []
    assert len(outcomes) == 2


def test_a_set_taken_from_the_pool_skips_the_memo_tables_judged_not_worth_keeping(monkeypatch):
    """A memo table that did not pay for itself in the games before is skipped by the next game,
    even one whose set of functions was made while the table was on (sets serve game after game)."""
    loaded = _loaded("why_first", (), True, monkeypatch)
    ns, names = loaded.namespace, player_names(loaded, 4)
    tables = [s[3:] for s in ns if s.startswith("_M_") and f"_pure_{s[3:]}" in loaded.compiled.source]
    assert tables

    def wired(game) -> dict:  # each remembered function as the rules' code calls it now
        bind = game._code.bind
        cells = dict(zip(bind.__code__.co_freevars, bind.__closure__))
        return {t: cells[f"f_{t}"].cell_contents.__name__ for t in tables}

    first, _ = new_game(loaded, names, ["heuristic"] * 4, 0, record=False)
    made = first._code
    assert set(wired(first).values()) == {*(f"f_{t}" for t in tables)}  # every table on at first
    first.run()
    first.close()
    seed = 1
    while all(ns[f"_M_{t}"][2] for t in tables):
        assert seed < 300, "no table was ever judged not worth keeping"
        game, _ = new_game(loaded, names, ["heuristic"] * 4, seed, record=False)
        game.run()
        game.close()
        seed += 1
    game, _ = new_game(loaded, names, ["heuristic"] * 4, seed, record=False)
    assert game._code is made  # the pool's one set, made while every table was on
    assert wired(game) == {t: f"f_{t}" if ns[f"_M_{t}"][2] else f"_pure_{t}" for t in tables}
