"""Scenarios: start from a stated position with scripted decisions (rulebook examples, fixtures).

A scenario file holds one `scenario "Title" { ... }` block: the game, variants, players, seed,
a `setup` block of ordinary statements that states the position, the rule to `run`, and the
`decide "Player" decision "option"` lines the agents answer with, in order.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs

from . import ast
from .agents import Scripted
from .check import RUN, SETUP
from .errors import PitwallError, RecordError
from .load import Loaded, ParsedPath, build, find_game, game_of_file
from .parse import parse_file
from .runtime import Game


@attrs.frozen
class Scenario:
    decl: ast.ScenarioDecl
    loaded: Loaded
    path: Path


def load_scenario(path: Path) -> Scenario:
    parsed = parse_file(path)
    decls = [i for i in parsed.items if isinstance(i, ast.ScenarioDecl)]
    if len(decls) != 1 or len(parsed.items) != 1:
        raise PitwallError("a scenario file holds exactly one 'scenario \"Title\" { ... }' block", parsed.span)
    sc = decls[0]
    game = _game_of(sc, Path(path))
    if game is None:
        raise PitwallError("which game? add 'game NAME' to the scenario", sc.span)
    if sc.run is None:
        raise PitwallError("a scenario needs 'run RULE(...)' or 'run { ... }': what to play from the stated position",
                           sc.span)
    variants = game.variant_files()
    missing = [v for v in sc.variants if v not in variants]
    if missing:
        raise PitwallError(f"{game.name} has no variant {missing[0]!r}", sc.span,
                           "variants: " + (", ".join(variants) or "none"))
    # The setup and the run become two rules of their own, checked and compiled with the game.
    extra = ast.SourceFile(str(path), (
        ast.RuleDecl(SETUP, (), sc.setup or ast.Block((), span=sc.span), span=sc.span),
        ast.RuleDecl(RUN, (), _run_block(sc.run), span=sc.run.span),
    ), span=sc.span)
    loaded = build(game.base_files() + [ParsedPath(extra)], [variants[v] for v in sc.variants], game, sc.variants)
    return Scenario(sc, loaded, Path(path))


def _game_of(sc: ast.ScenarioDecl, path: Path):
    """The game a scenario names, or else the game whose scenarios/ folder holds it."""
    here = game_of_file(path) if path.resolve().parent.name == "scenarios" else None
    if not sc.game:
        return here
    if here is not None and here.name == sc.game:  # a game of one's own, named by its folder
        return here
    try:
        return find_game(sc.game)
    except PitwallError as e:
        raise PitwallError(e.message, sc.span, e.hint) from None


def _run_block(run: ast.Call | ast.Block) -> ast.Block:
    if isinstance(run, ast.Block):
        return run
    return ast.Block((ast.CallStmt(run, span=run.span),), span=run.span)


def run_scenario(sc: Scenario, listener=None) -> Game:
    d = sc.decl
    g = sc.loaded.program.game
    if not g.min_players <= len(d.players) <= g.max_players:
        raise RecordError(f"{g.title} takes {g.min_players} to {g.max_players} players, not {len(d.players)}",
                          d.span, "list them: players \"NAME\", \"NAME\"")
    decisions = [(x.by, x.name, x.option, None, f"{x.span}") for x in d.decisions]
    agent = Scripted(decisions, str(sc.path))
    game = Game(sc.loaded, list(d.players), [agent] * len(d.players), d.seed, listener=listener, auto_agent=agent)
    game.start()
    game.run_rule(SETUP, [])
    game.run_rule(RUN, [])
    if agent.next < len(decisions):
        unused = d.decisions[agent.next]
        raise RecordError("this decision was never asked for", unused.span,
                          "the scenario ended before it; remove it or fix the ones before it")
    return game


def narrate(path: Path, decisions: bool = True, out: Callable[[str], object] | None = None) -> list[str]:
    """The scenario's title and narration, as `pitwall scenario` prints it (golden files too).

    Each line also goes to `out` as soon as it is told, so a scenario that fails part-way still
    shows how far it got before the error.
    """
    from .record import entry_line, text_of

    sc = load_scenario(path)
    lines: list[str] = []

    def put(text: str) -> None:
        lines.append(text)
        if out is not None:
            out(text)

    put(f"# {sc.decl.title}")

    def tell(entry):
        text = text_of(entry_line(sc.loaded, entry), decisions)
        if text:
            put(text)

    run_scenario(sc, tell)
    return lines
