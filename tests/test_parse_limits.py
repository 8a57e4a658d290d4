"""A rules file is data, never code: a hostile one ends in a positioned RulesSyntaxError, fast.

Each case names the error class, the message and the exact line and column, and is parsed in well
under a second: huge number literals, escapes that are not plain text, long strings, expressions,
types and blocks nested past the limits of limits.py, files past SOURCE_MAX, odd characters, and
hints that speak the designer's words, never the grammar's terminal names.
"""

from __future__ import annotations

import inspect
import re
import sys
import time

import pytest
from pitwall.interpreter import ast
from pitwall.interpreter import parse as P
from pitwall.interpreter.errors import PitwallError, RulesSyntaxError, read_text
from pitwall.interpreter.limits import BLOCK_DEPTH_MAX, EXPR_DEPTH_MAX, INT_DIGITS_MAX, INT_MAX, SOURCE_MAX, STRING_MAX
from pitwall.interpreter.parse import parse, parse_file, parser

# A guard against runaway work (the old parser took 16 s on a flat 2 MB sum), not a measure of
# speed: benchmarks measure speed; a shared CI machine must never fail this by being busy.
FAST = 5.0  # seconds of CPU for any one parse below


def parsed(text: str) -> ast.SourceFile:
    start = time.process_time()
    tree = parse(text, "t.pw")
    assert time.process_time() - start < FAST
    return tree


def refused(text: str, message: str, line: int, col: int, hint: str | None = None) -> RulesSyntaxError:
    start = time.process_time()
    with pytest.raises(RulesSyntaxError) as info:
        parse(text, "t.pw")
    took = time.process_time() - start
    e = info.value
    assert type(e) is RulesSyntaxError
    assert e.message == message
    assert (e.span.file, e.span.line, e.span.col) == ("t.pw", line, col), f"at {e.span}"
    assert e.hint
    if hint is not None:
        assert hint in e.hint, e.hint
    assert took < FAST, f"{took:.2f} s"
    return e


def value_of(text: str):
    """The value of `const X = ...` as parsed."""
    return parsed(f"const X = {text}\n").items[0].value


CONST = "const X = "
COL = len(CONST) + 1  # the column where a constant's value starts


# ---------------------------------------------------------------- numbers
@pytest.mark.parametrize("digits", [5000, 100, INT_DIGITS_MAX + 1])
def test_a_number_with_too_many_digits(digits):
    e = refused(f"const A = 1\n{CONST}{'7' * digits}\n",
                f"this number has {digits:,} digits, more than the {INT_DIGITS_MAX} a whole number may have", 2, COL)
    assert e.hint == f"whole numbers go from -{INT_MAX} to {INT_MAX}"
    assert e.span.end_col == COL + digits


def test_a_number_above_int_max():
    refused(f"{CONST}{INT_MAX + 1}\n", f"this number is larger than {INT_MAX}, the largest whole number", 1, COL)


def test_int_max_and_its_negative_are_numbers():
    assert value_of(str(INT_MAX)) == ast.Int(INT_MAX)
    assert value_of(f"-{INT_MAX}") == ast.Int(-INT_MAX)


def test_every_number_literal_is_checked_seeds_and_deck_copies_too():
    refused(f'scenario "s" {{\n    game g\n    seed {"7" * 5000}\n}}\n',
            "this number has 5,000 digits, more than the 19 a whole number may have", 3, 10)
    refused(f"deck D of C {{\n    {INT_MAX + 1} * (1)\n}}\n",
            f"this number is larger than {INT_MAX}, the largest whole number", 2, 5)


# ---------------------------------------------------------------- strings
@pytest.mark.parametrize("literal, shown", [
    ('"a\\x41"', "\\x"),
    ('"\\N{NOPE}"', "\\N"),
    ('"\\u12"', "\\u"),
    ('"\\u0041"', "\\u"),  # no \u at all: files are UTF-8, a character is typed as itself
    ('"\\0"', "\\0"),
    ('"\\\'"', "\\'"),
    ('"\\a"', "\\a"),
])
def test_an_unknown_escape_is_refused_at_its_column(literal, shown):
    col = COL + literal.index("\\")
    e = refused(f"rule r() {{\n    emit said(1)\n}}\n{CONST}{literal}\n", f"unknown escape '{shown}' in a string",
                4, col, "there is no \\u")
    assert e.span.end_col == col + 2


def test_a_bad_escape_in_an_event_template_is_refused_too():
    refused('event bad(n: int) "\\u12{n}"\n', "unknown escape '\\u' in a string", 1, 20)


def test_the_four_escapes_read_as_written():
    assert value_of('"say \\"hi\\"\\\\ a\\tb\\nc"') == ast.Str('say "hi"\\ a\tb\nc')
    assert value_of('"é → ♥ 😀 \\\\u0041"') == ast.Str("é → ♥ 😀 \\u0041")


@pytest.mark.parametrize("char", ["\x00", "\x07", "\x1b", "\x7f", "\x9b"])
def test_a_control_character_in_a_string_is_refused(char):
    refused(f'{CONST}"ab{char}c"\n', f"a control character (U+{ord(char):04X}) in a string", 1, COL + 3)


def test_a_tab_may_stand_in_a_string():
    assert value_of('"a\tb"') == ast.Str("a\tb")


def test_a_string_longer_than_string_max():
    assert value_of('"' + "x" * STRING_MAX + '"') == ast.Str("x" * STRING_MAX)
    refused(f'rule r() {{\n    emit said("{"x" * (STRING_MAX + 1)}")\n}}\n',
            f"this string is {STRING_MAX + 1:,} characters long, more than the {STRING_MAX:,} allowed", 2, 15)


def test_the_first_bad_literal_is_reported_before_a_later_syntax_error():
    refused(f'{CONST}"\\x"\nconst Y = = =\n', "unknown escape '\\x' in a string", 1, COL + 1)


# ---------------------------------------------------------------- expressions nested too deep
DEEP = f"this expression is nested more than {EXPR_DEPTH_MAX} levels deep"


def test_parentheses_up_to_the_limit_and_one_more():
    assert value_of("(" * EXPR_DEPTH_MAX + "1" + ")" * EXPR_DEPTH_MAX) == ast.Int(1)
    # 65 pairs: the 1 inside them is the first thing nested more than 64 deep
    refused(CONST + "(" * 65 + "1" + ")" * 65 + "\n", DEEP, 1, COL + 65)


@pytest.mark.parametrize("opener, closer, count, first", [
    ("(", ")", 3000, None), ("[", "]", 3000, None), ("- ", "", 3000, None), ("not ", "", 3000, None),
    ("+ ", "", 3000, None), ("f(", ")", 1000, None),
    # here the first thing inside the 65th opener is 65 deep: true, 1, x, y
    ("if true then ", " else 0", 1000, 3), ("max(1, ", ")", 1000, 4), ("x[", "]", 1000, 0),
    ("sum(y for y in ", ")", 1000, 4),
])
def test_deep_nesting_is_refused_at_the_first_place_too_deep(opener, closer, count, first):
    text = CONST + opener * count + "1" + closer * count + "\n"
    col = COL + 64 * len(opener) + (len(opener) if first is None else first)  # 66th opener, or 65th's child
    refused(text, DEEP, 1, col, "name inner parts with let")


def test_a_sum_of_250_terms_counts_one_level_per_operator():
    """a + b + c is ((a + b) + c): the tree later passes walk is as deep as the chain is long."""
    assert value_of(" + ".join(["1"] * (EXPR_DEPTH_MAX + 1))) is not None  # 64 operators
    refused(CONST + " + ".join(["1"] * (EXPR_DEPTH_MAX + 2)) + "\n", DEEP, 1, COL)
    e = refused(f"rule r() {{\n    let n = 2 * ({' + '.join(['1'] * 250)})\n}}\n", DEEP, 2, 18, "sum(...)")
    # the chain's root is 2 deep: its node 65 deep holds the first 250 - 63 terms
    assert (e.span.end_line, e.span.end_col) == (2, 18 + len(" + ".join(["1"] * (250 - 63))))


def test_the_first_too_deep_place_in_reading_order():
    shallow = "(" * 60 + "1" + ")" * 60
    deep = "[" * 70 + "]" * 70
    text = f"rule r() {{\n    let a = [{shallow}, {deep}, {deep}]\n}}\n"
    # the list is level 1, its items level 2: the 65th '[' of the first deep item is at depth 65
    refused(text, DEEP, 2, 14 + len(shallow) + 2 + 64)


def test_a_deep_condition_is_reported_before_a_deep_statement_in_its_block():
    chain = " + ".join(["1"] * 70)
    refused(f"rule r() {{\n    if {chain} == 1 {{\n        let x = {chain}\n    }}\n}}\n", DEEP, 2, 8)


def test_a_long_deep_expression_is_refused_without_being_read_to_its_end():
    # over a megabyte of '(' or of '- ': the reading stops where the parser holds too many symbols
    refused(CONST + "(" * 1_000_000 + "1\n", DEEP, 1, COL + P._DEEP_MAX - 4)
    refused(CONST + "- " * 900_000 + "1\n", DEEP, 1, COL + 2 * (P._DEEP_MAX - 4))
    # a chain of 450,000 terms: stopped 10,000 levels in, reported at its start like a short one
    refused(CONST + "1 + " * 450_000 + "1\n", DEEP, 1, COL)


# ---------------------------------------------------------------- types nested too deep
def test_types_nested_up_to_the_limit_and_one_more():
    typ = parsed("card C { x: " + "list of " * EXPR_DEPTH_MAX + "int }\n").items[0].fields[0].type
    depth = 0
    while typ.arg is not None:
        typ, depth = typ.arg, depth + 1
    assert (typ.name, depth) == ("int", EXPR_DEPTH_MAX)
    message = f"this type is nested more than {EXPR_DEPTH_MAX} levels deep"
    refused("card C {\n    x: " + "pile of " * 65 + "int\n}\n", message, 2, 8 + 65 * 8)
    refused("rule r(p: " + "list of " * 200_000 + "int) {\n    stop\n}\n", message, 1, 11 + 65 * 8)


# ---------------------------------------------------------------- blocks nested too deep
BLOCKS = f"blocks nested more than {BLOCK_DEPTH_MAX} levels deep"


def nested(opener: str, count: int, inner: str = "stop") -> str:
    return "rule r() {\n" + "".join(f"{'    ' * (i + 1)}{opener} {{\n" for i in range(count)) + \
        f"{'    ' * (count + 1)}{inner}\n" + "".join(f"{'    ' * i}}}\n" for i in range(count, 0, -1)) + "}\n"


@pytest.mark.parametrize("opener", ["if true", "for p in players", "while false", "repeat 2", "repeat 2 as n",
                                    "simultaneous p in players"])
def test_blocks_up_to_the_limit_and_the_brace_of_one_more(opener):
    parsed(nested(opener, BLOCK_DEPTH_MAX))
    # the 17th block's '{' is on line 18, after 17 indents and the opener
    refused(nested(opener, BLOCK_DEPTH_MAX + 1), BLOCKS, 18, 4 * 17 + len(opener) + 2, "rule or function")


def test_100_nested_ifs_and_21_nested_fors():
    refused(nested("if true", 100), BLOCKS, 18, 4 * 17 + 9)
    refused(nested("for p in players", 21), BLOCKS, 18, 4 * 17 + 18)


def test_else_and_elif_blocks_count_at_their_if():
    inner = "if true {\n stop\n} elif false {\n stop\n} else {\n stop\n}"
    parsed(nested("for p in players", BLOCK_DEPTH_MAX - 1, inner))
    refused(nested("for p in players", BLOCK_DEPTH_MAX, inner), BLOCKS, 18, 4 * 17 + 9)


def test_deck_for_nested_past_the_limit():
    def deck(n):
        return "deck D of C {\n" + "for x in [1] {\n" * n + "(x)\n" + "}\n" * n + "}\n"
    parsed(deck(BLOCK_DEPTH_MAX))
    refused(deck(BLOCK_DEPTH_MAX + 1), BLOCKS, 18, 14)


def test_scenario_parts_are_bodies_like_a_rule():
    body = "".join("for p in players {\n" for _ in range(BLOCK_DEPTH_MAX)) + "stop\n" + "}\n" * BLOCK_DEPTH_MAX
    parsed(f'scenario "s" {{\n    setup {{\n{body}    }}\n    run {{\n{body}    }}\n}}\n')


def test_no_recursion_whatever_the_nesting():
    """The parse keeps Python's stack flat: it runs with a few frames to spare."""
    deep_ok = nested("for p in players", BLOCK_DEPTH_MAX, "let n = " + "(" * 63 + "- 1" + ")" * 63)
    old = sys.getrecursionlimit()
    parse(deep_ok, "warm.pw")
    sys.setrecursionlimit(len(inspect.stack()) + 40)
    try:
        parse(deep_ok, "t.pw")
        with pytest.raises(RulesSyntaxError):
            parse(CONST + "not " * 5000 + "true\n", "t.pw")
    finally:
        sys.setrecursionlimit(old)


# ---------------------------------------------------------------- the file as a whole
def test_a_text_past_source_max_is_refused_where_it_passes_the_limit():
    filler = "# " + "é" * 48 + "\n"  # 99 bytes, 51 characters
    lines = SOURCE_MAX // 99 + 1
    e = refused(filler * lines, f"the file is larger than {SOURCE_MAX:,} bytes: byte {SOURCE_MAX + 1:,} is here",
                lines, 1 + (SOURCE_MAX % 99 - 2) // 2 + 2, "split it")
    assert e.span.line == SOURCE_MAX // 99 + 1


def test_a_rules_file_past_source_max_is_refused_before_it_is_read_whole(tmp_path):
    big = tmp_path / "big.pw"
    big.write_bytes(b"const X = 1\n" + b"#" * SOURCE_MAX + b"\n")
    start = time.process_time()
    with pytest.raises(PitwallError) as info:
        parse_file(big)
    assert time.process_time() - start < FAST
    e = info.value
    assert e.message == f"the rules file is larger than {SOURCE_MAX:,} bytes: byte {SOURCE_MAX + 1:,} is here"
    assert (e.span.file, e.span.line, e.span.col) == (str(big), 2, SOURCE_MAX - 12 + 1)


def test_read_text_reads_line_ends_and_a_bom_as_editors_show_them(tmp_path):
    f = tmp_path / "f.pw"
    f.write_bytes(b"\xef\xbb\xbfconst X = 1\r\nconst Y = 2\rconst Z = 3\n")
    assert read_text(f) == "const X = 1\nconst Y = 2\nconst Z = 3\n"
    f.write_bytes(b"const X = 1\nconst \xc3\xa9 = \xff\n")
    with pytest.raises(PitwallError) as info:
        read_text(f, "rules file")
    assert info.value.message == f"{f}: not UTF-8 text (line 2, column 11: byte 0xff cannot be read)"
    with pytest.raises(PitwallError, match="not a file name"):
        read_text("a\0b")


@pytest.mark.parametrize("line_end", ["\r", "\r\n"])
def test_cr_line_ends_count_lines(line_end):
    refused(f"const A = 1{line_end}const B = 2{line_end}const C = @{line_end}", "unexpected character '@'", 3, 11)


def test_a_bom_is_dropped_and_columns_count_without_it():
    refused("\ufeffconst X = @\n", "unexpected character '@'", 1, 11)


@pytest.mark.parametrize("char", ["\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"])
def test_a_line_break_other_tools_count_differently_is_refused(char):
    refused(f"const A = 1\n# note{char}more\nconst B = 2\n",
            f"the character U+{ord(char):04X} breaks lines for some tools and not for others", 2, 7)


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\ufeff", "\u202e"])
def test_odd_characters_outside_strings_are_unexpected(char):
    refused(f"const A = 1\nconst B ={char} 2\n", f"unexpected character {char!r}", 2, 10)


def test_tabs_count_one_column():
    refused("rule r() {\n\tlet x = @\n}\n", "unexpected character '@'", 2, 10)


# ---------------------------------------------------------------- hints in the designer's words
def test_a_hint_names_what_may_come_in_words():
    e = refused("rule r() {\n    x 1\n}\n", "unexpected '1'", 2, 7)
    assert e.hint == "expected one of: '(', '+=' or '-=', '.', '=', '['"
    e = refused("rule r() {\n    choose x 1\n}\n", "unexpected '1'", 2, 14)
    assert e.hint == "expected one of: '(', '.', '[', 'from'"
    e = refused("card C {\n    value int\n}\n", "unexpected 'int'", 2, 11)
    assert e.hint == "expected ':'"
    e = refused("rule r() {\n    let x = f(1 2)\n}\n", "unexpected '2'", 2, 17)
    assert "')'" in e.hint and "','" in e.hint and "a name" not in e.hint  # only what the parser would take


def test_no_terminal_name_of_the_grammar_reaches_a_hint():
    terminals = {t.name for t in parser().terminals} - P._tables().ignore | {"$END"}
    for name in terminals:
        (word,) = P.expected_words([name])
        assert word != "something else", f"no word for the terminal {name}"
        assert (word.startswith("'") and word.endswith("'")) or word.islower(), f"{name}: {word!r}"
    shown = set(re.findall(r"[A-Za-z_$]+", " ".join(P.expected_words(terminals))))
    assert not shown & terminals
