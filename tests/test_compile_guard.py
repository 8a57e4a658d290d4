"""A list's item read in place inside `try` (interpreter/compile_guard.py): which generated lines are
rewritten, and that a rules game still reports every index out of range with _at's message, at its line."""

from __future__ import annotations

import pytest
from pitwall.interpreter.compile_guard import guarded
from pitwall.interpreter.load import build
from test_compile_edges import _line, _play


@pytest.mark.parametrize("line, expected", [
    ("l_a = _at(_S.g_field, l_i)",
     ("try: l_a = _S.g_field[l_i]", "except IndexError: _at(_S.g_field, l_i); raise")),
    # an assignment's target works out its object before it stores
    ("_at(_S.g_field, (l_i - 1)).v_position = l_i",
     ("try: _S.g_field[l_i - 1].v_position = l_i", "except IndexError: _at(_S.g_field, l_i - 1); raise")),
    # the first read Python always works out: the second stays a call, and raises its own error
    ("_t1.append((_at(l_xs, 0) + _at(l_ys, -l_n)))",
     ("try: _t1.append((l_xs[0] + _at(l_ys, -l_n)))", "except IndexError: _at(l_xs, 0); raise")),
    # the parser counts columns in bytes: a literal of other characters before the read
    ("l_t = ('é→' if l_c else 'ü'), _at(C_POINTS, l_d.v_place)",
     ("try: l_t = ('é→' if l_c else 'ü'), C_POINTS[l_d.v_place]",
      "except IndexError: _at(C_POINTS, l_d.v_place); raise")),
    # a pile's top cannot fail; builtins raise no IndexError
    ("l_v = (l_d.v_left or (None,))[-1].v_speed + len(l_ys) + _at(l_xs, l_i)",
     ("try: l_v = (l_d.v_left or (None,))[-1].v_speed + len(l_ys) + l_xs[l_i]",
      "except IndexError: _at(l_xs, l_i); raise")),
    ("return _at(l_xs, l_i + 1)", ("try: return l_xs[l_i + 1]", "except IndexError: _at(l_xs, l_i + 1); raise")),
])
def test_a_read_always_worked_out_is_written_in_place(line, expected):
    assert guarded(line) == expected
    compile("def f():\n" + "".join(f"    {x}\n" for x in expected), "<generated>", "exec")  # valid Python


@pytest.mark.parametrize("line", [
    "l_v = (_at(l_xs, l_i) if l_c else 0)",  # in a branch: worked out only if the test holds
    "l_v = (l_c and _at(l_xs, l_i))",
    "l_v = (l_c < l_d < _at(l_xs, l_i))",  # a chain of comparisons stops at the first false one
    "_tell(1, lambda l_i=l_i: (_at(l_xs, l_i), ))",  # worked out later, if ever
    "_t1 = [_at(l_xs, t2_i) for t2_i in l_is]",
    "l_v = _at(l_xs, (_t3 := len(l_ys)) - 1) + _t3",  # a name the statement stores: not the same again
    "l_v = _at(f_list(l_d), l_i)",  # a call: worked out again, it could fail or spend
    "l_v = _at(l_xs, f_index(l_d))",
    "l_v = _at(l_xs + l_ys, 0)",
    "if _at(l_xs, l_i): _over()",  # a compound statement
    "try: del _t187[_t187.index(_t186)]",
    "def f_owed_at(l_s):",
    "l_v = _at(l_xs)",
    # something else may raise an IndexError the handler would take for the read's: a `+=` reads
    # its item first; a rules function, a random pick, a method that removes
    "l_zs[5] += _at(_S.g_xs, 9)",
    "l_v = f_total() + _at(l_xs, 9)",
    "l_v = _t5[int(_t6() * _t7)] + _at(l_xs, 0)",
    "l_v = _t5.pop() + _at(l_xs, 0)",
    "_tell(1, lambda l_xs=l_xs: (l_xs, )); _at(l_xs, 0)",
    "l_v = _at(l_xs, l_i) + " + " + ".join(["l_a"] * 300),  # past LINE_MAX: not parsed again
])
def test_a_read_that_may_not_be_worked_out_or_may_change_stays_a_call(line):
    assert guarded(line) is None


BODY = """rule main() {{
    let zs = [10, 20]
    {statement}
    finish players
}}
"""


@pytest.mark.parametrize("statement, message, in_place", [
    ("let v = xs[9] + ys[1]", "index 9 is out of range: the list holds 6 item(s), at 0 to 5", True),
    ("let v = xs[1] + ys[7]", "index 7 is out of range: the list holds 3 item(s), at 0 to 2", True),
    ("players[2].n = 1", "index 2 is out of range: the list holds 2 item(s), at 0 to 1", True),
    # the target's read in place, the value's a call (its index is one): the value is worked out first
    ("players[0].n = zs[len(zs)]", "index 2 is out of range: the list holds 2 item(s), at 0 to 1", True),
    ("players[0].n = zs[0 - 3]", "index -3 is out of range: the list holds 2 item(s), at 0 to 1", True),
    # the same errors from the reads left calls: in a branch, in an event's values
    ("let v = if len(zs) > 5 then 0 else zs[2]", "index 2 is out of range: the list holds 2 item(s), at 0 to 1",
     False),
    ("emit told(zs[2])", "index 2 is out of range: the list holds 2 item(s), at 0 to 1", False),
    # a `+=` of an item reads it first: Python's own error, as before, not the value's read's
    ("zs[5] += xs[9]", "index out of range: the list or pile is shorter than that", False),
])
def test_an_index_out_of_range_tells_the_index_and_the_length_at_its_line(tmp_path, statement, message, in_place):
    body = BODY.format(statement=statement)
    assert _play(tmp_path, body) == ("error", message, _line(body, f"    {statement}"))
    assert ("except IndexError: _at(" in _source(tmp_path)) == in_place


def test_reads_in_range_give_the_items_python_would(tmp_path):
    statement = "let l = [xs[0], xs[5], ys[0 - 1], zs[len(zs) - 1], players[1].n]\n    emit told_l(l)"
    assert _play(tmp_path, BODY.format(statement=statement)) == ("told", [(3, 9, 0, 20, 0)])
    assert _source(tmp_path).count("except IndexError: _at(") == 1  # the first read; the others are calls


def _source(tmp_path) -> str:
    """The generated code of the game _play last wrote."""
    return build([tmp_path / "g.pw"], []).compiled.source
