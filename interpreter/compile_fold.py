"""Code that does the same with fewer bytecodes, where the rules are compiled (compile.Gen inherits
FoldGen) and once the Python code is written (with_constants).

A pass over a list written out (`[a, b, c]`), or over a constant that is one, is paid for as its
length, a number, not a call of `len` (the list is still made: the loop reads it).

A length compared with 0 or 1 (`len(xs) == 0`) is written as the list's truth (`not xs`). Not in
the arguments of a call of the rules' functions: whether such a call is written in place reads
its arguments' code (compile_inline.py), and that must not change.

Constants: a constant's value is known when the program is compiled (variants and settings are
applied to the rules first, and the compiled program's cache key holds them). Once the code is
written, with_constants puts the value of each whole-number or truth-value constant whose value is
a literal (or names such a constant) in place of its name, in the text Python compiles: Python
then loads it with LOAD_CONST, not a lookup in the module's globals, and folds the arithmetic
around it; a comparison of two literals that makes (`(10 == 0)`, which Python does not fold) is
written as its value. The code the compiler wrote and read is the one it keeps
(Compiled.source): nothing it decides by reading its code changes (what is written in place,
which path a statement takes, how many lines the rules make), and neither do the steps. Texts
stay names: a long text named many times would be copied as often.
"""

from __future__ import annotations

import operator
import re

from . import ast

_NOT_LITERAL = object()


class FoldGen:
    call_args = 0  # arguments of a call of a rules function being written (see top)

    def emptiness(self, e: ast.BinOp) -> str | None:
        """`len(xs) == 0` as `(not xs)`, where xs needs no lines before it (else FlatGen's)."""
        truth = self.truth_test(e)
        if truth is None or self.call_args or id(e.left) in self.pre or self._has_comp(truth[1]):
            return None
        return f"({truth[0]}{self.expr(truth[1])})"

    def length(self, items: str, e) -> str:
        """The code of the length of the list `e`, whose value the local `items` holds: a number
        where `e` is a list written out or a constant naming one (constants never change)."""
        for _ in range(len(self.prog.consts) + 1):  # a constant may name another, declared before it
            if not (isinstance(e, ast.Var) and e.name in self.prog.consts and not self.is_local(e)):
                break
            e = self.prog.consts[e.name].value
        return repr(len(e.items)) if isinstance(e, ast.ListLit) else f"len({items})"

    def truth_test(self, e: ast.BinOp) -> tuple[str, object] | None:
        """`len(xs) == 0` and the like as Python's truth of the list, ("not ", xs) or ("not not ",
        xs): a list is true when it holds something, and `not` costs one bytecode where the call
        and the comparison cost six (an `if` folds `not not` into its jump)."""
        call, n = e.left, e.right
        if not (isinstance(call, ast.Call) and call.name in ("len", "count") and len(call.args) == 1
                and call.name not in self.prog.functions and isinstance(n, ast.Int)
                and self.type_of(call.args[0]).kind in ("list", "pile")):
            return None
        if (e.op, n.value) in (("==", 0), ("<=", 0), ("<", 1)):
            return "not ", call.args[0]
        if (e.op, n.value) in (("!=", 0), (">", 0), (">=", 1)):
            return "not not ", call.args[0]
        return None


def with_constants(source: str, prog) -> str:
    """The generated code as Python compiles it: each whole-number or truth-value constant whose
    value is a literal (or names such a constant) as that value, in place of its name (see top).
    Text literals (repr()s, never holding a line break) and comments are matched whole and left as
    they are, and so is a constant's own assignment (`C_X = ...`)."""
    values = {f"C_{name}": _code_of(v) for name, v in const_values(prog).items()}
    if not values:
        return source
    return _COMPARED.sub(_compared, _TOKENS.sub(lambda m: values.get(m[0], m[0]), source))


# A comparison of two literals, as the compiler writes every comparison: in parentheses of its
# own (`(10 == 0)`, where a constant argument met `slower == 0`). Python does not fold it, and it
# runs at every pass of a loop; as `(False)` it is a parenthesized value like any other, and
# Python drops a test of a constant (`(False) or x` is x). Texts and comments are matched whole
# and left as they are.
_LITERAL = r"(\(-\d+\)|-?\d+|True|False)"
# A text or a comment, matched whole so that nothing in it is taken for code
_SKIPPED = r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|#[^\n]*"""
_COMPARED = re.compile(_SKIPPED + r"|\(" + _LITERAL
                       + r" (==|!=|<=|>=|<|>) " + _LITERAL + r"\)")
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<=": operator.le, ">=": operator.ge, "<": operator.lt,
            ">": operator.gt}


def _compared(m: re.Match) -> str:
    if m[1] is None:  # a text or a comment
        return m[0]
    left, right = (_literal(m[i]) for i in (1, 3))
    return f"({_COMPARE[m[2]](left, right)!r})"


def _literal(code: str) -> int | bool:
    return code == "True" if code in ("True", "False") else int(code.strip("()"))


_TOKENS = re.compile(_SKIPPED + r"|\bC_\w+\b(?!\s*=(?!=))")


def _code_of(value) -> str:
    return f"({value!r})" if type(value) is int and value < 0 else repr(value)


def const_values(prog) -> dict[str, int | bool]:
    """The whole-number and truth-value constants whose value (after variants and settings: the
    one this program runs with) is a literal or names such a constant, and their values. In
    declaration order, as the checker has them: a chain of constants is followed one link at a time."""
    out: dict[str, int | bool] = {}
    for name, c in prog.consts.items():
        v = c.value
        if isinstance(v, ast.Var):
            if v.name in out:
                out[name] = out[v.name]
        elif (value := literal_value(v)) is not _NOT_LITERAL:
            out[name] = value
    return out


def literal_value(e):
    """The value of a whole-number or truth-value literal (a negative number is `-` and a literal);
    _NOT_LITERAL otherwise (a text too: see top)."""
    if isinstance(e, ast.UnOp) and e.op == "-" and isinstance(e.operand, ast.Int):
        return -e.operand.value
    if isinstance(e, (ast.Int, ast.Bool)):
        return e.value
    return _NOT_LITERAL
