"""A recorded game, replayed and watched: each line with the public state at that moment.

`watch` replays a record as `record.replay` does (every line compared, every pick checked
against its seat's agent, failing at the first divergence), and hands each line on with the
options the decider had and what anyone at the table could see then. `replay --json` prints
these steps as JSON Lines; `viewer_html` draws them as one self-contained HTML page.

The public state reads only what the rules declare: each participant's fields and the globals,
a `secret` or `hidden` one shown only as a count (a pile or list) or as hidden (any other
value), as the `human` agent's default view hides another's; and the game's `board`, `turns`
and `leader` declarations. Nothing here knows any game.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs

from .agents import Agent, Scripted
from .limits import STEP_BUDGET
from .record import (
    Record,
    _Check,
    _Ended,
    _mismatch_hint,
    _Place,
    _same,
    _seated,
    checked_game,
    jsonable,
    rules_of,
    text_of,
)
from .runtime import GLOBAL_PREFIX, Game, _Card, describe, field_of


@attrs.frozen
class Step:
    """One line of the record as the game told it again, with what the viewer shows of it."""

    number: int  # the record's line number (the header is line 1)
    line: dict  # the record's line: a decision, an event or the result
    options: tuple[str, ...] | None  # a decision's legal options, in the game's words
    state: dict | None  # the public state: for a decision, before its choice


class _Enough(Exception):
    """The last line of a record of a game stopped part-way has been watched: stop there."""


class _Watching(Agent):
    """The record's agent, noting the options of each decision before it picks."""

    name = "the record"
    asks_always = True

    def __init__(self, inner: Agent):
        self.inner = inner
        self.options: tuple[str, ...] = ()

    def pick(self, game, by, decision, options, prompt, prefer):
        self.options = tuple(describe(o) for o in options)
        return self.inner.pick(game, by, decision, options, prompt, prefer)


def watch(record: Record, on_step: Callable[[Step], None], *, event_states: bool = True,
          partial: bool = False) -> Game:
    """Replay `record` as `record.replay` does, telling `on_step` each line with its state (for
    events only with `event_states`). With `partial`, a game stopped part-way is watched up to
    its last line; otherwise it is the error replay gives."""
    loaded = rules_of(record)
    agents = list(record.header.agents)
    decisions = [(d["by"], d["decision"], d["option"], d["pick"], _Place(record, i))
                 for i, d in enumerate(record.body, 2) if "decision" in d]
    agent = _Watching(Scripted(decisions, str(record.path), _Ended(record), check=_seated(record, agents),
                               mismatch_hint=_mismatch_hint(record, agents)))
    budget = [STEP_BUDGET]  # the viewer's own: its work never spends what the game's agents may
    values = _Values()
    game: Game | None = None  # made below: the listener needs the check, the check the listener
    numbers = iter(range(2, len(record.texts) + 1))  # each line is heard once, in order, once checked

    def heard(line: dict) -> None:
        number = next(numbers)
        decision = "decision" in line
        state = public_state(game, budget, values) if decision or event_states or "result" in line else None
        on_step(Step(number, line, agent.options if decision else None, state))
        if partial and number == len(record.texts) and "result" not in line:
            raise _Enough

    check = _Check(record, loaded, heard, None)
    game = checked_game(record, loaded, agent, check)
    try:
        game.run()
        check.result(game)
    except _Enough:
        pass
    return game


def public_state(game: Game, budget: list[int], values: _Values | None = None) -> dict:
    """What anyone at the table sees now (keys as docs/viewer.md lists them)."""
    values = values or _Values()
    program = game.loaded.program
    decl = program.game
    globals_ = {name: getattr(game.state, GLOBAL_PREFIX + name, None) for name in program.globals}
    hidden = {name for name, f in program.globals.items() if f.visibility != "public"}
    return {
        "participants": [_participant(p, values) for p in game.by_name.values()],
        "globals": _shown(globals_, hidden, values),
        "board": _apart(game, budget, game.board) if decl.board else None,
        "turns": game.turns() if decl.turns else None,
        "leader": values(_apart(game, budget, game.leader)) if decl.leader else None,
    }


def _participant(p, values: _Values) -> dict:
    fields = {f: field_of(p, f) for f in p._fields}
    # _secret holds every field that is not public: hidden ones too (face down to everybody)
    return {"name": p.name, "kind": p._kind, "player": p.is_player,
            **_shown(fields, set(p._secret) | set(p._hidden), values)}


def _shown(fields: dict, hidden: set[str], values: _Values) -> dict:
    """Public values in full; the others as the count of what they hold, or null (a single value)."""
    return {"fields": {k: values(v) for k, v in fields.items() if k not in hidden},
            "hidden": {k: len(v) if isinstance(v, (list, tuple)) else None for k, v in fields.items()
                       if k in hidden}}


_PLAIN = (int, str, bool, type(None))  # values that are JSON as they are


class _Values:
    """Values as JSON, as record.jsonable gives them; a card's words are worked out once, as
    cards never change (the same tables are read again at every step)."""

    def __init__(self):
        self.cards: dict[int, tuple] = {}  # id -> (card, words): the card is kept, so its id is never reused

    def __call__(self, x):
        if type(x) in _PLAIN:
            return x
        if isinstance(x, _Card):
            known = self.cards.get(id(x))
            if known is None:
                known = self.cards[id(x)] = (x, str(x))
            return known[1]
        if isinstance(x, (list, tuple)):
            return [self(i) for i in x]
        if isinstance(x, dict):
            return {describe(k): self(v) for k, v in x.items()}
        return jsonable(x)


def _apart(game: Game, budget: list[int], work: Callable):
    """Run the rules' code for the viewer on a step budget of its own: the game's side budget,
    which its agents spend when a replay checks their picks, stays as it would be unwatched, so
    watching never changes whether a replay passes; and a board that works too hard still stops."""
    if game.apart:  # within an event's telling: the game's live counter is the side one
        saved, game.budget[0] = game.budget[0], budget[0]
        try:
            return work()
        finally:
            budget[0], game.budget[0] = game.budget[0], saved
    saved, game.side[0] = game.side[0], budget[0]
    try:
        return work()
    finally:
        budget[0], game.side[0] = game.side[0], saved


def step_json(step: Step) -> dict:
    """A step as `replay --json` prints it: one object per decision, event and the result."""
    line = step.line
    if "decision" in line:
        return {"line": step.number, "decision": line["decision"], "by": line["by"], "options": list(step.options),
                "choice": line["pick"], "option": line["option"], "secret": line["secret"], "state": step.state}
    if "event" in line:
        return {"line": step.number, "event": line["event"], "text": line["text"], "args": line["args"]}
    return {"line": step.number, "result": line["result"], "state": step.state}


# ---------------------------------------------------------------- the HTML page (`pitwall view`)
def html_page(record: Record, game: Game, steps: list[Step]) -> str:
    """One self-contained page: the steps, and the state at each as changes from the one before."""
    from .viewer_template import fill

    decl = game.loaded.program.game
    h = record.header
    about = ", ".join(f"{name} ({agent})" for name, agent in zip(h.players, h.agents)) + f"; seed {h.seed}"
    if h.variants:
        about += "; variants " + ", ".join(h.variants)
    if h.settings:
        about += "; " + ", ".join(f"{k}={v}" for k, v in h.settings)
    data = {"steps": [_compact(s) for s in steps], "diffs": _diffs([_flat(s.state) for s in steps]),
            "first_line": steps[0].number if steps else 2}
    return fill(f"{decl.title}: {Path(record.path).name}", about, data)


def _compact(step: Step) -> list:
    """A step for the page: its kind and narration; a decision also with who, its pick, the
    number of options, the options, and (made secretly) its words with the choice, which the
    page shows only when asked to show what only the decider knew."""
    line = step.line
    text = text_of(line, decisions=True)
    if "decision" in line:
        text = text.strip()  # narration indents a decision under the events
        told = f"> {line['by']} chooses {line['decision']} (secretly)" if line["secret"] else text
        return ["d", told, line["by"], line["pick"], line["of"], list(step.options), text if line["secret"] else None]
    if "event" in line:
        return ["e", text, line["event"]]
    return ["r", text]


def _flat(state: dict) -> dict:
    """The state as one level of keys, so each step keeps only the keys that changed: N3 a
    participant's name, K3 its kind, Y3 whether a player, P3.f.NAME and P3.h.NAME its public and
    hidden fields; G.f.NAME and G.h.NAME the globals; B0.. the board; T turns; L the leader."""
    out: dict = {}
    for i, p in enumerate(state["participants"]):
        out.update({f"N{i}": p["name"], f"K{i}": p["kind"], f"Y{i}": p["player"]})
        out.update({f"P{i}.f.{k}": v for k, v in p["fields"].items()})
        out.update({f"P{i}.h.{k}": v for k, v in p["hidden"].items()})
    out.update({f"G.f.{k}": v for k, v in state["globals"]["fields"].items()})
    out.update({f"G.h.{k}": v for k, v in state["globals"]["hidden"].items()})
    out.update({f"B{i}": text for i, text in enumerate(state["board"] or ())})
    out.update({"T": state["turns"], "L": state["leader"]})
    return out


def _diffs(states: list[dict]) -> list:
    """Per step, the keys whose values changed (the first step: all of them); with keys gone as
    well (a shorter board), a pair [changed, gone]."""
    out, before = [], {}
    for state in states:
        changed = {k: v for k, v in state.items() if k not in before or not _same(before[k], v)}
        gone = [k for k in before if k not in state]
        out.append([changed, gone] if gone else changed)
        before = state
    return out
