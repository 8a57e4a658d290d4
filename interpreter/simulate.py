"""Many games at once: game i plays seed + i, so any one of them can be replayed alone with
`pitwall play --seed S+i`, and serial and parallel runs give identical results."""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import attrs

from .engine import new_game
from .errors import PitwallError
from .load import load
from .runtime import field_of


@attrs.frozen
class Outcome:
    seed: int
    winners: tuple[str, ...]
    scores: tuple[tuple[str, int], ...]  # (participant, score), players and automatic ones alike
    events: tuple[tuple[str, int], ...] = ()  # (event, how often it was told), when counted


def play_many(game: str, variants: tuple[str, ...], players: list[str], agents: list[str], seeds: range,
              progress: Callable[[int], None] | None = None,
              settings: tuple[tuple[str, str], ...] = (), count_events: bool = False) -> list[Outcome]:
    loaded = load(game, variants, settings)
    score = loaded.program.game.score
    names = loaded.compiled.events
    out = []
    for seed in seeds:
        counts: Counter[int] = Counter()
        # Events are worked out only when someone listens: counting them costs time, so only on request.
        listener = (lambda entry, c=counts: entry[0] == "e" and c.update((entry[1],))) if count_events else None
        g, _ = new_game(loaded, players, agents, seed, record=False, listener=listener)
        try:
            winners = g.run()
        except PitwallError as e:  # say which game failed, so it can be played again alone
            again = f"it happened in the game of seed {seed}; this plays it again:\n  " + reproduce(
                game, variants, players, agents, seed, settings)
            e.hint = f"{e.hint}\n{again}" if e.hint else again
            raise
        scores = tuple((p.name, field_of(p, score)) for p in g.by_name.values() if score in p._fields) if score else ()
        events = tuple((names[i], k) for i, k in sorted(counts.items()))
        out.append(Outcome(seed, tuple(w.name for w in winners), scores, events))
        if progress:
            progress(1)
    return out


def reproduce(game: str, variants, players: list[str], agents: list[str], seed: int, settings=()) -> str:
    """The whole command that plays one game of a simulation again: variants, players, agents,
    settings and seed, so that nothing is left to guess."""
    words = ["pitwall", "play", _quote(game.replace("_", "-")), "--players", str(len(players))]
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


def simulate(game: str, variants: tuple[str, ...], players: list[str], agents: list[str], games: int, seed: int,
             jobs: int = 1, progress: Callable[[int], None] | None = None,
             settings: tuple[tuple[str, str], ...] = (), count_events: bool = False) -> list[Outcome]:
    if jobs <= 1:
        return play_many(game, variants, players, agents, range(seed, seed + games), progress, settings, count_events)
    jobs = min(jobs, os.cpu_count() or 1, games) or 1
    size = max(1, min(500, games // (jobs * 4) or 1))
    chunks = [range(s, min(s + size, seed + games)) for s in range(seed, seed + games, size)]
    out: list[Outcome] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for part in pool.map(_chunk, [(game, variants, players, agents, c, settings, count_events) for c in chunks]):
            out.extend(part)
            if progress:
                progress(len(part))
    return out


Z95 = 1.96  # a normal 95% interval: how far a figure may move on other seeds


def _wilson_half_width(rate: float, n: int) -> float:
    """Half the width of the Wilson 95% interval of a rate: unlike rate +- Z*sd it is not 0 for a
    participant that never (or always) won, which would claim a certainty a few games cannot give."""
    if n == 0:
        return 0.0
    return Z95 / (1 + Z95 * Z95 / n) * math.sqrt(rate * (1 - rate) / n + Z95 * Z95 / (4 * n * n))


def summarize(outcomes: list[Outcome], players: list[str], events: tuple[str, ...] = ()) -> dict:
    """Per participant (players, then automatic ones that won): wins, shared wins, win rate and
    mean score, each with the half-width of its 95% confidence interval, so a designer can tell a
    real difference between variants from the noise of a few hundred games. With `events` (the
    declared events, when they were counted), every one of them is listed, 0 if never told: an
    event that never happens points at a rule that never fires."""
    n = len(outcomes)
    all_names = list(players)
    for o in outcomes:
        all_names += [w for w in o.winners if w not in all_names]
    scores: dict[str, list[int]] = {}
    for o in outcomes:
        for name, score in o.scores:
            scores.setdefault(name, []).append(score)
    rows = []
    for name in all_names:
        wins = sum(1 for o in outcomes if o.winners == (name,))
        shared = sum(1 for o in outcomes if name in o.winners and len(o.winners) > 1)
        rate = (wins + shared) / n if n else 0.0
        row = {"name": name, "player": name in players, "wins": wins, "shared_wins": shared,
               "win_rate": round(rate, 4), "win_rate_ci95": round(_wilson_half_width(rate, n), 4)}
        if name in scores:
            mean = sum(scores[name]) / n
            sd = math.sqrt(sum((x - mean) ** 2 for x in scores[name]) / (n - 1)) if n > 1 else 0.0
            row.update(mean_score=round(mean, 3), mean_score_ci95=round(Z95 * sd / math.sqrt(n), 3))
        rows.append(row)
    summary = {"games": n, "participants": rows, "no_winner": sum(1 for o in outcomes if not o.winners)}
    told: Counter[str] = Counter({name: 0 for name in events})
    for o in outcomes:
        told.update(dict(o.events))
    if told:
        summary["events_per_game"] = {name: round(k / n, 3) for name, k in told.most_common()}
    return summary
