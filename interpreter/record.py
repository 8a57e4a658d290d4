"""Game records (JSON Lines), narration, and replay that fails loudly at the first divergence.

A record is a header line (game, variants, rules hash, seed, players, agents, and each rules
file's name and hash), then one line per decision and per event in the order they happened,
then the result. Narration reads only this.

Records travel: a variant file of one's own is kept whole in the header, so a record replays
anywhere; rules that changed since are named file by file, and `replay_changed` replays a
record under the rules as they are now, to the first line that differs.

Records are written as the game goes (record_write.RecordWriter: each line is one write the
moment it is told), so a game stopped any way at all keeps every line so far. They are read
strictly (record_read.read): every key and JSON type is checked, each line is bounded in length
and nesting before it is parsed, and every error points at the line and column it is about.
This module is the API the rest imports, those two's names included.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import attrs

from .agents import AGENTS, Agent, Scripted, Seated
from .errors import PitwallError
from .limits import STEP_BUDGET
from .load import EXT, GAMES, GameDir, Loaded, ParsedPath, build, canonical, find_game, load
from .overrides import is_override, override_variant
from .parse import parse
from .record_read import (
    DECISION_KEYS,
    EVENT_KEYS,
    HEADER_KEYS,
    RESULT_KEYS,
    Header,
    Record,
    RecordFileError,
    RecordNote,
    RulesFile,
    _shown,
    dumps_line,
    read,
    read_record,
    render_error,
    short_hash,
    text_problem,
)
from .record_write import RecordWriter
from .runtime import Game, _Card, _Participant, describe, field_of

__all__ = ["DECISION_KEYS", "EVENT_KEYS", "HEADER_KEYS", "RESULT_KEYS", "Difference", "Header", "Record",
           "RecordFileError", "RecordNote", "RecordWriter", "RulesFile", "changed_files", "dumps_line", "entry_line",
           "jsonable", "narration", "read", "read_record", "record_lines", "render_error", "replay", "replay_changed",
           "result_line", "rules_differ", "rules_of", "save_lines", "text_of", "text_problem", "travelling",
           "unchecked_seats"]

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
    scores = ({p.name: jsonable(field_of(p, score)) for p in game.by_name.values() if score in p._fields}
              if score else {})
    return {"result": {"winners": [w.name for w in game.result or []], "scores": scores}}


def record_lines(game: Game, header: Header, finished: bool = True) -> list[str]:
    """The record's lines from `game.log`; an unfinished game (stopped part-way) has no result line yet."""
    lines = [(header if header.files else travelling(header, game.loaded)).line()]
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


def narration(lines: list[dict], decisions: bool = False) -> list[str]:
    return [t for t in (text_of(line, decisions) for line in lines) if t is not None]


# ---------------------------------------------------------------- the rules files a record keeps
def rules_files(loaded: Loaded) -> tuple[RulesFile, ...]:
    """Every file that made the rules, base files first, each named in its game's folder (a variant
    given as a file by its own name, its text kept: it may be nowhere else), with its hash."""
    sources = list(loaded.program.sources.items())
    first_variant = len(sources) - len(loaded.variants)
    out = []
    for i, (path, text) in enumerate(sources):
        variant = loaded.variants[i - first_variant] if i >= first_variant else None
        if variant is not None and variant.endswith(EXT):  # a file of one's own: travels with the record
            out.append(RulesFile(Path(path).name, short_hash(text), Path(path).name, text))
            continue
        out.append(RulesFile(_in_game(loaded.game, Path(path)), short_hash(text), variant))
    return tuple(out)


def _in_game(game: GameDir | None, path: Path) -> str:
    try:
        return path.resolve().relative_to(game.path.resolve()).as_posix() if game else path.name
    except ValueError:
        return path.name


def travelling(header: Header, loaded: Loaded) -> Header:
    """The header with every rules file's name and hash, and a variant of one's own by its file's
    name (not its path here) with its text: the record replays on another machine."""
    files = rules_files(loaded)
    variants = tuple(f.variant for f in files if f.variant is not None)
    return attrs.evolve(header, variants=variants, files=files)


def _shown_name(game: GameDir | None, file: RulesFile) -> str:
    """How a message names a rules file: as the games folder has it (games/GAME/rules.pw)."""
    if file.text is not None or game is None:
        return file.file
    path = (game.path / file.file).resolve()
    for root in (GAMES.resolve().parent, Path.cwd()):  # games/GAME/rules.pw; a game of one's own from here
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            continue
    return str(path)


def changed_files(record: Record, loaded: Loaded) -> list[tuple[tuple, str]]:
    """What differs between the rules files the header names and those that make `loaded`: (where
    in the header, a sentence), in the header's order, then the files that are new."""
    recorded, now = record.header.files, rules_files(loaded)
    if not recorded:
        return []
    game = loaded.game
    out: list[tuple[tuple, str]] = []
    now_by = {(f.file, f.variant): f for f in now}
    for i, f in enumerate(recorded):
        current = now_by.pop((f.file, f.variant), None)
        if current is None:
            out.append((("files", i), f"{_shown_name(game, f)}, with which the game was recorded, is not among "
                                      "the rules now"))
        elif current.sha256 != f.sha256:
            out.append((("files", i, "sha256"), f"{_shown_name(game, f)} changed since the game was recorded "
                           f"(hash {f.sha256} now {current.sha256})"))
    out += [(("files",), f"{_shown_name(game, f)} is new since the game was recorded") for f in now_by.values()]
    return out


# ---------------------------------------------------------------- replay
@attrs.frozen
class _Place:
    """A decision line of a record, for Scripted: its errors point at a key of that line."""

    record: Record
    number: int

    def error(self, message: str, key: str | None = None, hint: str | None = None) -> RecordFileError:
        return self.record.error(self.number, message, (key,) if key else None, hint)


class _Ended(Agent):
    """A replay's agent once the record's decisions run out: the game asks one more."""

    name = "the end of the record"
    asks_always = True

    def __init__(self, record: Record):
        self.record = record

    def pick(self, game, by, decision, options, prompt, prefer):
        raise _ends_early(self.record, f"it asks {by.name}'s {decision!r}")


def _ends_early(record: Record, what: str) -> RecordFileError:
    hint = f"a game stopped part-way: pitwall resume {record.path} plays it on"
    return record.error(len(record.texts), f"the record ends after this line, but the game goes on ({what})",
                        hint=hint)


def replay(source: Path | Record, listener: Callable[[dict], None] | None = None, *,
           play_on: list[str] | None = None, on_new: Callable[[dict], None] | None = None) -> Game:
    """Re-run a record's decisions with today's rules and compare every line, strictly.

    Each recorded pick is also checked against the agent of its seat: `first` and `heuristic`
    pick what the position gives, `random` what its own seeded generator gives (asked in the
    same order as in the game), and the participants the rules make are played by `heuristic`;
    only a `human` seat can pick anything.

    With `play_on` (an agent per seat), the record is a game stopped part-way: its picks are
    checked against those agents, and once its decisions run out they play on; every line past
    the record goes to `on_new`.
    """
    record = source if isinstance(source, Record) else read(source)
    if play_on is not None and record.finished:
        raise record.error(len(record.texts), "this game is over: there is nothing to resume",
                           hint=f"pitwall replay {record.path} shows it")
    loaded = rules_of(record)
    agents = list(play_on) if play_on is not None else list(record.header.agents)
    seated = _seated(record, agents)
    decisions = [(d["by"], d["decision"], d["option"], d["pick"], _Place(record, i))
                 for i, d in enumerate(record.body, 2) if "decision" in d]
    fallback = seated if play_on is not None else _Ended(record)
    agent = Scripted(decisions, str(record.path), fallback, check=seated,
                     mismatch_hint=_mismatch_hint(record, agents))
    check = _Check(record, loaded, listener, on_new if play_on is not None else None)
    game = checked_game(record, loaded, agent, check)
    game.run()
    check.result(game)
    return game


def checked_game(record: Record, loaded, agent, check: _Check) -> Game:
    """The record's game, every seat (and every participant made with `new`) answered by `agent`,
    each line it tells checked by `check`; with the budget play gave it (engine.new_game), so a game
    the budget stopped stops here too."""
    players = list(record.header.players)
    return Game(loaded, players, [agent] * len(players), record.header.seed, listener=check.line,
                auto_agent=agent, budget=STEP_BUDGET)


def _seated(record: Record, agents: list[str]) -> Seated:
    from .engine import seat_agents  # engine makes records: imported here, not at the top

    seats, auto = seat_agents(agents, record.header.seed)
    return Seated(seats, auto)


def _mismatch_hint(record: Record, agents: list[str]) -> Callable[[object], str]:
    def hint(by) -> str:
        if not by.is_player:
            return "the rules' own participants are played by the heuristic agent: the record was edited"
        seat = by.seat + 1
        if agents[by.seat] != record.header.agents[by.seat]:  # resume --agent SEAT=NAME
            return (f"{by.name} can play on only as an agent that could have made its decisions so far: "
                    f"--agent {seat}=human takes the seat over")
        return (f"the record's header says {by.name} is played by {agents[by.seat]!r}, and this decision is not "
                "that agent's: the header or the decisions were edited")
    return hint


@attrs.define
class _Check:
    """Compares each line the game tells with the record's; past its end, hands them on (resume).
    With `changed` (replay --rules-changed), the first line that differs ends the replay with it."""

    record: Record
    loaded: Loaded
    listener: Callable[[dict], None] | None
    on_new: Callable[[dict], None] | None
    checked: int = 0
    changed: bool = False

    def line(self, entry: tuple) -> None:
        got = json.loads(dumps_line(entry_line(self.loaded, entry)))
        body, i = self.record.body, self.checked
        self.checked += 1
        if i >= len(body):
            if self.changed:
                raise _Differs(Difference(i + 2, None, got))
            if self.on_new is None:
                raise _ends_early(self.record, f"it tells the event {got['event']!r}" if "event" in got
                                  else f"it records {got['by']}'s {got['decision']!r}")
            self.on_new(got)
            return
        self._against(i, got, "here")

    def _against(self, i: int, got: dict, where: str) -> None:
        """Line i of the record's body against the line the game told: the same goes to the
        listener; another is a difference (with --rules-changed) or the divergence."""
        expected = self.record.body[i]
        if not _same(expected, got):
            if self.changed:
                raise _Differs(Difference(i + 2, expected, got))
            raise _divergence(self.record, i + 2, expected, got, where)
        if self.listener:
            self.listener(got)

    def result(self, game: Game) -> None:
        got = json.loads(dumps_line(result_line(game)))
        body, i = self.record.body, self.checked
        if self.on_new is not None:
            self.on_new(got)
            return
        if i >= len(body):
            if self.changed:
                raise _Differs(Difference(i + 2, None, got))
            raise _ends_early(self.record, "it ends with its result")
        self._against(i, got, "at the result")


def _same(a, b) -> bool:
    """Equal as JSON: unlike ==, true is not 1 and 5.0 is not 5."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _difference(a, b, at: tuple = ()) -> tuple:
    """The path of the first value where two lines differ (the whole object if their keys do)."""
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        key = next(k for k in a if not _same(a[k], b[k]))
        return _difference(a[key], b[key], at + (key,))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        i = next(i for i, (x, y) in enumerate(zip(a, b)) if not _same(x, y))
        return _difference(a[i], b[i], at + (i,))
    return at


def _divergence(record: Record, number: int, want: dict, got: dict, where: str) -> RecordFileError:
    at = _difference(want, got)
    w, g = want, got
    for step in at:
        w, g = w[step], g[step]
    return record.error(number, f"the replay diverges {where}", at or None,
                        hint=f"the record has {_shown(w, 200)}, the game now tells {_shown(g, 200)}")


# ---------------------------------------------------------------- replay --rules-changed
@attrs.frozen
class Difference:
    """The first line of a record the rules as they are now tell otherwise."""

    number: int  # the record's line
    recorded: dict | None  # that line; None: the record ends before it (a game stopped part-way)
    now: dict | None  # the line the game tells now instead; None: it asks a decision, see `asked`
    asked: str | None = None  # the decision the game asks now, with its options, where the record has `recorded`


class _Differs(PitwallError):
    def __init__(self, difference: Difference):
        super().__init__(f"line {difference.number} of the record differs")
        self.difference = difference


class _Follow(Agent):
    """Picks what the record's next line picks, by the option's text, where the game asks that
    decision and still offers that option; anything else is the first difference."""

    name = "the record"
    asks_always = True

    def __init__(self, check: _Check):
        self.check = check

    def pick(self, game, by, decision, options, prompt, prefer):
        body, i = self.check.record.body, self.check.checked
        want = body[i] if i < len(body) else None
        texts = [describe(o) for o in options]
        if want is not None and "decision" in want and (want["by"], want["decision"]) == (by.name, decision):
            if want["pick"] < len(texts) and texts[want["pick"]] == want["option"]:
                return want["pick"]
            if want["option"] in texts:  # offered still, elsewhere among the options: the line shows it
                return texts.index(want["option"])
        asked = f"{by.name} chooses {decision} among {len(texts)}: " + ", ".join(texts)
        raise _Differs(Difference(i + 2, want, None, asked))


def replay_changed(record: Record, listener: Callable[[dict], None] | None = None) -> Difference | None:
    """Replay a record's decisions under the rules as they are now (no hash check, no agent check:
    each decision is made as recorded, by its option's text) and return the first line the game
    tells otherwise, or None if every line of the record comes again. Lines that match go to
    `listener`. A decision the rules no longer offer is a difference; so is a game that ends
    sooner or later than the record. A record of a game stopped part-way is compared up to its end."""
    loaded = rules_of(record, same_rules=False)
    check = _Check(record, loaded, listener, None, changed=True)
    agent = _Follow(check)
    game = checked_game(record, loaded, agent, check)
    try:
        game.run()
        check.result(game)
    except _Differs as d:
        return d.difference if d.difference.recorded is not None else None
    return None


def rules_of(record: Record, same_rules: bool = True) -> Loaded:
    """The rules the header names, checked against its player count and (with `same_rules`) its
    rules hash: rules that changed since are an error that says which file changed."""
    from .engine import player_names

    h = record.header
    try:
        loaded = _loaded(record)
    except PitwallError as e:
        if e.span is not None:  # the game's own rules fail: the error points into them
            raise
        raise record.error(1, e.message, getattr(e, "at", None) or (_culprit(h),), e.hint) from None
    except OSError as e:  # a game or variant named by a path the system refuses (too long, say)
        raise record.error(1, f"no game can be loaded from {_shown(h.game)}: {e.strerror}", (_culprit(h),),
                           "the header names the game as pitwall play does: a game's name or its folder") from None
    try:
        player_names(loaded, len(h.players), list(h.players))
    except PitwallError as e:
        raise record.error(1, e.message, ("players",), e.hint) from None
    if same_rules:
        differences = rules_differ(record, loaded)
        if differences:
            (at, first), more = differences[0], [text for _, text in differences[1:]]
            also = f"; and {len(more)} more: " + "; ".join(more) if more else ""
            raise record.error(1, first + also, at,
                               hint=f"pitwall replay {record.path} --rules-changed replays it under the rules as "
                                    "they are and shows the first line that differs; or re-record the game")
    return loaded


def rules_differ(record: Record, loaded: Loaded) -> list[tuple[tuple, str]]:
    """How the rules differ from those the game was recorded with: each file that changed, or
    else the rules hash. (A variant file built from the text the record keeps has a path of its
    own now, which the rules hash reads: then the files' hashes say it.)"""
    h = record.header
    changes = changed_files(record, loaded)
    if changes or loaded.rules_hash == h.rules_hash or any(f.text is not None for f in h.files):
        return changes
    return [(("rules_hash",), f"the record was made with other rules (hash {h.rules_hash}); these rules hash to "
                              f"{loaded.rules_hash}")]


def _loaded(record: Record) -> Loaded:
    """The game and variants the header names, a variant whose text the record keeps built from it."""
    h = record.header
    kept = [f for f in h.files if f.variant is not None and f.text is not None]
    if not any(f.variant in h.variants for f in kept):
        return load(h.game, h.variants, h.settings)
    try:
        game = find_game(h.game)
    except PitwallError as e:
        e.at = ("game",)
        raise
    paths = []
    for i, name in enumerate(h.variants):
        f = next((f for f in kept if f.variant == name), None)
        if f is not None:  # named after the record, so its errors say where the text is
            kept.remove(f)
            path = ParsedPath(parse(f.text, f"{record.path}/{f.file}"))
            path.source_text = f.text
        else:
            path = _variant_file(game, name, i)
        paths.append(path)
    try:
        return build(game.base_files(), paths, game, h.variants, settings=h.settings)
    except PitwallError as e:
        if e.span is None:  # not the rules': a setting the header gives
            e.at = ("settings",)
        raise


def _variant_file(game: GameDir, name: str, i: int) -> Path:
    """A variant named as load names it: a file of one's own by its path, else by its name."""
    if is_override(name):  # NAME=VALUE: made again from its name
        return override_variant(name)[0]
    if name.endswith(EXT):
        path = Path(name).expanduser().resolve()
        if path.is_file():
            return path
        error = PitwallError(f"no variant file {name!r}")
    else:
        available = game.variant_files()
        if canonical(name) in available:
            return available[canonical(name)]
        error = PitwallError(f"{game.name} has no variant {name!r}",
                             hint="variants: " + (", ".join(available) or "none") + ", or a path to a .pw file")
    error.at = ("variants", i)
    raise error


def _culprit(h: Header) -> str:
    """Which of the header's game, variants and settings does not load (only after one failed)."""
    for key, args in (("game", (h.game,)), ("variants", (h.game, h.variants))):
        try:
            load(*args)
        except (PitwallError, OSError):
            return key
    return "settings"


def unchecked_seats(header: Header, agents: list[str]) -> list[int]:
    """Seats whose agent, as the header names it, nobody can check against the record: a person."""
    return [i for i, (named, now) in enumerate(zip(header.agents, agents))
            if named == now and not AGENTS[now].checkable]
