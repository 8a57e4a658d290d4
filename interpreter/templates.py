"""Templates of narration and prompts: Python format strings whose fields name values."""

from __future__ import annotations

import string


def template_fields(template: str) -> list[str]:
    """Every field, as written ('p', 'p.score', 'cards[0]'); ValueError if the template is malformed."""
    return [field for _, field, _, _ in string.Formatter().parse(template) if field is not None]


def template_fields_with_specs(template: str) -> list[tuple[str, str]]:
    """Every (field, format spec) pair: ('total', '+'), ('d', '')."""
    return [(field, spec or "") for _, field, spec, _ in string.Formatter().parse(template) if field is not None]


def template_roots(template: str) -> list[str]:
    """The names the fields start from, each once, in order of appearance."""
    roots = [field.split(".")[0].split("[")[0] for field in template_fields(template)]
    return list(dict.fromkeys(roots))
