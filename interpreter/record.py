"""Game records (JSON Lines), narration, and replay that fails loudly at the first divergence.

A record is a header line (game, variants, rules hash, seed, players, agents), then one line per
decision and per event in the order they happened, then the result. Narration reads only this.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import attrs

from .. import __version__
from .agents import AGENTS, Scripted, Seated
from .errors import PitwallError, RecordError, read_text
from .load import Loaded, load
from .runtime import Game, _Card, _Participant, describe, field_of


@attrs.frozen
class Header:
    game: str
    variants: tuple[str, ...]
    rules_hash: str
    seed: int
    players: tuple[str, ...]
    agents: tuple[str, ...]
    settings: tuple[tuple[str, str], ...] = ()

    def line(self) -> str:
        head = {"record": "pitwall", "version": 1, "pitwall": __version__, "game": self.game,
                "variants": list(self.variants), "rules_hash": self.rules_hash, "seed": self.seed,
                "players": list(self.players), "agents": list(self.agents)}
        if self.settings:
            head["settings"] = dict(self.settings)
        return dumps_line(head)


def dumps_line(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def jsonable(x):
    if isinstance(x, _Participant):
        return x.name
    if isinstance(x, _Card):
        return str(x)
    if isinstance(x, (list, tuple)):
        return [jsonable(i) for i in x]
    if isinstance(x, dict):
        return {describe(k): jsonable(v) for k, v in x.items()}
    return x


def entry_line(loaded: Loaded, entry: tuple) -> dict:
    if entry[0] == "d":
        _, by, name, index, n, text, secret = entry
        return {"decision": name, "by": by, "pick": index, "of": n, "option": text, "secret": secret}
    _, event, args, text = entry  # the text was worked out when the event was told
    c = loaded.compiled
    args_json = {k: jsonable(v) for k, v in zip(c.event_params[event], args)}
    return {"event": c.events[event], "text": text, "args": args_json}


def result_line(game: Game) -> dict:
    score = game.loaded.program.game.score
    scores = {p.name: field_of(p, score) for p in game.by_name.values() if score in p._fields} if score else {}
    return {"result": {"winners": [w.name for w in game.result or []], "scores": scores}}


def record_lines(game: Game, header: Header, finished: bool = True) -> list[str]:
    """The record's lines; an unfinished game (stopped part-way) has no result line yet."""
    lines = [header.line()]
    lines += [dumps_line(entry_line(game.loaded, e)) for e in game.log]
    if finished:
        lines.append(dumps_line(result_line(game)))
    return lines


def save_lines(path: Path, lines: list[str]) -> None:
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def text_of(line: dict, decisions: bool = False) -> str | None:
    """The narration of one record line (None for lines that are not told)."""
    if "event" in line:
        return line["text"]
    if "decision" in line and decisions:
        how = " (secretly)" if line.get("secret") else ""
        return f"  > {line['by']} chooses {line['decision']}: {line['option']}{how}"
    if "result" in line:
        return "Winners: " + (", ".join(line["result"]["winners"]) or "nobody")
    return None


# ---------------------------------------------------------------- reading and replay
def read_record(path: Path) -> tuple[Header, list[dict]]:
    raw = read_text(path, "record", RecordError).splitlines()
    while raw and not raw[-1].strip():  # blank lines at the end, as editors leave them
        raw.pop()
    lines = []
    for i, text in enumerate(raw, 1):
        try:
            line = json.loads(text)
        except json.JSONDecodeError as e:
            hint = "a game stopped while writing? delete the broken last line" if i == len(raw) else None
            raise RecordError(f"{path}:{i}: not a JSON line ({e.msg} at column {e.colno})", hint=hint) from None
        if not isinstance(line, dict):
            raise RecordError(f"{path}:{i}: each line of a record is a JSON object {{...}}, not {text[:40]}")
        lines.append(line)
    if not lines or lines[0].get("record") != "pitwall":
        raise RecordError(f"{path}:1: not a Pitwall game record (the first line must be its header)")
    return _header(path, lines[0]), lines[1:]


def _header(path: Path, h: dict) -> Header:
    def texts(key):
        value = h.get(key)
        if not (isinstance(value, list) and all(isinstance(x, str) for x in value)):
            raise RecordError(f"{path}:1: the header's {key!r} must be a list of texts, not {value!r}")
        return tuple(value)

    for key in ("game", "rules_hash"):
        if not isinstance(h.get(key), str):
            raise RecordError(f"{path}:1: the header's {key!r} must be a text, not {h.get(key)!r}")
    if not isinstance(h.get("seed"), int) or isinstance(h.get("seed"), bool):
        raise RecordError(f"{path}:1: the header's 'seed' must be a whole number, not {h.get('seed')!r}")
    settings = h.get("settings", {})
    if not isinstance(settings, dict):
        raise RecordError(f"{path}:1: the header's 'settings' must be an object, not {settings!r}")
    header = Header(h["game"], texts("variants"), h["rules_hash"], h["seed"], texts("players"), texts("agents"),
                    tuple((str(k), str(v)) for k, v in settings.items()))
    if len(header.agents) != len(header.players):
        raise RecordError(f"{path}:1: {len(header.agents)} agents for {len(header.players)} players")
    unknown = [a for a in header.agents if a not in AGENTS]
    if unknown:
        raise RecordError(f"{path}:1: unknown agent {unknown[0]!r}", hint="agents: " + ", ".join(AGENTS))
    return header


def _decision(d: dict, where: str) -> tuple:
    pick, option = d.get("pick"), d.get("option")
    if not (pick is None or (isinstance(pick, int) and not isinstance(pick, bool))):
        raise RecordError(f"{where}: 'pick' must be a whole number, not {pick!r}")
    if not (option is None or isinstance(option, str)):
        raise RecordError(f"{where}: 'option' must be a text, not {option!r}")
    return d.get("by"), d.get("decision"), option, pick, where


def replay(path: Path, listener: Callable[[dict], None] | None = None, go_on: Callable | None = None,
           on_new: Callable[[dict], None] | None = None) -> Game:
    """Re-run a record's decisions with today's rules and compare every line.

    With `go_on`, the record is a game stopped part-way: once its decisions run out, the agents
    `go_on(header)` gives (one per seat, and one for the automatic participants) play on, and
    every line past the record goes to `on_new`.
    """
    header, body = read_record(path)
    if go_on is not None and body and "result" in body[-1]:
        raise RecordError(f"{path}:{len(body) + 1}: this game is over", hint=f"pitwall replay {path} shows it")
    from .engine import player_names  # engine writes records: imported here, not at the top

    try:
        loaded = load(header.game, header.variants, header.settings)
        player_names(loaded, len(header.players), list(header.players))
        agents = go_on(header) if go_on is not None else None
    except RecordError:
        raise
    except PitwallError as e:  # the header names a game, variant, setting, player count or agent
        raise RecordError(f"{path}:1: {e.message}", hint=e.hint) from None
    if loaded.rules_hash != header.rules_hash:
        raise RecordError(f"{path}:1: the record was made with other rules (hash {header.rules_hash}); "
                          f"these rules hash to {loaded.rules_hash}",
                          hint="the rules changed since the game was recorded; re-record it")
    decisions = [_decision(d, f"{path}:{i}") for i, d in enumerate(body, 2) if "decision" in d]
    agent = Scripted(decisions, str(path), Seated(*agents) if agents is not None else None)
    checked = [0]

    def verify(entry: tuple) -> None:
        i = checked[0]
        got = json.loads(dumps_line(entry_line(loaded, entry)))
        if go_on is not None and i >= len(body):
            checked[0] += 1
            on_new(got)
            return
        if i >= len(body) or body[i] != got:
            want = body[i] if i < len(body) else "the end of the record"
            raise RecordError(f"{path}:{i + 2}: replay diverges here", hint=f"record: {want}\n  now:    {got}")
        checked[0] += 1
        if listener:
            listener(got)

    game = Game(loaded, list(header.players), [agent] * len(header.players), header.seed, listener=verify,
                auto_agent=agent)
    game.run()
    result = json.loads(dumps_line(result_line(game)))
    i = checked[0]
    if go_on is not None:
        on_new(result)
        return game
    if i >= len(body) or body[i] != result:
        want = body[i] if i < len(body) else "the end of the record"
        raise RecordError(f"{path}:{i + 2}: replay diverges at the result", hint=f"record: {want}\n  now: {result}")
    if i + 1 != len(body):
        raise RecordError(f"{path}:{i + 3}: the record goes on after the game ended")
    if listener:
        listener(result)
    return game


def narration(lines: list[dict], decisions: bool = False) -> list[str]:
    return [t for t in (text_of(line, decisions) for line in lines) if t is not None]
