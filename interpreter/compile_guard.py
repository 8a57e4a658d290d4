"""A list's item read in place, its failure still told by _at (compile.Gen.line uses this).

`xs[i]` of the rules compiles to `_at(xs, i)`, a call whose failure tells the index and the
length. A call at every read is a Python call for what is one subscript. So in a simple statement
(an assignment, an expression, a return) whose read of an item is always worked out, the first
such read is written in place, inside `try`, and only a failure calls _at, which raises its error
at the statement's line:

    try: l_a = _S.g_field[l_i]
    except IndexError: _at(_S.g_field, l_i); raise

The list must be a name or a field of one, the index a name, a field, a literal, or sums and
differences of them: worked out again in the handler, they cannot fail or change anything, and nothing in the
statement can have changed them (no `:=` stores one of their names). The `raise` after _at is for
an IndexError from elsewhere in the statement (_at found the item there): Python's own error goes on.
A read in a branch (`if`, `and`, `or`), a lambda or a comprehension stays a call.
"""

from __future__ import annotations

import ast as pyast

_STATEMENTS = (pyast.Assign, pyast.AugAssign, pyast.Expr, pyast.Return)


def guarded(text: str) -> tuple[str, str] | None:
    """The `try` and `except` lines of a generated statement with its first item read written in
    place, or None to leave the statement as it is."""
    try:
        tree = pyast.parse(text)
    except SyntaxError:  # a line of a compound statement (`try: del ...`, `if x:`)
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], _STATEMENTS):
        return None
    stmt = tree.body[0]
    stored = {n.target.id for n in pyast.walk(stmt) if isinstance(n, pyast.NamedExpr)}
    raw = text.encode()
    for node in _worked_out(stmt):
        if _is_read(node) and not _names(node) & stored:
            xs, i = (_segment(raw, a) for a in node.args)
            # the parser counts columns in UTF-8 bytes, and a literal may hold any character
            inline = raw[:node.col_offset] + f"{xs}[{i}]".encode() + raw[node.end_col_offset:]
            return f"try: {inline.decode()}", f"except IndexError: _at({xs}, {i}); raise"
    return None


def _worked_out(node):
    """node and the parts of it Python always works out with it, in no particular order."""
    yield node
    for part in _always(node):
        if part is not None:
            yield from _worked_out(part)


def _always(node) -> list:
    if isinstance(node, pyast.Assign):
        return [node.value, *(_target_parts(t) for t in node.targets)]
    if isinstance(node, pyast.AugAssign):
        return [node.value, _target_parts(node.target)]
    if isinstance(node, (pyast.Expr, pyast.Return, pyast.NamedExpr, pyast.Starred)):
        return [node.value]
    if isinstance(node, pyast.Call):
        return [node.func, *node.args, *(k.value for k in node.keywords)]
    if isinstance(node, pyast.Attribute):
        return [node.value]
    if isinstance(node, pyast.Subscript):
        return [node.value, node.slice]
    if isinstance(node, pyast.BinOp):
        return [node.left, node.right]
    if isinstance(node, pyast.UnaryOp):
        return [node.operand]
    if isinstance(node, (pyast.Tuple, pyast.List)):
        return list(node.elts)
    if isinstance(node, pyast.Compare):  # a chain stops at the first false comparison
        return [node.left, node.comparators[0]]
    if isinstance(node, pyast.BoolOp):  # the first operand; the others only as it decides
        return [node.values[0]]
    if isinstance(node, pyast.IfExp):
        return [node.test]
    return []  # a lambda, a comprehension, a name, a literal: nothing of them now


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


def _names(node) -> set[str]:
    return {n.id for n in pyast.walk(node) if isinstance(n, pyast.Name)}


def _segment(raw: bytes, node) -> str:
    return raw[node.col_offset:node.end_col_offset].decode()
