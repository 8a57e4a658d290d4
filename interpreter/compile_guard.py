"""A list's item read in place, its failure still told by _at (compile.Gen.line uses this).

`xs[i]` of the rules compiles to `_at(xs, i)`, a call whose failure tells the index and the
length. A call at every read is a Python call for what is one subscript. So in a simple statement
(an assignment, an expression, a return) whose read of an item is always worked out, the first
such read is written in place, inside `try`, and only a failure calls _at, which raises its error
at the statement's line:

    try: l_a = _S.g_field[l_i]
    except IndexError: _at(_S.g_field, l_i); raise

The list must be a name or a field of one, the index a name, a field, a literal, or sums and
differences of them: worked out again in the handler, they cannot fail or change anything, and
nothing in the statement can have changed them (no `:=` stores one of their names). The handler
must only ever catch that read's failure: nothing else in the statement may raise an IndexError or
run the rules' code (which may raise one, or change the list), so the statement calls nothing
but Python builtins that raise none, other reads by _at (which raise their own error) and a list's
append; and it subscripts nothing else but a pile's top (`(xs or (None,))[-1]`), which cannot fail
(a `+=` of a list's item reads that item first: such a statement stays as it is). The `raise`
after _at is a last guard: should _at find the item after all, Python's own error goes on. A read
in a branch (`if`, `and`, `or`), a lambda or a comprehension stays a call.
"""

from __future__ import annotations

import ast as pyast

_STATEMENTS = (pyast.Assign, pyast.AugAssign, pyast.Expr, pyast.Return)


# Longer lines are left as they are: a hot read is in a short line, and a hostile file's lines
# must not make the compiler parse each of them again at length.
LINE_MAX = 1000


def guarded(text: str) -> tuple[str, str] | None:
    """The `try` and `except` lines of a generated statement with its first item read written in
    place, or None to leave the statement as it is."""
    if len(text) > LINE_MAX:
        return None
    try:
        tree = pyast.parse(text)
    except SyntaxError:  # a line of a compound statement (`try: del ...`, `if x:`)
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], _STATEMENTS):
        return None
    stmt = tree.body[0]
    read = min((n for n in _worked_out(stmt) if _is_read(n)), key=lambda n: n.col_offset, default=None)
    if read is None or not all(_quiet(n, read) for n in pyast.walk(stmt)):
        return None
    raw = text.encode()
    xs, i = (_segment(raw, a) for a in read.args)
    # the parser counts columns in UTF-8 bytes, and a literal may hold any character
    inline = raw[:read.col_offset] + f"{xs}[{i}]".encode() + raw[read.end_col_offset:]
    return f"try: {inline.decode()}", f"except IndexError: _at({xs}, {i}); raise"


def _worked_out(stmt):
    """stmt and the parts of it Python always works out with it, in no particular order."""
    stack = [stmt]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(part for part in _always(node) if part is not None)


def _always(node) -> list:
    parts = _PARTS.get(type(node))
    return parts(node) if parts is not None else []  # a lambda, a comprehension, a name: nothing now


_PARTS = {
    pyast.Assign: lambda n: [n.value, *(_target_parts(t) for t in n.targets)],
    pyast.AugAssign: lambda n: [n.value, _target_parts(n.target)],
    pyast.Expr: lambda n: [n.value],
    pyast.Return: lambda n: [n.value],
    pyast.NamedExpr: lambda n: [n.value],
    pyast.Starred: lambda n: [n.value],
    pyast.Call: lambda n: [n.func, *n.args, *(k.value for k in n.keywords)],
    pyast.Attribute: lambda n: [n.value],
    pyast.Subscript: lambda n: [n.value, n.slice],
    pyast.BinOp: lambda n: [n.left, n.right],
    pyast.UnaryOp: lambda n: [n.operand],
    pyast.Tuple: lambda n: n.elts,
    pyast.List: lambda n: n.elts,
    pyast.Compare: lambda n: [n.left, n.comparators[0]],  # a chain stops at the first false comparison
    pyast.BoolOp: lambda n: [n.values[0]],  # the others only as the first decides
    pyast.IfExp: lambda n: [n.test],
}


def _target_parts(target):
    """What an assignment's target works out before it stores: `a.f` works out a, `a[i]` a and i."""
    if isinstance(target, pyast.Attribute):
        return target.value
    if isinstance(target, pyast.Subscript):
        return pyast.Tuple(elts=[target.value, target.slice])
    return None


def _is_read(node) -> bool:
    return (isinstance(node, pyast.Call) and isinstance(node.func, pyast.Name) and node.func.id == "_at"
            and len(node.args) == 2 and not node.keywords and _named(node.args[0]) and _simple(node.args[1]))


def _named(node) -> bool:
    """A name or a field of one (`l_d.v_hand`, `_S.g_field`): `xs[i]` needs no brackets around xs."""
    return isinstance(node, pyast.Name) or isinstance(node, pyast.Attribute) and _named(node.value)


def _simple(node) -> bool:
    """Worked out again, cannot fail nor change anything: the values it reads were just read."""
    if isinstance(node, (pyast.Name, pyast.Constant)):
        return True
    if isinstance(node, pyast.Attribute):
        return _simple(node.value)
    if isinstance(node, pyast.BinOp):
        return isinstance(node.op, (pyast.Add, pyast.Sub)) and _simple(node.left) and _simple(node.right)
    if isinstance(node, pyast.UnaryOp):
        return isinstance(node.op, pyast.USub) and _simple(node.operand)
    return False


# Python's own functions generated code calls that raise no IndexError and run no rules code
_QUIET_CALLS = frozenset({"len", "int", "abs", "min", "max", "sum", "any", "all", "tuple", "list", "sorted", "_at"})


def _quiet(node, read) -> bool:
    """Can this part of the statement raise no IndexError but by the read, and change nothing the
    read's list and index name?"""
    if isinstance(node, pyast.NamedExpr):
        return node.target.id not in _names(read)
    if isinstance(node, pyast.Call):
        f = node.func
        return node is read or isinstance(f, pyast.Name) and f.id in _QUIET_CALLS \
            or isinstance(f, pyast.Attribute) and f.attr == "append"
    if isinstance(node, pyast.Subscript):  # a pile's top, none if it is empty
        v, i = node.value, node.slice
        return isinstance(v, pyast.BoolOp) and isinstance(v.op, pyast.Or) and isinstance(v.values[-1], pyast.Tuple) \
            and isinstance(i.operand if isinstance(i, pyast.UnaryOp) else i, pyast.Constant)
    return not isinstance(node, (pyast.Lambda, pyast.ListComp, pyast.SetComp, pyast.DictComp, pyast.GeneratorExp))


def _names(node) -> set[str]:
    return {n.id for n in pyast.walk(node) if isinstance(n, pyast.Name)}


def _segment(raw: bytes, node) -> str:
    return raw[node.col_offset:node.end_col_offset].decode()
