"""Source text -> AST. The only module that touches Lark; no Lark object leaves it."""

from __future__ import annotations

import ast as pyast
import hashlib
import os
import pickle
import threading
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.parsers.lalr_analysis import Shift

from .. import __version__
from . import ast
from .errors import PitwallError, RulesSyntaxError, Span, read_text

GRAMMAR = Path(__file__).resolve().parent.parent / "grammar" / "pitwall.lark"
_GRAMMAR_TEXT = GRAMMAR.read_text(encoding="utf-8")
_lock = threading.Lock()
_parser: Lark | None = None


def parser(strict: bool = False) -> Lark:
    """The LALR parser, built once per process (and cached on disk by Lark)."""
    global _parser
    if strict:  # only the grammar test asks: strict needs interegular and skips the cache
        return _build(strict=True)
    with _lock:
        if _parser is None:
            _parser = _build(strict=False)
        return _parser


def _build(strict: bool) -> Lark:
    return Lark(
        _GRAMMAR_TEXT,
        parser="lalr",
        lexer="basic",
        propagate_positions=True,
        maybe_placeholders=True,
        strict=strict,
        cache=False if strict else True,
    )


def _keywords(lark: Lark) -> frozenset[str]:
    return frozenset(t.name for t in lark.terminals if t.pattern.type == "str" and t.pattern.value.isidentifier())


def _parse_tree(text: str):
    """Parse, letting a keyword stand as a name wherever the grammar cannot take the keyword.

    Words like `players`, `card` or `score` are keywords in a few declarations but natural names
    in rules; LALR state merging would otherwise reject them as names after a block or value.
    """
    lark = parser()
    keywords = _keywords(lark)
    ip = lark.parse_interactive()
    for tok in lark.lex(text):
        if tok.type in keywords:
            choices = ip.choices()
            if "NAME" in choices and (tok.type not in choices or not _accepts(ip, tok)):
                tok = Token.new_borrow_pos("NAME", tok.value, tok)
        ip.feed_token(tok)
    return ip.feed_eof()


def _accepts(ip, tok: Token) -> bool:
    """Would the parser shift this token after its pending reductions? (States only, no tree.)"""
    state = ip.parser_state
    states = state.parse_conf.parse_table.states
    stack = list(state.state_stack)
    while True:
        action = states[stack[-1]].get(tok.type)
        if action is None:
            return False
        kind, arg = action
        if kind is Shift:
            return True
        if arg.expansion:
            del stack[-len(arg.expansion):]
        goto = states[stack[-1]].get(arg.origin.name)
        if goto is None:
            return False
        stack.append(goto[1])


def parse(text: str, path: str = "<string>") -> ast.SourceFile:
    try:
        tree = _parse_tree(text)
    except UnexpectedInput as e:
        raise _syntax_error(e, text, path) from None
    try:
        items = _ToAst(path).transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, PitwallError):
            raise e.orig_exc from None
        raise
    return ast.SourceFile(path, tuple(items), span=Span(path, 1, 1, 1, 1))


def parse_file(path: str | Path) -> ast.SourceFile:
    p = Path(path)
    text = read_text(p, "rules file")
    cached = _cache_path(text, str(path))
    if cached is not None and cached.exists():
        try:
            return pickle.loads(cached.read_bytes())
        except Exception:  # noqa: BLE001 - a stale or broken cache entry is simply re-made
            pass
    tree = parse(text, str(path))
    if cached is not None:
        try:
            cached.parent.mkdir(parents=True, exist_ok=True)
            tmp = cached.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL))
            tmp.replace(cached)
        except OSError:
            pass
    return tree


def _cache_path(text: str, path: str) -> Path | None:
    """Parsed files are cached by content (like Lark's grammar cache); PITWALL_NO_CACHE=1 turns it off."""
    if os.environ.get("PITWALL_NO_CACHE"):
        return None
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    key = hashlib.sha256(f"{__version__}\0{_GRAMMAR_TEXT}\0{path}\0{text}".encode()).hexdigest()[:32]
    return Path(root) / "pitwall" / f"ast-{key}.pickle"


# ---------------------------------------------------------------- syntax errors
# Example-driven messages (Lark's match_examples): each label lists snippets that fail in the
# same parser state as the user's text. The table is data, and tests cover every entry.
SYNTAX_EXAMPLES: dict[str, tuple[str, list[str]]] = {
    "missing-brace": (
        "a block is not closed: '}' is missing",
        ["rule r() { let x = 1", "rule r() { if true { stop }", "rule r() { for p in players { stop }"],
    ),
    "missing-expression": (
        "an expression is missing here",
        ["const X = ", "rule r() { let x = }", "rule r() { x = }", "const X = 1 +", "rule r() { if { stop } }"],
    ),
    "assign-in-condition": (
        "'=' assigns a value; to compare, write '=='",
        ["rule r() { if x = 1 { stop } }", "rule r() { while x = 1 { stop } }", "const X = if a = 1 then 2 else 3"],
    ),
    "bad-statement": (
        "a statement cannot start like this",
        ["rule r() { 1 + 2 }", 'rule r() { "text" }', "rule r() { (x) }", "rule r() { + }"],
    ),
    "missing-params": (
        "a rule or function needs a parameter list, even an empty one: name()",
        ["rule r { stop }", "function f -> int = 1"],
    ),
    "not-top-level": (
        "only declarations may stand at the top level (game, card, rule, const, ...)",
        ["let x = 1", "x = 3", "if true { stop }", "stop"],
    ),
    "missing-type": (
        "a type is missing after ':' (int, bool, text, a card or participant, list of T, pile of T)",
        ["card C { value: }", "rule r(p: ) { stop }", "participant P { x: = 1 }"],
    ),
    "missing-paren": (
        "')' is missing",
        ["const X = (1 + 2", "rule r() { f(1, 2 }", "const X = max(1, 2"],
    ),
}

HINTS = {
    "missing-brace": "every '{' needs its '}'; check the block that starts before this point",
    "missing-expression": "write a value or expression, for example 0, p.score or count(players)",
    "assign-in-condition": "conditions compare with == != < <= > >=",
    "bad-statement": "statements start with a keyword (let, if, for, draw, emit, ...) or a name",
    "missing-params": "write rule name() { ... }",
    "not-top-level": "put statements inside a rule: rule name() { ... }",
    "missing-type": "for example value: int",
    "missing-paren": "every '(' needs its ')'",
}


_LATER = "const FIRST = 0\n"


def _syntax_error(e: UnexpectedInput, text: str, path: str) -> RulesSyntaxError:
    label = None
    try:
        # Lark matches on the parser state *and* stack depth, and the first declaration of a file
        # sits one level shallower than the rest: so each example is tried in both places.
        examples = {key: snippets + [_LATER + s for s in snippets] for key, (_, snippets) in SYNTAX_EXAMPLES.items()}
        label = e.match_examples(_parse_tree, examples, use_accepts=True)
    except Exception:  # noqa: BLE001 - matching is best effort; fall back to the raw message
        label = None
    line, col = getattr(e, "line", 1) or 1, getattr(e, "column", 1) or 1
    width = 1
    if isinstance(e, UnexpectedToken) and e.token is not None and e.token.type != "$END":
        width = max(1, len(str(e.token)))
    if isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END"):
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
    span = Span(path, line, col, line, col + width)
    if label:
        message, _ = SYNTAX_EXAMPLES[label]
        return RulesSyntaxError(message, span, HINTS[label])
    if isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else "?"
        return RulesSyntaxError(f"unexpected character {ch!r}", span, "remove it, or quote text with \"...\"")
    if isinstance(e, UnexpectedToken) and e.token.type != "$END":
        expected = ", ".join(sorted(_pretty(t) for t in e.expected)[:8])
        return RulesSyntaxError(f"unexpected {str(e.token)!r}", span, f"expected one of: {expected}")
    return RulesSyntaxError("unexpected end of file", span, "something is unfinished above")


def _pretty(terminal: str) -> str:
    names = {"NAME": "a name", "INT": "a number", "STRING": "a string", "LBRACE": "'{'", "RBRACE": "'}'",
             "LPAR": "'('", "RPAR": "')'", "EQUAL": "'='", "COMMA": "','", "COLON": "':'"}
    return names.get(terminal, terminal.lower())


# ---------------------------------------------------------------- tree -> AST
def _unquote(tok: Token) -> str:
    return pyast.literal_eval(str(tok))


def _binop(op: str):
    def method(self, meta, children):
        left, right = children
        return ast.BinOp(op, left, right, span=self.sp(meta))

    return method


@v_args(meta=True)
class _ToAst(Transformer):
    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def sp(self, meta) -> Span:
        if getattr(meta, "empty", True) and not hasattr(meta, "line"):
            return Span(self.path, 0, 0, 0, 0)
        return Span(self.path, meta.line, meta.column, meta.end_line, meta.end_column)

    def tok(self, t: Token) -> Span:
        return Span(self.path, t.line, t.column, t.end_line, t.end_column)

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
        s = dict(kind=None, lo=None, hi=None, names=(), score=None, play=None, view=None)
        for key, value in settings:
            s.update(value) if key == "players" else s.__setitem__(key, value)
        if s["kind"] is None or s["play"] is None:
            from .errors import RulesSyntaxError as E

            raise E("a game needs 'players KIND MIN to MAX' and 'play RULE'", self.sp(meta),
                    "for example: players Player 2 to 6  play main")
        return ast.GameDecl(str(name), _unquote(title), s["kind"], s["lo"], s["hi"], s["names"], s["score"],
                            s["play"], span=self.sp(meta), view=s["view"])

    def game_players(self, meta, c):
        return "players", dict(kind=str(c[0]), lo=int(c[1]), hi=int(c[2]))

    def game_names(self, meta, c):
        return "names", tuple(_unquote(t) for t in c)

    def game_score(self, meta, c):
        return "score", str(c[0])

    def game_play(self, meta, c):
        return "play", str(c[0])

    def game_view(self, meta, c):
        return "view", str(c[0])

    def enum_decl(self, meta, c):
        members = tuple(m[0] for m in c[1:])
        return ast.EnumDecl(str(c[0]), members, span=self.sp(meta), texts=tuple(m[1] or m[0] for m in c[1:]),
                            member_spans=tuple(m[2] for m in c[1:]))

    def enum_member(self, meta, c):
        return str(c[0]), _unquote(c[1]) if len(c) > 1 else None, self.sp(meta)

    def _record(self, what, meta, c):
        name, show, *fields = c
        return ast.RecordDecl(what, str(name), _unquote(show) if show else None, tuple(fields), span=self.sp(meta))

    def card_decl(self, meta, c):
        return self._record("card", meta, c)

    def participant_decl(self, meta, c):
        return self._record("participant", meta, c)

    def field_decl(self, meta, c):
        name, typ, vis, default, refill = c
        return ast.FieldDecl(str(name), typ, default, vis or "public", refill, span=self.sp(meta))

    def refill(self, meta, c):
        return str(c[0])

    def global_decl(self, meta, c):
        return ast.GlobalDecl(c[0], span=self.sp(meta))

    def deck_decl(self, meta, c):
        name, card, *entries = c
        return ast.DeckDecl(str(name), str(card), tuple(entries), span=self.sp(meta))

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
        doc = _unquote(c[3]) if len(c) > 3 and c[3] is not None else ""
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
        return ast.EventDecl(str(c[0]), c[1], _unquote(c[2]), span=self.sp(meta))

    def modify_decl(self, meta, c):
        return ast.ModifyDecl(str(c[0]), c[1], c[2], span=self.sp(meta))

    def variant_decl(self, meta, c):
        players = (int(c[2]), int(c[3])) if len(c) > 2 else None
        return ast.VariantDecl(str(c[0]), _unquote(c[1]), span=self.sp(meta), players=players)

    def scenario_decl(self, meta, c):
        title, *settings = c
        s = dict(game=None, variants=(), players=(), seed=1, setup=None, run=None)
        decisions = []
        for key, value in settings:
            if key == "decide":
                decisions.append(value)
            else:
                s[key] = value
        return ast.ScenarioDecl(_unquote(title), s["game"], s["variants"], s["players"], s["seed"], s["setup"],
                                s["run"], tuple(decisions), span=self.sp(meta))

    def sc_game(self, meta, c):
        return "game", str(c[0])

    def sc_variants(self, meta, c):
        return "variants", tuple(str(t) for t in c)

    def sc_players(self, meta, c):
        return "players", tuple(_unquote(t) for t in c)

    def sc_seed(self, meta, c):
        return "seed", int(c[0])

    def sc_setup(self, meta, c):
        return "setup", c[0]

    def sc_run(self, meta, c):
        return "run", ast.Call(str(c[0]), c[1], span=self.sp(meta))

    def sc_run_block(self, meta, c):
        return "run", c[0]

    def sc_decide(self, meta, c):
        return "decide", ast.Decide(_unquote(c[0]), str(c[1]), _unquote(c[2]), span=self.sp(meta))

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
        return ast.Choose(target, options, by, _unquote(prompt) if prompt else None, prefer, span=self.sp(meta))

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
        return ast.Str(_unquote(c[0]), span=self.sp(meta))

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
