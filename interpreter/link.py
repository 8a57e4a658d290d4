"""Base rules + variant files -> one Program: the symbol tables every later pass reads.

Variants apply in the order given: `replace X` swaps a definition in place, `extend rule X`
appends statements to it, `extend deck X` (or `extend table X`) adds rows, and a plain item adds a new name.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import attrs

from . import ast
from .errors import ErrorCollector, PitwallError, RulesWarning
from .limits import CALLABLES_MAX, INT_DIGITS_MAX

KINDS = {
    ast.ConstDecl: "const", ast.FunctionDecl: "function", ast.RuleDecl: "rule", ast.EventDecl: "event",
    ast.DeckDecl: "deck", ast.GlobalDecl: "global", ast.EnumDecl: "enum", ast.RecordDecl: "record",
}


@attrs.define
class Program:
    game: ast.GameDecl | None = None
    enums: dict[str, ast.EnumDecl] = attrs.Factory(dict)
    cards: dict[str, ast.RecordDecl] = attrs.Factory(dict)
    participants: dict[str, ast.RecordDecl] = attrs.Factory(dict)
    globals: dict[str, ast.FieldDecl] = attrs.Factory(dict)
    decks: dict[str, ast.DeckDecl] = attrs.Factory(dict)
    consts: dict[str, ast.ConstDecl] = attrs.Factory(dict)
    functions: dict[str, ast.FunctionDecl] = attrs.Factory(dict)
    rules: dict[str, ast.RuleDecl] = attrs.Factory(dict)
    events: dict[str, ast.EventDecl] = attrs.Factory(dict)
    modifiers: list[ast.ModifyDecl] = attrs.Factory(list)
    variants: list[ast.VariantDecl] = attrs.Factory(list)
    sources: dict[str, str] = attrs.Factory(dict)
    digest: str = ""
    # The variant that last replaced or extended each name, and how: ordering mistakes show.
    changed_by: dict[str, tuple[str, str, str]] = attrs.Factory(dict)
    # What each `replace` replaced, first version only: the replacement must keep its type.
    replaced: dict[str, object] = attrs.Factory(dict)
    warnings: list[RulesWarning] = attrs.Factory(list)
    # `invariant NAME = COND "message"`: NAME is also a function () -> bool the rules may call
    invariants: dict[str, ast.InvariantDecl] = attrs.Factory(dict)
    requires: list[ast.RequireDecl] = attrs.Factory(list)
    too_many: bool = False  # past CALLABLES_MAX (told once)

    def table_for(self, item) -> dict | None:
        if isinstance(item, ast.RecordDecl):
            return self.cards if item.what == "card" else self.participants
        return {
            ast.ConstDecl: self.consts, ast.FunctionDecl: self.functions, ast.RuleDecl: self.rules,
            ast.EventDecl: self.events, ast.DeckDecl: self.decks, ast.EnumDecl: self.enums,
        }.get(type(item))

    def _name_tables(self) -> tuple[dict, ...]:
        return (self.enums, self.cards, self.participants, self.globals, self.decks, self.consts,
                self.functions, self.rules, self.events)

    def all_names(self) -> dict[str, object]:
        names: dict[str, object] = {}
        for table in self._name_tables():
            names.update(table)
        return names

    def named(self, name: str):
        """all_names().get(name) without building the whole table (asked per call site: a file of
        thousands of functions would take quadratic time)."""
        for table in reversed(self._name_tables()):
            if name in table:
                return table[name]
        return None


def link(base: list[ast.SourceFile], variants: list[ast.SourceFile], sources: dict[str, str]) -> Program:
    prog = Program(sources=dict(sources))
    errors = ErrorCollector()
    for f in base:
        for item in f.items:
            _add(prog, item, errors, in_variant=False)
    for f in variants:
        decls = [i for i in f.items if isinstance(i, ast.VariantDecl)]
        if len(decls) != 1:
            errors.add("a variant file starts with exactly one 'variant NAME \"Title\"' line", f.span,
                       'for example: variant my_rule "My rule"')
        for item in f.items:
            _add(prog, item, errors, in_variant=True)
    if prog.game is None and base:
        errors.add("no 'game' declaration in the rules", base[0].span, 'add: game name "Title" { ... }')
    errors.raise_if_any()
    h = hashlib.sha256()
    for path in sorted(sources):
        h.update(path.rsplit("/", 1)[-1].encode() + b"\0" + sources[path].encode() + b"\0")
    prog.digest = h.hexdigest()[:16]
    return prog


def _add(prog: Program, item, errors: ErrorCollector, in_variant: bool) -> None:
    if isinstance(item, ast.GameDecl):
        if in_variant:
            errors.add("a variant cannot declare a new game", item.span)
        elif prog.game is not None:
            errors.add(f"a second game declaration (the first is at {prog.game.span})", item.span)
        else:
            prog.game = item
        return
    if isinstance(item, ast.VariantDecl):
        if not in_variant:
            errors.add("'variant' belongs in a variant file, not in the base rules", item.span,
                       "move it to games/<game>/variants/<name>.pw")
        else:
            prog.variants.append(item)
            _narrow_players(prog, item, errors)
        return
    if isinstance(item, ast.ModifyDecl):
        prog.modifiers.append(item)
        return
    if isinstance(item, ast.RequireDecl):
        prog.requires.append(item)
        return
    if isinstance(item, ast.InvariantDecl):  # a function of the position, told apart by its message
        prog.invariants[item.name] = item
        item = ast.FunctionDecl(item.name, (), ast.TypeRef("bool", span=item.span), item.cond, span=item.span)
    if isinstance(item, ast.ScenarioDecl):
        errors.add("a scenario belongs in its own file", item.span, "run it with: pitwall scenario FILE")
        return
    if isinstance(item, ast.Override):
        if not in_variant:
            errors.add(f"'{item.mode}' changes the base rules from a variant file", item.span,
                       f"in the base rules, drop '{item.mode}' and write the definition itself")
            return
        _override(prog, item, errors)
        return
    name = item.name
    if isinstance(item, (ast.FunctionDecl, ast.RuleDecl)) and len(prog.functions) + len(prog.rules) >= CALLABLES_MAX:
        if not prog.too_many:  # told at the first only
            prog.too_many = True
            errors.add(f"more than {CALLABLES_MAX:,} functions and rules", item.span,
                       "rules of that size are not supported (a limit of docs/language.md §14)")
        return
    existing = prog.named(name)
    if existing is not None:
        hint = "write 'replace' before it to change the existing definition" if in_variant else None
        errors.add(f"{name!r} is already defined at {existing.span}", item.span, hint)
        return
    _store(prog, item)


def _narrow_players(prog: Program, v: ast.VariantDecl, errors: ErrorCollector) -> None:
    if v.players is None or prog.game is None:
        return
    lo, hi = max(v.players[0], prog.game.min_players), min(v.players[1], prog.game.max_players)
    if lo > hi:
        errors.add(f"variant {v.name!r} wants {v.players[0]} to {v.players[1]} players, but "
                   f"{prog.game.title} takes {prog.game.min_players} to {prog.game.max_players}"
                   f"{' with the variants before it' if len(prog.variants) > 1 else ''}", v.span)
        return
    prog.game = attrs.evolve(prog.game, min_players=lo, max_players=hi)


def _store(prog: Program, item) -> None:
    if isinstance(item, ast.GlobalDecl):
        prog.globals[item.name] = item.field
    else:
        prog.table_for(item)[item.name] = item


def _warn_lost_change(prog: Program, ov: ast.Override, kind: str) -> None:
    """A variant replacing what an earlier one changed drops that change: legal, rarely meant."""
    name, current = ov.item.name, prog.variants[-1].name if prog.variants else "?"
    given = _as_given(prog.variants[-1]) if prog.variants else "?"
    before = prog.changed_by.get(name)
    if ov.mode == "replace" and before is not None and before[0] != current:
        other, how, other_given = before
        hint = (f"apply {current} first (-v {given} -v {other_given}): the statements {other} adds then follow it"
                if how == "extend" else "two variants that both replace it cannot be combined")
        done = {"extend": "extended", "replace": "replaced"}[how]
        prog.warnings.append(RulesWarning(f"variant {current!r} replaces {kind} {name!r}, which variant {other!r} "
                                          f"{done}: that change is lost", ov.span, hint))
    prog.changed_by[name] = (current, ov.mode, given)


def _as_given(v: ast.VariantDecl) -> str:
    """How -v names a variant: its name in a game's variants/ folder, else its file."""
    return v.name if Path(v.span.file).parent.name == "variants" else v.span.file


def _override(prog: Program, ov: ast.Override, errors: ErrorCollector) -> None:
    item = ov.item
    name = item.name
    existing = prog.named(name)
    if existing is None:
        import difflib

        close = difflib.get_close_matches(name, list(prog.all_names()), n=1)
        errors.add(f"there is no {name!r} to {ov.mode}", ov.span,
                   f"did you mean {close[0]!r}?" if close else "without 'replace' it is a new definition")
        return
    old_kind = "global" if isinstance(existing, ast.FieldDecl) else KINDS.get(type(existing))
    if KINDS.get(type(item)) != old_kind:
        errors.add(f"{name!r} is a {kind_word(existing)}; a {kind_word(item)} cannot {ov.mode} it", ov.span)
        return
    _warn_lost_change(prog, ov, old_kind)
    if ov.mode == "replace":
        prog.replaced.setdefault(name, existing)
        _store(prog, item)
    elif isinstance(item, ast.RuleDecl):
        if existing.ret is not None or item.ret is not None:
            errors.add(f"rule {name!r} gives a result: extending it would run after its 'return'", ov.span,
                       f"'replace rule {name}' instead (declared at {existing.span})")
            return
        if [p.name for p in item.params] != [p.name for p in existing.params]:
            errors.add(f"'extend rule {name}' must repeat its parameters exactly", ov.span,
                       f"the rule is declared at {existing.span}")
            return
        prog.rules[name] = attrs.evolve(existing, extensions=existing.extensions + (item.body,))
    elif isinstance(item, ast.DeckDecl):
        prog.decks[name] = attrs.evolve(existing, entries=existing.entries + item.entries)
    else:
        errors.add(f"only rules, decks and tables can be extended; use 'replace {kind_word(existing)} {name}'",
                   ov.span)


def kind_word(decl) -> str:
    """What a declaration is called in messages: as written where synonyms exist (a deck or a table)."""
    if isinstance(decl, (ast.FieldDecl, ast.GlobalDecl)):
        return "global"
    if isinstance(decl, ast.DeckDecl):
        return decl.word
    if isinstance(decl, ast.RecordDecl):
        return decl.kind_word
    return KINDS.get(type(decl), "declaration")


def setting_kind(decl: ast.ConstDecl) -> str | None:
    """int, bool or text: the literal a setting's default is written as (None if it is not one)."""
    v = decl.value
    if isinstance(v, ast.UnOp) and v.op == "-" and isinstance(v.operand, ast.Int):
        return "int"
    return {ast.Int: "int", ast.Bool: "bool", ast.Str: "text"}.get(type(v))


def literal_int(v: ast.Expr) -> int:
    """The value of a whole-number literal, as setting_kind recognises one (-3 is minus applied to 3)."""
    return -v.operand.value if isinstance(v, ast.UnOp) else v.value


def bounds_text(decl: ast.ConstDecl) -> str:
    """A setting's allowed values in words: 'at least 1', 'from 1 to 20' ('' when it has no range)."""
    if decl.bounds is None:
        return ""
    lo, hi = decl.bounds
    return f"at least {lo}" if hi is None else f"from {lo} to {hi}"


def within_bounds(decl: ast.ConstDecl, value: int) -> bool:
    lo, hi = decl.bounds or (None, None)
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def settings_of(prog: Program) -> dict[str, ast.ConstDecl]:
    return {name: c for name, c in prog.consts.items() if c.setting}


def apply_settings(prog: Program, settings: tuple[tuple[str, str], ...]) -> None:
    """Override settings' defaults with the values a run was given (`--set NAME=VALUE`)."""
    known = settings_of(prog)
    listed = ", ".join(known) or "none"
    for name, raw in settings:
        decl = known.get(name)
        if decl is None:
            raise PitwallError(f"{prog.game.title if prog.game else 'this game'} has no setting {name!r}",
                               hint=f"settings: {listed}")
        prog.consts[name] = attrs.evolve(decl, value=_setting_value(decl, raw))


def _setting_value(decl: ast.ConstDecl, raw: str) -> ast.Expr:
    kind, span = setting_kind(decl), decl.span
    if kind == "int":
        try:  # a whole number of at most as many digits as the rules may write
            value = int(raw.strip()) if len(raw.strip().lstrip("+-")) <= INT_DIGITS_MAX else None
        except ValueError:
            value = None
        if value is not None:
            if not within_bounds(decl, value):
                raise PitwallError(f"setting {decl.name!r} must be {bounds_text(decl)}, not {value}",
                                   hint=f"declared at {decl.span}")
            return ast.Int(value, span=span)
    elif kind == "bool" and raw.strip().lower() in ("true", "false"):
        return ast.Bool(raw.strip().lower() == "true", span=span)
    elif kind == "text":
        return ast.Str(raw, span=span)
    shown = raw if len(raw) <= 40 else raw[:40] + "..."
    raise PitwallError(f"setting {decl.name!r} takes {'a whole number' if kind == 'int' else kind}, not {shown!r}",
                       hint=f"declared at {decl.span}")
