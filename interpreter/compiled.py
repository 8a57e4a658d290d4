"""What the compiler makes, and the switch of its fast paths: small, so that loading rules compiled
before (compile_cache.py) never imports the code generator."""

from __future__ import annotations

import attrs

from .errors import Span

# False compiles the plain code, which remembers no function's values: tests/test_speed_paths.py
# checks that both play every game alike, step for step
REMEMBER = True


@attrs.frozen
class Compiled:
    source: str
    code: object
    linemap: tuple[Span | None, ...]
    spans: tuple[Span, ...]  # span table referenced by index from generated code
    events: tuple[str, ...]
    event_params: tuple[tuple[str, ...], ...]
    templates: tuple[tuple, ...]  # each event's parsed template
    parts: tuple[tuple, ...]  # every parsed template, as generated code names them: _T[i]
