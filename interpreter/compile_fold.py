"""Constants as literals, and operations on literals worked out as the code is written (compile.Gen
inherits this).

A constant's value is known when the program is compiled: variants and settings are applied to
the rules before (the compiled program's cache key holds them). A constant whose value is a
literal, or names such a constant, is written as that literal: Python loads it with LOAD_CONST,
not a lookup in the module's globals. Comparisons of two literals, `and`, `or` and conditional
expressions whose first operand is a literal are worked out here (`SLOW_DOWN == 0 or ...` with
SLOW_DOWN 10 is the code of what follows `or`): CPython 3.11 folds neither, and an `if` whose
condition is a literal loses its dead branch. What is left out would have been worked out
without any effect (a literal has none), and the steps charged are the rules' nodes, as before.

A length compared with 0 or 1 (`len(xs) == 0`) is written as the list's truth (`not xs`).
"""

from __future__ import annotations

import operator
import re

from . import ast

_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
            ">=": operator.ge}
_NOT_LITERAL = object()
_INT_CODE = re.compile(r"-?[0-9]{1,19}")


class FoldGen:
    literal_values: dict

    def folded(self, e):
        """e, or the node that has its value where a literal decides it (a new Bool for a
        comparison of literals, an operand for `and`, `or` and `if then else`)."""
        if isinstance(e, ast.BinOp):
            if e.op in _COMPARE:
                a, b = self.literal_of(e.left), self.literal_of(e.right)
                if a is not _NOT_LITERAL and b is not _NOT_LITERAL and type(a) is type(b):
                    return ast.Bool(_COMPARE[e.op](a, b), span=e.span)
            elif e.op in ("and", "or"):
                a = self.literal_of(e.left)
                if type(a) is bool:  # True or X: True; False or X: X; True and X: X; False and X: False
                    return e.right if a == (e.op == "and") else e.left
        elif isinstance(e, ast.UnOp):
            a = self.literal_of(e.operand)
            if e.op == "not" and type(a) is bool:
                return ast.Bool(not a, span=e.span)
            if e.op == "-" and type(a) is int and not isinstance(e.operand, ast.Int):  # -Int: a literal already
                return ast.Int(-a, span=e.span)
        elif isinstance(e, ast.Cond):
            a = self.literal_of(e.cond)
            if type(a) is bool:
                return e.then if a else e.orelse
        return e

    def literal_of(self, e):
        """The value of e where it is a literal or a constant written as one, or the parameter of
        a function written in place for which such a value was passed, folded if need be."""
        e = self.folded(e)
        if isinstance(e, ast.Var):
            arg = self.argument(e)
            if arg is not None:
                return _value_of_code(arg.code)
            if e.name in self.literal_values:
                return self.literal_values[e.name]
        return literal_value(e)

    def emptiness(self, e: ast.BinOp) -> str | None:
        """`len(xs) == 0` as `(not xs)`, where xs needs no lines before it (else FlatGen's)."""
        truth = self.truth_test(e)
        if truth is None or id(e.left) in self.pre or self._has_comp(truth[1]):
            return None
        return f"({truth[0]}{self.expr(truth[1])})"

    def truth_test(self, e: ast.BinOp) -> tuple[str, object] | None:
        """`len(xs) == 0` and the like as Python's truth of the list, ("not ", xs) or ("not not ",
        xs): a list is true when it holds something, and `not` costs one bytecode where the call
        and the comparison cost six (an `if` folds `not not` into its jump)."""
        call = e.left
        if not (isinstance(call, ast.Call) and call.name in ("len", "count") and len(call.args) == 1
                and call.name not in self.prog.functions and self.type_of(call.args[0]).kind in ("list", "pile")):
            return None
        n = self.literal_of(e.right)
        if type(n) is not int:
            return None
        if (e.op, n) in (("==", 0), ("<=", 0), ("<", 1)):
            return "not ", call.args[0]
        if (e.op, n) in (("!=", 0), (">", 0), (">=", 1)):
            return "not not ", call.args[0]
        return None


def const_literals(prog) -> dict[str, str]:
    """The constants written as literals, by name, as their values' code."""
    return {name: _code_of(v) for name, v in const_values(prog).items()}


def const_values(prog) -> dict[str, int | bool | str]:
    """The constants whose value (after variants and settings: the one this program runs with) is
    a literal or names such a constant, and their values. In declaration order, as the checker
    has them: a chain of constants is followed one link at a time."""
    out: dict[str, int | bool | str] = {}
    for name, c in prog.consts.items():
        v = c.value
        if isinstance(v, ast.Var):
            if v.name in out:
                out[name] = out[v.name]
        elif (value := literal_value(v)) is not _NOT_LITERAL:
            out[name] = value
    return out


def literal_value(e):
    """The value of a literal (a negative number is `-` and a literal); _NOT_LITERAL otherwise."""
    if isinstance(e, ast.UnOp) and e.op == "-" and isinstance(e.operand, ast.Int):
        return -e.operand.value
    if isinstance(e, (ast.Int, ast.Bool, ast.Str)):
        return e.value
    return _NOT_LITERAL


def _value_of_code(code: str):
    """The whole number or truth value the code of an argument is, as _code_of wrote it."""
    code = code.strip("()") if code.startswith("(") and code.endswith(")") else code
    if _INT_CODE.fullmatch(code):
        return int(code)
    return {"True": True, "False": False}.get(code, _NOT_LITERAL)


def _code_of(value) -> str:
    return f"({value!r})" if type(value) is int and value < 0 else repr(value)
