"""The user's cache directory: parsed files, the parser's tables and compiled programs, each a
pickle under a key of everything that decides it (parse.py, compile_cache.py).

A key never serves a stale entry, but every edit of a rules file, every new value of a setting
and every new version of Pitwall writes new ones, and old ones are never asked for again: left
alone, the folder only grows (gigabytes over weeks of a designer's edits and sweeps). So it is
kept under CACHE_MAX_BYTES: an entry read is marked as used (its time of change set to now), and
a process that writes entries looks over the folder at its first write and every TRIM_EVERY
after, removing the least recently used entries down to three quarters of the bound, and the
temporary files of writers that died more than an hour ago. Whatever goes, a later run makes
again, only slower; PITWALL_NO_CACHE=1 turns the cache off.
"""

from __future__ import annotations

import os
import pickle
import time
from pathlib import Path

CACHE_MAX_BYTES = 256 * 2**20  # about 2,000 compiled programs of the largest shipped game
TRIM_EVERY = 64  # writes of one process between two looks over the folder
_STALE_TMP_SECONDS = 3600  # a temporary file this old was left by a writer that died
_writes = 0  # this process's writes so far: it looks over the folder at the first and every TRIM_EVERY-th


def cache_dir() -> Path | None:
    """The user's cache directory for Pitwall; None with PITWALL_NO_CACHE=1."""
    if os.environ.get("PITWALL_NO_CACHE"):
        return None
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "pitwall"


def cache_file(name: str) -> Path | None:
    root = cache_dir()
    return None if root is None else root / f"{name}.pickle"


def load(path: Path | None):
    """The entry's value, marked as used; None where there is none or it cannot be read (a broken
    or stale entry is simply made again)."""
    if path is None:
        return None
    try:
        value = pickle.loads(path.read_bytes())
    except Exception:  # noqa: BLE001 - missing, half-removed, broken or of classes since changed
        return None
    try:
        os.utime(path)
    except OSError:
        pass  # a cache one cannot mark is read all the same
    return value


def store(path: Path, value) -> None:
    """Into the cache, atomically (a process reading it meanwhile sees the old file or the new)."""
    global _writes
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        tmp.replace(path)
    except (OSError, pickle.PicklingError, AttributeError, TypeError):
        return  # no cache, only slower
    if _writes % TRIM_EVERY == 0:
        trim(path.parent)
    _writes += 1


def trim(root: Path, limit: int | None = None) -> None:
    """The least recently used entries removed until they take at most three quarters of `limit`
    (CACHE_MAX_BYTES) bytes, if they take more; dead writers' temporary files removed."""
    limit = CACHE_MAX_BYTES if limit is None else limit
    entries, total, now = [], 0, time.time()
    try:
        with os.scandir(root) as found:
            for e in found:
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if e.name.endswith(".tmp"):
                    if now - st.st_mtime > _STALE_TMP_SECONDS:
                        _remove(e.path)
                elif e.name.endswith(".pickle") and e.is_file(follow_symlinks=False):
                    entries.append((st.st_mtime, st.st_size, e.path))
                    total += st.st_size
    except OSError:
        return
    if total <= limit:
        return
    entries.sort()
    for _, size, name in entries:
        if total <= limit * 3 // 4:
            break
        if _remove(name):
            total -= size


def _remove(name: str) -> bool:
    try:
        os.unlink(name)
    except FileNotFoundError:  # another process trimmed it first
        return True
    except OSError:  # not ours to remove
        return False
    return True
