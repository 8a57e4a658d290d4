"""What the step budget charges, and where, since the seventh speed round: calls paid by the code
around them (costs.entry_costs), branches that pay for their dear calls as they are taken, a
decision's fixed cost, two lists written out joined in place, a join of a name written as lines
that charges and ends as the checked join does, and rules functions that make no
closure cells (compile.Gen.bound)."""

from __future__ import annotations

import re
import time
import types

import pytest
from pitwall.interpreter import ast, costs
from pitwall.interpreter.agents import FirstLegal, make_agent
from pitwall.interpreter.engine import new_game, player_names
from pitwall.interpreter.errors import BudgetError, PitwallError
from pitwall.interpreter.limits import INT_MAX
from pitwall.interpreter.load import build, find_game
from pitwall.interpreter.runtime import Game
from test_runtime import HEAD as RUNTIME_HEAD

HEAD = RUNTIME_HEAD + """global big: list of int = range(1, 5000)
global small: list of int = [1, 2]
"""


def _built(tmp_path, body):
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    return build([path], [])


def _game(tmp_path, body, budget=10**7):
    loaded = _built(tmp_path, body)
    return loaded, Game(loaded, ["A"], [FirstLegal()], 1, budget=budget, auto_agent=FirstLegal())


def _spent(tmp_path, body, budget=10**7) -> int:
    _, game = _game(tmp_path, body, budget)
    game.run()
    return game.budget_total - game.budget[0]


def _function(source: str, name: str) -> str:
    """The lines of a generated function, up to the next one of its level."""
    start = source.index(f" def {name}(")
    start = source.rindex("\n", 0, start) + 1
    indent = source[start:source.index("def ", start)]
    end = source.find(f"\n{indent}def ", start + 1)
    return source[start:end if end >= 0 else len(source)]


def _line(body: str, text: str) -> int:
    return HEAD.count("\n") + body.split("\n").index(text) + 1


def test_a_call_in_a_loop_is_paid_with_the_loop_and_its_callee_charges_nothing_on_entry(tmp_path):
    body = ("rule main() {\n    for i in range(1, 50) {\n        bump(i)\n    }\n    finish players\n}\n"
            "rule bump(i: int) {\n    players[0].n += i\n}\n")
    loaded, _ = _game(tmp_path, body)
    source = loaded.compiled.source
    bump = _function(source, "r_bump")
    assert "v_n" in bump  # the function itself, read whole
    assert "_B" not in bump.replace("nonlocal _B", "")  # paid where it is called
    spent = _spent(tmp_path, body)
    called = _spent(tmp_path, body.replace("        bump(i)\n", "        players[0].n += i\n"))
    assert spent > called  # the call costs the callee's body and more, not less


def test_a_recursive_function_still_pays_on_entry_and_its_runaway_stops_where_it_recurses(tmp_path):
    body = ("function f(n: int) -> int = if n == 0 then 1 else f(n - 1) + f(n - 1)\n"
            "rule main() {\n    players[0].n = f(60)\n    finish players\n}\n")
    _, game = _game(tmp_path, body, 10**6)
    start = time.perf_counter()
    with pytest.raises(BudgetError) as e:
        game.run()
    assert e.value.span.line == HEAD.count("\n") + 1
    assert time.perf_counter() - start < 30  # a bound against hanging, not a timing of speed


def test_a_branch_pays_for_a_dear_call_only_when_it_is_taken(tmp_path):
    # `if taken { work() }` in a loop over many: the dear call is paid by the passes that take it
    work = "rule work() {\n" + "    players[0].n += 1\n" * 60 + "}\n"
    body = ("rule main() {\n    for i in range(1, 100) {\n        if i == {k} {\n            work()\n        }\n"
            "    }\n    finish players\n}\n" + work)
    once = _spent(tmp_path, body.replace("{k}", "1"))
    never = _spent(tmp_path, body.replace("{k}", "0"))
    assert once - never >= costs.BRANCH_PAID_OVER  # the one pass that calls it pays for it
    assert once - never < 2 * (costs.PASS_COST + 60 * 4)  # and only that pass


def test_a_branch_s_cheap_call_is_paid_with_the_code_around_it(tmp_path):
    body = ("rule main() {\n    for i in range(1, 100) {\n        if i == 1 {\n            tick()\n        }\n"
            "    }\n    finish players\n}\n"
            "rule tick() {\n    players[0].n += 1\n}\n")
    loaded, _ = _game(tmp_path, body)
    source = loaded.compiled.source
    main = _function(source, "r_main")
    assert main.count("(_B := _B - ") == 1  # the loop's charge only: no charge of the branch's own


def test_a_chain_of_hundreds_of_calls_compiles_and_a_dear_one_stops_at_once(tmp_path):
    # each function calls the next twice: 2**900 steps, worked out without recursion and capped
    n = 900
    chain = "".join(f"function f{i}(x: int) -> int = f{i + 1}(x) + f{i + 1}(x)\n" for i in range(n))
    body = (chain + f"function f{n}(x: int) -> int = x\n"
            "rule main() {\n    players[0].n = f0(1)\n    finish players\n}\n")
    _, game = _game(tmp_path, body, 10**6)
    with pytest.raises(BudgetError) as e:
        game.run()
    # main, called by the game, pays for its whole body on entry: the error is at its declaration
    assert e.value.span.line == _line(body, "rule main() {")


def _calls_of(name: str, n: int) -> tuple:
    return tuple(ast.CallStmt(ast.Call(name, ())) for _ in range(n))


def test_entry_costs_take_the_dearest_branch_and_cap_at_int_max():
    # f0 calls f1 twice, f1 calls f2 twice, ... 5,000 deep: worked out without recursion, capped
    chain = {f"f{i}": (ast.Block(_calls_of(f"f{i + 1}", 2)), False) for i in range(5000)}
    chain["f5000"] = (ast.Block(()), False)
    graph = {name: {f"f{int(name[1:]) + 1}"} if name != "f5000" else set() for name in chain}
    got = costs.entry_costs(chain, graph)
    block = 1  # a body's block is a node
    assert got["f5000"] == costs.PASS_COST + block
    assert got["f4999"] == costs.PASS_COST + block + 2 * (2 + got["f5000"])  # each call: its statement, itself
    assert got["f0"] == INT_MAX
    # an `if` whose branches call g once and twice: callers pay the dearer branch; with paid_branches,
    # the code around it pays the nodes, and the calls too while they are cheap, else each branch its own
    twice = ast.If(((ast.Bool(True), ast.Block(_calls_of("g", 1))),), ast.Block(_calls_of("g", 2)))
    nodes = costs.weight(ast.Block((twice,)))  # every node of both branches
    for g_calls, cheap in ((0, True), (12, False)):  # g calls z 12 times: past BRANCH_PAID_OVER twice over
        bodies = {"z": (ast.Block(()), False), "g": (ast.Block(_calls_of("z", g_calls)), False),
                  "h": (ast.Block((twice,)), False), "k": (ast.Block((twice,)), True)}
        got = costs.entry_costs(bodies, {"z": set(), "g": {"z"}, "h": {"g"}, "k": {"g"}})
        assert (2 * got["g"] <= costs.BRANCH_PAID_OVER) == cheap
        assert got["h"] == costs.PASS_COST + 1 + 1 + 1 + (1 + 2 * (2 + got["g"]))  # block, if, cond, dearest
        assert got["k"] == costs.PASS_COST + nodes + (2 * got["g"] if cheap else 0)
        assert costs.branch_cost(ast.Block(_calls_of("g", 2)), got) == 2 * got["g"]  # what that branch pays


def test_a_decision_costs_the_same_whatever_its_options(tmp_path):
    body = ("rule main() {\n    repeat 50 {\n        choose x from {list} by players[0]\n        players[0].n = x\n"
            "    }\n    finish players\n}\n")
    many = _spent(tmp_path, body.replace("{list}", "big"))
    few = _spent(tmp_path, body.replace("{list}", "small"))
    assert many == few


def test_a_replay_s_reading_of_every_option_is_side_work(tmp_path):
    from pitwall.interpreter.agents import Scripted

    body = "rule main() {\n    choose x from big by players[0]\n    players[0].n = x\n    finish players\n}\n"
    loaded = _built(tmp_path, body)
    game = Game(loaded, ["A"], [Scripted([("A", "x", "7", None, "here")], "script")], 1, budget=10**6,
                auto_agent=FirstLegal())
    side = game.side[0]
    game.run()
    assert game.participants[0].n == 7
    assert side - game.side[0] >= 4999  # a step for each option's words


def test_two_lists_written_out_are_joined_in_place_and_others_still_through_the_checked_join(tmp_path):
    body = ("rule main() {\n    let two = [1, 2] + [3]\n    let more = small + [3]\n"
            "    players[0].n = len(two) * 10 + len(more)\n    finish players\n}\n")
    loaded, game = _game(tmp_path, body)
    # `small + [3]`, a statement's whole value: lines that bound and pay as _cat does (below)
    assert "([1, 2] + [3])" in loaded.compiled.source and "> 1000000: _cat(_S.g_small, " in loaded.compiled.source
    game.run()
    assert game.participants[0].n == 33


JOINS = """rule main() {
    let gone: list of int = []
    let t = "ab"
    repeat 12 as i {
        gone = gone + [i, i * 2]
        gone = gone + small
        t = t + t
    }
    players[0].n = len(gone)
    finish players
}
"""


def _ends(tmp_path, monkeypatch, body: str, budget: int, lines: bool, agents=None, seed: int = 1,
          record: bool = False, sources: list | None = None):
    """How a game ends, compiled as the compiler does it or with the plain forms its lines stand for
    (a join of a name through _cat, options that are a range made into a list by _range, the length
    of a list written out or of a constant as a call of len): the
    players' n and the steps left, or the error and where. Unrecorded, random and heuristic seats
    pick in generated code; recorded, every seat's agent is asked (Game.choose). The generated code
    is added to `sources`, if given."""
    from pitwall.interpreter.compile_choose import ChooseGen
    from pitwall.interpreter.compile_flat import FlatGen
    from pitwall.interpreter.compile_fold import FoldGen

    with monkeypatch.context() as patch:
        patch.setenv("PITWALL_NO_CACHE", "1")  # the code made anew, as this test's compiler makes it
        if not lines:
            patch.setattr(FlatGen, "joined", lambda self, e, span: self.flat(e, span))
            patch.setattr(ChooseGen, "range_ends", lambda self, e, n, span: None)
            patch.setattr(FoldGen, "length", lambda self, items, e: f"len({items})")
        loaded = _built(tmp_path, body)
        if sources is not None:
            sources.append(loaded.compiled.source)
        game = Game(loaded, ["A", "B"], agents() if agents else [FirstLegal(), FirstLegal()], seed, budget=budget,
                    record=record, auto_agent=FirstLegal())
    try:
        game.run()
    except PitwallError as e:
        return "error", e.message, e.span.line, e.span.col
    return "done", game.budget[0], [p.n for p in game.participants]


def _join_ends(tmp_path, monkeypatch, body: str, budget: int, lines: bool):
    """_ends, checking that the joins were written in the form asked for: lines, or _cat calls."""
    sources = []
    ended = _ends(tmp_path, monkeypatch, body, budget, lines, sources=sources)
    assert ("> 1000000: _cat(l_gone, " in sources[0]) == lines and ("= _cat(l_gone, " in sources[0]) != lines
    return ended


def test_a_join_written_as_lines_charges_and_ends_as_the_checked_join(tmp_path, monkeypatch):
    done = _join_ends(tmp_path, monkeypatch, JOINS, 10**7, True)
    assert done[0] == "done" and done[2] == [12 * 4, 0]
    assert done == _join_ends(tmp_path, monkeypatch, JOINS, 10**7, False)
    spent = 10**7 - done[1]
    for budget in range(spent - 40, spent + 1, 3):  # out of steps at each join, at the same line
        assert _join_ends(tmp_path, monkeypatch, JOINS, budget, True) \
            == _join_ends(tmp_path, monkeypatch, JOINS, budget, False)


def test_a_join_written_as_lines_stops_at_the_limit_of_a_text(tmp_path, monkeypatch):
    body = JOINS.replace("repeat 12", "repeat 20")
    ended = _join_ends(tmp_path, monkeypatch, body, 10**7, True)
    line = (HEAD + body).splitlines().index("        t = t + t") + 1
    assert ended == ("error", "joining gives 131072 characters; at most 100000 are allowed", line, 9)
    assert ended == _join_ends(tmp_path, monkeypatch, body, 10**7, False)


def _rules_functions(code):
    """The code of each function generated code defines in _new_game, and what those define."""
    def inner(c):
        return [k for k in c.co_consts if isinstance(k, types.CodeType)]

    maker = next(c for c in inner(code) if c.co_name == "_new_game_maker")  # _new_game in it: compile.Gen.module
    new_game_code = next(c for c in inner(maker) if c.co_name == "_new_game")
    return inner(new_game_code)


@pytest.mark.parametrize("game", ["why_first", "street_illegal", "race_formula_90"])
def test_no_rules_function_of_a_shipped_game_keeps_a_closure_cell(game):
    # a lambda of an event's values or a prompt, a prefer's def: each takes the locals it reads as
    # defaults, so the rules function makes no cell at each call
    g = find_game(game)
    loaded = build(g.base_files(), [], g)
    celled = [(c.co_name, c.co_cellvars) for c in _rules_functions(loaded.compiled.code)
              if c.co_cellvars and c.co_name.startswith(("r_", "f_", "p"))]
    assert celled == []


def test_an_event_s_values_and_a_prefer_read_the_locals_as_they_are_when_made(tmp_path):
    body = ("event said(v: int, w: int) \"{v} {w}\"\n"
            "rule main() {\n    let a = 1\n    repeat 3 as i {\n        a = a * 10 + i\n        emit said(a, i)\n"
            "        choose x from small by players[0] prefer option * a\n        players[0].n += x\n    }\n"
            "    finish players\n}\n")
    loaded = _built(tmp_path, body)
    names = player_names(loaded, 1)
    game, _ = new_game(loaded, names, ["heuristic"], 1)
    game.run()
    told = [e[2] for e in game.log if e[0] == "e"]
    assert told == [(11, 1), (112, 2), (1123, 3)]
    assert game.participants[0].n == 6  # the higher option each time: a is positive


# 2**30 calls of functions that cannot call themselves: each pays for its callees where it calls them
CHAIN = "function f0(n: int) -> int = n + 1\n" + "".join(
    f"function f{k}(n: int) -> int = f{k - 1}(n) + f{k - 1}(n + 1) - f{k - 1}(n)\n" for k in range(1, 31))


@pytest.mark.parametrize(("body", "at"), [
    # a global's first value: _init pays for the calls in it
    ("global g0: int = f30(1)\nrule main() {\n    finish players\n}\n", "global g0: int = f30(1)"),
    # a modifier's value: the modified function pays for its modifiers' work on entry
    ("function h(n: int) -> int = n\nmodify h = result + f30(1)\n"
     "rule main() {\n    players[0].n = h(1)\n    finish players\n}\n", "function h(n: int) -> int = n"),
    # an event's values, told: side work, paid from the side budget as it runs
    ("event said(v: int) \"{v}\"\nrule main() {\n    emit said(f30(1))\n    finish players\n}\n",
     "    emit said(f30(1))"),
])
def test_calls_where_no_code_around_them_charges_are_paid_all_the_same(tmp_path, body, at):
    loaded = _built(tmp_path, CHAIN + body)
    names = player_names(loaded, 1)
    game, _ = new_game(loaded, names, ["first"], 1, budget=10**6)
    with pytest.raises(BudgetError) as e:
        game.run()
    assert e.value.span.line == _line(CHAIN + body, at)


def test_an_invariant_that_runs_out_from_outside_the_rules_says_where(tmp_path):
    body = "invariant ok = f30(1) > 0 \"fine\"\nrule main() {\n    finish players\n}\n"
    loaded = _built(tmp_path, CHAIN + body)
    game, _ = new_game(loaded, player_names(loaded, 1), ["first"], 1, budget=10**6)
    with pytest.raises(BudgetError) as e:
        game.broken_invariants()
    assert e.value.span.line == _line(CHAIN + body, "invariant ok = f30(1) > 0 \"fine\"")


def _every_shipped_program():
    from pitwall.interpreter.load import games

    for g in games():
        yield g.name, build(g.base_files(), [], g)
        for name, path in g.variant_files().items():
            yield f"{g.name} -v {name}", build(g.base_files(), [path], g)


def test_a_game_s_functions_spend_from_their_variable_and_load_code_from_the_load_s_view():
    # inside _new_game a `_budget` would be the module's global, the load's budget: a game's steps
    # charged there would not stop the game. Outside it, _B does not exist.
    for name, loaded in _every_shipped_program():
        source = loaded.compiled.source
        start, end = source.index("    def _new_game(_m):"), source.index("    return _new_game\n")
        assert "_budget" not in source[start:end], name
        assert not re.search(r"\b_B\b", source[:source.index("def _new_game_maker():")]), name
        assert "(_B := _B - " in source[start:end], name


def test_the_budget_s_view_is_one_item_of_the_game_s_variable(tmp_path):
    loaded, game = _game(tmp_path, "rule main() {\n    finish players\n}\n", budget=1234)
    assert game.budget[0] == 1234 and game.budget.cell.cell_contents == 1234
    game.budget[0] -= 34
    assert game.metered["_budget"].cell.cell_contents == 1200
    game.metered["_charge"](200)  # a helper spends from the same variable
    assert game.budget[0] == 1000
    with pytest.raises(IndexError):
        game.budget[1]
    with pytest.raises(IndexError):
        game.budget[-1] = 5


CHOICES = """rule main() {{
    repeat 6 as i {{
        choose k from range({lo}, {hi}) by players[i % 2] "a number" prefer 0 - (option - 2) * (option - 2)
        players[i % 2].n += k
    }}
    finish players
}}
"""


@pytest.mark.parametrize("lo, hi", [("0", "players[0].n % 7"), ("i - 3", "i"), ("1", "1"), ("5", "4")])
@pytest.mark.parametrize("agent", ["random", "heuristic", "first"])
def test_options_that_are_a_range_pick_and_charge_as_the_list_of_them(tmp_path, monkeypatch, lo, hi, agent):
    body = CHOICES.format(lo=lo, hi=hi)
    seats = lambda: [make_agent(agent, 11, seat) for seat in range(2)]  # noqa: E731
    for seed in range(4):
        ended = _ends(tmp_path, monkeypatch, body, 10**7, True, seats, seed)
        assert ended == _ends(tmp_path, monkeypatch, body, 10**7, False, seats, seed)
        # and as each agent picks when it is asked (a recording spends side steps, not the game's)
        assert ended == _ends(tmp_path, monkeypatch, body, 10**7, True, seats, seed, record=True)
    assert ended[0] == ("error" if hi == "4" else "done")  # range(5, 4) holds nothing to choose from
    source = _built(tmp_path, body).compiled.source
    assert "list(range(" in source and "_range(" in source  # the list for other seats; the limit's error


def test_a_range_of_options_too_long_stops_at_the_choice(tmp_path, monkeypatch):
    body = CHOICES.format(lo="0", hi="1000000")
    ended = _ends(tmp_path, monkeypatch, body, 10**8, True)
    line = (HEAD + body).splitlines().index(next(x for x in body.splitlines() if "choose" in x)) + 1
    assert ended[0] == "error" and ended[2] == line and "range(0, 1000000) holds 1000001 numbers" in ended[1]
    assert ended == _ends(tmp_path, monkeypatch, body, 10**8, False)


WRITTEN_OUT = """const SIDES = [4, 5, 6]
const SAME = SIDES
rule main() {
    for x in [1, 2, 3] {
        players[0].n += x * 100 + count(y for y in SIDES if y > x + 2) * 10 + sum(z for z in SAME if z > x + 3)
    }
    simultaneous p in [players[0], players[1]] {
        choose k[p] from [7, 8] by p "k"
    }
    players[1].n = k[players[0]] + k[players[1]]
    finish players
}
"""


def test_a_pass_over_a_list_written_out_is_paid_for_its_length_as_a_number(tmp_path, monkeypatch):
    sources = []
    done = _ends(tmp_path, monkeypatch, WRITTEN_OUT, 10**7, True, sources=sources)
    assert done[0] == "done" and done[2] == [100 + 30 + 11 + 200 + 20 + 6 + 300 + 10, 14]
    main = _function(sources[0], "r_main")
    # the for and the two aggregates over constants pay 3 passes, the simultaneous 2
    assert len(re.findall(r"_B - \(3 \* \d+\)\) < 0", main)) == 3
    assert len(re.findall(r"_B - \(2 \* \d+\)\) < 0", main)) == 1
    plain = []
    assert done == _ends(tmp_path, monkeypatch, WRITTEN_OUT, 10**7, False, sources=plain)
    assert len(re.findall(r"_B - \(len\(_t\d+\) \* \d+\)\) < 0", _function(plain[0], "r_main"))) == 4
    spent = 10**7 - done[1]
    for budget in range(spent - 400, spent + 1, 11):  # out of steps at each of main's charges, at the same line
        assert _ends(tmp_path, monkeypatch, WRITTEN_OUT, budget, True) \
            == _ends(tmp_path, monkeypatch, WRITTEN_OUT, budget, False)
