"""Who decides: each agent picks an option index for a decision the rules generate."""

from __future__ import annotations

import random
from collections.abc import Callable

import click

from .errors import PitwallError, ReaderStopped, RecordError
from .runtime import describe, field_of


class Agent:
    name = "agent"
    asks_always = False  # called even when only one option is legal (to see or check every decision)
    # Asked again at the same decision, it picks the same (a function of the position, or of its
    # own seeded generator asked in the same order): a replay can check a record's picks against it.
    checkable = True

    def pick(self, game, by, decision: str, options: list, prompt, prefer) -> int:
        raise NotImplementedError


class FirstLegal(Agent):
    name = "first"

    def pick(self, game, by, decision, options, prompt, prefer):
        return 0


class RandomAgent(Agent):
    """Uniform over legal options, from its own seeded generator (never the rules' one)."""

    name = "random"

    def __init__(self, seed: int, seat: int):
        self.rnd = random.Random(seed * 1_000_003 + seat + 1).random

    def pick(self, game, by, decision, options, prompt, prefer):
        return int(self.rnd() * len(options))


class Heuristic(Agent):
    """Picks the option the rules' `prefer` expression scores highest; the first on ties."""

    name = "heuristic"  # deterministic: the same position always gets the same answer, whatever the seat

    def pick(self, game, by, decision, options, prompt, prefer):
        if prefer is None:
            return 0
        best, best_score = 0, None
        for i, option in enumerate(options):
            score = prefer(option)
            if best_score is None or score > best_score:
                best, best_score = i, score
        return best


class Scripted(Agent):
    """Plays decisions from a list (a record or a scenario), checking each is the one asked.

    With `check` (the agents a record names, seated), each pick with a choice is also checked
    against the agent of its participant, wherever that agent can be asked again (not a person).
    """

    name = "scripted"
    asks_always = True  # records list forced decisions too, so the script must see every one

    def __init__(self, decisions: list, where: str, fallback: Agent | None = None, check: Seated | None = None,
                 mismatch_hint: Callable[[object], str] | None = None):
        # (by, name, option text or None, index or None, location): a location is a scenario's
        # "file:line:col" text, or an object whose error(message, key, hint) points into a record
        self.decisions = decisions
        self.next = 0
        self.where = where
        self.fallback = fallback
        self.check = check
        self.mismatch_hint = mismatch_hint

    def pick(self, game, by, decision, options, prompt, prefer):
        if self.next >= len(self.decisions):
            if self.fallback is not None:
                return self.fallback.pick(game, by, decision, options, prompt, prefer)
            raise RecordError(f"{self.where}: the game asks {by.name}'s {decision!r}, but no decision is left")
        want_by, want_name, text, index, loc = self.decisions[self.next]
        self.next += 1
        if want_by != by.name or want_name != decision:
            raise _error(loc, "by" if want_by != by.name else "decision",
                         f"the replay diverges here: the game asks {by.name}'s {decision!r}, "
                         f"not {want_by}'s {want_name!r}")
        texts = [describe(o) for o in options]
        if index is None:
            if text not in texts:
                raise _error(loc, "option", f"{text!r} is not a legal {decision!r} for {by.name}",
                             "legal: " + ", ".join(texts))
            index = texts.index(text)
        elif not 0 <= index < len(options):
            raise _error(loc, "pick", f"option {index} is out of range: {decision!r} has {len(options)} options")
        elif text is not None and texts[index] != text:
            raise _error(loc, "option", f"option {index} of {decision!r} is {texts[index]!r} now, "
                         f"the record says {text!r}")
        if self.check is not None and len(options) > 1:
            self._check(game, by, decision, options, prompt, prefer, index, loc, texts)
        return index

    def _check(self, game, by, decision, options, prompt, prefer, index, loc, texts) -> None:
        # A random agent is asked too, even where it cannot be wrong: its generator then stands
        # where it stood in the game, for the next check and for a resumed game to go on from.
        agent = self.check.agent_of(by)
        if not agent.checkable:
            return
        want = agent.pick(game, by, decision, options, prompt, prefer)
        if want != index:
            who = f"{by.name}'s agent" if by.is_player else f"{by.name}, a participant the rules made, has the agent"
            raise _error(loc, "pick", f"{who} {agent.name!r} picks option {want} ({texts[want]!r}) here, "
                         f"not option {index} ({texts[index]!r})",
                         self.mismatch_hint(by) if self.mismatch_hint else None)


def _error(loc, key: str, message: str, hint: str | None = None) -> RecordError:
    if isinstance(loc, str):  # a scenario's decide line, as "file:line:col"
        return RecordError(f"{loc}: {message}", hint=hint)
    return loc.error(message, key, hint)


class Seated(Agent):
    """Each participant's own agent: one per seat, and one for the participants the rules make with `new`."""

    name = "seated"

    def __init__(self, seats: list[Agent], auto: Agent):
        self.seats = seats
        self.auto = auto

    def agent_of(self, by) -> Agent:
        return self.seats[by.seat] if by.is_player else self.auto

    def pick(self, game, by, decision, options, prompt, prefer):
        agent = self.agent_of(by)
        if len(options) == 1 and not agent.asks_always:
            return 0  # as the game itself would: a forced choice is not asked
        return agent.pick(game, by, decision, options, prompt, prefer)


class Human(Agent):
    """Asks at the terminal, listing the legal options; bad input re-prompts."""

    name = "human"
    asks_always = True  # the player sees each forced decision too
    checkable = False  # a person can pick anything, and is never asked just to check a record

    def __init__(self):
        self.shown = None

    def pick(self, game, by, decision, options, prompt, prefer):
        seen = game.view_of(by) if game._view is not None else view(game, by)
        if seen != self.shown:  # the table again only when something changed
            click.echo("")
            click.echo(seen)
            self.shown = seen
        asked = prompt() if callable(prompt) else prompt  # a prompt that names values is worded now
        if len(options) == 1:  # shown, never waited for: there is nothing to decide
            click.echo(f"{by.name}, {asked or 'choose ' + decision}: {describe(options[0])}, the only legal option.")
            return 0
        texts = [describe(o).lower() for o in options]
        # Options that are counts (0, 1, 2) are typed as themselves, never by position.
        counts = all(t.isdigit() for t in texts)
        click.echo(f"{by.name}, {asked or 'choose ' + decision}:")
        if counts:
            click.echo("  " + ", ".join(texts))
        else:
            for i, o in enumerate(options, 1):
                click.echo(f"  {i}. {describe(o)}")
        what = f"one of {texts[0]}-{texts[-1]}" if counts else f"a number from 1 to {len(options)}"
        while True:
            try:
                raw = input(f"[{'one of the above' if counts else f'1-{len(options)}'}, q to stop]> ").strip()
            except EOFError:
                raise PitwallError(f"input ended while the game waited for {by.name}'s {decision!r}") from None
            if raw.lower() in texts:
                return texts.index(raw.lower())
            if not counts and raw.isdigit() and 1 <= int(raw) <= len(options):
                return int(raw) - 1
            if raw.lower() in ("q", "quit"):
                raise ReaderStopped
            click.echo(f"  please type {what}")


def view(game, by) -> str:
    """What `by` can see: every participant's public fields and its own secret ones."""
    lines = []
    for p in game.by_name.values():
        parts = []
        for f in p._fields:
            # secret: only its owner sees it; hidden: nobody does (a face-down stack)
            secret = f in p._hidden or (f in p._secret and p is not by)
            if secret:
                v = field_of(p, f)
                parts.append(f"{f}: {len(v)} hidden" if isinstance(v, list) else f"{f}: ?")
            else:
                parts.append(f"{f}: {describe(field_of(p, f))}")
        lines.append(f"  {p.name}{' (you)' if p is by else ''} - " + "; ".join(parts))
    return "\n".join(lines)


AGENTS = {"random": RandomAgent, "first": FirstLegal, "heuristic": Heuristic, "human": Human}


def make_agent(name: str, seed: int, seat: int) -> Agent:
    cls = AGENTS.get(name)
    if cls is None:
        raise PitwallError(f"unknown agent {name!r} for seat {seat + 1}", hint="agents: " + ", ".join(AGENTS))
    if cls is RandomAgent:
        return cls(seed, seat)
    return cls()
