"""Templates of narration and prompts: Python format strings whose fields name values."""

from __future__ import annotations

import string


def template_fields(template: str) -> list[tuple[str, str]]:
    """Every field as written, with its format spec: ('total', '+'), ('p.score', ''), ('cards[0]', '').
    ValueError if the template is malformed."""
    return [(field, spec or "") for _, field, spec, _ in string.Formatter().parse(template) if field is not None]


def template_roots(template: str) -> list[str]:
    """The names the fields start from, each once, in order of appearance."""
    return list(dict.fromkeys(field.split(".")[0].split("[")[0] for field, _ in template_fields(template)))
