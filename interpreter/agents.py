"""Who decides: each agent picks an option index for a decision the rules generate."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import click

from .errors import PitwallError, ReaderStopped, RecordError
from .runtime import _Card, describe, field_of, seeded


class Agent:
    name = "agent"
    asks_always = False  # called even when only one option is legal (to see or check every decision)
    runs_rules = True  # may run the rules' code (prefer, a view, a prompt): then budgeted apart
    # Asked again at the same decision, it picks the same (a function of the position, or of its
    # own seeded generator asked in the same order): a replay can check a record's picks against it.
    checkable = True
    # A generator of floats in [0, 1) when the pick is int(quick() * len(options)) and nothing
    # else (a random seat): Game.choose then picks without calling the agent
    quick = None
    # True when the pick is Heuristic's, the best prefer score with ties broken by tie(): in a game
    # nobody records, generated code then picks for the seat (compile_choose.py)
    prefers = False

    def pick(self, game, by, decision: str, options: list, prompt, prefer) -> int:
        raise NotImplementedError


class FirstLegal(Agent):
    name = "first"
    runs_rules = False

    def pick(self, game, by, decision, options, prompt, prefer):
        return 0


class RandomAgent(Agent):
    """Uniform over legal options, from its own seeded generator (never the rules' one)."""

    name = "random"
    runs_rules = False

    def __init__(self, seed: int, seat: int):
        self.rnd = self.quick = seeded(seed * 1_000_003 + seat + 1).random

    def pick(self, game, by, decision, options, prompt, prefer):
        return int(self.rnd() * len(options))


class Heuristic(Agent):
    """Picks the option the rules' `prefer` expression scores highest; among equal best scores,
    one at random from its own seeded generator (never the rules' one).

    Ties going to the first option would favour whoever comes first in a list of options (the
    first player, the left slot) in every game of a simulation: a seat imbalance of the agent, not
    of the game. The generator is drawn from only when the best score is shared, so a replay that
    asks the same decisions in the same order gets the same picks.
    """

    name = "heuristic"
    prefers = True  # a subclass that picks otherwise must say False
    _ties = "heuristic 0 -1"  # what seeds the generator (a subclass may skip __init__)
    _rnd = None  # made at the first tie: most decisions have none

    def __init__(self, seed: int = 0, seat: int = -1):
        # seat -1: the participants the rules make (`new`). Seeded by a text (hashed by SHA-512,
        # the same on every Python): a stream apart from the random agent's of the same seat.
        self._ties = f"heuristic {seed} {seat}"

    def pick(self, game, by, decision, options, prompt, prefer):
        if prefer is None:
            return 0
        best: list[int] = []
        best_score = None
        for i, option in enumerate(options):
            score = prefer(option)
            if best_score is None or score > best_score:
                best, best_score = [i], score
            elif score == best_score:
                best.append(i)
        if len(best) == 1:
            return best[0]
        return self.tie(best)

    def tie(self, best: list[int]) -> int:
        """One of the options of equal best score, from the agent's own generator."""
        if self._rnd is None:
            self._rnd = random.Random(self._ties).random
        return best[int(self._rnd() * len(best))]


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
        game.spend_side(len(options))  # every option's words, side work (a record may name a long list's)
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
    """Asks at the terminal, listing the legal options in the game's words; bad input re-prompts.

    Before each decision it shows the player's view: whole the first time, then only the lines
    that changed since that player's last decision (`v` shows the whole view again).
    """

    name = "human"
    asks_always = True  # the player sees each forced decision too
    checkable = False  # a person can pick anything, and is never asked just to check a record

    def __init__(self):
        self.shown: dict[str, list[str]] = {}  # per participant: the view at his last decision

    def pick(self, game, by, decision, options, prompt, prefer):
        seen = (game.view_of(by) if game._view is not None else view(game, by)).split("\n")
        self._show_view(by, seen)
        asked = prompt() if callable(prompt) else prompt  # a prompt that names values is worded now
        question = f"{by.name}, {_ask(asked or 'choose ' + decision)}"
        game.spend_side(len(options))  # every option's words, side work (as a replay's reading of them)
        words = option_words(options)
        if len(options) == 1:  # shown, never waited for: there is nothing to decide
            click.echo(f"{question} {words[0]}, the only legal option.")
            return 0
        texts = [w.lower() for w in words]
        # Options that are counts (0, 1, 2) are typed as themselves, never by position.
        counts = all(t.isdigit() for t in texts)

        def ask() -> None:
            click.echo(question)
            if counts:
                click.echo("  " + ", ".join(texts))
            else:
                for i, w in enumerate(words, 1):
                    click.echo(f"  {i}. {w}")

        ask()
        what = f"one of {texts[0]}-{texts[-1]}" if counts else f"a number from 1 to {len(options)}"
        while True:
            try:
                raw = input(f"[{'one of the above' if counts else f'1-{len(options)}'}, v to see the table, "
                            "q to stop]> ").strip()
            except EOFError:
                raise PitwallError(f"input ended while the game waited for {by.name}'s {decision!r}") from None
            if raw.lower() in texts:
                return texts.index(raw.lower())
            if not counts and raw.isdigit() and 1 <= int(raw) <= len(options):
                return int(raw) - 1
            if raw.lower() in ("q", "quit"):
                raise ReaderStopped
            if raw.lower() in ("v", "view"):
                click.echo("")
                click.echo("\n".join(seen))
                ask()
                continue
            click.echo(f"  please type {what}")

    def _show_view(self, by, seen: list[str]) -> None:
        """The whole view the first time; later only its lines that are new since this player's
        last decision (nothing when nothing changed), and how many lines stay as they were."""
        before = self.shown.get(by.name)
        self.shown[by.name] = seen
        if before == seen:
            return
        click.echo("")
        if before is None:
            click.echo("\n".join(seen))
            return
        left = Counter(before)
        changed = []
        for line in seen:
            if left[line] > 0:
                left[line] -= 1
            else:
                changed.append(line)
        if len(changed) in (0, len(seen)):  # all new, or only lines gone or moved: the whole view says it best
            click.echo("\n".join(seen))
            return
        click.echo(f"Since your last decision ({plural(len(changed), 'line')} changed):")
        click.echo("\n".join(changed))
        same = len(seen) - len(changed)
        if same:
            click.echo(f"  ({plural(same, 'other line')} as before; v shows the whole table)")


def _ask(question: str) -> str:
    """A question ends in one colon: "try to pass?" and "choose:" get none added."""
    return question if question.rstrip().endswith((":", "?")) else question + ":"


def plural(n: int, word: str, words: str | None = None) -> str:
    """A count with its noun: 1 card, 2 cards, 0 cards (`words` for a plural not made with s)."""
    return f"{n} {word if n in (1, -1) else words or word + 's'}"


def option_words(options: list) -> list[str]:
    """Each option in the game's words (a card by its display template). Cards that read the
    same but differ (a template that leaves a field out) get the fields that tell them apart."""
    words = [describe(o) for o in options]
    groups: dict[str, list[int]] = {}
    for i, w in enumerate(words):
        groups.setdefault(w, []).append(i)
    for same in groups.values():
        cards = [options[i] for i in same]
        if len(same) < 2 or not all(isinstance(c, _Card) and type(c) is type(cards[0]) for c in cards):
            continue
        fields = [f for f in cards[0]._fields
                  if len({describe(field_of(c, f)) for c in cards}) > 1]
        if not fields:  # alike in every way: either one is the same pick
            continue
        for i in same:
            words[i] += " (" + ", ".join(f"{f} {describe(field_of(options[i], f))}" for f in fields) + ")"
    return words


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
    if cls in (RandomAgent, Heuristic):
        return cls(seed, seat)
    return cls()
