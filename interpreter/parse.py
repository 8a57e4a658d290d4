"""Source text -> AST. The only module that touches Lark; no Lark object leaves it.

Lark compiles the grammar into LALR tables and lexes; the loop in `_run` drives the tables itself
and builds each AST node when its rule is reduced. There is no parse tree and no recursion, so no
text can reach Python's recursion limit here, and the limits of limits.py are enforced on the way:
a rules file is data, and a hostile one ends in a positioned RulesSyntaxError, fast (a text of
SOURCE_MAX bytes is read in a few seconds at most, most hostile ones stop within milliseconds).

* A file holds at most SOURCE_MAX bytes (read_text refuses a larger file, parse a longer text).
* A number literal has at most INT_DIGITS_MAX digits and is at most INT_MAX.
* A string literal has four escapes, \\\\ \\" \\n \\t, and no other: there is no \\u (files are
  UTF-8, so any character is typed as itself), and a bad escape is reported at its column. No
  control character but the tab, at most STRING_MAX characters.
* Expressions: everything written is one level (an operator, a call, a field, an index, a literal,
  a name, brackets, parentheses), and nothing may sit inside more than EXPR_DEPTH_MAX others. A
  chain a + b + c is ((a + b) + c), one level per operator, because that is the tree every later
  pass walks: a sum of 250 terms is refused (sum(...) or a few lets say it flat). The error points
  at the first place, in reading order, nested too deep. Types (list of list of ...) count alike.
* Blocks: at most BLOCK_DEPTH_MAX blocks inside a rule's (function's, scenario part's) body, or
  deck `for`s inside a deck; the error points at the '{' that opens one too many.
* Lines end with \\n (\\r\\n and a lone \\r read as \\n, a leading BOM is dropped); the other line
  breaks of Unicode (form feed, U+2028, ...) are refused, so every tool counts lines alike.

Two safety nets stop the reading early, with the same error, where no text within the limits comes:
an expression _DEEP_MAX levels tall (a long chain a + b + ...: reported at the chain's start),
or one that makes the parser hold _DEEP_MAX open symbols (reported at the token where it stopped).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import threading
from pathlib import Path

from lark import Lark
from lark.parsers.lalr_analysis import Shift

from .. import __version__
from . import ast, limits
from .errors import PitwallError, RulesSyntaxError, Span, read_text
from .limits import BLOCK_DEPTH_MAX, EXPR_DEPTH_MAX, INT_DIGITS_MAX, INT_MAX, SOURCE_MAX, STRING_MAX

GRAMMAR = Path(__file__).resolve().parent.parent / "grammar" / "pitwall.lark"
_GRAMMAR_TEXT = GRAMMAR.read_text(encoding="utf-8")
_lock = threading.RLock()
_parser: Lark | None = None
_machine: _Machine | None = None
# Safety nets, far beyond any text within the limits (the deepest needs under 1,000 open symbols):
# an expression this many levels deep, or that keeps the parser holding this many symbols, is
# refused at once instead of read to its end (a 2 MB file of "1 + 1 + ..." or "((((...").
_DEEP_MAX = 10_000


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
        propagate_positions=False,  # _reduce places the nodes: Lark's trees and callbacks go unused
        maybe_placeholders=True,
        strict=strict,
        cache=False if strict else True,
    )


def _keywords(lark: Lark) -> frozenset[str]:
    return frozenset(t.name for t in lark.terminals if t.pattern.type == "str" and t.pattern.value.isidentifier())


def parse(text: str, path: str = "<string>") -> ast.SourceFile:
    text = _clean(text, path)
    m = _tables()
    try:
        return _run(text, path, m)
    except (_Unexpected, _BadCharacter) as e:
        raise _syntax_error(e, text, path, m) from None


def parse_file(path: str | Path) -> ast.SourceFile:
    p = Path(path)
    text = read_text(p, "rules file", limit=SOURCE_MAX)
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


def _code_key() -> str:
    """What besides the text decides a parse: this module, the grammar and the limits."""
    try:
        code = Path(__file__).read_bytes()
    except OSError:
        code = b""
    numbers = repr(sorted((k, v) for k, v in vars(limits).items() if k.isupper()))
    return hashlib.sha256(b"\0".join([code, _GRAMMAR_TEXT.encode(), numbers.encode()])).hexdigest()


_CODE_KEY = _code_key()


def _cache_path(text: str, path: str) -> Path | None:
    """Parsed files are cached by content (like Lark's grammar cache); PITWALL_NO_CACHE=1 turns it off."""
    if os.environ.get("PITWALL_NO_CACHE"):
        return None
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    key = hashlib.sha256(f"{__version__}\0{_CODE_KEY}\0{path}\0{text}".encode()).hexdigest()[:32]
    return Path(root) / "pitwall" / f"ast-{key}.pickle"


# ---------------------------------------------------------------- the text as a whole
_ODD_BREAK = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _clean(text: str, path: str) -> str:
    """Line ends made \\n, a BOM dropped; a text too long or with odd line breaks refused."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if len(text) > SOURCE_MAX // 4 and len(data := text.encode("utf-8", "surrogatepass")) > SOURCE_MAX:
        line, line_start = data.count(b"\n", 0, SOURCE_MAX) + 1, data.rfind(b"\n", 0, SOURCE_MAX) + 1
        col = len(data[line_start:SOURCE_MAX].decode("utf-8", "ignore")) + 1
        raise RulesSyntaxError(f"the file is larger than {SOURCE_MAX:,} bytes: byte {SOURCE_MAX + 1:,} is here",
                               Span(path, line, col, line, col + 1),
                               "split it into several files: a game is a folder of rules files")
    odd = _ODD_BREAK.search(text)
    if odd is not None:
        line = text.count("\n", 0, odd.start()) + 1
        col = odd.start() - text.rfind("\n", 0, odd.start())
        raise RulesSyntaxError(f"the character {_show(odd.group())} breaks lines for some tools and not for others",
                               Span(path, line, col, line, col + 1), "remove it: end lines with a plain line break")
    return text


def _show(ch: str) -> str:
    return repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}"


class _BadCharacter(Exception):
    def __init__(self, pos: int, line: int, col: int):
        super().__init__(pos)
        self.pos, self.line, self.col = pos, line, col


def _lex(text: str, m: _Machine):
    """(terminal, text, line, col, end_col) for each token, with Lark's compiled terminals: Lark's
    basic lexer, minus its Token objects. (No token the parser sees spans lines in this grammar:
    its end column would then count from its last line.)"""
    regexes, ignore, keywords, newlines = m.regexes, m.ignore, m.keyword_of, m.newline_types
    pos, line, line_start, end = 0, 1, 0, len(text)
    while pos < end:
        for regex in regexes:
            found = regex.match(text, pos)
            if found is not None:
                break
        else:
            raise _BadCharacter(pos, line, pos - line_start + 1)
        kind, start, pos = found.lastgroup, pos, found.end()
        first, col = line, start - line_start + 1
        if kind in newlines:  # terminals that may hold a line break: whitespace, comments
            value = found.group()
            n = value.count("\n")
            if n:
                line += n
                line_start = start + value.rindex("\n") + 1
        if kind in ignore:
            continue
        value = found.group()
        if kind == "NAME":
            kind = keywords.get(value, "NAME")
        yield kind, value, first, col, pos - line_start + 1


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


# ---------------------------------------------------------------- nesting
EXPR_HINT = ("every operator, call, field, index, literal and pair of brackets is a level, and a chain like "
             "a + b + c is one level per operator: name inner parts with let (or a function), or add many "
             "terms with sum(...)")
TYPE_HINT = "a list of lists of lists ... is rarely meant: a card or participant with fields says more"
BLOCK_HINT = ("each if, elif, else, for, while, repeat and simultaneous (and each for in a deck) opens a block "
              "inside the one around it: move the inner part into a rule or function of its own")


def _too_deep(path: str, line: int, col: int, end_line: int, end_col: int, what: str = "expression"):
    return RulesSyntaxError(f"this {what} is nested more than {EXPR_DEPTH_MAX} levels deep",
                            Span(path, line, col, end_line, end_col), TYPE_HINT if what == "type" else EXPR_HINT)


def _check_shapes(shapes, path: str) -> None:
    """Expression roots: refuse one with a node inside more than EXPR_DEPTH_MAX others, at the first such node.

    A shape is (height, line, col, end_line, end_col, kids): height counts the nodes on the longest
    path down, kids are the shapes of the node's sub-expressions in reading order."""
    for shape in shapes:
        if shape[0] > EXPR_DEPTH_MAX + 1:
            depth, node = 0, shape
            while depth <= EXPR_DEPTH_MAX:  # down to the first node at depth EXPR_DEPTH_MAX + 1
                node = next(k for k in node[5] if depth + k[0] > EXPR_DEPTH_MAX)
                depth += 1
            raise _too_deep(path, *node[1:5])


# ---------------------------------------------------------------- the parse loop
_UNIT, _HELPER, _EXPAND, _EXPR, _FLOW, _ROOT = range(6)
# Nodes that are one level of an expression; rules that pass their expressions' shapes up unchecked.
EXPR_NODES = frozenset("cond_expr or_op and_op not_op compare in_op not_in_op add sub mul div mod neg pos field "
                       "index call aggregate int_lit str_lit true_lit false_lit none_lit var tuple_lit list_lit "
                       "list_comp new_expr paren".split())
FLOW_NODES = frozenset("args comprehension".split())
_TYPE_WORDS = frozenset({"LIST", "PILE"})


class _Plan:
    """How one grammar rule reduces: which children it keeps, and what it makes of them."""

    __slots__ = ("size", "origin", "name", "include", "trailing", "mode", "method", "closes")

    def __init__(self, rule):
        exp, opts = rule.expansion, rule.options
        self.size, self.origin = len(exp), rule.origin.name
        self.name = rule.alias or opts.template_source or rule.origin.name
        # Lark's child filter with maybe_placeholders: (index, splice a helper's list, Nones before)
        counts = [0] * (len(exp) + 1)
        if opts.empty_indices:
            counts = [len(ones) for ones in "".join(str(int(b)) for b in opts.empty_indices).split("0")]
        include, nones = [], 0
        for i, sym in enumerate(exp):
            nones += counts[i]
            if opts.keep_all_tokens or not (sym.is_term and sym.filter_out):
                include.append((i, not sym.is_term and sym.name.startswith("_"), nones))
                nones = 0
        self.include, self.trailing = tuple(include), nones + counts[len(exp)]
        self.method = getattr(_ToAst, self.name, None)
        self.closes = 1 if self.name == "block" else 2 if self.name == "deck_for" else 0
        expand1 = opts.expand1 and not rule.alias
        if self.origin.startswith("_"):
            self.mode = _HELPER
        elif expand1 and len(exp) == 1 and len(include) == 1 and not include[0][2] and not self.trailing:
            self.mode = _UNIT
        elif expand1:
            self.mode = _EXPAND
        elif self.name in EXPR_NODES:
            self.mode = _EXPR
        elif self.name in FLOW_NODES:
            self.mode = _FLOW
        else:
            self.mode = _ROOT
        if self.mode in (_EXPR, _FLOW, _ROOT) and self.method is None:
            raise AssertionError(f"grammar rule {self.name} has no method in _ToAst")


class _Machine:
    """Lark's LALR tables as plain dicts (a shift is the next state, a reduce its _Plan), and its lexer."""

    def __init__(self, lark: Lark):
        table = lark.parser.parser.parser.parse_table
        plans: dict[int, _Plan] = {}
        self.states: dict[int, dict] = {}
        for state, actions in table.states.items():
            row = {}
            for symbol, (action, arg) in actions.items():
                if action is Shift:
                    row[symbol] = arg
                else:
                    if id(arg) not in plans:
                        plans[id(arg)] = _Plan(arg)
                    row[symbol] = plans[id(arg)]
            self.states[state] = row
        self.start, self.end = table.start_states["start"], table.end_states["start"]
        lexer = lark.parser.lexer
        self.regexes = lexer.scanner._mres  # the scanner is built first: it also makes lexer.callback
        if set(lexer.callback) - {"NAME"} or lexer.user_callbacks or lark.options.postlex:
            raise AssertionError("the grammar needs more of Lark's lexer than _lex does")
        self.ignore, self.newline_types = frozenset(lexer.ignore_types), frozenset(lexer.newline_types)
        name = re.compile(lark.get_terminal("NAME").pattern.to_regexp())
        self.keyword_of = {t.pattern.value: t.name for t in lark.terminals
                           if t.pattern.type == "str" and name.fullmatch(t.pattern.value)}
        self.keywords = _keywords(lark)
        self.words = _terminal_words(lark)
        # States right after a '{' that opens a statement block (1) or a deck's for (2).
        self.braces = {}
        for row in self.states.values():
            target = row.get("LBRACE")
            closed = self.states[target].get("RBRACE") if type(target) is int else None
            if type(closed) is int:  # '{' '}': the state that reduces the empty block tells its rule
                kind = {p.closes for p in self.states[closed].values() if isinstance(p, _Plan)}
                if kind in ({1}, {2}):
                    self.braces[target] = kind.pop()
        self.units: dict[tuple[int, int, str], int] = {}
        self.examples: list | None = None
        # The keywords that start a declaration (rule, function, event, ...): those a file can start with.
        self.terminal_of = {t.pattern.value: t.name for t in lark.terminals if t.pattern.type == "str"}
        self.declarations = frozenset(v for v, t in self.keyword_of.items() if t in self.states[self.start])


def _units(states, below: int, top: int, terminal: str) -> int:
    """The top state after every unit reduction the terminal triggers in state `top` over `below`."""
    while True:
        action = states[top].get(terminal)
        if not isinstance(action, _Plan) or action.mode is not _UNIT:
            return top
        top = states[below][action.origin]


def _tables() -> _Machine:
    global _machine
    with _lock:
        if _machine is None:
            _machine = _Machine(parser())
        return _machine


class _Unexpected(Exception):
    """The parser has no action for a token: the token, what it expected, and where the parser stood."""

    def __init__(self, kind: str, value: str, line: int, col: int, expected: set[str], stack: list[int]):
        super().__init__(value)
        self.kind, self.value, self.line, self.col = kind, value, line, col
        self.expected, self.depth, self.state, self.stack = expected, len(stack), stack[-1], stack


def _accepts(states, stack: list[int], terminal: str, end: int = -1) -> bool:
    """Would the parser shift this terminal after its pending reductions, or end there if it is
    $END (the end state given)? States only, the stack unchanged."""
    depth, extra = len(stack), []
    while True:
        action = states[extra[-1] if extra else stack[depth - 1]].get(terminal)
        if action is None:
            return False
        if type(action) is int:
            return True
        n = action.size
        keep = max(0, len(extra) - n)
        depth -= n - (len(extra) - keep)
        del extra[keep:]
        goto = states[extra[-1] if extra else stack[depth - 1]].get(action.origin)
        if goto is None:
            return False
        if goto == end:
            return True
        extra.append(goto)


def _run(text: str, path: str, m: _Machine, tokens=None) -> ast.SourceFile:
    """Lex and parse, building AST nodes on each reduction (of the text's tokens, or those given).

    A keyword stands as a name wherever the grammar cannot take the keyword: words like `players`,
    `card` or `score` are keywords in a few declarations but natural names in rules, and LALR state
    merging would otherwise reject them as names after a block or value.
    """
    states, keywords, braces, units = m.states, m.keywords, m.braces, m.units
    conv = _ToAst(path)
    sstack = [m.start]  # parser states
    vstack: list = []  # values: a token's text, AST nodes, lists of them
    istack: list = []  # per value: (line, col, end_line, end_col, expression shapes or None); None if empty
    actions = states[m.start]
    blocks = deck_fors = types = 0
    prev = ""
    tokens = _lex(text, m) if tokens is None else tokens
    while True:
        tok = next(tokens, None)
        if tok is None:  # the end of the text, where it is
            line, col = text.count("\n") + 1, len(text) - text.rfind("\n")
            kind, value, end_col = "$END", "", col
        else:
            kind, value, line, col, end_col = tok
            if kind in keywords:
                if "NAME" in actions and (kind not in actions or not _accepts(states, sstack, kind)):
                    kind = "NAME"
            elif kind == "INT":
                _check_int(value, path, line, col)
            elif kind == "STRING":
                _unquote(value, path, line, col)
        if kind == "OF":  # `list of` / `pile of` runs: the nesting of a type
            types = types + 1 if prev in _TYPE_WORDS else 0
        elif types:
            if prev == "OF" and types > EXPR_DEPTH_MAX:
                raise _too_deep(path, line, col, line, end_col, "type")
            if kind not in _TYPE_WORDS:
                types = 0
        prev = kind
        while True:
            action = actions.get(kind)
            if action is None:  # what it could take: the terminals it would shift (or end on) after reducing
                expected = {t for t in actions if t.isupper() and _accepts(states, sstack, t, m.end)}
                raise _Unexpected(kind, value, line, col, expected, sstack)
            if type(action) is int:  # shift
                sstack.append(action)
                vstack.append(value)
                istack.append((line, col, line, end_col, None))
                actions = states[action]
                if kind == "LBRACE" and action in braces:
                    for info in istack[-9:-1]:  # expressions in the statement's head come before its block
                        if info is not None and info[4]:
                            _check_shapes(info[4], path)
                    if braces[action] == 1:
                        blocks += 1
                        level = blocks - 1  # a rule's own body is not nested
                    else:
                        deck_fors += 1
                        level = deck_fors
                    if level > BLOCK_DEPTH_MAX:
                        raise RulesSyntaxError(f"blocks nested more than {BLOCK_DEPTH_MAX} levels deep",
                                               Span(path, line, col, line, end_col), BLOCK_HINT)
                elif len(sstack) > _DEEP_MAX:
                    raise _too_deep(path, line, col, line, end_col)
                break
            if action.mode is _UNIT:  # a child that goes up as it is, span and shapes too
                # A run of these only swaps the top state, over the same state below: remembered.
                key = (sstack[-2], sstack[-1], kind)
                top = units.get(key)
                if top is None:
                    top = units[key] = _units(states, sstack[-2], sstack[-1], kind)
                sstack[-1] = top
                actions = states[top]
                continue
            n = action.size  # reduce
            if n:
                values, infos = vstack[-n:], istack[-n:]
                del sstack[-n:], vstack[-n:], istack[-n:]
            else:
                values = infos = ()
            node, info = _reduce(action, values, infos, conv, path)
            vstack.append(node)
            istack.append(info)
            if action.closes == 1:
                blocks -= 1
            elif action.closes == 2:
                deck_fors -= 1
            goto = states[sstack[-1]][action.origin]
            sstack.append(goto)
            actions = states[goto]
            if goto == m.end and kind == "$END":
                return ast.SourceFile(path, tuple(vstack[-1]), span=Span(path, 1, 1, 1, 1))


def _reduce(plan: _Plan, values, infos, conv: _ToAst, path: str):
    """One reduction: Lark's child filter and position propagation, then the node and its shapes."""
    meta = None
    for first in infos:
        if first is not None:
            for last in reversed(infos):
                if last is not None:
                    break
            meta = (first[0], first[1], last[2], last[3])
            break
    children: list = []
    shapes: list | None = None
    for i, splice, nones in plan.include:
        if nones:
            children += [None] * nones
        if splice:  # a helper's list (a repetition): reused, as Lark does, so long lists stay linear
            if children:
                children += values[i]
            else:
                children = values[i]
        else:
            children.append(values[i])
        info = infos[i]
        if info is not None and info[4]:
            if shapes is None:
                shapes = info[4] if splice else list(info[4])
            else:
                shapes += info[4]
    if plan.trailing:
        children += [None] * plan.trailing
    mode = plan.mode
    if mode is _HELPER:
        return children, (meta + (shapes,) if meta else None)
    if mode is _EXPAND and len(children) == 1:
        return children[0], (meta + (shapes,) if meta else None)
    info = meta + (None,) if meta else None
    if mode is _EXPR:
        height = 1 + max(k[0] for k in shapes) if shapes else 1
        info = meta + ([(height, *meta, tuple(shapes) if shapes else ())],)
        if height > _DEEP_MAX:  # a long chain: its nodes start where it starts, its root's place too
            _check_shapes(info[4], path)
    elif mode is _FLOW:
        info = meta + (shapes,) if meta else None
    elif shapes:
        _check_shapes(shapes, path)
    return plan.method(conv, info, children), info


# ---------------------------------------------------------------- syntax errors
# Example-driven messages (as Lark's match_examples): each label lists snippets that fail in the
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

# How hints name the terminals that are not one fixed text (those are shown quoted: '=', 'rule').
TERMINAL_WORDS = {"NAME": "a name", "INT": "a number", "STRING": "a string", "AUGOP": "'+=' or '-='",
                  "COMP_OP": "a comparison (== != < <= > >=)", "$END": "the end of the file"}


def _terminal_words(lark: Lark) -> dict[str, str]:
    words = {t.name: f"'{t.pattern.value}'" for t in lark.terminals if t.pattern.type == "str"}
    words.update(TERMINAL_WORDS)
    return words


def expected_words(terminals) -> list[str]:
    """The words for what the parser could take, as a hint shows them: words, symbols, keywords."""
    words = _tables().words
    return sorted({words.get(t, "something else") for t in terminals},
                  key=lambda w: (w[0] == "'", w[1:-1].isalpha(), w))


def _expected(terminals) -> str:
    words = expected_words(terminals)
    if len(words) == 1:
        return f"expected {words[0]}"
    return "expected one of: " + ", ".join(words[:10]) + (", ..." if len(words) > 10 else "")


# Messages found by reading the text around the error rather than by example: their entries in
# SYNTAX_EXAMPLES are tested like the others but never matched by parser state (the state at the
# end of a file, or after a name followed by '=', is shared by many unrelated mistakes).
_BY_RULE = frozenset({"missing-brace", "assign-in-condition", "missing-paren"})
_CLOSE = {"(": ")", "[": "]", "{": "}"}
# Tokens that end an expression from outside: a '(' or '[' still open when one comes was not closed.
_ENDERS = frozenset({"}", "]", ")", "{", "then", "else"})


def _example_failures(m: _Machine) -> list:
    """Where each example snippet fails: (label, stack depth, state, terminal, text)."""
    if m.examples is None:
        found = []
        for label, (_, snippets) in SYNTAX_EXAMPLES.items():
            if label in _BY_RULE:
                continue
            # The parser state *and* stack depth must match, and the first declaration of a file sits
            # one level shallower than the rest: so each example is tried in both places.
            for snippet in snippets + [_LATER + s for s in snippets]:
                try:
                    _run(snippet, "<example>", m)
                except _Unexpected as e:
                    found.append((label, e.depth, e.state, e.kind, e.value))
                except (PitwallError, _BadCharacter):
                    pass
        m.examples = found
    return m.examples


def _label(e: _Unexpected, m: _Machine, exact: bool) -> str | None:
    """The example label for an error: the first whose failure has the same state and terminal
    (exact), or else the first with the same state."""
    candidate = None
    for label, depth, state, kind, _ in _example_failures(m):
        if (depth, state) == (e.depth, e.state):
            if kind == e.kind:
                return label
            candidate = candidate or label
    return None if exact else candidate


def _stack_at(text: str, m: _Machine, line: int, col: int) -> list[int]:
    """The parser's states as the token at (line, col) arrives, before the reductions it triggers
    (the error path only: the text is read again up to there)."""

    def tokens():
        for tok in _lex(text, m):
            if (tok[2], tok[3]) >= (line, col):
                break
            yield tok
        yield "\0stop", "", line, col, col  # no state takes it

    try:
        _run(text, "<diagnosis>", m, tokens())
    except _Unexpected as e:
        return e.stack
    raise AssertionError("the text parsed again without its error")


def _brackets(text: str, m: _Machine, line: int, col: int):
    """The brackets still open before (line, col), outermost first, as (bracket, line, col); the token
    before that place; and the '{' whose '}' is most likely missing, by indentation: a '}' that starts
    a line closes the '{' opened on the line of the same indentation, and each '{' of a deeper line
    still open then lost its '}' -- the first of those is the guess, or, if the indentation agrees
    everywhere, the innermost '{' still open. A '}' after other text on its line closes the latest '{'."""
    lines = text.split("\n")
    opened: list[tuple[str, int, int]] = []
    by_indent: list[tuple[int, int, int]] = []  # (indentation of its line, line, col) of each '{'
    lost: list[tuple[int, int, int]] = []
    prev, last_line = None, 0

    def indent(n: int) -> int:
        row = lines[n - 1]
        return len(row.expandtabs(8)) - len(row.lstrip(" \t").expandtabs(8))

    for tok in _lex(text, m):
        kind, value, tline, tcol, _ = tok
        if (tline, tcol) >= (line, col):
            break
        first_on_line, last_line, prev = tline != last_line, tline, tok
        if value in _CLOSE and kind != "STRING":
            opened.append((value, tline, tcol))
            if value == "{":
                by_indent.append((indent(tline), tline, tcol))
        elif value in (")", "]", "}") and kind != "STRING":
            if opened:
                opened.pop()
            if value == "}" and by_indent:
                if first_on_line:
                    at = indent(tline)
                    while len(by_indent) > 1 and by_indent[-1][0] > at:
                        lost.append(by_indent.pop())
                by_indent.pop()
    guess = lost[0] if lost else by_indent[-1] if by_indent else None
    return opened, prev, guess


def _unclosed(e: _Unexpected, text: str, path: str, m: _Machine) -> RulesSyntaxError | None:
    """A '{', '(' or '[' left open: the file ends, or a declaration starts a line, while a block is open
    (or ')' or ']' is missing where an expression ends from outside): reported at the bracket."""
    opened, prev, guess = _brackets(text, m, e.line, e.col)
    if not opened:
        return None
    bracket = opened[-1][0]
    if e.kind == "$END":
        reason = f"the file ends at line {max(1, len(text.splitlines()))}"
    elif _starts_declaration(e.value, e.line, e.col, text, m):
        reason = f"the next declaration starts at line {e.line} ('{e.value}')"
    elif (prev is not None and _starts_declaration(prev[1], prev[2], prev[3], text, m)  # taken as a name
          and not _accepts(m.states, _stack_at(text, m, prev[2], prev[3]), m.keyword_of[prev[1]])):
        reason = f"the next declaration starts at line {prev[2]} ('{prev[1]}')"
    elif (bracket != "{" and e.value in _ENDERS and m.terminal_of[_CLOSE[bracket]] in e.expected
          and (e.value not in (")", "]") or any(_CLOSE[b] == e.value for b, _, _ in opened))):  # not one too many
        reason = f"'{e.value}' comes at line {e.line}, column {e.col}"
    else:
        return None
    if bracket == "{":
        if guess is None:
            return None
        _, line, col = guess
        return RulesSyntaxError(SYNTAX_EXAMPLES["missing-brace"][0], Span(path, line, col, line, col + 1),
                                f"{reason} with this block still open: add its '}}' where the block ends "
                                "(the first '{' that no '}' below lines up with)")
    _, line, col = opened[-1]
    close = _CLOSE[bracket]
    message = SYNTAX_EXAMPLES["missing-paren"][0] if close == ")" else f"'{close}' is missing"
    return RulesSyntaxError(message, Span(path, line, col, line, col + 1),
                            f"{reason} with this '{bracket}' still open: every '{bracket}' needs its '{close}'")


def _starts_declaration(word: str, line: int, col: int, text: str, m: _Machine) -> bool:
    """Is this a declaration's keyword (rule, function, event, ...) first on its line?"""
    if word not in m.declarations:
        return False
    start = 0 if line == 1 else _nth_line_start(text, line)
    return text[start:start + col - 1].strip(" \t") == ""


def _nth_line_start(text: str, line: int) -> int:
    pos = -1
    for _ in range(line - 1):
        pos = text.index("\n", pos + 1)
    return pos + 1


def _assigns(e: _Unexpected, text: str, m: _Machine) -> bool:
    """A '=' where a comparison could stand: the designer meant '=='."""
    return e.value == "=" and _accepts(m.states, _stack_at(text, m, e.line, e.col), "COMP_OP")


def _syntax_error(e: _Unexpected | _BadCharacter, text: str, path: str, m: _Machine) -> RulesSyntaxError:
    if isinstance(e, _BadCharacter):
        return RulesSyntaxError(f"unexpected character {text[e.pos]!r}", Span(path, e.line, e.col, e.line, e.col + 1),
                                "remove it, or quote text with \"...\"")
    if e.kind == "$END":
        lines = text.splitlines() or [""]
        line, col, width = len(lines), len(lines[-1]) + 1, 1
    else:
        line, col, width = e.line, e.col, max(1, len(e.value))
    span = Span(path, line, col, line, col + width)
    if _assigns(e, text, m):
        return RulesSyntaxError(SYNTAX_EXAMPLES["assign-in-condition"][0], span, HINTS["assign-in-condition"])
    unclosed = _unclosed(e, text, path, m)
    if unclosed is not None:
        return unclosed
    label = _label(e, m, exact=True)
    if label is None and {"INT", "STRING"} <= e.expected:  # a value could stand here, and none does
        label = "missing-expression"
    label = label or _label(e, m, exact=False)
    if label:
        message, _ = SYNTAX_EXAMPLES[label]
        return RulesSyntaxError(message, span, HINTS[label])
    if e.kind != "$END":
        shown = e.value if len(e.value) <= 40 else e.value[:37] + "..."
        return RulesSyntaxError(f"unexpected {shown!r}", span, _expected(e.expected))
    return RulesSyntaxError("unexpected end of file", span, "something is unfinished above")


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
        s = dict(kind=None, lo=None, hi=None, names=(), score=None, play=None, view=None)
        for key, value in settings:
            s.update(value) if key == "players" else s.__setitem__(key, value)
        if s["kind"] is None or s["play"] is None:
            raise RulesSyntaxError("a game needs 'players KIND MIN to MAX' and 'play RULE'", self.sp(meta),
                                   "for example: players Player 2 to 6  play main")
        return ast.GameDecl(str(name), self.text(title), s["kind"], s["lo"], s["hi"], s["names"], s["score"],
                            s["play"], span=self.sp(meta), view=s["view"])

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

    def enum_decl(self, meta, c):
        members = tuple(m[0] for m in c[1:])
        return ast.EnumDecl(str(c[0]), members, span=self.sp(meta), texts=tuple(m[1] or m[0] for m in c[1:]),
                            member_spans=tuple(m[2] for m in c[1:]))

    def enum_member(self, meta, c):
        return str(c[0]), self.text(c[1]) if len(c) > 1 else None, self.sp(meta)

    def _record(self, what, meta, c):
        name, show, *fields = c
        return ast.RecordDecl(what, str(name), self.text(show) if show else None, tuple(fields), span=self.sp(meta))

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
        players = (int(c[2]), int(c[3])) if len(c) > 2 else None
        return ast.VariantDecl(str(c[0]), self.text(c[1]), span=self.sp(meta), players=players)

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
