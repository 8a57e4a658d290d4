"""Games per second: the one timing loop every benchmark here uses."""

from __future__ import annotations

import time
from collections.abc import Callable


def throughput(play_one: Callable[[int], object], seconds: float = 1.0) -> float:
    """Play games with consecutive seeds 0, 1, ... for about `seconds` of this thread's CPU time;
    return games per CPU second. CPU time, not the wall clock's: on a shared machine the time a
    neighbour holds the core is not the game's (what a neighbour does to the caches still is)."""
    games, start = 0, time.thread_time()
    while time.thread_time() - start < seconds:
        play_one(games)
        games += 1
    return games / (time.thread_time() - start)


def interpreted(game: str, players: int, agent: str, settings=()) -> Callable[[int], object]:
    """One seeded game of the interpreter, played the way `pitwall simulate` does (no record)."""
    from pitwall.interpreter.engine import new_game, player_names
    from pitwall.interpreter.load import load

    loaded = load(game, (), settings)
    names = player_names(loaded, players)

    def play_one(seed: int):
        g, _ = new_game(loaded, names, [agent] * players, seed, record=False)
        winners = g.run()
        if hasattr(g, "close"):  # as simulate does: the game's objects freed at once (older code: no close)
            g.close()
        return winners

    return play_one
