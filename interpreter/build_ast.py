"""The AST builder: _ToAst makes each node of ast.py from a reduced grammar rule, and the literals'
checks it relies on (number range, string escapes and length) with their positioned errors.

parse.py's driver calls one _ToAst method per reduction, with the rule's place and its children;
the driver checks each INT and STRING token as it is read (_check_int, _unquote), so a bad literal
is reported at its column before any node holds it.
"""

from __future__ import annotations

import re

from . import ast
from .errors import RulesSyntaxError, Span
from .limits import INT_DIGITS_MAX, INT_MAX, STRING_MAX
from .syntax_errors import _show

# ---------------------------------------------------------------- literals
_SPECIAL = re.compile("[\\\\\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff]")  # a backslash, or no text at all
_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t"}
ESCAPE_HINT = ('a string knows four escapes: \\" (a quote), \\\\ (a backslash), \\n (a new line) and \\t (a tab); '
               "there is no \\u: files are UTF-8, so type any other character as itself")


def _check_int(digits: str, path: str, line: int, col: int) -> None:
    if len(digits) > INT_DIGITS_MAX:
        message = f"this number has {len(digits):,} digits, more than the {INT_DIGITS_MAX} a whole number may have"
    elif int(digits) > INT_MAX:
        message = f"this number is larger than {INT_MAX}, the largest whole number"
    else:
        return
    raise RulesSyntaxError(message, Span(path, line, col, line, col + len(digits)),
                           f"whole numbers go from -{INT_MAX} to {INT_MAX}")


def _unquote(literal: str, path: str = "", line: int = 0, col: int = 0) -> str:
    """The text of a string literal: its escapes decoded, anything but plain text refused at its column."""
    body = literal[1:-1]
    if _SPECIAL.search(body) is None:
        value = body
    else:
        parts, i = [], 0
        while (found := _SPECIAL.search(body, i)) is not None:
            j = found.start()
            parts.append(body[i:j])
            at = col + 1 + j
            if body[j] != "\\":
                raise RulesSyntaxError(f"a control character ({_show(body[j])}) in a string",
                                       Span(path, line, at, line, at + 1),
                                       "write \\n for a new line and \\t for a tab; no other control character")
            escaped = body[j + 1]  # the lexer's STRING never ends in a lone backslash
            if escaped not in _ESCAPES:
                shown = escaped if escaped.isprintable() else _show(escaped)
                raise RulesSyntaxError(f"unknown escape '\\{shown}' in a string", Span(path, line, at, line, at + 2),
                                       ESCAPE_HINT)
            parts.append(_ESCAPES[escaped])
            i = j + 2
        parts.append(body[i:])
        value = "".join(parts)
    if len(value) > STRING_MAX:
        raise RulesSyntaxError(f"this string is {len(value):,} characters long, more than the {STRING_MAX:,} allowed",
                               Span(path, line, col, line, col + 1), "shorten it, or split it into several strings")
    return value


# ---------------------------------------------------------------- reductions -> AST
def _binop(op: str):
    def method(self, meta, children):
        left, right = children
        return ast.BinOp(op, left, right, span=self.sp(meta))

    return method


class _ToAst:
    """One method per grammar alias (or rule): (meta, children) -> node, meta being the rule's
    (line, col, end_line, end_col, ...) in the text or None when it matched nothing."""

    def __init__(self, path: str):
        self.path = path

    def sp(self, meta) -> Span:
        if meta is None:
            return Span(self.path, 0, 0, 0, 0)
        return Span(self.path, meta[0], meta[1], meta[2], meta[3])

    def text(self, literal: str) -> str:
        return _unquote(literal)

    # files
    def start(self, meta, children):
        return children

    def override(self, meta, children):
        mode, item = children
        return ast.Override(mode, item, span=self.sp(meta))

    def override_mode(self, meta, children):
        return str(children[0])

    def visibility(self, meta, children):
        return str(children[0])

    def desc(self, meta, children):
        return True

    # declarations
    def game_decl(self, meta, children):
        name, title, *settings = children
        s = dict(kind=None, lo=None, hi=None, names=(), score=None, play=None, view=None,
                 rank=None, leader=None, turns=None, board=None)
        for key, value in settings:
            s.update(value) if key == "players" else s.__setitem__(key, value)
        if s["kind"] is None or s["play"] is None:
            raise RulesSyntaxError("a game needs 'players KIND MIN to MAX' and 'play RULE'", self.sp(meta),
                                   "for example: players Player 2 to 6  play main")
        return ast.GameDecl(str(name), self.text(title), s["kind"], s["lo"], s["hi"], s["names"], s["score"],
                            s["play"], span=self.sp(meta), view=s["view"], rank=s["rank"], leader=s["leader"],
                            turns=s["turns"], board=s["board"])

    def game_players(self, meta, c):
        return "players", dict(kind=str(c[0]), lo=int(c[1]), hi=int(c[2]))

    def game_names(self, meta, c):
        return "names", tuple(self.text(t) for t in c)

    def game_score(self, meta, c):
        return "score", str(c[0])

    def game_play(self, meta, c):
        return "play", str(c[0])

    def game_view(self, meta, c):
        return "view", str(c[0])

    def game_rank(self, meta, c):
        return "rank", str(c[0])

    def game_leader(self, meta, c):
        return "leader", str(c[0])

    def game_turns(self, meta, c):
        return "turns", str(c[0])

    def game_board(self, meta, c):
        return "board", str(c[0])

    def enum_decl(self, meta, c):
        members = tuple(m[0] for m in c[1:])
        return ast.EnumDecl(str(c[0]), members, span=self.sp(meta), texts=tuple(m[1] or m[0] for m in c[1:]),
                            member_spans=tuple(m[2] for m in c[1:]))

    def enum_member(self, meta, c):
        return str(c[0]), self.text(c[1]) if len(c) > 1 else None, self.sp(meta)

    def _record(self, what, meta, c, word=""):
        name, show, *fields = c
        return ast.RecordDecl(what, str(name), self.text(show) if show else None, tuple(fields), span=self.sp(meta),
                              word=word or what)

    def card_decl(self, meta, c):
        return self._record("card", meta, c)

    def record_decl(self, meta, c):
        return self._record("card", meta, c, "record")

    def participant_decl(self, meta, c):
        return self._record("participant", meta, c)

    def field_decl(self, meta, c):
        name, typ, vis, default, refill = c
        return ast.FieldDecl(str(name), typ, default, vis or "public", refill, span=self.sp(meta))

    def refill(self, meta, c):
        return str(c[0])

    def global_decl(self, meta, c):
        return ast.GlobalDecl(c[0], span=self.sp(meta))

    def deck_decl(self, meta, c, word="deck"):
        name, card, *entries = c
        return ast.DeckDecl(str(name), str(card), tuple(entries), span=self.sp(meta), word=word)

    def table_decl(self, meta, c):
        return self.deck_decl(meta, c, "table")

    def deck_row(self, meta, c):
        return ast.DeckRow(1, tuple(x for x in c if x is not None), span=self.sp(meta))

    def deck_copies(self, meta, c):
        return ast.DeckRow(int(c[0]), tuple(x for x in c[1:] if x is not None), span=self.sp(meta))

    def deck_for(self, meta, c):
        var, it, *entries = c
        return ast.DeckFor(str(var), it, tuple(entries), span=self.sp(meta))

    def const_decl(self, meta, c):
        return ast.ConstDecl(str(c[0]), c[1], span=self.sp(meta))

    def setting_decl(self, meta, c):
        doc = self.text(c[3]) if len(c) > 3 and c[3] is not None else ""
        return ast.ConstDecl(str(c[0]), c[1], span=self.sp(meta), setting=doc or True, bounds=c[2])

    def setting_range(self, meta, c):
        return (c[0], c[1])

    def bound(self, meta, c):
        return int(c[0])

    def neg_bound(self, meta, c):
        return -int(c[0])

    def function_expr(self, meta, c):
        return ast.FunctionDecl(str(c[0]), c[1], c[2], c[3], span=self.sp(meta))

    function_block = function_expr

    def rule_decl(self, meta, c):
        return ast.RuleDecl(str(c[0]), c[1], c[3], ret=c[2], span=self.sp(meta))

    def params(self, meta, c):
        return tuple(p for p in c if p is not None)

    def param(self, meta, c):
        return ast.Param(str(c[0]), c[1], span=self.sp(meta))

    def event_decl(self, meta, c):
        return ast.EventDecl(str(c[0]), c[1], self.text(c[2]), span=self.sp(meta))

    def modify_decl(self, meta, c):
        return ast.ModifyDecl(str(c[0]), c[1], c[2], span=self.sp(meta))

    def variant_decl(self, meta, c):
        includes = c.pop() if isinstance(c[-1], tuple) else ()
        players = (int(c[2]), int(c[3])) if len(c) > 2 else None
        return ast.VariantDecl(str(c[0]), self.text(c[1]), span=self.sp(meta), players=players,
                               includes=includes)

    def variant_includes(self, meta, c):
        return tuple(c)

    def variant_include(self, meta, c):
        return ast.Var(str(c[0]), span=self.sp(meta))

    def scenario_decl(self, meta, c):
        title, *settings = c
        s = dict(game=None, variants=(), players=(), seed=1, setup=None, run=None)
        decisions, expects, spans = [], [], []
        for key, value, span in settings:
            spans.append((key, span))
            if key == "decide":
                decisions.append(value)
            elif key == "expect":
                cond, message = value
                expects.append(ast.Expect(cond, message, s["run"] is None, len(decisions), span=span))
            else:
                s[key] = value
        return ast.ScenarioDecl(self.text(title), s["game"], s["variants"], s["players"], s["seed"], s["setup"],
                                s["run"], tuple(decisions), span=self.sp(meta), expects=tuple(expects),
                                spans=tuple(spans))

    def sc_game(self, meta, c):
        return "game", str(c[0]), self.sp(meta)

    def sc_variants(self, meta, c):
        return "variants", tuple(c), self.sp(meta)

    def variant_ref(self, meta, c):
        # a quoted path names a file; the builder keeps its .pw ending so it is told from a name
        return self.text(c[0]) if str(c[0]).startswith('"') else str(c[0])

    def sc_players(self, meta, c):
        return "players", tuple(self.text(t) for t in c), self.sp(meta)

    def sc_seed(self, meta, c):
        return "seed", int(c[0]), self.sp(meta)

    def sc_setup(self, meta, c):
        return "setup", c[0], self.sp(meta)

    def sc_run(self, meta, c):
        return "run", ast.Call(str(c[0]), c[1], span=self.sp(meta)), self.sp(meta)

    def sc_run_block(self, meta, c):
        return "run", c[0], self.sp(meta)

    def sc_expect(self, meta, c):
        return "expect", (c[0], self.text(c[1]) if c[1] is not None else None), self.sp(meta)

    def invariant_decl(self, meta, c):
        return ast.InvariantDecl(str(c[0]), c[1], self.text(c[2]), span=self.sp(meta))

    def require_decl(self, meta, c):
        return ast.RequireDecl(c[0], self.text(c[1]), span=self.sp(meta))

    def sc_decide(self, meta, c):
        return "decide", ast.Decide(self.text(c[0]), str(c[1]), self.text(c[2]), span=self.sp(meta)), self.sp(meta)

    # types
    def type_name(self, meta, c):
        return ast.TypeRef(str(c[0]), span=self.sp(meta))

    def type_list(self, meta, c):
        return ast.TypeRef("list", c[0], span=self.sp(meta))

    def type_pile(self, meta, c):
        return ast.TypeRef("pile", c[0], span=self.sp(meta))

    # statements
    def block(self, meta, c):
        return ast.Block(tuple(c), span=self.sp(meta))

    def let_stmt(self, meta, c):
        return ast.Let(str(c[0]), c[2], span=self.sp(meta), type=c[1])

    def assign_stmt(self, meta, c):
        return ast.Assign(c[0], c[1], span=self.sp(meta))

    def augassign_stmt(self, meta, c):
        return ast.AugAssign(c[0], str(c[1])[0], c[2], span=self.sp(meta))

    def call_stmt(self, meta, c):
        call = ast.Call(str(c[0]), c[1], span=self.sp(meta))
        return ast.CallStmt(call, span=self.sp(meta))

    def if_stmt(self, meta, c):
        cond, body, *rest = c
        orelse = rest.pop()
        branches = [(cond, body)] + [tuple(e) for e in rest]
        return ast.If(tuple(branches), orelse, span=self.sp(meta))

    def elif_clause(self, meta, c):
        return (c[0], c[1])

    def for_stmt(self, meta, c):
        return ast.For(str(c[0]), c[1], c[2], span=self.sp(meta))

    def while_stmt(self, meta, c):
        return ast.While(c[0], c[1], span=self.sp(meta))

    def repeat_stmt(self, meta, c):
        return ast.Repeat(c[0], str(c[1]) if c[1] else None, c[2], span=self.sp(meta))

    def draw_stmt(self, meta, c):
        return ast.Draw(c[0], c[1], c[2], span=self.sp(meta))

    def move_stmt(self, meta, c):
        return ast.Move(c[0], c[1], c[2], span=self.sp(meta))

    def empty_stmt(self, meta, c):
        return ast.Empty(c[0], c[1], span=self.sp(meta))

    def shuffle_stmt(self, meta, c):
        return ast.Shuffle(c[0], span=self.sp(meta))

    def choose_stmt(self, meta, c):
        target, options, by, prompt, prefer = c
        return ast.Choose(target, options, by, self.text(prompt) if prompt else None, prefer, span=self.sp(meta))

    def simultaneous_stmt(self, meta, c):
        return ast.Simultaneous(str(c[0]), c[1], c[2], span=self.sp(meta))

    def emit_stmt(self, meta, c):
        return ast.Emit(str(c[0]), c[1], span=self.sp(meta))

    def finish_stmt(self, meta, c):
        return ast.Finish(c[0], span=self.sp(meta))

    def return_stmt(self, meta, c):
        return ast.Return(c[0], span=self.sp(meta))

    def stop_stmt(self, meta, c):
        return ast.StopRule(span=self.sp(meta))

    # expressions
    def cond_expr(self, meta, c):
        return ast.Cond(c[0], c[1], c[2], span=self.sp(meta))

    or_op = _binop("or")
    and_op = _binop("and")
    add = _binop("+")
    sub = _binop("-")
    mul = _binop("*")
    div = _binop("/")
    mod = _binop("%")
    in_op = _binop("in")
    not_in_op = _binop("notin")

    def compare(self, meta, c):
        return ast.BinOp(str(c[1]), c[0], c[2], span=self.sp(meta))

    def not_op(self, meta, c):
        return ast.UnOp("not", c[0], span=self.sp(meta))

    def neg(self, meta, c):
        if isinstance(c[0], ast.Int):
            return ast.Int(-c[0].value, span=self.sp(meta))
        return ast.UnOp("-", c[0], span=self.sp(meta))

    def pos(self, meta, c):
        return c[0]

    def paren(self, meta, c):
        return c[0]

    def field(self, meta, c):
        return ast.Field(c[0], str(c[1]), span=self.sp(meta))

    def index(self, meta, c):
        return ast.Index(c[0], c[1], span=self.sp(meta))

    def call(self, meta, c):
        return ast.Call(str(c[0]), c[1], span=self.sp(meta))

    def aggregate(self, meta, c):
        return ast.Aggregate(str(c[0]), c[1], span=self.sp(meta))

    def comprehension(self, meta, c):
        elem, var, it, cond, key, desc = c
        return ast.Comprehension(elem, str(var), it, cond, key, bool(desc), span=self.sp(meta))

    def args(self, meta, c):
        return tuple(a for a in c if a is not None)

    def int_lit(self, meta, c):
        return ast.Int(int(c[0]), span=self.sp(meta))

    def str_lit(self, meta, c):
        return ast.Str(self.text(c[0]), span=self.sp(meta))

    def true_lit(self, meta, c):
        return ast.Bool(True, span=self.sp(meta))

    def false_lit(self, meta, c):
        return ast.Bool(False, span=self.sp(meta))

    def none_lit(self, meta, c):
        return ast.NoneLit(span=self.sp(meta))

    def var(self, meta, c):
        return ast.Var(str(c[0]), span=self.sp(meta))

    def tuple_lit(self, meta, c):
        return ast.TupleLit(tuple(x for x in c if x is not None), span=self.sp(meta))

    def list_lit(self, meta, c):
        return ast.ListLit(tuple(x for x in c if x is not None), span=self.sp(meta))

    def list_comp(self, meta, c):
        return ast.ListComp(c[0], span=self.sp(meta))

    def new_expr(self, meta, c):
        return ast.New(str(c[0]), c[1], span=self.sp(meta))
