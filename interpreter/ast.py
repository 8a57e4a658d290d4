"""Typed syntax tree. Every node carries the span of source it came from (ignored by ==)."""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import attrs

from .errors import NOWHERE, Span


def node(cls):
    """A frozen attrs class whose ==, hash and repr are shared functions of its fields: attrs
    would write and compile the three for each of these 59 classes, a fifth of the imports of
    `pitwall check` (tests/test_ast_nodes.py holds them to attrs' own behaviour)."""
    cls = attrs.frozen(cls, eq=False, repr=False)
    fields = attrs.fields(cls)
    compared = tuple(f.name for f in fields if f.eq)  # never the span
    shown = tuple(f.name for f in fields if f.repr)
    key = attrgetter(*compared) if compared else (lambda self: ())
    name = cls.__qualname__.rsplit(">.", 1)[-1]

    def __eq__(self, other):
        return key(self) == key(other) if other.__class__ is self.__class__ else NotImplemented

    def __ne__(self, other):
        return key(self) != key(other) if other.__class__ is self.__class__ else NotImplemented

    def __hash__(self):
        return hash((name, key(self)))

    def __repr__(self):
        return name + "(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in shown) + ")"

    for method in (__eq__, __ne__, __hash__, __repr__):
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        setattr(cls, method.__name__, method)
    return cls


def _span():
    return attrs.field(default=NOWHERE, eq=False, repr=False, kw_only=True)


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def children(node) -> list:
    """What a walk of the tree visits under `node`: a list's or tuple's items, a node's fields but
    its span; nothing under a name, number or text."""
    if isinstance(node, (list, tuple)):
        return list(node)
    kind = type(node)
    names = _CHILD_FIELDS.get(kind)
    if names is None:
        if not attrs.has(kind):
            return []
        names = _CHILD_FIELDS[kind] = tuple(f.name for f in attrs.fields(kind) if f.name != "span")
    return [getattr(node, n) for n in names]


# ---------------------------------------------------------------- types
@node
class TypeRef:
    name: str  # int, bool, text, list, pile, or a declared name
    arg: TypeRef | None = None
    span: Span = _span()


@node
class Param:
    name: str
    type: TypeRef
    span: Span = _span()


# ---------------------------------------------------------------- expressions
class Expr:
    span: Span


@node
class Int(Expr):
    value: int
    span: Span = _span()


@node
class Str(Expr):
    value: str
    span: Span = _span()


@node
class Bool(Expr):
    value: bool
    span: Span = _span()


@node
class NoneLit(Expr):
    span: Span = _span()


@node
class Var(Expr):
    name: str
    span: Span = _span()


@node
class Field(Expr):
    obj: Expr
    name: str
    span: Span = _span()


@node
class Index(Expr):
    obj: Expr
    index: Expr
    span: Span = _span()


@node
class Call(Expr):
    name: str
    args: tuple[Expr, ...]
    span: Span = _span()


@node
class Comprehension:
    elem: Expr
    var: str
    iter: Expr
    cond: Expr | None
    key: Expr | None
    desc: bool
    span: Span = _span()


@node
class Aggregate(Expr):
    name: str  # sum, min, max, count, any, all, sort, first, ...
    comp: Comprehension
    span: Span = _span()


@node
class ListLit(Expr):
    items: tuple[Expr, ...]
    span: Span = _span()


@node
class ListComp(Expr):
    comp: Comprehension
    span: Span = _span()


@node
class TupleLit(Expr):
    items: tuple[Expr, ...]
    span: Span = _span()


@node
class BinOp(Expr):
    op: str  # + - * / % == != < <= > >= and or in notin
    left: Expr
    right: Expr
    span: Span = _span()


@node
class UnOp(Expr):
    op: str  # - + not
    operand: Expr
    span: Span = _span()


@node
class Cond(Expr):
    cond: Expr
    then: Expr
    orelse: Expr
    span: Span = _span()


@node
class New(Expr):
    kind: str
    name: Expr
    span: Span = _span()


# ---------------------------------------------------------------- statements
class Stmt:
    span: Span


@node
class Block:
    stmts: tuple[Stmt, ...]
    span: Span = _span()


@node
class Let(Stmt):
    name: str
    value: Expr
    span: Span = _span()
    type: TypeRef | None = None  # `let gone: list of Card = []`: needed where the value has no type of its own


@node
class Assign(Stmt):
    target: Expr
    value: Expr
    span: Span = _span()


@node
class AugAssign(Stmt):
    target: Expr
    op: str
    value: Expr
    span: Span = _span()


@node
class CallStmt(Stmt):
    call: Call
    span: Span = _span()


@node
class If(Stmt):
    branches: tuple[tuple[Expr, Block], ...]
    orelse: Block | None
    span: Span = _span()


@node
class For(Stmt):
    var: str
    iter: Expr
    body: Block
    span: Span = _span()


@node
class While(Stmt):
    cond: Expr
    body: Block
    span: Span = _span()


@node
class Repeat(Stmt):
    count: Expr
    var: str | None
    body: Block
    span: Span = _span()


@node
class Draw(Stmt):
    count: Expr
    source: Expr
    dest: Expr
    span: Span = _span()


@node
class Move(Stmt):
    card: Expr
    source: Expr
    dest: Expr
    span: Span = _span()


@node
class Empty(Stmt):
    source: Expr
    dest: Expr
    span: Span = _span()


@node
class Shuffle(Stmt):
    pile: Expr
    span: Span = _span()


@node
class Choose(Stmt):
    target: Expr  # Var or Index
    options: Expr
    by: Expr | None
    prompt: str | None
    prefer: Expr | None
    span: Span = _span()


@node
class Simultaneous(Stmt):
    var: str
    iter: Expr
    body: Block
    span: Span = _span()


@node
class Emit(Stmt):
    event: str
    args: tuple[Expr, ...]
    span: Span = _span()


@node
class Finish(Stmt):
    winners: Expr
    span: Span = _span()


@node
class Return(Stmt):
    value: Expr
    span: Span = _span()


@node
class StopRule(Stmt):
    span: Span = _span()


# ---------------------------------------------------------------- declarations
@node
class FieldDecl:
    name: str
    type: TypeRef
    default: Expr | None
    visibility: str  # public, secret (owner only), hidden (face down)
    refill: str | None  # a pile that refills this one, shuffled, when it runs out
    span: Span = _span()


@node
class GameDecl:
    name: str
    title: str
    player_kind: str
    min_players: int
    max_players: int
    names: tuple[str, ...]
    score: str | None
    play: str
    span: Span = _span()
    view: str | None = None  # function(player) -> list of text: what a human player sees
    # What the workbench reads of a game (statistics, the HTML viewer), each optional:
    rank: str | None = None  # function() -> list of players' kind: the finishing order, best first
    leader: str | None = None  # function() -> players' kind: who leads at this moment
    turns: str | None = None  # an int global: how many turns the game has run
    board: str | None = None  # function() -> list of text: the board's places in order, as words


@node
class EnumDecl:
    name: str
    members: tuple[str, ...]
    span: Span = _span()
    # What each member is at run time and in narration: its text, or else its name.
    texts: tuple[str, ...] = ()
    member_spans: tuple[Span, ...] = ()

    def text_of(self, member: str) -> str:
        return self.texts[self.members.index(member)] if self.texts else member


@node
class RecordDecl:
    """A card type (or record type) or a participant kind: named typed fields."""

    what: str  # card | participant
    name: str
    show: str | None
    fields: tuple[FieldDecl, ...]
    span: Span = _span()
    # The word it was declared with (card, record or participant): a record is a card by
    # another name, for data that are not cards, and messages name it as written.
    word: str = attrs.field(default="", kw_only=True)

    @property
    def kind_word(self) -> str:
        return self.word or self.what


@node
class GlobalDecl:
    field: FieldDecl
    span: Span = _span()

    @property
    def name(self) -> str:
        return self.field.name


@node
class DeckRow:
    count: int
    args: tuple[Expr, ...]
    span: Span = _span()


@node
class DeckFor:
    var: str
    iter: Expr
    entries: tuple[Any, ...]
    span: Span = _span()


@node
class DeckDecl:
    name: str
    card: str
    entries: tuple[Any, ...]
    span: Span = _span()
    word: str = attrs.field(default="deck", kw_only=True)  # deck, or table: its synonym for rows of data


@node
class ConstDecl:
    name: str
    value: Expr
    span: Span = _span()
    # A setting is a constant a run may override (`--set NAME=VALUE`); a text is its description.
    setting: bool | str = False
    # A whole-number setting's allowed values (`from LO [to HI]`); None where a bound is open.
    bounds: tuple[int | None, int | None] | None = None


@node
class FunctionDecl:
    name: str
    params: tuple[Param, ...]
    ret: TypeRef
    body: Expr | Block
    span: Span = _span()


@node
class RuleDecl:
    name: str
    params: tuple[Param, ...]
    body: Block
    # A rule may give a result (`rule contest(a: P, b: P) -> bool`), taken by `let`/`=`.
    ret: TypeRef | None = None
    span: Span = _span()
    # `extend rule` bodies, in the order linked: each runs after the rule's own body, even when
    # that body leaves early with `stop`, and sees the parameters but not the body's locals.
    extensions: tuple[Block, ...] = attrs.field(default=(), kw_only=True)


@node
class EventDecl:
    name: str
    params: tuple[Param, ...]
    template: str
    span: Span = _span()


@node
class ModifyDecl:
    target: str
    when: Expr | None
    value: Expr
    span: Span = _span()


@node
class Override:
    mode: str  # replace | extend
    item: Any
    span: Span = _span()

    @property
    def name(self) -> str:
        return self.item.name


@node
class VariantDecl:
    name: str
    title: str
    span: Span = _span()
    players: tuple[int, int] | None = None  # the variant narrows the game's player count
    includes: tuple = ()  # Var nodes (a name and where it stands): the game's variants a bundle applies before itself


@node
class Decide:
    by: str
    name: str
    option: str
    span: Span = _span()


@node
class Expect:
    """`expect COND ["message"]` in a scenario: checked when the scenario reaches it."""
    cond: Expr
    message: str | None
    before_run: bool  # written before `run`: checked on the position the setup states
    after: int  # how many `decide` lines stand before it: checked before the next one is answered
    span: Span = _span()


@node
class ScenarioDecl:
    title: str
    game: str | None
    variants: tuple[str, ...]  # names, or paths of variant files (ending in .pw) from the scenario's folder
    players: tuple[str, ...]
    seed: int
    setup: Block | None
    run: Call | Block | None   # one rule call, or statements run in order
    decisions: tuple[Decide, ...]
    span: Span = _span()
    expects: tuple[Expect, ...] = attrs.field(default=(), kw_only=True)
    # where each setting is written, so a header error points at its line
    spans: tuple[tuple[str, Span], ...] = attrs.field(default=(), kw_only=True)

    def where(self, setting: str) -> Span:
        return dict(self.spans).get(setting, self.span)


@node
class InvariantDecl:
    """`invariant NAME = COND "message"`: true of every position of the game."""
    name: str
    cond: Expr
    message: str
    span: Span = _span()


@node
class RequireDecl:
    """`require COND "message"`: true of the constants, checked when the rules load."""
    cond: Expr
    message: str
    span: Span = _span()


@node
class SourceFile:
    path: str
    items: tuple[Any, ...]
    span: Span = _span()
