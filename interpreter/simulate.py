"""Many games at once: game i plays seed + i, so any one of them can be replayed alone with
`pitwall play --seed S+i`, and serial and parallel runs give identical results."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import attrs

from .engine import new_game
from .load import load


@attrs.frozen
class Outcome:
    seed: int
    winners: tuple[str, ...]
    scores: tuple[tuple[str, int], ...]  # (participant, score), players and automatic ones alike


def play_many(game: str, variants: tuple[str, ...], players: list[str], agents: list[str], seeds: range,
              progress: Callable[[int], None] | None = None,
              settings: tuple[tuple[str, str], ...] = ()) -> list[Outcome]:
    loaded = load(game, variants, settings)
    score = loaded.program.game.score
    out = []
    for seed in seeds:
        g, _ = new_game(loaded, players, agents, seed, record=False)
        winners = g.run()
        scores = tuple((p.name, getattr(p, score)) for p in g.by_name.values()) if score else ()
        out.append(Outcome(seed, tuple(w.name for w in winners), scores))
        if progress:
            progress(1)
    return out


def _chunk(args):
    *head, settings = args
    return play_many(*head, None, settings)


def simulate(game: str, variants: tuple[str, ...], players: list[str], agents: list[str], games: int, seed: int,
             jobs: int = 1, progress: Callable[[int], None] | None = None,
             settings: tuple[tuple[str, str], ...] = ()) -> list[Outcome]:
    if jobs <= 1:
        return play_many(game, variants, players, agents, range(seed, seed + games), progress, settings)
    jobs = min(jobs, os.cpu_count() or 1, games) or 1
    size = max(1, min(500, games // (jobs * 4) or 1))
    chunks = [range(s, min(s + size, seed + games)) for s in range(seed, seed + games, size)]
    out: list[Outcome] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for part in pool.map(_chunk, [(game, variants, players, agents, c, settings) for c in chunks]):
            out.extend(part)
            if progress:
                progress(len(part))
    return out


def summarize(outcomes: list[Outcome], players: list[str]) -> dict:
    """Per participant (players, then automatic ones that won): wins, shared wins, mean score."""
    n = len(outcomes)
    all_names = list(players)
    for o in outcomes:
        all_names += [w for w in o.winners if w not in all_names]
    totals: dict[str, int] = {}
    for o in outcomes:
        for name, score in o.scores:
            totals[name] = totals.get(name, 0) + score
    rows = []
    for name in all_names:
        wins = sum(1 for o in outcomes if o.winners == (name,))
        shared = sum(1 for o in outcomes if name in o.winners and len(o.winners) > 1)
        row = {"name": name, "player": name in players, "wins": wins, "shared_wins": shared,
               "win_rate": round((wins + shared) / n, 4) if n else 0.0}
        if name in totals:
            row["mean_score"] = round(totals[name] / n, 3)
        rows.append(row)
    return {"games": n, "participants": rows,
            "no_winner": sum(1 for o in outcomes if not o.winners)}
