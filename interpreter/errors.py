"""The error vocabulary: every error a user can cause points at a span of source text."""

from __future__ import annotations

_set = object.__setattr__


class Span:
    """Where in a source text: file, line and column of the start and the end. Immutable and
    compared by value. Written out rather than with attrs, so that `pitwall --help`, which
    needs this module, does not wait for attrs to load."""

    __slots__ = ("file", "line", "col", "end_line", "end_col")

    def __init__(self, file: str, line: int, col: int, end_line: int, end_col: int):
        # written out, not a loop: a cached tree of a large game unpickles tens of thousands of spans
        _set(self, "file", file)
        _set(self, "line", line)
        _set(self, "col", col)
        _set(self, "end_line", end_line)
        _set(self, "end_col", end_col)

    def __setattr__(self, name, value):
        raise AttributeError(f"a Span cannot change ({name})")

    def _key(self) -> tuple:
        return (self.file, self.line, self.col, self.end_line, self.end_col)

    def __eq__(self, other) -> bool:
        return self._key() == other._key() if type(other) is Span else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self):
        return (Span, self._key())

    def __repr__(self) -> str:
        return "Span(" + ", ".join(f"{n}={v!r}" for n, v in zip(self.__slots__, self._key())) + ")"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOWHERE = Span("<unknown>", 0, 0, 0, 0)


class PitwallError(Exception):
    """Base of every error caused by user input; the CLI exits 2 on these."""

    hint: str | None = None
    note: str | None = None  # where else the error is from (the requirement a row breaks), shown before the hint

    def __init__(self, message: str, span: Span | None = None, hint: str | None = None, note: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        if hint is not None:
            self.hint = hint
        if note is not None:
            self.note = note

    def __str__(self) -> str:
        where = f"{self.span}: " if self.span else ""
        return f"{where}error: {self.message}"


class RulesSyntaxError(PitwallError):
    pass


class CheckError(PitwallError):
    """A problem found by the static checker, before anything runs."""


class CheckErrors(PitwallError):
    """All of one pass's errors, sorted by position."""

    def __init__(self, errors: list[PitwallError]):
        errors = sorted(errors, key=lambda e: (e.span.file, e.span.line, e.span.col) if e.span else ("", 0, 0))
        super().__init__(errors[0].message, errors[0].span, errors[0].hint, errors[0].note)
        self.errors = errors

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


class RuleRuntimeError(PitwallError):
    """A rule failed while the game ran (empty pile, bad index, runaway loop)."""


class BudgetError(RuleRuntimeError):
    hint = "a loop in the rules never ends: check its condition"


class RecordError(PitwallError):
    """A game record or scenario that cannot be read or does not match the rules."""


class RulesWarning(PitwallError):
    """Legal rules that likely do not do what their author meant; told, never fatal."""

    def __str__(self) -> str:
        where = f"{self.span}: " if self.span else ""
        return f"{where}warning: {self.message}"


class ReaderStopped(Exception):
    """The person following a game (replay --step) asked to stop: not an error of any kind."""


def read_text(path, what: str = "file", error=None, limit: int | None = None) -> str:
    """A user's file as text: unreadable, larger than `limit` bytes or not UTF-8 is a clear error,
    never a traceback. Lines end with \\n (\\r\\n and a lone \\r are read as \\n) and a leading BOM
    is dropped, so positions count as editors show them."""
    error = error or PitwallError
    try:
        with open(path, "rb") as fh:
            data = fh.read() if limit is None else fh.read(limit + 1)  # no more than the limit, whatever the file
    except OSError as e:
        raise error(f"cannot read {what} {path}: {e.strerror or e}") from None
    except ValueError:  # a NUL in the name
        raise error(f"cannot read {what} {path!r}: not a file name") from None
    if limit is not None and len(data) > limit:  # positioned at the first byte past the limit
        line, line_start = data.count(b"\n", 0, limit) + 1, data.rfind(b"\n", 0, limit) + 1
        col = len(data[line_start:limit].decode("utf-8", "ignore")) + 1
        raise error(f"the {what} is larger than {limit:,} bytes: byte {limit + 1:,} is here",
                    Span(str(path), line, col, line, col + 1),
                    f"split it into several files of at most {limit:,} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line_start = data.rfind(b"\n", 0, e.start) + 1
        line = data.count(b"\n", 0, e.start) + 1
        col = len(data[line_start:e.start].decode("utf-8", "replace")) + 1
        raise error(f"{path}: not UTF-8 text (line {line}, column {col}: byte 0x{data[e.start]:02x} cannot be read)",
                    hint=f"save the {what} as UTF-8") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


class ErrorCollector:
    """Gathers errors so a pass can report all of them at once (miniwdl's multi_context)."""

    def __init__(self) -> None:
        self.errors: list[PitwallError] = []

    def add(self, message: str, span: Span | None, hint: str | None = None) -> None:
        self.errors.append(CheckError(message, span, hint))

    def raise_if_any(self) -> None:
        if self.errors:
            raise CheckErrors(self.errors)


SHOWN = 100  # characters of a source line shown around the caret


def _source_and_caret(src: str, col: int, width: int) -> list[str]:
    """The source line (a window of it, for a long one) and a caret under the columns at fault.
    Tabs are shown as one space and control characters as '?', so the caret stays in place."""
    start = max(0, col - 1 - SHOWN // 2) if len(src) > SHOWN else 0
    window = src[start:start + SHOWN]
    shown = "".join(" " if ch == "\t" else "?" if ord(ch) < 32 or 0x7f <= ord(ch) < 0xa0 else ch for ch in window)
    lead, tail = ("..." if start > 0 else ""), ("..." if start + SHOWN < len(src) else "")
    caret = " " * (len(lead) + col - 1 - start) + "^" * max(1, min(width, len(window) - (col - 1 - start) + 1))
    return [f"  {lead}{shown}{tail}", f"  {caret}"]


def render(error: PitwallError, sources: dict[str, str] | None = None) -> str:
    """Format an error as `file:line:col: error: msg`, the source line, a caret and a hint."""
    errors = error.errors if isinstance(error, CheckErrors) else [error]
    out = []
    for e in errors:
        out.append(str(e))
        span = e.span
        text = (sources or {}).get(span.file) if span else None
        if text is None and span and span.line > 0:
            try:
                text = read_text(span.file)
            except PitwallError:  # unreadable now: the message alone still says where
                text = None
        if text is not None and span.line > 0:
            lines = text.split("\n")
            if span.line <= len(lines):
                width = span.end_col - span.col if span.end_line == span.line and span.end_col > span.col else 1
                out.extend(_source_and_caret(lines[span.line - 1], span.col, max(1, width)))
        if e.note:
            out.append(f"  note: {e.note}")
        if e.hint:
            out.append(f"  hint: {e.hint}")
    return "\n".join(out)
