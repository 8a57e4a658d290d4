"""Play games: pick agents, run, and return the game with its record header."""

from __future__ import annotations

from collections.abc import Callable

from .agents import AGENTS, Agent, Heuristic, make_agent
from .errors import PitwallError
from .limits import STEP_BUDGET
from .load import Loaded
from .record import Header, text_problem
from .runtime import Game


def player_names(loaded: Loaded, count: int | None, names: list[str] | None = None) -> list[str]:
    g = loaded.program.game
    if names:
        names = [n.strip() for n in names]
        if not all(names):
            raise PitwallError("a player's name cannot be empty", hint="--names NAME,NAME,...")
        bad = next((n for n in names if text_problem(n)), None)
        if bad is not None:  # a name is told, prompted and recorded: it must be text a terminal shows as it is
            raise PitwallError(f"the player name {bad!r} {text_problem(bad)}",
                               hint="--names takes UTF-8 names without control characters (is the terminal's "
                                    "encoding UTF-8?)")
        if len(set(names)) != len(names):
            raise PitwallError("player names must differ")
        count = len(names) if count is None else count
        if count != len(names):
            raise PitwallError(f"{len(names)} names given for {count} players")
    count = g.min_players if count is None else count
    if not g.min_players <= count <= g.max_players:
        raise PitwallError(f"{g.title} takes {g.min_players} to {g.max_players} players, not {count}")
    if names:
        return list(names)
    return [g.names[i] if i < len(g.names) else f"Player {i + 1}" for i in range(count)]


def agent_names(specs: list[str], count: int, default: str, base: list[str] | None = None) -> list[str]:
    """--agent NAME sets every seat (human: seat 1 only); --agent N=NAME sets seat N. The other
    seats keep their agent in `base` (resume: the record's), else get `default`."""
    seats: list[str | None] = [None] * count
    fill, filled = default, None
    for spec in specs:
        seat, eq, name = spec.rpartition("=")
        if name not in AGENTS:
            raise PitwallError(f"unknown agent {name!r}", hint="agents: " + ", ".join(AGENTS))
        if eq:
            if not seat.isdigit() or not 1 <= int(seat) <= count:
                raise PitwallError(f"--agent {spec}: seat must be 1 to {count}")
            if seats[int(seat) - 1] not in (None, name):
                raise PitwallError(f"--agent {spec}: seat {seat} is given twice")
            seats[int(seat) - 1] = name
        elif name == "human":
            seats[0] = seats[0] or "human"
        elif filled is not None and filled != name:
            raise PitwallError(f"--agent {filled} and --agent {name} both set every seat",
                               hint=f"set one seat with --agent SEAT={name}, e.g. --agent 1={name}")
        else:
            fill = filled = name
    if base is not None and filled is None:
        return [s or b for s, b in zip(seats, base)]
    return [s or fill for s in seats]


def seat_agents(agents: list[str], seed: int) -> tuple[list[Agent], Agent]:
    """The agent of each seat, and the heuristic one that plays the participants the rules make
    (seeded like a seat's, with a generator of its own for its ties)."""
    return [make_agent(a, seed, i) for i, a in enumerate(agents)], Heuristic(seed, -1)


def new_game(loaded: Loaded, players: list[str], agents: list[str], seed: int, *, record: bool = True,
             listener: Callable | None = None, budget: int = STEP_BUDGET) -> tuple[Game, Header]:
    made, auto = seat_agents(agents, seed)
    game = Game(loaded, players, made, seed, record=record, listener=listener, budget=budget, auto_agent=auto)
    ref = loaded.ref
    header = Header(ref, loaded.variants, loaded.rules_hash, seed, tuple(players), tuple(agents), loaded.settings)
    return game, header
