"""Syntax errors point where the designer must look, in the designer's words: '=' for '==' wherever
a value is read, and a '{', '(' or '[' left open reported at that bracket (a '{' chosen by indentation)."""

from __future__ import annotations

import pytest
from pitwall.interpreter.errors import RulesSyntaxError
from pitwall.interpreter.parse import parse

ASSIGN = "'=' assigns a value; to compare, write '=='"
BRACE = "a block is not closed: '}' is missing"


def error(text: str) -> RulesSyntaxError:
    with pytest.raises(RulesSyntaxError) as info:
        parse(text, "t.pw")
    return info.value


def where(e: RulesSyntaxError) -> tuple[int, int, int]:
    return e.span.line, e.span.col, e.span.end_col


@pytest.mark.parametrize("line", [
    "    if stage = 5 {",
    "    while x = 1 {",
    "    let ok = a = b",
    "    let ok: bool = a = b",
    "    x.y = a = b",
    "    repeat n = 3 {",
    "    finish a = b",
    "    emit e(a = 1)",
    "    let y = if a = 1 then 2 else 3",
    "    let y = count(p for p in players if p.n = 1)",
    "    if (a = 1) {",
    "    if not x = 1 {",
    "    if f(x)[1].y + 1 = 2 {",
    "    if a { stop } elif x = 2 {",
    "    if a == 1 { stop } elif a and x = 2 {",
])
def test_assign_where_a_comparison_could_stand(line):
    text = f"rule main() {{\n{line}\n        stop\n    }}\n}}\n"
    e = error(text)
    col = line.rindex(" = ") + 2
    assert (e.message, where(e)) == (ASSIGN, (2, col, col + 1))
    assert "==" in e.hint


@pytest.mark.parametrize("text, col", [("const X = a = 1\n", 13), ("function f(a: int) -> bool = a = 1\n", 32)])
def test_assign_in_a_declarations_value(text, col):
    assert (error(text).message, where(error(text))) == (ASSIGN, (1, col, col + 1))


def test_a_valid_assignment_is_not_a_comparison():
    parse("rule main() {\n    let x = 1\n    x = x + 1\n}\n", "t.pw")


def test_missing_brace_at_the_end_of_the_file_points_at_the_open_brace():
    e = error("rule main() {\n    if x {\n        stop\n    }\n")
    assert (e.message, where(e)) == (BRACE, (1, 13, 14))
    assert "the file ends at line 4" in e.hint


def test_the_innermost_open_brace_when_the_indentation_agrees():
    e = error("rule main() {\n    if x {\n        stop\n")
    assert (e.message, where(e)) == (BRACE, (2, 10, 11))


def test_missing_brace_before_the_next_declaration_is_found_by_indentation():
    text = ("rule main() {\n"
            "    if x {\n"          # its '}' is missing: the one at column 1 closes the rule
            "        stop\n"
            "    let y = 1\n"
            "}\n"
            "rule other() {\n"
            "    stop\n"
            "}\n")
    e = error(text)
    assert (e.message, where(e)) == (BRACE, (2, 10, 11))
    assert "the next declaration starts at line 6 ('rule')" in e.hint


def test_a_later_block_at_the_same_indentation_does_not_hide_the_missing_brace():
    text = "rule main() {\n    if x {\n        stop\n    for p in players {\n        stop\n    }\n}\nevent e() \"e\"\n"
    e = error(text)
    assert (e.message, where(e)) == (BRACE, (2, 10, 11))
    assert "line 8 ('event')" in e.hint


@pytest.mark.parametrize("text, line, col", [
    ('game g "G" { players P 1 to 2\nfunction f() -> int = 1\n', 1, 12),   # a keyword the block refuses
    ("card C {\n    value: int\nfunction f() -> int = 1\n", 1, 8),          # a keyword read as a field name
])
def test_missing_brace_of_other_blocks(text, line, col):
    e = error(text)
    assert (e.message, where(e)) == (BRACE, (line, col, col + 1))


def test_a_setting_keyword_inside_a_scenario_is_not_a_declaration():
    e = error('scenario "s" {\n    game 5\n}\n')
    assert e.message != BRACE and where(e)[:2] == (2, 10)


@pytest.mark.parametrize("text, line, col, hint", [
    ("const X = (1 + 2\n", 1, 11, "the file ends at line 1"),
    ("rule main() {\n    let x = f(1,\n        2\n", 2, 14, "the file ends at line 3"),
    ("const X = max(1,\n    2\nrule main() {\n    stop\n}\n", 1, 14, "the next declaration starts at line 3"),
    ("rule main() {\n    let x = f(1, 2\n}\n", 2, 14, "'}' comes at line 3"),
    ("rule main() {\n    if len(x == 0 {\n        stop\n    }\n}\n", 2, 11, "'{' comes at line 2"),
])
def test_missing_paren_points_at_the_open_paren(text, line, col, hint):
    e = error(text)
    assert (e.message, where(e)) == ("')' is missing", (line, col, col + 1))
    assert hint in e.hint


def test_missing_bracket_points_at_the_open_bracket():
    e = error("rule main() {\n    let x = [1, 2\n}\n")
    assert (e.message, where(e)) == ("']' is missing", (2, 13, 14))


def test_one_closer_too_many_is_not_a_missing_one():
    e = error('const X = [f), "a"]\n')
    assert e.message == "unexpected ')'" and where(e)[:2] == (1, 13)


@pytest.mark.parametrize("text, col", [("const X = [70, , 90]\n", 16), ("const X = 1 + )\n", 15),
                                       ("rule main() {\n    emit e(a, .b)\n}\n", 15)])
def test_a_missing_value_is_named(text, col):
    e = error(text)
    assert e.message == "an expression is missing here" and e.span.col == col
