"""Run-time failures of the rules point at their source line: budget, empty piles, bad indexes."""

from __future__ import annotations

import pytest
from pitwall.interpreter import runtime
from pitwall.interpreter.agents import FirstLegal, Heuristic, Scripted
from pitwall.interpreter.errors import BudgetError, CheckErrors, RecordError, RuleRuntimeError
from pitwall.interpreter.load import build
from pitwall.interpreter.runtime import Game, field_of

HEAD = """
game g "G" { players P 1 to 3  play main }
card C "{v}" { v: int }
participant P { hand: pile of C  n: int = 0 }
deck cards of C { (1) (2) (3) }
global pile: pile of C = cards
"""


def run(tmp_path, body, agents=None, budget=10_000):
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    loaded = build([path], [])
    game = Game(loaded, ["A"], agents or [FirstLegal()], 1, budget=budget, auto_agent=FirstLegal())
    return game.run(), path


def test_runaway_loop_stops_with_budget_error_at_its_line(tmp_path):
    body = "rule main() {\n    let x = 0\n    while x >= 0 {\n        x += 1\n    }\n}\n"
    with pytest.raises(BudgetError) as e:
        run(tmp_path, body)
    assert e.value.span.line == HEAD.count("\n") + 3
    assert "steps in one game" in e.value.message


def test_endless_recursion_is_a_budget_error(tmp_path):
    with pytest.raises(BudgetError) as e:
        run(tmp_path, "rule main() { again() }\nrule again() { main() }\n")
    assert e.value.span is not None


def test_drawing_too_many_cards_names_the_draw(tmp_path):
    body = "rule main() {\n    draw 5 from pile to players[0].hand\n    finish players\n}\n"
    with pytest.raises(RuleRuntimeError) as e:
        run(tmp_path, body)
    assert "cannot draw 5" in e.value.message
    assert e.value.span.line == HEAD.count("\n") + 2


def test_index_out_of_range_points_at_the_expression(tmp_path):
    body = "rule main() {\n    let x = [1, 2]\n    players[0].n = x[5]\n    finish players\n}\n"
    with pytest.raises(RuleRuntimeError) as e:
        run(tmp_path, body)
    assert "index 5 is out of range: the list holds 2 item(s), at 0 to 1" in e.value.message
    assert e.value.span.line == HEAD.count("\n") + 3


def test_game_must_finish(tmp_path):
    with pytest.raises(RuleRuntimeError, match="without 'finish'"):
        run(tmp_path, "rule main() { players[0].n = 1 }\n")


def test_choice_with_no_option_is_an_error(tmp_path):
    body = "rule main() {\n    choose c from players[0].hand by players[0]\n    finish players\n}\n"
    with pytest.raises(RuleRuntimeError, match="no legal option"):
        run(tmp_path, body)


def test_refill_reshuffles_the_discards(tmp_path):
    body = """global spent: pile of C
global stock: pile of C refill from spent
rule main() {
    empty pile into spent
    draw 2 from stock to players[0].hand
    players[0].n = len(players[0].hand) + len(spent) + len(stock)
    finish players
}
"""
    winners, _ = run(tmp_path, body)
    assert winners[0].n == 3


def test_scripted_agent_rejects_an_illegal_option(tmp_path):
    body = "rule main() {\n    draw 3 from pile to players[0].hand\n    choose c from players[0].hand by players[0]\n" \
           "    finish players\n}\n"
    with pytest.raises(RecordError, match="'9' is not a legal"):
        run(tmp_path, body, [Scripted([("A", "c", "9", None, "here")], "x")])


def test_modifiers_change_a_function_while_their_condition_holds(tmp_path):
    body = """function cost(p: P) -> int = 3
modify cost when p.n > 0 = result - 1
modify cost when p.n > 5 = result * 10
rule main() {
    let before = cost(players[0])
    players[0].n = 7
    players[0].n = before * 100 + cost(players[0])
    finish players
}
"""
    winners, _ = run(tmp_path, body)
    assert winners[0].n == 320


def test_simultaneous_choices_are_made_against_the_same_state(tmp_path):
    body = """rule main() {
    draw 3 from pile to players[0].hand
    simultaneous p in players {
        choose a[p] from p.hand prefer option.v
        choose b[p] from p.hand prefer 0 - option.v
    }
    players[0].n = a[players[0]].v * 10 + b[players[0]].v
    finish players
}
"""
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    from pitwall.interpreter.agents import Heuristic

    game = Game(build([path], []), ["A"], [Heuristic()], 1, auto_agent=FirstLegal())
    assert game.run()[0].n == 31
    assert [e[6] for e in game.log if e[0] == "d"] == [True, True]


def test_enum_members_read_as_their_texts(tmp_path):
    body = """enum Side { left "to the left", right }
participant Q { side: Side }
event faces(side: Side, all: list of Side) "faces {side} of {all}"
rule main() {
    let q = new Q("q")
    emit faces(q.side, [s for s in Side])
    q.side = Side.right
    if q.side == Side.right {
        emit faces(q.side, [])
    }
    finish players
}
"""
    told = []
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    loaded = build([path], [])
    Game(loaded, ["A"], [FirstLegal()], 1, listener=told.append, auto_agent=FirstLegal()).run()
    from pitwall.interpreter.record import entry_line

    texts = [entry_line(loaded, e)["text"] for e in told]
    assert texts == ["faces to the left of to the left, right", "faces right of nothing"]


def test_a_constant_that_fails_at_load_points_at_its_line(tmp_path):
    path = tmp_path / "g.pw"
    path.write_text(HEAD + "const SHARE = 10 / 0\nrule main() { finish players }\n")
    with pytest.raises(RuleRuntimeError) as e:
        build([path], [])
    assert e.value.message == "while loading the rules: division by zero"
    assert e.value.span.line == HEAD.count("\n") + 1


def test_a_rule_gives_its_result_to_let_and_assignment(tmp_path):
    # The rule acts (draws a card) and answers: its result lands in a local and in a field.
    body = """rule take(p: P, k: int) -> int {
    draw k from pile to p.hand
    if len(p.hand) > 2 {
        return 100
    }
    return sum(c.v for c in p.hand)
}
rule main() {
    shuffle pile
    let first = take(players[0], 1)
    players[0].n = take(players[0], 2)
    players[0].n = players[0].n * 1000 + first
    finish players
}
"""
    winners, _ = run(tmp_path, body)
    first = winners[0].n % 1000
    assert winners[0].n // 1000 == 100 and first in (1, 2, 3)


@pytest.mark.parametrize("statement, message", [
    ("players[0].n = index_of([1, 2], 3)", "index_of: the value is not in the list or pile"),
    ("players[0].n = first(c.v for c in players[0].hand) + 1", "a value is 'none' here"),
    ("players[0].n = 5 % players[0].n", "division by zero"),
])
def test_runtime_failures_say_what_went_wrong_in_the_rules_words(tmp_path, statement, message):
    with pytest.raises(RuleRuntimeError) as e:
        run(tmp_path, f"rule main() {{\n    {statement}\n    finish players\n}}\n")
    assert message in e.value.message
    assert e.value.span.line == HEAD.count("\n") + 2


def test_roll_needs_a_side_and_new_names_must_be_unique(tmp_path):
    with pytest.raises(RuleRuntimeError, match=r"roll\(0\): a die needs at least one side"):
        run(tmp_path, "rule main() {\n    players[0].n = roll(players[0].n)\n    finish players\n}\n")
    with pytest.raises(RuleRuntimeError, match="there is a participant named 'A' already") as e:
        run(tmp_path, 'rule main() {\n    let twin = new P("A")\n    finish players\n}\n')
    assert e.value.span.line == HEAD.count("\n") + 2


def test_a_winner_named_twice_wins_once_and_an_aliased_pile_keeps_its_cards(tmp_path):
    body = """rule main() {
    let same = pile
    empty same into pile
    players[0].n = len(pile)
    finish [players[0], players[0]]
}
"""
    winners, _ = run(tmp_path, body)
    assert len(winners) == 1 and winners[0].n == 3


def test_templates_tell_fields_in_words_whichever_way_they_are_reached(tmp_path):
    # A parameter, a participant's field and a card's own display template all read the same:
    # collections as lists of words, yes/no for conditions, none for nothing.
    path = tmp_path / "g.pw"
    path.write_text("""game g "G" { players P 1 to 1  play main }
card C "{v} {flag} {others}" { v: int  flag: bool = true  others: list of int = [2, 3] }
participant P { hand: pile of C  ok: bool = true  rival: P }
deck cards of C { (1) }
global pile: pile of C = cards
event shows(p: P, b: bool) "{p}: {p.hand}, {p.ok}, {p.rival}, {b}."
rule main() {
    draw 1 from pile to players[0].hand
    emit shows(players[0], false)
    finish players
}
""")
    game = Game(build([path], []), ["A"], [FirstLegal()], 1, auto_agent=FirstLegal())
    game.run()
    assert [e[3] for e in game.log if e[0] == "e"] == ["A: 1 yes 2, 3, yes, none, no."]


def test_a_huge_range_is_refused_at_its_line_and_deep_recursion_is_a_budget_error_in_scenarios_too(tmp_path):
    with pytest.raises(RuleRuntimeError, match=r"range\(1, 50000000\) holds 50000000 numbers") as e:
        run(tmp_path, "rule main() {\n    for i in range(1, 50000000) {\n        players[0].n += 1\n    }\n}\n")
    assert e.value.span.line == HEAD.count("\n") + 2
    path = tmp_path / "g.pw"
    path.write_text(HEAD + "rule main() { again() }\nrule again() { main() }\n")
    game = Game(build([path], []), ["A"], [FirstLegal()], 1, auto_agent=FirstLegal())
    game.start()
    with pytest.raises(BudgetError, match="without end"):
        game.run_rule("main", [])


def build_variant(tmp_path, base: str, variant: str):
    rules, var = tmp_path / "g.pw", tmp_path / "v.pw"
    rules.write_text(HEAD + base)
    var.write_text('variant v "V"\n' + variant)
    return build([rules], [var])


def test_an_extension_runs_even_when_the_rule_stops_early(tmp_path):
    base = ("rule main() {\n    step()\n    finish players\n}\n"
            "rule step() {\n    players[0].n += 1\n    if players[0].n > 0 { stop }\n    players[0].n += 100\n}\n")
    ext = ("extend rule step() {\n    players[0].n += 10\n    stop\n}\n"
           "extend rule step() {\n    players[0].n += 1000\n}\n")
    game = Game(build_variant(tmp_path, base, ext), ["A"], [FirstLegal()], 1, auto_agent=FirstLegal())
    game.run()
    assert game.participants[0].n == 1011  # the body stopped; each extension ran, the first to its stop


def test_an_extension_sees_the_parameters_but_not_the_bodys_locals(tmp_path):
    base = "rule main() {\n    step(2)\n    finish players\n}\nrule step(k: int) {\n    let secret = k\n}\n"
    ext = "extend rule step(k: int) {\n    players[0].n = k + secret\n}\n"
    with pytest.raises(CheckErrors) as e:
        build_variant(tmp_path, base, ext)
    assert "unknown name 'secret'" in str(e.value)
    assert e.value.errors[0].span.file.endswith("v.pw") and e.value.errors[0].span.line == 3


def test_steps_weigh_the_work_of_a_pass(tmp_path):
    """A long loop body costs more per pass than a short one, so a long body cannot outrun the budget."""
    short = "rule main() {\n    for i in range(1, 100) { players[0].n = i }\n    finish players\n}\n"
    long = ("rule main() {\n    for i in range(1, 100) {\n" + "        players[0].n = i\n" * 20
            + "    }\n    finish players\n}\n")
    spent = []
    for body in (short, long):
        path = tmp_path / "g.pw"
        path.write_text(HEAD + body)
        game = Game(build([path], []), ["A"], [FirstLegal()], 1, budget=10**6, auto_agent=FirstLegal())
        game.run()
        spent.append(game.budget_total - game.budget[0])
    assert spent[1] - spent[0] >= 99 * 19 * 3  # 19 more statements of 3 nodes each, in each of 99 passes


@pytest.mark.parametrize(("statement", "message"), [
    ("let x = 3037000500\n    players[0].n = x * x", "is beyond the range of whole numbers"),
    ("let x = 9223372036854775807\n    x += 1", "9223372036854775808 is beyond the range"),
    ("let s = \"ab\"\n    repeat 30 { s = s + s }", "joining gives 131072 characters; at most 100000"),
    ("let xs = [1]\n    repeat 30 { xs = xs + xs }", "joining gives 1048576 items; at most 1000000"),
    ("let xs = range(1, 2000000)", "range(1, 2000000) holds 2000000 numbers"),
])
def test_values_stay_within_their_limits(tmp_path, statement, message):
    body = f"rule main() {{\n    {statement}\n    finish players\n}}\n"
    with pytest.raises(RuleRuntimeError) as e:
        run(tmp_path, body, budget=10**8)
    assert message in e.value.message
    assert e.value.span.line in (HEAD.count("\n") + 2, HEAD.count("\n") + 3)


def test_exponential_recursion_meets_the_budget_in_seconds(tmp_path):
    body = ("function f(n: int) -> int = if n == 0 then 1 else f(n - 1) + f(n - 1)\n"
            "rule main() {\n    players[0].n = f(60)\n    finish players\n}\n")
    with pytest.raises(BudgetError) as e:
        run(tmp_path, body, budget=10**6)
    assert e.value.span.line == HEAD.count("\n") + 1


def test_agents_and_listeners_do_not_spend_the_games_budget(tmp_path):
    """The same game spends the same steps whether it is told (recorded) or not."""
    body = ('event e(xs: list of int) "{xs}"\n'
            "rule main() {\n    repeat 3 {\n        emit e([i * 2 for i in range(1, 50)])\n    }\n"
            "    choose k from [1, 2, 3] by players[0] prefer 0 - sum(x * option for x in range(1, 100))\n"
            "    finish players\n}\n")
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    loaded = build([path], [])
    spent = []
    # told and asked a heuristic (which works out `prefer` for each option), or neither
    for record, agent in ((True, Heuristic()), (False, FirstLegal())):
        game = Game(loaded, ["A"], [agent], 1, budget=10**6, record=record, auto_agent=FirstLegal())
        game.run()
        spent.append(game.budget_total - game.budget[0])
    assert spent[0] == spent[1]


def test_a_runtime_error_names_the_variant_that_changed_what_the_line_reads(tmp_path):
    base = ("const HAND = 2\nfunction hand_size() -> int = HAND\n"
            "rule main() {\n    draw hand_size() from pile to players[0].hand\n    finish players\n}\n")
    for variant, blamed in (("replace const HAND = 5\n", "this line reads HAND, replaced by variant 'v'"),
                            ("modify hand_size = result + 3\n", "this line reads hand_size, modified at")):
        game = Game(build_variant(tmp_path, base, variant), ["A"], [FirstLegal()], 1, auto_agent=FirstLegal())
        with pytest.raises(RuleRuntimeError) as e:
            game.run()
        assert "cannot draw 5 card(s)" in e.value.message
        assert e.value.span.line == HEAD.count("\n") + 4
        assert "variants in force: v" in e.value.hint and blamed in e.value.hint


def test_a_failing_prefer_score_is_the_rules_failure_and_a_failing_listener_is_not(tmp_path):
    body = "rule main() {\n    choose k from [0, 1, 2] by players[0] prefer 10 / option\n    finish players\n}\n"
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    game = Game(build([path], []), ["A"], [Heuristic()], 1, auto_agent=FirstLegal())
    with pytest.raises(RuleRuntimeError) as e:
        game.run()
    assert e.value.message == "division by zero" and e.value.span.line == HEAD.count("\n") + 2

    def deaf(entry):
        raise AssertionError("the listener's own check")

    listened = Game(build([path], []), ["A"], [FirstLegal()], 1, auto_agent=FirstLegal(), listener=deaf)
    with pytest.raises(AssertionError, match="the listener's own check"):
        listened.run()


def test_python_reads_fields_and_globals_by_their_rules_names_whatever_the_names(tmp_path):
    """Python code reads `p.points` and `state.x` through properties added per declared name (not a
    __getattr__, which would keep CPython from specializing the generated code's reads). A name
    equal to another's prefixed attribute (a global g_x beside x, a field v_v beside v) or to a
    name of Python's classes (mro) must neither break a game nor read the wrong value."""
    rules = """game g "G" { players P 1 to 1  play main }
card K "{v}" { v: int  v_v: int  mro: int }
participant P { n: int = 0  mro: int = 5  v_n: int = 6 }
deck ks of K { (1, 2, 3) }
global x: int = 1
global g_x: int = 2
global mro: int = 4
rule main() {
    x = x + 10
    g_x = g_x + 20
    players[0].n = x + g_x + mro
    finish players
}
"""
    path = tmp_path / "g.pw"
    path.write_text(rules)
    loaded = build([path], [])
    game = Game(loaded, ["A"], [FirstLegal()], 1, auto_agent=FirstLegal())
    assert [w.name for w in game.run()] == ["A"]
    state, p = game.state, game.participants[0]
    # g_x is the stored attribute of global x: Python reads global g_x by its stored name only
    assert (state.x, state.mro, state.g_x, vars(state)["g_g_x"]) == (11, 4, 11, 22)
    # likewise v_n is the slot of field n and v_v that of v: fields v_n and v_v read by field_of
    assert (p.n, p.mro, p.v_n, field_of(p, "v_n")) == (37, 5, 37, 6)
    card = loaded.namespace["D_ks"][0]
    assert (card.v, card.mro, card.v_v, field_of(card, "v_v")) == (1, 3, 1, 2)


def _game(tmp_path, body, budget):
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    return Game(build([path], []), ["A"], [FirstLegal()], 1, budget=budget, auto_agent=FirstLegal())


def test_a_repeat_whose_passes_all_run_pays_for_them_before_the_first(tmp_path):
    body = "rule main() {\n    repeat 100000000 {\n        players[0].n += 1\n    }\n    finish players\n}\n"
    game = _game(tmp_path, body, 10**6)
    with pytest.raises(BudgetError) as e:
        game.run()
    assert e.value.span.line == HEAD.count("\n") + 2
    assert game.participants[0].n == 0  # stopped before its first pass, not a million passes later


@pytest.mark.parametrize("body", [
    # a search that stops its rule: it pays only for the passes it makes
    "rule main() {\n    find()\n    finish players\n}\n"
    "rule find() {\n    repeat 100000000 {\n        players[0].n += 1\n        if players[0].n == 5 { stop }\n"
    "    }\n}\n",
    # a round that ends the game: the same
    "rule main() {\n    repeat 100000000 {\n        turn()\n    }\n}\n"
    "rule turn() {\n    players[0].n += 1\n    if players[0].n == 5 { finish players }\n}\n",
])
def test_a_repeat_that_may_end_early_pays_pass_by_pass(tmp_path, body):
    game = _game(tmp_path, body, 10**6)
    game.run()
    assert game.participants[0].n == 5


@pytest.mark.parametrize(("last", "kept"), [
    ("players[0].n -= 4294967295", -(2**63 - 1)),  # the least whole number: beyond a quick check, in range
    ("players[0].n -= 4294967296", None),
])
def test_numbers_past_the_quick_range_check_are_checked_exactly(tmp_path, last, kept):
    body = ("rule main() {\n    let x = 1073741824\n    players[0].n = x * 4\n"
            f"    players[0].n = -players[0].n * 2147483647\n    {last}\n    finish players\n}}\n")
    game = _game(tmp_path, body, 10**6)
    if kept is None:
        with pytest.raises(RuleRuntimeError, match="beyond the range of whole numbers"):
            game.run()
    else:
        game.run()
        assert game.participants[0].n == kept


def test_a_wide_while_condition_is_paid_at_every_test(tmp_path):
    # a condition of thousands of nodes, retested each pass: before it was paid once, a loop ran
    # for hours on a budget that should stop it in a moment
    wide = ", ".join(["players[0].n"] * 5000)
    body = (f"rule main() {{\n    while len([{wide}]) > 0 {{\n        players[0].n += 1\n    }}\n"
            "    finish players\n}\n")
    game = _game(tmp_path, body, 10**5)
    with pytest.raises(BudgetError) as e:
        game.run()
    assert e.value.span.line == HEAD.count("\n") + 2
    assert game.participants[0].n < 20  # a pass pays for its test: 5,000 nodes of 100,000 steps


@pytest.mark.parametrize("quick", [True, False])
def test_a_wide_prefer_is_paid_for_every_option_it_scores(tmp_path, monkeypatch, quick):
    # the scores are side work (Game.spent_apart): before, nothing paid for a prefer's own nodes
    monkeypatch.setattr(runtime, "QUICK_SEATS", quick)
    wide = ", ".join(["option"] * 2000)
    body = (f"rule main() {{\n    repeat 50 {{\n        choose o from range(1, 100) by players[0]\n"
            f"            prefer len([{wide}])\n        players[0].n += 1\n    }}\n    finish players\n}}\n")
    path = tmp_path / "g.pw"
    path.write_text(HEAD + body)
    game = Game(build([path], []), ["A"], [Heuristic(7, 0)], 1, budget=10**6, auto_agent=FirstLegal())
    with pytest.raises(BudgetError) as e:
        game.run()
    # 99 scores of some 2,000 steps each decision: the side budget of 1,000,000 runs out in the fifth
    assert "agents, views and narration" in e.value.message and game.participants[0].n == 4


LONG_DEFAULT = """game g "G" { players P 1 to 3  play main }
const BIG = range(1, 200000)
participant P { xs: list of int = BIG  n: int = 0 }
rule main() {
    repeat MAKE as i {
        let q = new P(text(i))
        players[0].n += len(q.xs)
    }
    finish players
}
"""


def test_a_participant_s_first_values_are_paid_by_its_game_not_the_load(tmp_path):
    # each player copies 200,000 numbers: paid from the load's budget (10,000,000), the 26th game
    # of one process ran it out and stopped with an OutOfSteps of no line
    path = tmp_path / "g.pw"
    path.write_text(LONG_DEFAULT.replace("MAKE", "0"))
    loaded = build([path], [])
    spent = []
    for seed in range(30):
        game = Game(loaded, ["A", "B"], [FirstLegal(), FirstLegal()], seed, budget=10**6, auto_agent=FirstLegal())
        game.run()
        spent.append(game.budget_total - game.budget[0])
    assert spent[0] >= 2 * 199999 and len(set(spent)) == 1  # the copies, each game alike
    assert loaded.namespace["_budget"][0] > 10**6  # the load's own budget, left as loading left it


def test_participants_made_with_long_first_values_run_the_game_s_budget_out_at_a_line(tmp_path):
    path = tmp_path / "g.pw"
    text = LONG_DEFAULT.replace("MAKE", "50")
    path.write_text(text)
    loaded = build([path], [])
    game = Game(loaded, ["A"], [FirstLegal()], 1, budget=10**6, auto_agent=FirstLegal())
    with pytest.raises(BudgetError) as e:
        game.run()
    assert "steps in one game" in e.value.message
    assert e.value.span.line == text.splitlines().index("participant P { xs: list of int = BIG  n: int = 0 }") + 1
    with pytest.raises(BudgetError) as e:  # the players themselves, on too small a budget
        Game(loaded, ["A", "B"], [FirstLegal(), FirstLegal()], 1, budget=300000, auto_agent=FirstLegal())
    assert e.value.span.line == text.splitlines().index("participant P { xs: list of int = BIG  n: int = 0 }") + 1
