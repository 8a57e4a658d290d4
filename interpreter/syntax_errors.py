"""Syntax errors: how a text the parser cannot read becomes a RulesSyntaxError with a useful message.

The driver in parse.py raises _BadCharacter (the lexer matches nothing) or _Unexpected (the parser
has no action for a token); _syntax_error turns either into the message a designer reads: '=' where
'==' was meant, a '{', '(' or '[' left open (reported at the bracket), a message found by example
(SYNTAX_EXAMPLES, with its HINTS), or else what the parser expected, in words (TERMINAL_WORDS).

This module never imports parse.py (parse.py imports it). The parse tables `m` it is given
(parse._Machine, described by Tables below) carry the driver's own functions, with which the error
path reads the text again: m.run, m.lex and m.accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol

from .errors import PitwallError, RulesSyntaxError, Span


class Tables(Protocol):
    """What this module uses of parse.py's _Machine: the LALR tables, the words for terminals, and
    the driver's functions (parse._run, parse._lex, parse._accepts)."""

    states: dict[int, dict]
    start: int
    end: int
    words: dict[str, str]
    keyword_of: dict[str, str]
    terminal_of: dict[str, str]
    declarations: frozenset[str]
    examples: list | None
    run: Callable
    lex: Callable[..., Iterator[tuple]]
    accepts: Callable[..., bool]


# ---------------------------------------------------------------- what the driver raises
class _BadCharacter(Exception):
    def __init__(self, pos: int, line: int, col: int):
        super().__init__(pos)
        self.pos, self.line, self.col = pos, line, col


class _Unexpected(Exception):
    """The parser has no action for a token: the token, what it expected, and where the parser stood."""

    def __init__(self, kind: str, value: str, line: int, col: int, expected: set[str], stack: list[int]):
        super().__init__(value)
        self.kind, self.value, self.line, self.col = kind, value, line, col
        self.expected, self.depth, self.state, self.stack = expected, len(stack), stack[-1], stack


def _show(ch: str) -> str:
    return repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}"


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


def _terminal_words(fixed: dict[str, str]) -> dict[str, str]:
    """Each terminal's words, given the terminals of one fixed text (name -> text): those quoted."""
    words = {name: f"'{value}'" for name, value in fixed.items()}
    words.update(TERMINAL_WORDS)
    return words


def _in_words(terminals, words: dict[str, str]) -> list[str]:
    """The words for what the parser could take, as a hint shows them: words, symbols, keywords
    (parse.expected_words, with the words of the parser's tables)."""
    return sorted({words.get(t, "something else") for t in terminals},
                  key=lambda w: (w[0] == "'", w[1:-1].isalpha(), w))


def _expected(terminals, words: dict[str, str]) -> str:
    words = _in_words(terminals, words)
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


def _example_failures(m: Tables) -> list:
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
                    m.run(snippet, "<example>", m)
                except _Unexpected as e:
                    found.append((label, e.depth, e.state, e.kind, e.value))
                except (PitwallError, _BadCharacter):
                    pass
        m.examples = found
    return m.examples


def _label(e: _Unexpected, m: Tables, exact: bool) -> str | None:
    """The example label for an error: the first whose failure has the same state and terminal
    (exact), or else the first with the same state."""
    candidate = None
    for label, depth, state, kind, _ in _example_failures(m):
        if (depth, state) == (e.depth, e.state):
            if kind == e.kind:
                return label
            candidate = candidate or label
    return None if exact else candidate


def _stack_at(text: str, m: Tables, line: int, col: int) -> list[int]:
    """The parser's states as the token at (line, col) arrives, before the reductions it triggers
    (the error path only: the text is read again up to there)."""

    def tokens():
        for tok in m.lex(text, m):
            if (tok[2], tok[3]) >= (line, col):
                break
            yield tok
        yield "\0stop", "", line, col, col  # no state takes it

    try:
        m.run(text, "<diagnosis>", m, tokens())
    except _Unexpected as e:
        return e.stack
    raise AssertionError("the text parsed again without its error")


def _brackets(text: str, m: Tables, line: int, col: int):
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

    for tok in m.lex(text, m):
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


def _unclosed(e: _Unexpected, text: str, path: str, m: Tables) -> RulesSyntaxError | None:
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
          and not m.accepts(m.states, _stack_at(text, m, prev[2], prev[3]), m.keyword_of[prev[1]])):
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


def _starts_declaration(word: str, line: int, col: int, text: str, m: Tables) -> bool:
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


def _assigns(e: _Unexpected, text: str, m: Tables) -> bool:
    """A '=' where a comparison could stand: the designer meant '=='."""
    return e.value == "=" and m.accepts(m.states, _stack_at(text, m, e.line, e.col), "COMP_OP")


def _syntax_error(e: _Unexpected | _BadCharacter, text: str, path: str, m: Tables) -> RulesSyntaxError:
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
        return RulesSyntaxError(f"unexpected {shown!r}", span, _expected(e.expected, m.words))
    return RulesSyntaxError("unexpected end of file", span, "something is unfinished above")
