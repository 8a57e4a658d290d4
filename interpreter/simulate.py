"""Many games at once: game i plays seed + i, so any one of them can be replayed alone with
`pitwall play --seed S+i`, and serial and parallel runs give identical results."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from itertools import starmap
from operator import attrgetter

import attrs

from .engine import seat_agents
from .errors import PitwallError
from .load import load
from .runtime import GLOBAL_PREFIX, Game, field_of


@attrs.frozen
class Outcome:
    """What one simulated game tells the statistics (stats.py)."""

    seed: int
    winners: tuple[str, ...]
    scores: tuple[tuple[str, int], ...]  # (participant, score), players and automatic ones alike
    events: tuple[tuple[str, int], ...] = ()  # with count_events: every declared event and how often it was told
    decisions: int = 0  # decisions made (forced ones too: a record's decision lines)
    told: int = 0  # events told, all of them (a record's event lines)
    turns: int | None = None  # the game's `turns` at the end; None where the game declares none
    ranking: tuple[str, ...] = ()  # finishing order, best first (see finishing_order)
    margin: int | None = None  # the best winner's score minus the best other's; None without scores to compare
    lead_changes: int | None = None  # how often the `leader` changed hands; None where the game declares none


def play_many(game: str, variants: tuple[str, ...], players: list[str], agents: list[str], seeds: range,
              progress: Callable[[int], None] | None = None,
              settings: tuple[tuple[str, str], ...] = (), count_events: bool = False) -> list[Outcome]:
    loaded = load(game, variants, settings)
    out = []
    for seed in seeds:
        made, auto = seat_agents(agents, seed)
        g = Tallied(loaded, players, made, seed, auto)
        try:
            out.append(g.outcome(g.run(), count_events))
            g.close()
        except PitwallError as e:  # say which game failed, so it can be played again alone
            again = f"it happened in the game of seed {seed}; this plays it again:\n  " + reproduce(
                game, variants, players, agents, seed, settings)
            e.hint = f"{e.hint}\n{again}" if e.hint else again
            raise
        if progress:
            progress(1)
    return out


_NO_TURN = object()


def _unheard(entry) -> None:
    """The listener that makes a Tallied game tell its events: never called, as tell only counts."""


class Tallied(Game):
    """A game that counts its decisions and events and watches the leader, for the statistics.
    No event's values are worked out (nobody reads them), so it plays as fast as a game nobody
    listens to, and exactly as it: the counting touches neither the generator nor the budget.

    The leader is asked each time the game's `turns` value changes, and at the end (at every
    decision where the game declares no turns): asking at every decision made a fast game
    several times slower, and a lead held for a moment within a turn is no lead change to a reader."""

    def __init__(self, loaded, players: list[str], agents: list, seed: int, auto_agent):
        decl = loaded.program.game
        self.tally = [0] * len(loaded.compiled.events)  # generated code counts each event here
        self.watching = decl.leader is not None
        self.turn_key = GLOBAL_PREFIX + decl.turns if decl.turns else None
        self.leading = None
        self.lead_changes = 0
        self.counters = None  # counting()'s pair: what a decision calls (given a seat's generator), the count
        super().__init__(loaded, players, agents, seed, record=False, listener=_unheard, auto_agent=auto_agent)

    @property
    def decisions(self) -> int:
        return self.counters[1]() if self.counters else self.decisions_made

    decisions_made = 0  # the decisions of a closed game

    def close(self) -> None:
        self.decisions_made = self.decisions
        self.counters = None  # its functions know the game: a cycle the collector would have to find
        super().close()

    def tell(self, event: int, values) -> None:
        self.tally[event] += 1

    def choose(self, by, name: str, options, prompt, prefer, sid: int, secret: bool = False):
        self.decided()
        return Game.choose(self, by, name, options, prompt, prefer, sid, secret)

    def watcher(self, quick=None):
        """What a decision calls: it counts, and asks the leader when the turn changed; a random
        seat's pick then takes its number from `quick` (NoneType() is None: the other decisions')."""
        if self.counters is None:
            self.counters = self.counting()
        return self.counters[0](quick or type(None))

    def counting(self):
        """The functions a decision calls, one a seat, sharing the count and the turn last seen;
        each written for what the game declares, so that a decision runs as few steps of Python
        as it can (hundreds a game: the largest part of simulate's cost over play's)."""
        n, last = 0, _NO_TURN  # the first decision asks
        ask = self.see_leader if self.watching else None
        # the state's globals by getattr, never through its __dict__: asking for an object's
        # __dict__ makes CPython build one, and every read of a global by generated code then
        # takes a slower path (a long game ran 15% more instructions under simulate than under play)
        state, key = self.state, self.turn_key

        def counts(quick):
            def decided():
                nonlocal n
                n += 1
                return quick()
            return decided

        def asks(quick):  # no turns declared: each decision is one
            def decided():
                nonlocal n
                n += 1
                ask()
                return quick()
            return decided

        def watches(quick):
            def decided():
                nonlocal n, last
                n += 1
                turn = getattr(state, key, n)
                if turn != last:
                    last = turn
                    ask()
                return quick()
            return decided

        return (counts if ask is None else watches if key else asks), lambda: n

    def see_leader(self) -> None:
        now = self.asking("leader", self.leader)
        if now is None:  # nobody leads yet (before the start)
            return
        if self.leading is not None and now is not self.leading:
            self.lead_changes += 1
        self.leading = now

    def outcome(self, winners: list, count_events: bool) -> Outcome:
        if self.watching:
            self.see_leader()
        score = self.loaded.program.game.score
        scored = {p.name: field_of(p, score) for p in self.by_name.values() if score in p._fields} if score else {}
        names = tuple(w.name for w in winners)
        ranked = self.asking("rank", self.ranking)
        ranking = tuple(p.name for p in ranked) if ranked is not None else self.fallback_ranking(names, scored)
        events = tuple(zip(self.loaded.compiled.events, self.tally)) if count_events else ()
        return Outcome(self.seed, names, tuple(scored.items()), events, self.decisions, sum(self.tally),
                       self.turns(), ranking, margin(names, ranking, scored),
                       self.lead_changes if self.watching else None)

    def asking(self, what: str, ask):
        """What the game declares for the statistics, asked: a failure there is the rules', but
        `pitwall play` never asks it, so the error says who did."""
        try:
            return ask()
        except PitwallError as e:
            note = f"the statistics asked the game's `{what}` function (game {{ {what} ... }}) when it failed"
            e.hint = f"{e.hint}\n{note}" if e.hint else note
            raise

    def fallback_ranking(self, winners: tuple[str, ...], scored: dict[str, int]) -> tuple[str, ...]:
        """Where the game declares no `rank`: the winners, then the other players and scored
        participants by score, best first, then by seat (the order they entered the game)."""
        order = list(self.by_name)
        rest = [n for n in order if n not in winners and (n in scored or self.by_name[n].is_player)]
        rest.sort(key=lambda n: -scored.get(n, 0))  # stable: equal scores keep the seat order
        return winners + tuple(rest)


def margin(winners: tuple[str, ...], ranking: tuple[str, ...], scored: dict[str, int]) -> int | None:
    """The best-ranked winner's score minus the best-ranked other's: negative where the rules let
    a lower score win. None where either has no score."""
    won = next((n for n in ranking if n in winners and n in scored), None)
    if won is None:
        won = next((n for n in winners if n in scored), None)
    other = next((n for n in ranking if n not in winners and n in scored), None)
    if won is None or other is None:
        return None
    return scored[won] - scored[other]


def reproduce(game: str, variants, players: list[str], agents: list[str], seed: int, settings=()) -> str:
    """The whole command that plays one game of a simulation again: variants, players, agents,
    settings and seed, so that nothing is left to guess."""
    # a shipped game by its command-line name; a game of one's own by its path, as given
    named = "/" not in game and "\\" not in game and not game.endswith(".pw")
    words = ["pitwall", "play", _quote(game.replace("_", "-") if named else game), "--players", str(len(players))]
    words += ["--names", _quote(",".join(players))]
    for v in variants:
        words += ["-v", _quote(v)]
    if len(set(agents)) == 1:
        words += ["--agent", agents[0]]
    else:
        for seat, a in enumerate(agents, 1):
            words += ["--agent", f"{seat}={a}"]
    for name, value in settings:
        words += ["--set", _quote(f"{name}={value}")]
    return " ".join(words + ["--seed", str(seed)])


def _quote(word: str) -> str:
    import shlex

    return shlex.quote(word)


def _chunk(args):
    *head, settings, count_events = args
    return play_many(*head, None, settings, count_events)


_PACK = attrgetter(*(a.name for a in attrs.fields(Outcome)))  # an Outcome's fields, as a tuple


def _packed(args) -> list[tuple]:
    """_chunk for a local pool, its outcomes as plain tuples (Outcome(*t) again): they pickle in a
    quarter of the time of attrs' objects, and load and are made again in half, and the parent of
    a parallel run loads every outcome while its workers play."""
    return list(map(_PACK, _chunk(args)))


def chunks(seed: int, games: int, jobs: int) -> list[range]:
    """Seeds in runs of at most 200, about 24 per worker: a run costs a few milliseconds to send
    and gather, and with many short runs no worker is left with a long one at the end while the
    others wait (four runs each lost about a tenth of two workers' time). Towards the end the runs
    shrink, each half of a worker's share of what is left, down to an eighth of the full size: with
    runs all of 200 games of a short card game, one worker of two played on alone for 20 to 170 ms
    at the end; with runs that shrink, for 1 ms at most."""
    size = max(1, min(200, games // (jobs * 24) or 1))
    least = max(1, size // 8)
    out, start, end = [], seed, seed + games
    while start < end:
        n = min(size, max(least, (end - start) // (jobs * 2)), end - start)
        out.append(range(start, start + n))
        start += n
    return out


def simulate(game: str, variants: tuple[str, ...], players: list[str], agents: list[str], games: int, seed: int,
             jobs: int = 1, progress: Callable[[int], None] | None = None,
             settings: tuple[tuple[str, str], ...] = (), count_events: bool = False,
             cluster: str | None = None) -> list[Outcome]:
    work = lambda seeds: (game, variants, players, agents, seeds, settings, count_events)  # what _chunk takes
    if cluster:  # a Dask scheduler's address: its workers play the chunks instead of local processes
        from .cluster import run_on_cluster

        return run_on_cluster(cluster, _chunk, work, seed, games, (game, variants, settings), progress)
    if jobs <= 1:
        return play_many(game, variants, players, agents, range(seed, seed + games), progress, settings, count_events)
    jobs = min(jobs, os.cpu_count() or 1, games) or 1
    out: list[Outcome] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for part in pool.map(_packed, [work(c) for c in chunks(seed, games, jobs)]):
            out.extend(starmap(Outcome, part))
            if progress:
                progress(len(part))
    return out
