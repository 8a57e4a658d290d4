"""Writing a game record as the game goes (RecordWriter): each line is one write the moment it is
told, so a game stopped any way at all keeps every line so far."""

from __future__ import annotations

import errno
import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

import attrs

from .errors import RecordError, Span
from .record_read import Header, Record, RecordFileError, _problem, dumps_line


def _encoded(obj) -> tuple[str, bytes]:
    """A record line and its bytes. A text that is not UTF-8 (a lone surrogate) is escaped (\\udcff):
    the line still reads back to the same value."""
    text = dumps_line(obj)
    try:
        return text, (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj, ensure_ascii=True, separators=(",", ":"))
        return text, (text + "\n").encode("ascii")


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]


def _refuse_unreadable(path: Path, number: int, text: str) -> None:
    """A line `read` would refuse stops the game now, not when the record is read back."""
    problem = _problem(text)
    if problem is not None:
        start, end, message, _ = problem
        raise RecordFileError(f"line {number} of the record cannot be written: {message}",
                              Span(str(path), number, start + 1, number, end + 1),
                              "the game tells a value too large for a record line")


def _fresh_beside(target: Path) -> tuple[int, str]:
    """A new empty file in the target's folder (so a rename replaces the target at once), with
    the permissions the target has, or that a plain write would give."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:80]}.", suffix=".tmp", dir=target.parent)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    try:
        os.chmod(tmp, mode)
    except OSError:
        pass  # a file system without modes: the temporary file's are fine
    return fd, tmp


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


class RecordWriter:
    """A record file written as the game goes: each line is one write(2) the moment it is told,
    so a game stopped any way (q, Ctrl-C, SIGTERM, SIGKILL, a closed pipe, a crash) leaves every
    line so far; at worst its last line is cut, and `read` leaves that out."""

    def __init__(self, path: Path, fd: int, lines: int):
        self.path = Path(path)
        self.fd = fd
        self.lines = lines  # lines in the file: the next one written is line lines + 1
        self.written = 0  # lines this writer wrote
        self._before: Callable[[], None] | None = None  # what the file needs before its first new line, once
        self._spare: tuple[int, str] | None = None  # a file made ready to replace the record then; else removed

    @classmethod
    def create(cls, path: Path, header: Header) -> RecordWriter:
        """A new record that starts with `header`. The header goes to a new file beside `path`,
        which then replaces it: an earlier record there is lost only once the new game is written."""
        target = Path(os.path.realpath(path))  # through a link, as a plain write would go
        text, data = _encoded(header.fields())
        _refuse_unreadable(path, 1, text)  # settings of 128 KB each could add up past a line's limit
        if target.exists() and not target.is_file():  # /dev/null, a pipe: nothing there to keep
            fd = os.open(target, os.O_WRONLY)
            _write_all(fd, data)
            return cls(path, fd, 1)
        if target.exists() and not os.access(target, os.W_OK):  # read-only: not to be replaced either
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        fd, tmp = _fresh_beside(target)
        try:
            _write_all(fd, data)
            os.replace(tmp, target)
        except BaseException:
            os.close(fd)
            _remove(tmp)
            raise
        return cls(path, fd, 1)

    @classmethod
    def go_on(cls, record: Record, agents: list[str]) -> RecordWriter:
        """Write on after `record`'s last whole line, once the game goes on past it: a cut last line
        is cut off then. If other `agents` play on than the header names, it is rewritten first."""
        fd = os.open(record.path, os.O_WRONLY)  # can it be written? found out before the replay
        writer = cls(record.path, fd, len(record.texts))
        if tuple(agents) == record.header.agents:
            writer._before = lambda: writer._truncate(record)
            return writer
        header = attrs.evolve(record.header, agents=tuple(agents))
        try:
            writer._spare = _fresh_beside(Path(os.path.realpath(record.path)))
        except OSError:
            writer.close()
            raise
        writer._before = lambda: writer._rewrite(record, header)
        return writer

    def _truncate(self, record: Record) -> None:
        os.ftruncate(self.fd, record.size)
        os.lseek(self.fd, record.size, os.SEEK_SET)
        if not record.newline:
            _write_all(self.fd, b"\n")

    def _rewrite(self, record: Record, header: Header) -> None:
        spare_fd, spare = self._spare
        with open(record.path, "rb") as old:
            old.seek(record.header_size)
            body = old.read(record.size - record.header_size)
        _write_all(spare_fd, _encoded(header.fields())[1] + body + (b"" if record.newline else b"\n"))
        os.replace(spare, Path(os.path.realpath(record.path)))
        os.close(self.fd)
        self.fd, self._spare = spare_fd, None

    def write(self, line: dict) -> None:
        text, data = _encoded(line)
        _refuse_unreadable(self.path, self.lines + 1, text)
        try:
            if self._before is not None:
                before, self._before = self._before, None
                before()
            _write_all(self.fd, data)
        except OSError as e:
            raise RecordError(f"cannot write the record {self.path}: {e.strerror}",
                              hint="the lines before this one are kept") from None
        self.lines += 1
        self.written += 1

    def close(self) -> None:
        if self._spare is not None:  # the game never went on: the record stays as it was
            os.close(self._spare[0])
            _remove(self._spare[1])
            self._spare = None
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
