"""The checker's templates: narration, card displays and prompts, each hole `{a.b.c:spec}` checked
against the values the template has (a mixin of check.Checker)."""

from __future__ import annotations

from .check_scope import BUILTIN_FIELDS, Scope
from .errors import Span
from .templates import Hole, TemplateError, scan
from .types import ANY, T, list_of, unchecked


class TemplateChecks:
    """Checks of templates, for Checker, whose state and helpers (`prog`, `add`, `resolve_type`) they use."""

    def check_template(self, template: str, types: dict[str, T], span: Span, what: str = "narration template") -> None:
        """Each hole `{a.b.c:spec}` starts from a value the template has, reads declared fields only,
        and its spec suits the value it formats: nothing else of a value can be reached."""
        parts = scan(template)
        for exc in (p for p in parts if isinstance(p, TemplateError)):
            bad = template[exc.offset:].split("}")[0] + ("}" if "}" in template[exc.offset:] else "")
            self.add(f"bad {what}: {exc.message}", self.text_span(span, bad),
                     exc.hint or "write {name} for a value, {{ for a brace")
        for hole in (p for p in parts if isinstance(p, Hole)):
            where = self.text_span(span, hole.text)  # errors underline the hole, not the whole line
            t = types.get(hole.root)
            if t is None:
                self.add(f"{what} names {hole.root!r}, which is not one of its values", where,
                         self.suggest(hole.root, types) or f"known: {', '.join(sorted(types))}")
                continue
            for attr in hole.path:
                t = self.template_attr(t, attr, hole.text, where)
                if t is None:
                    break
            if t is not None and not self.template_value(t, hole, where):
                self.add(f"template field {hole.text}: the format does not suit {t}", where,
                         "numbers take specs like +, >3 or 03; words take widths like <8 or ^10")

    def text_span(self, span: Span, text: str) -> Span:
        """Where `text` first stands in the source within `span` (a template's hole in its event)."""
        lines = self.source_lines(span.file)
        for n in range(span.line, min(span.end_line, len(lines)) + 1):
            col = lines[n - 1].find(text, span.col - 1 if n == span.line else 0) if text else -1
            if col >= 0:
                return Span(span.file, n, col + 1, n, col + 1 + len(text))
        return span

    def source_lines(self, file: str) -> list[str]:
        """A file's lines, split once (a file of thousands of templates would split it for each)."""
        if file not in self.split_sources:
            self.split_sources[file] = self.prog.sources.get(file, "").splitlines()
        return self.split_sources[file]

    def template_value(self, t: T, hole: Hole, span: Span) -> bool:
        """A hole shows a number, or words for anything else; a sign or '=' needs a number."""
        if t.kind in ("any", "enumtype", "map") or unchecked(t):
            self.add(f"template field {hole.text}: a {t} cannot be shown", span, "show a value or one of its fields")
            return True
        return t.kind == "int" or not hole.numeric_spec

    def template_attr(self, t: T, attr: str, field: str, span: Span) -> T | None:
        if t.kind in ("card", "participant"):
            rec = (self.prog.cards if t.kind == "card" else self.prog.participants).get(t.name)
            found = next((f for f in rec.fields if f.name == attr), None) if rec else None
            if found is not None:
                return self.resolve_type(found.type)
            if t.kind == "participant" and attr in BUILTIN_FIELDS:
                return BUILTIN_FIELDS[attr]
            names = [f.name for f in rec.fields] if rec else []
            self.add(f"template field {field}: {t} has no field {attr!r}", span,
                     self.suggest(attr, names + (list(BUILTIN_FIELDS) if t.kind == "participant" else [])))
            return None
        self.add(f"template field {field}: {t} has no fields to read", span)
        return None

    def visible(self, scope: Scope) -> dict[str, T]:
        """The values a prompt may name, with their types: locals, globals, constants and players."""
        p = self.prog
        seen = {"players": list_of(self.player_type)}
        seen.update((n, self.resolve_type(g.type)) for n, g in p.globals.items())
        seen.update((n, self.const_types.get(n, ANY)) for n in p.consts)
        for name in reversed(scope.names()):  # inner scopes last: they hide outer names
            seen[name] = scope.get(name)
        return seen
