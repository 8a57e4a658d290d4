"""The golden files: which whole games are recorded, and how to (re)make them.

Regenerate after a deliberate change of rules or narration, then read the diff:
    python tests/goldens.py
Only files whose content changed are rewritten.
"""

from __future__ import annotations

import json
from pathlib import Path

from pitwall.interpreter.engine import new_game, player_names
from pitwall.interpreter.load import games, load
from pitwall.interpreter.record import narration, read_record, record_lines
from pitwall.interpreter.scenario import narrate

GOLDEN = Path(__file__).resolve().parent / "golden"

# (game, variants, players, seed, agents[, settings]): whole seeded games, like OpenSpiel's
# playthroughs.
GAMES = [
    ("why_first", (), 2, 1, "heuristic"),
    ("why_first", (), 3, 2, "random"),
    ("why_first", (), 4, 7, "heuristic"),
    ("why_first", (), 6, 3, "random"),
    ("why_first", ("tactical",), 2, 4, "random"),
    ("why_first", ("tactical",), 4, 5, "heuristic"),
    ("why_first", ("all_together_score",), 3, 9, "first"),
    ("street_illegal", (), 3, 1, "heuristic"),
    ("street_illegal", (), 3, 2, "random"),
    ("street_illegal", (), 3, 3, "heuristic", (("races", "3"),)),  # a 3-race championship total
    ("street_illegal", ("tactical_starting_positions",), 4, 1, "heuristic"),  # with ties in the bidding
    ("street_illegal", ("solo_play",), 1, 1, "heuristic"),
    ("street_illegal", ("better_old_pros",), 3, 1, "heuristic"),
    ("street_illegal", ("nitrous_oxide",), 3, 1, "heuristic"),  # nitrous duels, one of them equal
    ("street_illegal", ("tactical_starting_positions", "better_old_pros", "nitrous_oxide"), 5, 2, "random"),
    ("race_formula_90", (), 4, 1, "heuristic"),  # Monza, 4 players and 4 robots
    ("race_formula_90", (), 2, 2, "random"),  # 3 FAST and 3 SLOW robots
    ("race_formula_90", (), 6, 3, "heuristic", (("track", "hungaroring"),)),
    ("race_formula_90", ("advanced",), 4, 19, "heuristic"),  # every Advanced module; a Safety Car
    ("race_formula_90", ("junior", "players_rescue"), 3, 2, "random", (("track", "hungaroring"),)),
]


def game_stem(game, variants, players, seed, agent, settings=()) -> Path:
    label = "+".join(variants) or "base"
    extra = "".join(f"-{k}{v}" for k, v in settings)
    return GOLDEN / game / f"{label}-p{players}-seed{seed}-{agent}{extra}"


def make_game(game, variants, players, seed, agent, settings=()) -> tuple[str, str]:
    loaded = load(game, variants, settings)
    names = player_names(loaded, players)
    g, header = new_game(loaded, names, [agent] * players, seed)
    g.run()
    lines = record_lines(g, header)
    body = [json.loads(x) for x in lines[1:]]
    return "\n".join(lines) + "\n", "\n".join(narration(body)) + "\n"


def scenario_files() -> list[Path]:
    return [p for g in games() for p in g.scenario_files()]


def scenario_golden(path: Path) -> Path:
    return GOLDEN / path.parent.parent.name / "scenarios" / (path.stem + ".txt")


def _write(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"Updated {path.relative_to(GOLDEN.parent)}")


def regenerate() -> None:
    for spec in GAMES:
        record, story = make_game(*spec)
        stem = game_stem(*spec)
        _write(stem.with_suffix(".jsonl"), record)
        _write(stem.with_suffix(".txt"), story)
    for path in scenario_files():
        _write(scenario_golden(path), "\n".join(narrate(path)) + "\n")


__all__ = ["GAMES", "game_stem", "read_record", "regenerate", "scenario_files", "scenario_golden"]

if __name__ == "__main__":
    regenerate()
