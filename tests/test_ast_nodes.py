"""The syntax tree's classes: ==, hash and repr are shared functions (ast.node), not the code attrs
writes for each class, and they behave as attrs' own would, for every node of every shipped game."""

from __future__ import annotations

import pickle

import attrs
import pytest
from pitwall.interpreter import ast
from pitwall.interpreter.errors import Span
from pitwall.interpreter.load import games
from pitwall.interpreter.parse import parse, parse_file


def _nodes():
    """Every node of every shipped game's files, by class."""
    seen: dict[type, list] = {}
    stack = [parse_file(f) for g in games() for f in sorted(g.path.rglob("*.pw"))]
    while stack:
        n = stack.pop()
        if attrs.has(type(n)):
            seen.setdefault(type(n), []).append(n)
        stack.extend(ast.children(n))
    return seen


NODES = _nodes()


def _twin(cls):
    """The class attrs would make of cls's fields, with its own generated ==, hash and repr."""
    fields = {f.name: attrs.field(default=f.default, eq=f.eq, repr=f.repr, kw_only=f.kw_only)
              for f in attrs.fields(cls)}
    return attrs.make_class(cls.__name__, fields, frozen=True)


def _as_twin(twin, n):
    return twin(**{f.name: getattr(n, f.name) for f in attrs.fields(type(n))})


def test_the_shipped_games_use_most_node_classes():
    made = {c for c in vars(ast).values() if isinstance(c, type) and attrs.has(c)}
    assert len(NODES) >= 0.75 * len(made), sorted(c.__name__ for c in made - set(NODES))


@pytest.mark.parametrize("cls", sorted(NODES, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_a_nodes_repr_and_equality_are_those_attrs_would_write(cls):
    twin = _twin(cls)
    nodes = NODES[cls][:40]
    for a in nodes:
        assert repr(a) == repr(_as_twin(twin, a))
        for b in nodes:
            same = _as_twin(twin, a) == _as_twin(twin, b)
            assert (a == b) is same and (a != b) is (not same)
            if same:
                assert hash(a) == hash(b)


def test_the_span_is_neither_compared_nor_shown():
    a, b = parse("const A = 3\n", "a.pw"), parse("\n\nconst   A =  3\n", "b.pw")
    assert a.items[0].span != b.items[0].span
    assert a.items[0] == b.items[0] and hash(a.items[0]) == hash(b.items[0])
    assert {a.items[0]: 1}[b.items[0]] == 1
    assert "span" not in repr(a.items[0]) and repr(a.items[0]).startswith("ConstDecl(name='A', ")


def test_nodes_of_two_classes_with_the_same_fields_differ():
    assert ast.Int(1) != ast.Bool(True) and not ast.Int(1) == ast.Bool(True)  # though 1 == True
    assert ast.Int(3) == ast.Int(3) and ast.Int(3) != ast.Int(4)
    assert ast.Int(3).__eq__("3") is NotImplemented and ast.Int(3).__ne__(3) is NotImplemented


def test_a_node_stays_frozen_and_pickles():
    n = ast.Int(7, span=Span("x.pw", 2, 3, 2, 4))
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        n.value = 8
    back = pickle.loads(pickle.dumps(n))
    assert back == n and back.span == n.span and repr(back) == "Int(value=7)"
