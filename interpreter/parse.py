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

The nodes are made by build_ast.py (_ToAst, and the literals' checks); a text the parser cannot read
gets its message in syntax_errors.py. Neither imports this module: the error path reads a text again
with this driver's functions, which the tables (_Machine) carry.
"""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from . import ast, limits
from .build_ast import _check_int, _ToAst, _unquote
from .cache import cache_file, load, store
from .errors import RulesSyntaxError, Span, read_text
from .limits import BLOCK_DEPTH_MAX, EXPR_DEPTH_MAX, SOURCE_MAX
from .syntax_errors import SYNTAX_EXAMPLES as SYNTAX_EXAMPLES  # read from here too (tests)
from .syntax_errors import _BadCharacter, _in_words, _show, _syntax_error, _terminal_words, _Unexpected

if TYPE_CHECKING:
    from lark import Lark  # imported when the tables are built: a cached machine needs no Lark at all

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
    from lark import Lark

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
    tree = load(cached)
    if isinstance(tree, ast.SourceFile):
        return tree
    tree = parse(text, str(path))
    if cached is not None:
        store(cached, tree)
    return tree


# The modules whose code decides a parse: this one, the AST builder, the syntax errors' messages,
# and the classes a cached tree is pickled as (a field renamed in ast.py must not read old trees).
_CODE_FILES = ("parse.py", "build_ast.py", "syntax_errors.py", "errors.py", "ast.py")


def _code_key() -> str:
    """What besides the text decides a parse: these modules, the grammar and the limits."""
    here = Path(__file__).resolve().parent
    try:
        code = b"\0".join(here.joinpath(name).read_bytes() for name in _CODE_FILES)
    except OSError:
        code = b""
    numbers = repr(sorted((k, v) for k, v in vars(limits).items() if k.isupper()))
    return hashlib.sha256(b"\0".join([code, _GRAMMAR_TEXT.encode(), numbers.encode()])).hexdigest()


_CODE_KEY = _code_key()


def _cache_path(text: str, path: str) -> Path | None:
    """Parsed files are cached by content (like Lark's grammar cache); PITWALL_NO_CACHE=1 turns it off."""
    return cache_file("ast-" + hashlib.sha256(f"{__version__}\0{_CODE_KEY}\0{path}\0{text}".encode()).hexdigest()[:32])


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

    # Cached with the machine: the AST builder's method is looked up again by name (some are made
    # at import, and a function made inside another cannot be pickled)
    def __getstate__(self):
        return {k: getattr(self, k) for k in self.__slots__ if k != "method"}

    def __setstate__(self, state):
        for k, v in state.items():
            setattr(self, k, v)
        self.method = getattr(_ToAst, self.name, None)


class _Machine:
    """Lark's LALR tables as plain dicts (a shift is the next state, a reduce its _Plan), and its lexer."""

    def __init__(self, lark: Lark):
        from lark.parsers.lalr_analysis import Shift

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
        self.words = _terminal_words({t.name: t.pattern.value for t in lark.terminals if t.pattern.type == "str"})
        self.run, self.lex, self.accepts = _run, _lex, _accepts  # for the error path, which reads a text again
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
            _machine = _cached_machine()
        return _machine


def _cached_machine() -> _Machine:
    """The tables from the user's cache directory, made from Lark's once per version of the
    grammar and of this code (importing and running Lark takes longer than a check of a file)."""
    cached = cache_file("machine-" + hashlib.sha256(f"{__version__}\0{_CODE_KEY}".encode()).hexdigest()[:32])
    machine = load(cached)
    if isinstance(machine, _Machine):
        return machine
    machine = _Machine(parser())
    if cached is not None:
        store(cached, machine)
    return machine


def expected_words(terminals) -> list[str]:
    """The words for what the parser could take, as a hint shows them: words, symbols, keywords."""
    return _in_words(terminals, _tables().words)


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
