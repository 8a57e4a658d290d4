"""What the checker resolves names against: scopes of locals, the context a body is checked in,
and the names every program has without declaring them. Shared by all parts of the checker."""

from __future__ import annotations

from .types import BOOL, INT, TEXT, T

BUILTIN_FIELDS = {"name": TEXT, "seat": INT, "is_player": BOOL}
BUILTIN_GLOBALS = {"players"}


class Scope:
    def __init__(self, parent: Scope | None = None):
        self.vars: dict[str, T] = {}
        self.parent = parent

    def get(self, name: str) -> T | None:
        s = self
        while s is not None:
            if name in s.vars:
                return s.vars[name]
            s = s.parent
        return None

    def names(self) -> list[str]:
        out, s = [], self
        while s is not None:
            out.extend(s.vars)
            s = s.parent
        return out


class Context:
    """Where a body is being checked: rule or function, inside a simultaneous block or not."""

    def __init__(self, kind: str, ret: T | None = None):
        self.kind = kind  # rule | function | scenario
        self.ret = ret
        self.sim_var: str | None = None
