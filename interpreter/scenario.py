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
from .check import RUN, SCENARIO_PREFIX, SETUP
from .errors import PitwallError, RecordError
from .load import Loaded, ParsedPath, build, find_game, game_of_file
from .outline import source_of
from .parse import parse_file
from .runtime import Game

EXPECT = SCENARIO_PREFIX + "expect_"


class ExpectationFailed(PitwallError):
    """A scenario's `expect` that does not hold where it stands."""


@attrs.frozen
class Scenario:
    decl: ast.ScenarioDecl
    loaded: Loaded
    path: Path


def load_scenario(path: Path) -> Scenario:
    parsed = parse_file(path)
    decls = [i for i in parsed.items if isinstance(i, ast.ScenarioDecl)]
    others = [i for i in parsed.items if not isinstance(i, (ast.ScenarioDecl, ast.EventDecl))]
    if len(decls) != 1 or others:
        where = others[0].span if others else parsed.span
        raise PitwallError("a scenario file holds one 'scenario \"Title\" { ... }' block, and events of its own "
                           "for notes", where, "move other declarations into the game's rules or a variant")
    sc = decls[0]
    game = _game_of(sc, Path(path))
    if game is None:
        raise PitwallError("which game? add 'game NAME' to the scenario", sc.span)
    if sc.run is None:
        raise PitwallError("a scenario needs 'run RULE(...)' or 'run { ... }': what to play from the stated position",
                           sc.span)
    variants = [_variant_file(game, v, Path(path), sc.where("variants")) for v in sc.variants]
    # The setup, the run and each expectation become rules and functions of their own, checked
    # and compiled with the game; the scenario's events come along.
    events = tuple(i for i in parsed.items if isinstance(i, ast.EventDecl))
    extra = ast.SourceFile(str(path), (
        ast.RuleDecl(SETUP, (), sc.setup or ast.Block((), span=sc.span), span=sc.span),
        ast.RuleDecl(RUN, (), _run_block(sc.run), span=sc.run.span),
        *(f for i, e in enumerate(sc.expects) for f in _expect_functions(i, e)),
        *events,
    ), span=sc.span)
    loaded = build(game.base_files() + [ParsedPath(extra)], variants, game, sc.variants)
    return Scenario(sc, loaded, Path(path))


def _variant_file(game, ref: str, scenario: Path, span) -> Path:
    """A variant named by the game, or a variant file by its path from the scenario's folder."""
    if ref.endswith(".pw"):
        path = (scenario.resolve().parent / ref).resolve()
        if not path.is_file():
            raise PitwallError(f"no variant file {ref!r} (looked for {path})", span,
                               "a path is read from the scenario's folder")
        return path
    available = game.variant_files()
    if ref not in available:
        raise PitwallError(f"{game.name} has no variant {ref!r}", span,
                           "variants: " + (", ".join(available) or "none") + ", or a quoted path to a .pw file")
    return available[ref]


def _expect_functions(i: int, e: ast.Expect) -> list[ast.FunctionDecl]:
    """`expect COND`: a function giving COND; when COND compares two values, functions giving
    each side in words too, so a failure shows what was compared."""
    out = [ast.FunctionDecl(f"{EXPECT}{i}", (), ast.TypeRef("bool", span=e.span), e.cond, span=e.span)]
    if _compares(e.cond):
        for side, value in (("a", e.cond.left), ("b", e.cond.right)):
            words = ast.Call("text", (value,), span=value.span)
            out.append(ast.FunctionDecl(f"{EXPECT}{i}_{side}", (), ast.TypeRef("text", span=e.span), words,
                                        span=e.span))
    return out


def _compares(cond) -> bool:
    return isinstance(cond, ast.BinOp) and cond.op in ("==", "!=", "<", "<=", ">", ">=", "in", "notin")


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
        raise PitwallError(e.message, sc.where("game"), e.hint) from None


def _run_block(run: ast.Call | ast.Block) -> ast.Block:
    if isinstance(run, ast.Block):
        return run
    return ast.Block((ast.CallStmt(run, span=run.span),), span=run.span)


class _Expecting:
    """The scenario's scripted agent, checking the expectations written before each decision
    just before that decision is answered."""

    def __init__(self, inner: Scripted, check: Callable[[int], None]):
        self.inner, self.check = inner, check

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def pick(self, game, by, decision, options, prompt, prefer):
        self.check(self.inner.next)
        return self.inner.pick(game, by, decision, options, prompt, prefer)


def start_scenario(sc: Scenario, listener=None) -> tuple[Game, Scripted]:
    """The game at the scenario's stated position: set up, its invariants and its first
    expectations checked (this is what `pitwall check` does with a scenario)."""
    d = sc.decl
    g = sc.loaded.program.game
    if not g.min_players <= len(d.players) <= g.max_players:
        raise RecordError(f"{g.title} takes {g.min_players} to {g.max_players} players, not {len(d.players)}",
                          d.where("players"), "list them: players \"NAME\", \"NAME\"")
    decisions = [(x.by, x.name, x.option, None, f"{x.span}") for x in d.decisions]
    script = Scripted(decisions, str(sc.path))
    agent = _Expecting(script, lambda k: _check_expects(sc, game, lambda e: not e.before_run and e.after == k))
    game = Game(sc.loaded, list(d.players), [agent] * len(d.players), d.seed, listener=listener, auto_agent=agent)
    game.start()
    game.run_rule(SETUP, [])
    _check_invariants(sc, game, "the setup states")
    _check_expects(sc, game, lambda e: e.before_run)
    return game, script


def run_scenario(sc: Scenario, listener=None) -> Game:
    d = sc.decl
    game, script = start_scenario(sc, listener)
    game.run_rule(RUN, [])
    if script.next < len(d.decisions):
        unused = d.decisions[script.next]
        raise RecordError("this decision was never asked for", unused.span,
                          "the scenario ended before it; remove it or fix the ones before it")
    _check_expects(sc, game, lambda e: not e.before_run and e.after >= script.next)
    _check_invariants(sc, game, "the scenario ends in")
    return game


def _check_invariants(sc: Scenario, game: Game, moment: str) -> None:
    broken = game.broken_invariants()
    if broken:
        inv = broken[0]
        raise RecordError(f"{moment} a position that breaks the game's invariant {inv.name!r}: {inv.message}",
                          sc.decl.where("setup") if "setup" in moment else sc.decl.span,
                          f"the invariant is declared at {inv.span}")


def _check_expects(sc: Scenario, game: Game, due) -> None:
    for i, e in enumerate(sc.decl.expects):
        if due(e) and i not in game.checked_expects:
            game.checked_expects.add(i)
            if game.value_of(f"{EXPECT}{i}") is not True:
                raise ExpectationFailed(_failed(sc, game, i, e), e.span)


def _failed(sc: Scenario, game: Game, i: int, e: ast.Expect) -> str:
    said = source_of(sc.loaded.program, e.cond.span)
    text = f"expected {said}" + (f" ({e.message})" if e.message else "")
    if _compares(e.cond):  # what each side was, unless it is written out
        sides = [f"{source_of(sc.loaded.program, side.span)} is {game.value_of(f'{EXPECT}{i}_{ab}')}"
                 for ab, side in (("a", e.cond.left), ("b", e.cond.right))
                 if not isinstance(side, (ast.Int, ast.Str, ast.Bool, ast.NoneLit))]
        text += ", but " + " and ".join(sides) if sides else ""
    return text


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
