"""Which functions of the rules are pure: their value, and the steps they spend, follow from their
arguments alone. Generated code remembers such a function's recent values (compile_memo.py),
so a heuristic that asks `points(board, x)` for every participant and every option works each
distinct question out once. Conservative: anything that could read or change the game's state
(a global, a field, a deck's cards, dice, a rule, a participant) makes a function impure.
"""

from __future__ import annotations

import weakref

import attrs

from . import ast
from .link import Program

# Values a memo key can hold as they are (hashable, never changed in place), and lists of them
SCALARS = ("int", "bool", "text")
# Builtins that compute on their arguments only (not roll, player, new)
PURE_BUILTINS = frozenset({"len", "count", "sum", "abs", "any", "all", "sort", "min", "max", "clamp", "reverse",
                           "unique", "first", "last", "top", "range", "text", "index_of", "plural"})
_PURE_NODES = (ast.Int, ast.Str, ast.Bool, ast.NoneLit, ast.Index, ast.Comprehension, ast.Aggregate,
               ast.ListLit, ast.ListComp, ast.TupleLit, ast.BinOp, ast.UnOp, ast.Cond, ast.Block, ast.Let,
               ast.If, ast.For, ast.While, ast.Repeat, ast.Return)


def pure_functions(prog: Program, types: dict[int, object]) -> set[str]:
    """The functions worth remembering: pure, taking and giving plain values (whole numbers,
    truth values, texts, enum members, lists of them) and not altered by a `modify`."""
    modified = {m.target for m in prog.modifiers}
    candidates = {name for name, f in prog.functions.items()
                  if name not in modified and f.params and all(_plain(prog, p.type) for p in f.params)
                  and _plain(prog, f.ret)}
    # A function is pure once its own body is and every function it calls is (recursion never is):
    # each body read once, then the callers of each pure function counted down (reading every body
    # again until nothing changed took time in the chain's length times the bodies' size).
    everything = prog.functions.keys()
    waits: dict[str, set[str]] = {}  # a candidate whose own body is pure -> the functions it calls
    callers: dict[str, set[str]] = {}
    for name in candidates:
        body = prog.functions[name].body
        if _pure_node(prog, types, body, everything):
            waits[name] = _calls(body, set()) & everything
            for callee in waits[name]:
                callers.setdefault(callee, set()).add(name)
    pure: set[str] = set()
    todo = [name for name, callees in waits.items() if not callees]
    while todo:
        name = todo.pop()
        pure.add(name)
        for caller in callers.get(name, ()):
            waits[caller].discard(name)
            if not waits[caller]:
                todo.append(caller)
    return {name for name in pure if _worth(prog, prog.functions[name].body)}


def _worth(prog: Program, node) -> bool:
    """Does the body do enough work (a pass over a list, a loop, such a call) to beat a memo look-up?"""
    if isinstance(node, (ast.Comprehension, ast.For, ast.While, ast.Repeat)):
        return True
    if isinstance(node, ast.Call) and (node.name in prog.rules or node.name in prog.functions
                                       and _worth_function(prog, node.name)):
        return True
    return any(_worth(prog, c) for c in ast.children(node))


_WORTH: dict[int, dict[str, bool]] = {}  # id(program) -> {function: worth}, while the program lives


def _worth_function(prog: Program, name: str) -> bool:
    """_worth of a function's body, worked out for every function at once, the first time a program asks."""
    known = _WORTH.get(id(prog))
    if known is None:
        known = _WORTH[id(prog)] = _worth_table(prog)
        weakref.finalize(prog, _WORTH.pop, id(prog), None)
    return known[name]


def _worth_table(prog: Program) -> dict[str, bool]:
    """A function is worth remembering if its own body loops (or calls a rule), or it calls one
    that is. Worked out over who calls whom, not by following calls: a chain of thousands of
    functions would overflow Python's stack. Calling only itself makes none worth it."""
    callers: dict[str, set[str]] = {name: set() for name in prog.functions}
    working = set()
    for name, f in prog.functions.items():
        own, called = _own_work(prog, f.body)
        if own:
            working.add(name)
        for callee in called:
            callers[callee].add(name)
    worth = reach(callers, working)
    return {name: name in worth for name in prog.functions}


def _own_work(prog: Program, body) -> tuple[bool, set[str]]:
    """Does this body loop (or call a rule) itself, and which functions does it call?"""
    called: set[str] = set()
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Comprehension, ast.For, ast.While, ast.Repeat)):
            return True, called
        if isinstance(node, ast.Call):
            if node.name in prog.rules:
                return True, called
            if node.name in prog.functions:
                called.add(node.name)
        stack.extend(ast.children(node))
    return False, called


def _plain(prog: Program, t: ast.TypeRef | None) -> bool:
    if t is None:
        return False
    if t.name == "list":
        return t.arg is not None and t.arg.name != "list" and _plain(prog, t.arg)
    return t.name in SCALARS or t.name in prog.enums


def _pure_node(prog: Program, types, node, pure) -> bool:
    if isinstance(node, (list, tuple)):
        return all(_pure_node(prog, types, n, pure) for n in node)
    if node is None or not attrs.has(type(node)):
        return True
    if isinstance(node, ast.Var):
        if node.name == "players" or node.name in prog.globals or node.name in prog.decks:
            return False
    elif isinstance(node, ast.Field):
        t = types.get(id(node.obj))
        if t is None or t.kind != "enumtype":  # an enum member is a constant; a card's field is state
            return False
    elif isinstance(node, ast.Call):
        if node.name in prog.functions:
            if node.name not in pure:
                return False
        elif node.name in prog.rules or node.name not in PURE_BUILTINS:
            return False
    elif isinstance(node, (ast.Assign, ast.AugAssign)):
        if not isinstance(node.target, ast.Var):  # only its own locals
            return False
    elif not isinstance(node, _PURE_NODES):
        return False
    return all(_pure_node(prog, types, getattr(node, f.name), pure)
               for f in attrs.fields(type(node)) if f.name not in ("span", "type"))


# ---------------------------------------------------------------- state memo
# No function can change the game (the checker: no rule, roll, new or assignment beyond its own
# locals), so a function's value, and the steps it spends, follow from its arguments and the
# game's state. Generated code remembers such values in one table that every change of the state
# empties (compile_memo.py): a heuristic scoring each option asks the same questions of the same
# position many times.

def _hashable(prog: Program, t: ast.TypeRef | None, inner: bool = False) -> bool:
    if t is None:
        return False
    if t.name in ("list", "pile"):
        return not inner and _hashable(prog, t.arg, True)
    return t.name in SCALARS or t.name in prog.enums or t.name in prog.cards or t.name in prog.participants


def state_memo_functions(prog: Program, recursive: set[str]) -> set[str]:
    """Functions remembered per state: those only the agents' `prefer` scores reach (the rules
    themselves seldom ask the same twice of one state, and would pay for the look-ups), taking
    arguments a key can hold (plain values, cards and participants by identity, lists of them),
    giving a value that is no list (a list handed to two callers could be changed by one), not
    recursive, and with work enough in them."""
    prefer_only = _prefer_only(prog)
    return {name for name, f in prog.functions.items()
            if name in prefer_only and name not in recursive and f.params
            and all(_hashable(prog, p.type) for p in f.params) and _hashable(prog, f.ret, True)
            and _worth(prog, f.body)}


def _prefer_only(prog: Program) -> set[str]:
    """The functions `prefer` scores reach and nothing else does (rules, views, invariants)."""
    graph = _call_graph(prog)
    prefers: set[str] = set()
    others: set[str] = set()
    for r in prog.rules.values():
        for body in (r.body, *r.extensions):
            _split_calls(body, prefers, others)
    g = prog.game
    others |= {n for n in (g.view, g.rank, g.leader, g.board) if n} if g else set()
    others |= set(prog.invariants) | {n for n, f in prog.functions.items() if not f.params}
    return reach(graph, prefers) - reach(graph, others)


def _split_calls(node, prefers: set[str], others: set[str]) -> None:
    if isinstance(node, (list, tuple)):
        for n in node:
            _split_calls(n, prefers, others)
        return
    if node is None or not attrs.has(type(node)):
        return
    if isinstance(node, ast.Choose) and node.prefer is not None:
        _calls(node.prefer, prefers)
    elif isinstance(node, ast.Call):
        others.add(node.name)
    for f in attrs.fields(type(node)):
        if f.name != "span" and not (isinstance(node, ast.Choose) and f.name == "prefer"):
            _split_calls(getattr(node, f.name), prefers, others)


def reach(graph: dict[str, set[str]], roots: set[str]) -> set[str]:
    """The nodes reachable from the roots (the roots in the graph included)."""
    seen: set[str] = set()
    todo = [n for n in roots if n in graph]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(graph[n])
    return seen


def _calls(node, out: set[str]) -> set[str]:
    if isinstance(node, (list, tuple)):
        for n in node:
            _calls(n, out)
    elif node is not None and attrs.has(type(node)):
        if isinstance(node, ast.Call):
            out.add(node.name)
        for f in attrs.fields(type(node)):
            if f.name != "span":
                _calls(getattr(node, f.name), out)
    return out


def _call_graph(prog: Program, calls: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """Function -> the functions its body (and its modifiers) call; calls: bodies_and_calls's."""
    calls = calls if calls is not None else bodies_and_calls(prog)[1]
    functions = prog.functions.keys()
    return {name: calls[name] & functions for name in functions}


def bodies_and_calls(prog: Program) -> tuple[dict[str, object], dict[str, set[str]]]:
    """Each function's and rule's body (a rule's with its extensions) and the functions and
    rules it calls (a function's modifiers' calls too)."""
    bodies = {name: f.body for name, f in prog.functions.items()}
    bodies.update((name, (r.body, *r.extensions)) for name, r in prog.rules.items())
    graph = {name: _calls(body, set()) & bodies.keys() for name, body in bodies.items()}
    for m in prog.modifiers:
        if m.target in graph:
            graph[m.target] |= _calls((m.when, m.value), set()) & bodies.keys()
    return bodies, graph


def recursive_functions(prog: Program, calls: dict[str, set[str]] | None = None) -> set[str]:
    """Functions that can call themselves (through other functions)."""
    return on_cycles(_call_graph(prog, calls))


def on_cycles(graph: dict[str, set[str]]) -> set[str]:
    """The nodes on a cycle of the graph: Tarjan's strongly connected parts, without recursion,
    so a hostile chain of thousands of calls takes linear time."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: set[str] = set()
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(graph[step])))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    n = stack.pop()
                    on_stack.discard(n)
                    part.append(n)
                    if n == node:
                        break
                if len(part) > 1 or node in graph[node]:
                    found.update(part)
    return found


def shared_lets(prog: Program, f: ast.FunctionDecl) -> dict[int, tuple[str, ...]]:
    """The `let`s at the top of a remembered function's body worth sharing between calls that
    differ in other arguments (`score(p, t, v)` whose `let totals` reads only t and v works the
    totals out once for every p): id of the Let -> the parameters its value depends on, a strict
    part of them all."""
    if not isinstance(f.body, ast.Block):
        return {}
    params = {p.name: p for p in f.params}
    rebound = _rebound(f.body.stmts)
    deps: dict[str, frozenset[str]] = {p: frozenset([p]) for p in params if p not in rebound}
    out = {}
    for s in f.body.stmts:
        if not isinstance(s, ast.Let) or s.name in rebound or s.name in deps:
            continue
        names = _free_names(prog, s.value, frozenset())
        if not names <= deps.keys():
            continue
        need = frozenset().union(*(deps[n] for n in names))
        deps[s.name] = need
        if len(need) < len(params) and _worth(prog, s.value):
            out[id(s)] = tuple(p for p in params if p in need)
    return out


def _rebound(stmts) -> set[str]:
    """Locals given a value more than once (or by a loop): their values are not the let's alone."""
    seen: set[str] = set()
    again: set[str] = set()

    def walk(node):
        if isinstance(node, (list, tuple)):
            for n in node:
                walk(n)
            return
        if node is None or not attrs.has(type(node)):
            return
        name = None
        if isinstance(node, ast.Let):
            name = node.name
        elif isinstance(node, (ast.Assign, ast.AugAssign)) and isinstance(node.target, ast.Var):
            name = node.target.name
        elif isinstance(node, (ast.For, ast.Repeat)):
            name = node.var
        if name is not None:
            (again if name in seen else seen).add(name)
            if not isinstance(node, ast.Let):
                again.add(name)
        for f in attrs.fields(type(node)):
            if f.name != "span":
                walk(getattr(node, f.name))

    walk(list(stmts))
    return again


def _free_names(prog: Program, node, bound: frozenset[str]) -> set[str]:
    """The locals an expression reads (not the globals, constants, decks and enums it names)."""
    if isinstance(node, (list, tuple)):
        return set().union(*(_free_names(prog, n, bound) for n in node)) if node else set()
    if node is None or not attrs.has(type(node)):
        return set()
    if isinstance(node, ast.Var):
        declared = (prog.globals, prog.consts, prog.decks, prog.enums)
        if node.name in bound or node.name == "players" or any(node.name in d for d in declared):
            return set()
        return {node.name}
    if isinstance(node, ast.Comprehension):
        inner = bound | {node.var}
        return _free_names(prog, node.iter, bound) | _free_names(prog, (node.elem, node.cond, node.key), inner)
    return set().union(*(_free_names(prog, getattr(node, f.name), bound)
                         for f in attrs.fields(type(node)) if f.name != "span"))
