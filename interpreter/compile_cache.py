"""Compiled programs kept in the user's cache directory, so `pitwall check` and every later run of
the same rules skip the checker, the code generator and Python's compiler.

The key is everything that decides the checker's verdict and the generated code: Pitwall's
version, the interpreter's own modules and grammar, and the program itself (each rules file's
path and text in order, and the constants as settings and `-v NAME=VALUE` left them). A change to
any of them is another key, so a stale entry is never read; PITWALL_NO_CACHE=1 turns the cache
off. An entry is written only after the checker passed the program, so finding one is that
verdict. The entry is what the compiler made, nothing else: the cache directory is trusted as
much as the parse cache next to it.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from . import compiled
from .cache import cache_dir, cache_file, load, store
from .compiled import Compiled

if TYPE_CHECKING:
    from .link import Program


@functools.cache
def _code_digest() -> str:
    """The interpreter's modules and the grammar, as this process read them."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256(__version__.encode())
    files = sorted(root.joinpath("interpreter").glob("*.py")) + sorted(root.joinpath("grammar").glob("*.lark"))
    for f in files:
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def _key(prog) -> str:
    h = hashlib.sha256(_code_digest().encode())
    for path, text in prog.sources.items():
        h.update(b"\0" + path.encode() + b"\0" + text.encode("utf-8", "surrogatepass"))
    for name, const in prog.consts.items():  # settings and -v NAME=VALUE replace a constant's value
        h.update(b"\0" + name.encode() + b"\0" + repr(const.value).encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:32]


def compile_program(prog, check: Callable[[Program], dict]) -> Compiled:
    """The program, checked (`check` raises its errors) and made Python code: from the user's cache
    when these rules were compiled before. The checker and the code generator run only when the code
    must be made: an entry is kept only for a program that passed the checker, under a key of
    everything the checker reads (its own code, the rules' paths and texts, the constants), so rules
    found there check as they did. A `pitwall check` or a game of rules compiled before loads
    neither (the checker with its modules was two fifths of such a check's instructions)."""

    def make() -> Compiled:
        types = check(prog)
        from .compile import make_program

        return make_program(prog, types)

    if not compiled.REMEMBER:
        return make()
    return cached(prog, make)


def cached(prog, make):
    """The Compiled of `prog`: from the cache, else made by make() and kept."""
    if cache_dir() is None or not prog.sources:
        return make()
    path = cache_file(f"compiled-{_key(prog)}")  # named as the parse cache names its entries
    entry = load(path)
    if entry is not None:
        try:
            fields, code = entry
            return Compiled(code=marshal.loads(code), **fields)
        except Exception:  # noqa: BLE001 - a stale or broken entry is simply made again
            pass
    made = make()
    fields = {k: getattr(made, k) for k in ("source", "linemap", "spans", "events", "event_params", "templates",
                                              "parts")}
    store(path, (fields, marshal.dumps(made.code)))
    return made
