"""Reading a game record strictly: the header, each line's bounds, JSON and keys, and errors that
point at the line and column they are about (record.py replays; record_write.py writes).

Every key and JSON type is checked, each line is bounded in length and nesting before it is
parsed, and a last line cut mid-way (the game was killed while writing it) is told apart.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path

import attrs

from .. import __version__
from .agents import AGENTS
from .errors import RecordError, Span
from .limits import INT_DIGITS_MAX, RECORD_DEPTH_MAX, RECORD_LINE_MAX, SEED_MAX, SOURCE_MAX


@attrs.frozen
class RulesFile:
    """One rules file that made a recorded game: its name in the game's folder ('rules.pw',
    'variants/tactical.pw'), or a variant file's own name, with its `text` when the file is not in
    a game's folder (so the record replays anywhere), and a short hash of its text."""

    file: str
    sha256: str
    variant: str | None = None  # the header's name of the variant this file is
    text: str | None = None

    def fields(self) -> dict:
        out = {"file": self.file, "sha256": self.sha256}
        if self.variant is not None:
            out["variant"] = self.variant
        if self.text is not None:
            out["text"] = self.text
        return out


def short_hash(text: str) -> str:
    """The hash a record keeps of a rules file: sha256 of its text (as read: \n line ends), short."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@attrs.frozen
class Header:
    game: str
    variants: tuple[str, ...]
    rules_hash: str
    seed: int
    players: tuple[str, ...]
    agents: tuple[str, ...]
    settings: tuple[tuple[str, str], ...] = ()
    files: tuple[RulesFile, ...] = ()  # none in records made before Pitwall kept them

    def fields(self) -> dict:
        head = {"record": "pitwall", "version": 1, "pitwall": __version__, "game": self.game,
                "variants": list(self.variants), "rules_hash": self.rules_hash, "seed": self.seed,
                "players": list(self.players), "agents": list(self.agents)}
        if self.settings:
            head["settings"] = dict(self.settings)
        if self.files:  # last: a variant's text may be long
            head["files"] = [f.fields() for f in self.files]
        return head

    def line(self) -> str:
        return dumps_line(self.fields())


def dumps_line(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def text_problem(text: str) -> str | None:
    """Why a text from outside (a name, a header field) cannot be used as it is, or None."""
    for ch in text:
        kind = unicodedata.category(ch)
        if kind == "Cs":  # how Python carries bytes that are not UTF-8 (from the shell, or a \\ud800 escape)
            return f"is not UTF-8 text (it holds {ch!r})"
        if kind in ("Cc", "Zl", "Zp"):  # would break a line of narration, a prompt or the terminal
            return f"holds the control character {ch!r}"
    return None

# ---------------------------------------------------------------- errors that point into a record
class RecordFileError(RecordError):
    """An error at a line of a record file; `text` is that line, to show it with a caret."""

    def __init__(self, message: str, span: Span, hint: str | None = None, text: str | None = None):
        super().__init__(message, span, hint)
        self.text = text


@attrs.frozen
class RecordNote:
    """A warning about a record (a cut last line, agents nobody can check): told, never fatal."""

    span: Span
    message: str
    text: str | None = None
    hint: str | None = None

    def render(self) -> str:
        return _rendered(f"{self.span}: warning: {self.message}", self.text, self.span, self.hint)


SHOWN = 100  # characters of a record line shown around an error's column (a line can be 1,000,000)


def render_error(error: RecordFileError) -> str:
    """As errors.render for rules files: position, message, the line with a caret, the hint."""
    return _rendered(str(error), error.text, error.span, error.hint)


def _rendered(first: str, text: str | None, span: Span, hint: str | None) -> str:
    out = [first] + _excerpt(text, span)
    if hint:
        out.append(f"  hint: {hint}")
    return "\n".join(out)


def _excerpt(text: str | None, span: Span) -> list[str]:
    """The part of the line around the column, with a caret under the span. A record comes from
    anywhere: control characters are shown as '?', so a line cannot drive the terminal."""
    if text is None:
        return []
    start = span.col - 1
    width = span.end_col - span.col if span.end_line == span.line else 1
    left = max(0, min(start - SHOWN // 3, len(text) - SHOWN))
    piece = text[left:left + SHOWN]
    head = "..." if left > 0 else ""
    tail = "..." if left + SHOWN < len(text) else ""
    shown = "".join(c if c.isprintable() else " " if c == "\t" else "?" for c in piece)
    width = max(1, min(width, len(piece) - (start - left)))
    return [f"  {head}{shown}{tail}", "  " + " " * (len(head) + start - left) + "^" * width]


def _shown(value, width: int = 60) -> str:
    """A value as JSON, cropped and ASCII-only (true stays true, 5.0 stays 5.0), for a message."""
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= width else text[:width] + "..."


@attrs.frozen
class _Line:
    """One line of a record file: errors about it point at a key or a value in it."""

    path: Path
    number: int
    text: str

    def span(self, at: tuple | None = None, key: bool = False) -> Span:
        start, end = 0, len(self.text)
        found = _find(self.text, at, key) if at is not None else None
        if found is not None:
            start, end = found
        return Span(str(self.path), self.number, start + 1, self.number, max(end, start + 1) + 1)

    def error(self, message: str, at: tuple | None = None, hint: str | None = None,
              key: bool = False) -> RecordFileError:
        return RecordFileError(message, self.span(at, key), hint, self.text)

    def error_at(self, start: int, end: int, message: str, hint: str | None = None) -> RecordFileError:
        return RecordFileError(message, Span(str(self.path), self.number, start + 1, self.number, end + 1), hint,
                               self.text)


# ---------------------------------------------------------------- one line: bounds, JSON, positions
_LINE_BYTES = 4 * RECORD_LINE_MAX + 1  # more bytes than this is more than RECORD_LINE_MAX characters
# Outside strings (a string, possibly cut, is one token): brackets, overlong digit runs, NaN/Infinity.
_TOKEN = re.compile(r'"(?:[^"\\]+|\\.)*"?|[\[{]|[\]}]|[0-9]{' + str(INT_DIGITS_MAX + 1) + r',}|NaN|Infinity')
_AFTER_KEY = re.compile(r"\s*:\s*-?")
_WS = re.compile(r"[ \t\n\r]*")
_scan_value = json.JSONDecoder().scan_once


def _problem(text: str) -> tuple[int, int, str, str | None] | None:
    """What makes a line unsafe to hand to json.loads (too long, too deep for its recursion, a
    number too long for int()), as (start, end, message, hint); None if nothing does."""
    if len(text) > RECORD_LINE_MAX:
        return (RECORD_LINE_MAX, len(text), f"this line is {len(text)} characters long; a record line holds at most "
                f"{RECORD_LINE_MAX}", "Pitwall never writes such a line: the record was made or edited elsewhere")
    depth, string = 0, None
    for m in _TOKEN.finditer(text):
        c = text[m.start()]
        if c == '"':
            string = m
            continue
        if c in "[{":
            depth += 1
            if depth > RECORD_DEPTH_MAX:
                return (m.start(), m.end(), f"lists and objects nested more than {RECORD_DEPTH_MAX} deep",
                        f"a record line nests at most {RECORD_DEPTH_MAX} levels")
        elif c in "]}":
            depth -= 1
        else:
            return (m.start(), m.end(), _bad_number(text, m, string),
                    f"numbers in a record are whole numbers of at most {INT_DIGITS_MAX} digits")
    return None


def _bad_number(text: str, m: re.Match, string: re.Match | None) -> str:
    """What is wrong with a number, named by its key when it has one (a string, then a colon)."""
    key = None
    if string is not None and _AFTER_KEY.fullmatch(text, string.end(), m.start()):
        try:
            key = json.loads(string.group())
        except ValueError:
            key = None
    of = f"{key!r} is " if isinstance(key, str) else ""
    if m.group()[0].isdigit():
        return f"{of}a number of {len(m.group())} digits; numbers in a record have at most {INT_DIGITS_MAX}"
    return f"{of}{m.group()}, which is not a JSON number"


class _Duplicate(ValueError):
    pass


class _NotJson(ValueError):
    pass


def _object(pairs: list) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Duplicate
    return obj


def _constant(name: str):
    raise _NotJson(name)  # _problem refuses NaN and Infinity first, with their column


_CUT = object()  # a last line that stops mid-way


def _parse(line: _Line, last: bool):
    """A line's JSON object; _CUT for a last line (no newline after it) that is not whole JSON."""
    problem = _problem(line.text)
    if problem is not None:
        raise line.error_at(*problem)
    try:
        obj = json.loads(line.text, object_pairs_hook=_object, parse_constant=_constant)
    except json.JSONDecodeError as e:
        if last:
            return _CUT
        raise line.error_at(e.pos, e.pos + 1, f"not a JSON line ({e.msg})",
                            "each line of a record is one JSON object: was this one edited?") from None
    except _Duplicate:
        key, start, end = _walk(line.text)[1] or ("?", 0, len(line.text))
        raise line.error_at(start, end, f"the key {key!r} is given twice", "each key of an object once") from None
    except _NotJson as e:
        raise line.error(f"{e}, which is not a JSON number", hint="JSON has no NaN or Infinity") from None
    if not isinstance(obj, dict):
        raise line.error("each line of a record is a JSON object {...}, not " + _shown(obj), hint=_LINES)
    return obj


def _walk(text: str) -> tuple[list, tuple | None]:
    """Where each value of a JSON line is, (path, key start, key end, value start, value end) in
    order, and the first key given twice in one object as (key, start, end). Only for lines that
    parse (their nesting is bounded): used to point at what an error is about."""
    members: list = []
    twice: list = []

    def value(i: int, path: tuple, key_span: tuple | None) -> int:
        i = _WS.match(text, i).end()
        if text[i] in "{[":
            end = container(i, path)
        else:
            end = _scan_value(text, i)[1]
        members.append((path, *(key_span or (i, end)), i, end))
        return end

    def container(i: int, path: tuple) -> int:
        close, n, keys = ("}" if text[i] == "{" else "]"), 0, set()
        j = _WS.match(text, i + 1).end()
        while text[j] != close:
            if close == "}":
                key, k = json.decoder.scanstring(text, j + 1)
                if key in keys and not twice:
                    twice.append((key, j, k))
                keys.add(key)
                j = value(_WS.match(text, k).end() + 1, path + (key,), (j, k))
            else:
                j = value(j, path + (n,), None)
                n += 1
            j = _WS.match(text, j).end()
            if text[j] == ",":
                j = _WS.match(text, j + 1).end()
        return j + 1

    value(0, (), None)
    return members, (twice[0] if twice else None)


def _find(text: str, at: tuple, key: bool) -> tuple[int, int] | None:
    try:
        members, _ = _walk(text)
    except (ValueError, IndexError, StopIteration):
        return None
    for path, key_start, key_end, start, end in members:
        if path == at:
            return (key_start, key_end) if key else (start, end)
    return None


# ---------------------------------------------------------------- reading a record
@attrs.frozen
class Record:
    path: Path
    header: Header
    body: list  # the lines after the header, checked
    texts: list  # every line's text, the header's first: errors point into them
    size: int  # bytes of the whole lines: a resumed game writes on from here
    newline: bool  # whether the last whole line ends with a newline
    header_size: int  # bytes of the header line, its newline included

    @property
    def finished(self) -> bool:
        return bool(self.body) and "result" in self.body[-1]

    def line(self, number: int) -> _Line:
        return _Line(self.path, number, self.texts[number - 1])

    def error(self, number: int, message: str, at: tuple | None = None, hint: str | None = None) -> RecordFileError:
        return self.line(number).error(message, at, hint)


def read_record(path: Path) -> tuple[Header, list[dict]]:
    record = read(path)
    return record.header, record.body


def read(path: Path, warn: Callable[[RecordNote], None] | None = None) -> Record:
    """Read and check a record. A last line cut mid-way (the game was killed while writing it) is
    left out and told to `warn`; without `warn` it is an error."""
    path = Path(path)
    texts: list[str] = []
    lines: list[dict] = []
    size, newline, header_size, blank, header = 0, True, 0, None, None
    for number, raw, offset in _raw_lines(path):
        last = not raw.endswith(b"\n")  # without a newline only the file's last line can end
        text = _decode(_Line(path, number, ""), raw.rstrip(b"\n"), last)
        if text is not None and not text.strip():
            blank = blank or number  # blank lines are fine at the end, as editors leave them
            continue
        line = _Line(path, number, text or "")
        obj = _parse(line, last) if text is not None else _CUT
        if obj is _CUT:
            _cut(line, raw, warn)
            break
        if blank is not None:
            raise _Line(path, blank, "").error("an empty line in the middle of the record", hint="delete it")
        if header is None:
            header = _header(line, obj)
        else:
            _body_line(line, obj, lines[-1])
        texts.append(text)
        lines.append(obj)
        size, newline = offset + len(raw), not last
        header_size = header_size or len(raw)
    if not lines:
        raise RecordFileError(f"{path} holds no record: its first line must be a Pitwall record header",
                              Span(str(path), 1, 1, 1, 1), "pitwall play GAME --record FILE writes records")
    return Record(path, header, lines[1:], texts, size, newline, header_size)


def _raw_lines(path: Path):
    """(number, bytes, offset) of each line; a line too long is an error before it is decoded."""
    try:
        with open(path, "rb") as fh:
            number, offset = 0, 0
            while raw := fh.readline(_LINE_BYTES):
                number += 1
                if len(raw) == _LINE_BYTES and not raw.endswith(b"\n"):
                    text = raw[: RECORD_LINE_MAX + SHOWN].decode("utf-8", "replace")
                    raise _Line(path, number, text).error_at(
                        RECORD_LINE_MAX, RECORD_LINE_MAX + 1, f"this line is longer than {RECORD_LINE_MAX} characters",
                        "Pitwall never writes such a line: the record was made or edited elsewhere")
                yield number, raw, offset
                offset += len(raw)
    except OSError as e:
        raise RecordError(f"cannot read record {path}: {e.strerror}") from None


def _decode(line: _Line, data: bytes, last: bool) -> str | None:
    """The line as text (a Windows line end dropped); None for a last line cut inside a character."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        if last and e.end == len(data) and e.reason == "unexpected end of data":
            return None
        col = len(data[: e.start].decode("utf-8"))
        shown = attrs.evolve(line, text=data.decode("utf-8", "replace"))
        raise shown.error_at(col, col + 1, f"not UTF-8 text (byte 0x{data[e.start]:02x} cannot be read)",
                             "save the record as UTF-8") from None
    return text[:-1] if text.endswith("\r") else text


def _cut(line: _Line, raw: bytes, warn: Callable[[RecordNote], None] | None) -> None:
    text = raw.decode("utf-8", "replace")
    span = Span(str(line.path), line.number, len(text) + 1, line.number, len(text) + 2)
    message = "the last line stops mid-way (the game was stopped while writing it)"
    if warn is None:
        raise RecordFileError(message, span, "pitwall resume leaves it out; or delete it", text)
    warn(RecordNote(span, message + ": it is left out", text))


# ---------------------------------------------------------------- what each line holds
_WORDS = {str: "a text", int: "a whole number", bool: "true or false", list: "a list [...]", dict: "an object {...}"}
_FORMS = {str: "TEXT", int: "NUMBER", bool: "true/false", list: "[...]", dict: "{...}"}
_LINES = ('the first line is the header {"record": "pitwall", ...}; then each line is a decision {"decision": ...}, '
          'an event {"event": ...} or, last, the result {"result": ...}')
_PICK = "'pick' counts from 0 among the decision's 'of' options"
HEADER_KEYS = {"record": str, "version": int, "pitwall": str, "game": str, "variants": list, "rules_hash": str,
               "seed": int, "players": list, "agents": list, "settings": dict, "files": list}
FILE_KEYS = {"file": str, "sha256": str, "variant": str, "text": str}
DECISION_KEYS = {"decision": str, "by": str, "pick": int, "of": int, "option": str, "secret": bool}
EVENT_KEYS = {"event": str, "text": str, "args": dict}
RESULT_KEYS = {"winners": list, "scores": dict}


def _form(what: str, spec: dict) -> str:
    return f"{what} reads " + "{" + ", ".join(f'"{key}": {_FORMS[kind]}' for key, kind in spec.items()) + "}"


def _keys(line: _Line, obj: dict, spec: dict, what: str, at: tuple = (), optional: tuple = ()) -> None:
    """Only the keys of `spec`, each of exactly its JSON type (true is not 1, 5.0 is not 5)."""
    for key in obj:
        if key not in spec:
            raise line.error(f"unknown key {key!r} in {what}", at + (key,), key=True, hint=_form(what, spec))
    for key, kind in spec.items():
        if key in obj and type(obj[key]) is not kind:
            raise line.error(f"{what}'s {key!r} must be {_WORDS[kind]}, not {_shown(obj[key])}", at + (key,),
                             _form(what, spec))
    missing = [k for k in spec if k not in obj and k not in optional]
    if missing:
        raise line.error(f"{what} has no {', '.join(map(repr, missing))}", at or None, _form(what, spec))


def _texts(line: _Line, h: dict, key: str) -> tuple[str, ...]:
    for i, item in enumerate(h[key]):
        if type(item) is not str:
            raise line.error(f"the header's {key!r} must be a list of texts, not one holding {_shown(item)}", (key, i),
                             f'"{key}": ["...", "..."]')
        _text(line, item, (key, i), f"each of the header's {key!r}")
    return tuple(h[key])


def _text(line: _Line, text: str, at: tuple, what: str) -> None:
    problem = "is empty" if not text.strip() else text_problem(text)
    if problem is None and text != text.strip():
        problem = "starts or ends with a space"
    if problem:
        raise line.error(f"{what} {problem}", at, "a record's names and texts are UTF-8 without control characters")


def _header(line: _Line, h: dict) -> Header:
    if h.get("record") != "pitwall":
        raise line.error("not a Pitwall game record (the first line must be its header)",
                         ("record",) if "record" in h else None, hint="pitwall play GAME --record FILE writes records")
    _keys(line, h, HEADER_KEYS, "the header", optional=("pitwall", "settings", "files"))
    if h["version"] != 1:
        raise line.error(f"this is a version {h['version']} record; this Pitwall reads version 1", ("version",),
                         hint="a newer Pitwall wrote it?")
    for key in ("game", "rules_hash") + (("pitwall",) if "pitwall" in h else ()):
        _text(line, h[key], (key,), f"the header's {key!r}")
    if not 0 <= h["seed"] <= SEED_MAX:
        raise line.error(f"the header's 'seed' must be 0 to {SEED_MAX}, not {h['seed']}", ("seed",),
                         "the seed the game was played with (pitwall play --seed SEED)")
    players, agents = _players(line, h), _agents(line, h)
    return Header(h["game"], _texts(line, h, "variants"), h["rules_hash"], h["seed"], players, agents,
                  _settings(line, h.get("settings", {})), _files(line, h))


def _files(line: _Line, h: dict) -> tuple[RulesFile, ...]:
    """The rules files the header names: each with its hash, a variant's file with its name, a
    file from outside a game's folder with its text, which must still hash as the header says."""
    form = _form("each of the header's 'files'", FILE_KEYS)
    files = []
    for i, f in enumerate(h.get("files", [])):
        if type(f) is not dict:
            raise line.error(f"the header's 'files' must be a list of objects, not one holding {_shown(f)}",
                             ("files", i), form)
        _keys(line, f, FILE_KEYS, "each of the header's 'files'", ("files", i), optional=("variant", "text"))
        for key in ("file", "sha256", "variant"):
            if key in f:
                _text(line, f[key], ("files", i, key), f"a rules file's {key!r}")
        text = f.get("text")
        if text is not None:
            bad = next((ch for ch in text if unicodedata.category(ch) == "Cs"), None)
            if bad is not None:
                raise line.error(f"the text of {f['file']!r} is not UTF-8 text (it holds {bad!r})",
                                 ("files", i, "text"), "a record's texts are UTF-8")
            if len(text.encode("utf-8")) > SOURCE_MAX:
                raise line.error(f"the text of {f['file']!r} is larger than {SOURCE_MAX:,} bytes",
                                 ("files", i, "text"), "no rules file is that large")
            if short_hash(text) != f["sha256"]:
                raise line.error(f"the text of {f['file']!r} hashes to {short_hash(text)}, not {f['sha256']}",
                                 ("files", i, "sha256"), "the record was edited: the text and its hash differ")
        files.append(RulesFile(f["file"], f["sha256"], f.get("variant"), text))
    return tuple(files)


def _players(line: _Line, h: dict) -> tuple[str, ...]:
    players = _texts(line, h, "players")
    if not players:
        raise line.error("the header names no players", ("players",), '"players": ["NAME", ...]')
    twice = next((i for i, p in enumerate(players) if p in players[:i]), None)
    if twice is not None:
        raise line.error(f"the player name {players[twice]!r} is given twice", ("players", twice),
                         hint="player names differ")
    return players


def _agents(line: _Line, h: dict) -> tuple[str, ...]:
    agents = _texts(line, h, "agents")
    unknown = next((i for i, a in enumerate(agents) if a not in AGENTS), None)
    if unknown is not None:
        raise line.error(f"unknown agent {agents[unknown]!r}", ("agents", unknown), hint="agents: " + ", ".join(AGENTS))
    if len(agents) != len(h["players"]):
        raise line.error(f"{len(agents)} agents for {len(h['players'])} players", ("agents",),
                         hint="one agent per player, in the order of 'players'")
    return agents


def _settings(line: _Line, settings: dict) -> tuple[tuple[str, str], ...]:
    for name, value in settings.items():
        _text(line, name, ("settings", name), "a setting's name")
        if type(value) is not str:
            raise line.error(f"the setting {name!r} must be a text, not {_shown(value)}", ("settings", name),
                             hint='settings are written as they were given: {"NAME": "VALUE"}')
        if text_problem(value):
            raise line.error(f"the setting {name!r} {text_problem(value)}", ("settings", name),
                             "a record's names and texts are UTF-8 without control characters")
    return tuple(settings.items())


def _body_line(line: _Line, obj: dict, before: dict) -> None:
    """A line after the header: a decision, an event, or the result, which is the last line."""
    if "result" in before:
        raise line.error("the record goes on after the game's result", hint="the result is its last line")
    if "decision" in obj:
        _keys(line, obj, DECISION_KEYS, "the decision")
        if obj["of"] < 1:
            raise line.error(f"a decision has at least 1 option, not {obj['of']}", ("of",), _PICK)
        if not 0 <= obj["pick"] < obj["of"]:
            raise line.error(f"'pick' must be 0 to {obj['of'] - 1} (the decision has {obj['of']} options), "
                             f"not {obj['pick']}", ("pick",), _PICK)
    elif "event" in obj:
        _keys(line, obj, EVENT_KEYS, "the event")
    elif "result" in obj:
        _keys(line, obj, {"result": dict}, "the result line")
        _keys(line, obj["result"], RESULT_KEYS, "the result", ("result",))
        for i, w in enumerate(obj["result"]["winners"]):
            if type(w) is not str:
                raise line.error(f"a winner is named by a text, not {_shown(w)}", ("result", "winners", i),
                                 '"winners": ["NAME", ...]')
    else:
        raise line.error("a record line is a decision, an event or the result: this one has none of "
                         "'decision', 'event' and 'result'", hint=_LINES)
