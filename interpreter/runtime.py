"""The small API generated code calls: state, decisions, piles, the seeded generator, the log.

One `Game` runs one game. All randomness comes from `rng` (a Mersenne Twister seeded with the
game's seed, read only through random(), whose output is stable across Python versions).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from operator import attrgetter
from types import FunctionType

from .blame import blame
from .budget import _KEY, LimitExceeded, OutOfSteps, metered
from .errors import BudgetError, PitwallError, ReaderStopped, RuleRuntimeError, Span
from .limits import (
    INT_MAX,
    LOAD_BUDGET,
    NARRATION_MAX,
    NEW_STEPS,
    STEP_BUDGET,
    TEXT_MAX,
    TOLD_LINE_STEPS,
)

# Raised outside the rules (by agents, by a listener writing to a closed pipe, by a reader who
# stops): not a rule's fault.
_OUTSIDE = (PitwallError, OSError, EOFError, ReaderStopped)

_UNSET = object()  # a kept part not yet worked out (compile_hoist.HoistGen.cheap_kept)


class _Finished(Exception):
    pass


GENERATED = "<pitwall-rules>"  # the file name of generated code, as tracebacks show it

# Fields of cards and participants live in Python attributes named FIELD_PREFIX + the rules' name,
# so no name from a rules file can be a Python attribute of its own (`__class__`, `__init__`).
FIELD_PREFIX = "v_"
GLOBAL_PREFIX = "g_"
BUILTIN_FIELDS = ("name", "seat", "is_player")  # every participant's, stored under these names


def _rules_names(cls: type, names, prefix: str) -> dict[str, property]:
    """Python code (tests, tools) reads a declared field or global by its name in the rules, as
    obj.NAME: a read-only property for each name the class does not have already. Not __getattr__:
    a class with one keeps CPython 3.11 from specializing any attribute read of its objects, and
    generated code reads them on nearly every line (it names the prefixed attribute itself)."""
    taken = {n for k in cls.__mro__ for n in vars(k)} | {prefix + n for n in names}  # g_x of a global x too
    return {n: property(attrgetter(prefix + n)) for n in names if n not in taken}


class _Declared:
    """A card or participant kind of the rules: its fields read by their rules names too."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name, prop in _rules_names(cls, cls._fields, FIELD_PREFIX).items():
            setattr(cls, name, prop)


class _Card(_Declared):
    __slots__ = ()
    _kind = ""
    _show: tuple | None = None  # parsed display template

    def __str__(self) -> str:
        if self._show:
            return render(self._show, {f: field_of(self, f) for f in self._fields})
        return f"{self._kind}(" + ", ".join(describe(field_of(self, f)) for f in self._fields) + ")"

    __repr__ = __str__


class _Participant(_Declared):
    # _q, _h: the random seat's generator, the heuristic seat's agent, where generated code picks
    # for the seat (compile_choose.py), else None
    __slots__ = ("name", "seat", "is_player", "_q", "_h")
    _kind = ""
    _secret: tuple[str, ...] = ()
    _hidden: tuple[str, ...] = ()

    _spends = False  # True where working out its fields' first values spends steps (Game.made)

    def __init__(self, name: str, seat: int, is_player: bool):
        self.name = name
        self.seat = seat
        self.is_player = is_player
        self._q = self._h = None

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


def outside(fn, *args):
    """Call code that is not the rules' (an agent, a listener): an exception from it is passed on
    as it is, not reported as a failure of the rules line that was running."""
    try:
        return fn(*args)
    except Exception as exc:
        if not _from_rules(exc.__traceback__):  # a prefer score failing is the rules' own failure
            exc.outside_the_rules = True
        raise


def _from_rules(tb) -> bool:
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == GENERATED:
            return True
        tb = tb.tb_next
    return False


def field_of(obj, name: str):
    """A declared field of a card or participant, by its name in the rules; nothing else."""
    if name in obj._fields:
        return getattr(obj, FIELD_PREFIX + name)
    if name in BUILTIN_FIELDS and isinstance(obj, _Participant):
        return getattr(obj, name)
    raise LimitExceeded(f"{obj._kind} has no field {name!r}")


def _min(xs):
    return min(xs)


def _max(xs):
    return max(xs)


def _max_by(pairs):
    # ties go to the earliest element: the order of the collection breaks them (strictly greater)
    if not pairs:
        return None
    rest = iter(pairs)
    best = next(rest)  # the first is compared with no other, as before: its key may be anything
    for pair in rest:
        if pair[0] > best[0]:
            best = pair
    return best[1]


def _min_by(pairs):
    if not pairs:
        return None
    rest = iter(pairs)
    best = next(rest)
    for pair in rest:
        if pair[0] < best[0]:
            best = pair
    return best[1]


def _sort_by(pairs, desc):
    # list.sort is stable, also with reverse=True, so equal keys keep the collection's order
    pairs.sort(key=_KEY, reverse=desc)
    return [v for _, v in pairs]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n in (1, -1) else f"{n} {word}s"


def _text(x) -> str:
    return describe(x)


def describe(x) -> str:
    """The words for a value in narration, prompts and records (at most TEXT_MAX characters)."""
    if isinstance(x, (list, tuple)):
        if not x:
            return "nothing"
        words, size = [], 0
        for item in x:
            w = describe(item)
            size += len(w) + 2
            if size > TEXT_MAX:
                raise LimitExceeded(f"the words for a list of {len(x)} values run past {TEXT_MAX} characters")
            words.append(w)
        return ", ".join(words)
    if x is True:
        return "yes"
    if x is False:
        return "no"
    if x is None:
        return "none"
    return str(x)


def render(parts: tuple, values: dict, consts: dict | None = None) -> str:
    """A parsed template (templates.parse_template), worded: each hole reads its value (or else a
    constant) and declared fields only, and formats a number or a text, never an object of the game."""
    out = []
    size = 0
    for part in parts:
        if type(part) is not str:
            v = values[part.root] if part.root in values else consts[part.root]
            for name in part.path:
                v = field_of(v, name)
            if type(v) is not int:
                v = describe(v)
            part = format(v, part.spec) if part.spec else str(v)
        size += len(part)
        if size > TEXT_MAX:  # before the pieces are joined: no huge text is ever made
            raise LimitExceeded(f"a text of more than {TEXT_MAX} characters")
        out.append(part)
    return "".join(out)


def narrate_event(loaded, event: int, args: tuple) -> str:
    c = loaded.compiled
    return render(c.templates[event], dict(zip(c.event_params[event], args)), loaded.consts)


def _at(xs: list, i: int):
    try:
        return xs[i]
    except IndexError:
        raise LimitExceeded(f"index {i} is out of range: the list holds {len(xs)} item(s)"
                            + (f", at 0 to {len(xs) - 1}" if xs else "")) from None


def _mul(a: int, b: int) -> int:
    # the one operator that can outgrow the range at once (`x = x * x`): checked where it happens
    r = a * b
    if -INT_MAX <= r <= INT_MAX:
        return r
    raise LimitExceeded(f"{a} * {b} is beyond the range of whole numbers (-{INT_MAX} to {INT_MAX})")


def _no_score():
    raise LimitExceeded("the prefer score of an option is 'none' (a first, top or last of nothing?): "
                        "every option needs a number to be compared")


def _scored(score):
    if score is None:
        _no_score()
    return score


def _overflow(value: int):
    # generated code calls it for a number beyond compile_arith.QUICK, which may yet be in range
    if -INT_MAX <= value <= INT_MAX:
        return
    raise LimitExceeded(f"{value} is beyond the range of whole numbers (-{INT_MAX} to {INT_MAX})")


def _out_at(sid: int):
    # a rule or function the runtime calls ran out of steps on entry (compile.Gen.paid_calls): its
    # declaration is where, as no line of it ran
    exc = OutOfSteps()
    exc.sid = sid
    raise exc


NAMESPACE = {
    "_out_at": _out_at, "_Card": _Card, "_Participant": _Participant, "_min": _min,
    "_max": _max, "_max_by": _max_by, "_min_by": _min_by, "_sort_by": _sort_by, "_text": _text,
    "_plural": _plural, "_render": render, "_mul": _mul, "_at": _at, "_overflow": _overflow,
    "_IMAX": INT_MAX, "_OutOfSteps": OutOfSteps, "_UNSET": _UNSET, "_no_score": _no_score, "_scored": _scored,
}
# What generated code may call of Python's own: the names the compiler emits, and nothing else.
SAFE_BUILTINS = {name: __builtins__[name] if isinstance(__builtins__, dict) else getattr(__builtins__, name)
                 for name in ("len", "sum", "any", "all", "sorted", "min", "max", "abs", "list", "reversed",
                              "dict", "tuple", "next", "range", "enumerate", "int", "ValueError", "IndexError",
                              "__build_class__")}


_LENDING = threading.Lock()  # the load's budget, lent to one game at a time (Game.made)
_new_random = random.Random.__new__
_seed_random = random.Random.__mro__[1].seed  # _random.Random.seed, in C


def seeded(n: int) -> random.Random:
    """random.Random(n), the same generator, less random.py's checks of what a seed may be (a
    whole number always may): a game seeds five or more, and Python's own wrapper was 4,700 of the
    37,000 instructions each."""
    made = _new_random(random.Random)
    _seed_random(made, n)
    made.gauss_next = None  # as Random.__init__ leaves it
    return made


class State:
    """The game's globals; generated code reads and writes them as attributes named GLOBAL_PREFIX +
    the rules' name. Python code (tests, tools) may read them by the rules' name (state_class)."""

    def __init__(self, players):
        self.players = players


def state_class(loaded) -> type:
    """A State whose globals read by their rules names too: one class per loaded program, kept in
    its namespace beside the kinds of its cards (a process-wide cache would drop classes, which
    are cyclic garbage, at any later game)."""
    made = loaded.namespace.get("_State")
    if made is None:
        names = [n for n in loaded.program.globals if n != "players"]
        made = loaded.namespace["_State"] = type("State", (State,), _rules_names(State, names, GLOBAL_PREFIX))
    return made


class Game:
    tally: list | None = None  # a list where the game only counts the events it tells (generated code)

    def __init__(self, loaded, players: list[str], agents: list, seed: int, *, budget: int = STEP_BUDGET,
                 record: bool = True, listener: Callable | None = None, auto_agent=None):
        self.loaded = loaded
        self.seed = seed
        self.rng = seeded(seed)
        self.log: list[tuple] = []
        self.listener = listener
        self.record = record
        self.telling = record or listener is not None  # events are worked out only for someone
        self.agents = agents
        self.auto_agent = auto_agent
        code = _code_set(loaded)
        code.budget[0] = budget
        self.budget = code.budget  # the set's own list: its helpers spend from it
        self.budget_total = budget
        self.metered = code.metered
        self.told = 0  # characters of narration so far
        # Work for agents, views and listeners (which runs in some runs of a game and not in
        # others) spends from a budget of its own, as large as the game's: see spent_apart.
        self.side = [budget]
        self.apart = False
        self.checked_expects: set[int] = set()  # a scenario's expectations checked so far
        self.result: list | None = None
        ns = loaded.namespace
        kind = ns["K_" + loaded.program.game.player_kind]
        try:
            self.participants = [self.made(kind, name, seat, True) for seat, name in enumerate(players)]
        except OutOfSteps as exc:
            raise self.failure(exc) from None
        self.by_name = {p.name: p for p in self.participants}
        self.state = state_class(loaded)(list(self.participants))
        # Values of functions remembered for the state as it is (compile_memo.py): generated code
        # empties it on every change it makes, and so does each change made here
        self.memo: dict = {}
        if not self.telling:
            self.emit = _no_emit
        elif not record:
            self.emit = self._tell_only  # a listener hears the events; no log is kept
        # Random and heuristic seats of a game nobody records pick in generated code
        # (compile_choose.py), told of each decision first by `decided` where it is not None
        self.decided = self.watcher()
        self.auto_h = None
        if not record and QUICK_SEATS:
            for p, agent in zip(self.participants, agents):
                if agent.quick is not None:
                    p._q = self.seat_quick(agent.quick)
                elif agent.prefers:
                    p._h = agent
            if auto_agent is not None and auto_agent.prefers:
                self.auto_h = auto_agent  # for the participants the rules make
        self._code = code
        code.bind(self)
        self._init, self._rules, self._view, self._values = code.init, code.rules, code.view, code.values
        self._main = self._rules[loaded.program.game.play]

    def watcher(self, quick: Callable[[], float] | None = None) -> Callable[[], float | None] | None:
        """What each decision calls first, if anything (simulate's Tallied counts them). Given a
        random seat's generator, what that seat's picks call in its place: the watcher's work,
        then the generator's number, in one call (two calls a pick made simulate's games slower
        by a tenth)."""
        return None

    def seat_quick(self, quick: Callable[[], float]) -> Callable[[], float]:
        """What generated code calls for a random seat's pick, int(quick() * n): its generator, or,
        where decisions are watched, the watcher that returns the generator's number."""
        return quick if self.decided is None else self.watcher(quick)

    # ------------------------------------------------------------ running
    def run(self):
        try:
            self._init()
            self._main()
            raise self.error(None, "the game ended without 'finish' naming its winners")
        except _Finished:
            return self.result
        except Exception as exc:  # noqa: BLE001 - a rule failed; report it at its source line
            raise self.failure(exc) from None

    def close(self) -> None:
        """Let go of the code that ran this game: its set of functions, unbound from the game, goes
        back to the rules' pool for the next game (making a set took a fifth of a short game), and
        nothing of the game is left for Python's cycle collector. A closed game can answer nothing
        more."""
        for p in self.by_name.values():
            p._q = p._h = None  # a seat's pick may call back into the game (simulate's Tallied)
        code = self.__dict__.pop("_code", None)
        if code is not None:
            code.bind(None)
            self.budget = [self.budget[0]]  # what was left, kept: the set's list serves the next game
            self.loaded.pool.append(code)
        for name in ("_init", "_rules", "_view", "_values", "_main", "emit", "decided"):
            self.__dict__.pop(name, None)

    def start(self):
        """Set the globals up as the rules declare them, before a scenario states its position."""
        self.memo.clear()
        self._init()

    def run_rule(self, name: str, args: list):
        """Run one rule from the current state (scenarios start mid-game)."""
        self.memo.clear()
        try:
            self._rules[name](*args)
        except _Finished:
            pass
        except Exception as exc:  # noqa: BLE001
            raise self.failure(exc) from None

    def failure(self, exc: Exception) -> Exception:
        """The error to report for an exception out of the rules, at the rules line it came from,
        with the variants in force and what of theirs that line reads."""
        if (isinstance(exc, _OUTSIDE) or getattr(exc, "outside_the_rules", False)) \
                and not isinstance(exc, RuleRuntimeError):
            return exc  # not a rule's fault (an agent, a reader, a closed pipe): passed on as it is
        error = exc if isinstance(exc, RuleRuntimeError) else self._failure(exc)
        suspects = blame(self.loaded.program, error.span)
        if suspects:
            error.hint = f"{error.hint}\n{suspects}" if error.hint else suspects
        return error

    def _failure(self, exc: Exception) -> PitwallError:
        tb = exc.__traceback__
        if isinstance(exc, RecursionError):
            return self.error_from_traceback(tb, "rules call each other without end", BudgetError,
                                             "calls nest about a thousand deep at most: a rule or function that "
                                             "calls itself without end, or a chain of calls that long (a loop can "
                                             "do such work)")
        if isinstance(exc, OutOfSteps) and getattr(exc, "side", False):
            error = self.error_from_traceback(tb, f"the work for agents, views and narration ran more than "
                                              f"{self.budget_total} steps in one game", BudgetError,
                                              "a prefer score, a view or an event's values works too hard, or the "
                                              f"game tells too many lines (each costs {TOLD_LINE_STEPS} steps)")
        elif isinstance(exc, OutOfSteps):
            error = self.error_from_traceback(tb, f"the rules ran more than {self.budget_total} steps in one game",
                                              BudgetError, "a step is about one value or statement worked out: "
                                              "a loop or a chain of calls in the rules never ends?")
        else:
            return self.error_from_traceback(tb, _explain(exc))
        if error.span is None and getattr(exc, "sid", None) is not None:
            error.span = self.loaded.compiled.spans[exc.sid]  # paid on entry from outside the rules (_paid)
        return error

    def spent_apart(self, work):
        """Work for an agent, a listener or a view, which runs in some runs of a game and not in
        others (a replay asks no heuristic): it spends from the side budget, so the game's own
        stays the same in every run, and the side work of a whole game is bounded too."""
        if self.apart:  # already apart (a view asked for within a pick)
            return work()
        saved, self.budget[0], self.apart = self.budget[0], self.side[0], True
        try:
            return work()
        except OutOfSteps as exc:
            exc.side = True
            raise
        finally:
            self.side[0], self.budget[0], self.apart = self.budget[0], saved, False

    def spend_side(self, steps: int) -> None:
        """Steps of side work done outside spent_apart (recording a decision)."""
        if self.apart:
            self.budget[0] -= steps
            if self.budget[0] < 0:
                raise OutOfSteps
            return
        self.side[0] -= steps
        if self.side[0] < 0:
            raise _side_out()  # made elsewhere: a local here would tie this frame to its traceback

    def value_of(self, function: str):
        """A function of the rules without parameters, worked out now (invariants, a scenario's
        expectations): side work, like an agent's."""
        self.memo.clear()
        try:
            return self.spent_apart(self._values[function])
        except Exception as exc:  # noqa: BLE001 - a rule failed; report it at its source line
            raise self.failure(exc) from None

    def broken_invariants(self) -> list:
        """The invariants of the rules (`invariant NAME = COND "message"`) the position breaks."""
        return [inv for name, inv in self.loaded.program.invariants.items() if self.value_of(name) is not True]

    # What the workbench reads of a game (`game { rank ... leader ... turns ... board ... }`),
    # worked out apart like a view; None where the game declares nothing.
    def ranking(self) -> list | None:
        name = self.loaded.program.game.rank
        return list(self.value_of(name)) if name else None

    def leader(self):
        name = self.loaded.program.game.leader
        return self.value_of(name) if name else None

    def turns(self) -> int | None:
        name = self.loaded.program.game.turns
        return getattr(self.state, GLOBAL_PREFIX + name) if name else None

    def board(self) -> list[str] | None:
        name = self.loaded.program.game.board
        return list(self.value_of(name)) if name else None

    def view_of(self, player) -> str:
        """The rules' view for one player (`game { view NAME }`), as lines of text."""
        self.memo.clear()
        seen = self.spent_apart(lambda: self._view(player))
        return seen if isinstance(seen, str) else "\n".join(seen)

    def error(self, sid: int | None, message: str, cls=RuleRuntimeError, hint: str | None = None) -> PitwallError:
        span = self.loaded.compiled.spans[sid] if sid is not None else None
        return cls(message, span, hint)

    def error_from_traceback(self, tb, message: str, cls=RuleRuntimeError, hint: str | None = None) -> PitwallError:
        return cls(message, rules_span(tb, self.loaded.filename, self.loaded.compiled.linemap), hint)

    # ------------------------------------------------------------ called by generated code
    def choose(self, by, name: str, options, prompt, prefer, sid: int, secret: bool = False):
        # A decision's steps (CHOOSE_STEPS) are paid with the statement, on this path as on generated
        # code's own: picking an index is no work in proportion to the options (a deck's tuple is
        # read as it is), which were paid for as they were made; an agent that reads them all
        # pays for that apart (agents.Scripted)
        n = len(options)
        if n == 0:
            raise self.error(sid, f"{by} must choose {name!r} but has no legal option")
        agent = self.agents[by.seat] if by.is_player else self.auto_agent
        if n == 1 and not agent.asks_always:
            index = 0
        elif agent.quick is not None:  # a random seat: its pick, without the general path's calls
            index = int(agent.quick() * n)
        elif agent.runs_rules:
            index = self.spent_apart(lambda: outside(agent.pick, self, by, name, options, prompt, prefer))
            if not 0 <= index < n:
                raise self.error(sid, f"agent picked option {index} of {n} for {name!r}")
        else:  # a first pick, a person: no work of the rules to budget apart
            index = outside(agent.pick, self, by, name, options, prompt, prefer)
            if not 0 <= index < n:
                raise self.error(sid, f"agent picked option {index} of {n} for {name!r}")
        choice = options[index]
        if self.record:
            entry = ("d", by.name, name, index, n, self.words(describe(choice)), secret)
            self.log.append(entry)
            if self.listener:
                self.hear(entry)
        return choice

    def words(self, text: str) -> str:
        """Every word a game tells is kept in its record: a game tells at most NARRATION_MAX
        characters, and each line told costs side steps as the record's writing takes time."""
        self.spend_side(TOLD_LINE_STEPS + len(text) // 4)
        self.told += len(text)
        if self.told > NARRATION_MAX:
            raise LimitExceeded(f"the game has told more than {NARRATION_MAX} characters of narration")
        return text

    def _tell_only(self, event: int, args: tuple):
        # No record: the listener (counting events) gets no words, so none are made.
        self.hear(("e", event, args))

    def hear(self, entry) -> None:
        """The listener hears an entry; whatever goes wrong there is not the rules' fault."""
        outside(self.listener, entry)

    def tell(self, event: int, values):
        """An event, when someone listens: its values are worked out apart (`values` is a thunk)."""
        self.spent_apart(lambda: self.emit(event, values()))

    def emit(self, event: int, args: tuple):
        # The words now: a template may read a participant's field that changes later.
        entry = ("e", event, args, self.words(narrate_event(self.loaded, event, args)))
        self.log.append(entry)
        if self.listener:
            self.hear(entry)

    def draw(self, n: int, src: list, dst: list, sid: int):
        if self.memo:
            self.memo.clear()
        if n < 0:  # it would give steps back: a loop of such draws would never end
            raise self.error(sid, f"cannot draw {n} cards: a draw takes none or more")
        self.budget[0] -= n
        if self.budget[0] < 0:
            raise OutOfSteps
        if n > len(src):
            raise self.error(sid, f"cannot draw {n} card(s): the pile holds {len(src)}")
        for _ in range(n):
            dst.append(src.pop())

    def refill(self, src: list, refill: list, sid: int):
        """An empty pile refilled from the one that refills it, shuffled (a draw of generated code)."""
        if not refill:
            raise self.error(sid, "cannot draw: the pile and the pile that refills it are both empty")
        src.extend(refill)
        refill.clear()
        self.shuffle(src)

    def move(self, card, src: list, dst: list, sid: int):
        if self.memo:
            self.memo.clear()
        self.budget[0] -= len(src)
        if isinstance(card, _Card):  # equal only to itself (no __eq__): list.index finds that one, in C
            try:
                del src[src.index(card)]
            except ValueError:
                raise self.error(sid, f"card {card} is not in the pile it should move from") from None
            dst.append(card)
            return
        for i, c in enumerate(src):
            if c is card:
                del src[i]
                dst.append(card)
                return
        raise self.error(sid, f"card {card} is not in the pile it should move from")

    def shuffle(self, pile: list):
        if self.memo:
            self.memo.clear()
        # Fisher-Yates over random(): stable across Python versions, unlike random.shuffle
        self.budget[0] -= len(pile)
        rnd = self.rng.random
        for i in range(len(pile) - 1, 0, -1):
            j = int(rnd() * (i + 1))
            pile[i], pile[j] = pile[j], pile[i]

    def roll(self, n: int, sid: int) -> int:
        if n < 1:
            raise self.error(sid, f"roll({n}): a die needs at least one side")
        return 1 + int(self.rng.random() * n)

    def finish(self, winners):
        self.result = list(dict.fromkeys(winners))  # a winner named twice wins once
        raise _Finished

    def player(self, name: str, sid: int):
        try:
            return self.by_name[name]
        except KeyError:
            raise RuleRuntimeError(f"no participant is named {name!r}", self.loaded.compiled.spans[sid],
                                   hint=f"known: {', '.join(self.by_name)}") from None

    def made(self, kind, name: str, seat: int, is_player: bool):
        """A participant of this kind. Its class works out its fields' first values in module code,
        which spends from the load's budget: where that spends at all (a list copied, a range), the
        load's budget holds the game's steps while it is made and gives back what is left, so the
        game pays, and game after game in one process cannot run the load's budget out."""
        if not kind._spends:
            return kind(name, seat, is_player)
        load = self.loaded.namespace["_budget"]
        with _LENDING:  # a cluster worker's threads play games of one loaded program
            saved, load[0] = load[0], self.budget[0]
            try:
                return kind(name, seat, is_player)
            finally:
                self.budget[0], load[0] = load[0], saved

    def new(self, kind, name: str, sid: int):
        self.memo.clear()
        # A participant lives as long as the game: dear in steps, so no loop makes millions.
        self.budget[0] -= NEW_STEPS
        # Names identify participants in records, results and player(): they must be unique.
        if name in self.by_name:
            if self.by_name[name].is_player:
                raise self.error(sid, f"there is a participant named {name!r} already: a player has the name "
                                 "the rules give to one they make", hint="choose other player names (--names)")
            raise self.error(sid, f"there is a participant named {name!r} already",
                             hint="give each participant made with 'new' a name of its own")
        p = self.made(kind, name, -1, False)
        p._h = self.auto_h
        self.by_name[name] = p
        return p


def _side_out() -> OutOfSteps:
    exc = OutOfSteps()
    exc.side = True  # the side budget ran out
    return exc


def _no_emit(event, args):
    return None


# False: every decision takes Game.choose's general path (tests/test_speed_paths.py compares)
QUICK_SEATS = True


class CodeSet:
    """The rules' functions made once (the generated _new_game), with the budget and the helpers
    they spend through, bound to one game at a time."""

    __slots__ = ("budget", "metered", "bind", "init", "rules", "view", "values")

    def __init__(self, namespace: dict):
        self.metered = metered(0)
        self.budget = self.metered["_budget"]
        self.bind, self.init, self.rules, self.view, self.values = _sharing(namespace["_new_game"],
                                                                            self.budget.cell)(self.metered)


def _sharing(new_game, cell):
    """The generated _new_game made anew around the budget's cell of a set's helpers, so that the
    rules' functions and the helpers spend from one variable: _B is its only free variable (the
    compiler nests it in a function that has one, compile.Gen.module)."""
    if new_game.__code__.co_freevars != ("_B",):
        raise AssertionError(f"_new_game's free variables: {new_game.__code__.co_freevars}")
    return FunctionType(new_game.__code__, new_game.__globals__, new_game.__name__, new_game.__defaults__, (cell,))


def _code_set(loaded) -> CodeSet:
    """A free set of the rules' functions: one a closed game gave back, else a new one. A set is
    never shared by two live games (threads of a cluster's worker included): list.pop is atomic."""
    try:
        return loaded.pool.pop()
    except IndexError:
        return CodeSet(loaded.namespace)


def rules_span(tb, filename: str, linemap: list) -> Span | None:
    """The rules line behind the innermost generated-code frame of a traceback."""
    span = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename and 0 < tb.tb_lineno <= len(linemap):
            span = linemap[tb.tb_lineno - 1] or span
        tb = tb.tb_next
    return span


def load_error(exc: Exception, filename: str, linemap: list) -> RuleRuntimeError:
    """A constant, deck or requirement that fails while the rules load (`const X = 1 / 0`); a
    requirement the constant data do not meet is requires.py's."""
    span = rules_span(exc.__traceback__, filename, linemap)
    if isinstance(exc, OutOfSteps):
        return BudgetError(f"while loading the rules: constants, decks and requirements took more than "
                           f"{LOAD_BUDGET} steps", span, "work out fewer or smaller values at load time")
    return RuleRuntimeError(f"while loading the rules: {_explain(exc)}", span)


def _explain(exc: Exception) -> str:
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if isinstance(exc, LimitExceeded):
        return str(exc)
    if isinstance(exc, IndexError):
        return "index out of range: the list or pile is shorter than that"
    if isinstance(exc, KeyError):
        return f"no entry for {exc.args[0]} (was a choice made for it?)"
    if isinstance(exc, AttributeError) and "NoneType" in str(exc):
        return "a value is 'none' here (an empty pile's top, or an unset participant)"
    if isinstance(exc, ValueError) and "empty" in str(exc):
        return "min or max of nothing: the collection is empty"
    if isinstance(exc, ValueError) and "is not in list" in str(exc):
        return "index_of: the value is not in the list or pile"
    if isinstance(exc, TypeError) and "NoneType" in str(exc):
        return "a value is 'none' here (an empty pile's top or first, or an unset participant)"
    # Anything else is a gap in the checker, not the rules' fault: say so, in the rules' words only
    # (a Python message could name generated code).
    return "this operation cannot be done here (Pitwall's checker should have refused it: please report it)"


def span_text(span: Span | None) -> str:
    return str(span) if span else "?"
