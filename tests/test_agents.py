"""The agents: the heuristic breaks ties from a generator of its own (never the rules'), replays
still check its picks, and the human agent shows options in the game's words and the view's
changes since the player's last decision."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from clihelp import add_game, invoke
from hypothesis import given, settings
from hypothesis import strategies as st
from pitwall.interpreter.agents import FirstLegal, Heuristic, plural
from pitwall.interpreter.engine import new_game, player_names, seat_agents
from pitwall.interpreter.load import build, load
from pitwall.interpreter.record import record_lines
from pitwall.interpreter.runtime import Game, describe, seeded
from pitwall.interpreter.simulate import simulate

# ---------------------------------------------------------------- the heuristic's ties
TIES = """game ties "Ties" { players P 2 to 2  play main }
participant P { n: int = 0 }
event took(p: P, k: int, d: int) "{p} takes {k} and rolls {d}."
rule main() {
    repeat 20 {
        for p in players {
            choose k from [1, 2, 3] by p "how many" prefer 0
            let d = roll(6)
            p.n += k
            emit took(p, k, d)
        }
    }
    finish players
}
"""


def ties_game(tmp_path, agents, seed):
    path = tmp_path / "ties.pw"
    path.write_text(TIES)
    return Game(build([path], []), ["A", "B"], agents, seed, auto_agent=FirstLegal())


def a_game(seed=1):
    loaded = load("why_first", ())
    return Game(loaded, player_names(loaded, 3), [FirstLegal()] * 3, seed, auto_agent=FirstLegal())


def test_ties_go_to_every_tied_option_from_the_agents_own_generator():
    game = a_game()
    by = game.participants[0]
    rules_rng = game.rng.getstate()
    picks = Counter(Heuristic(seed, 0).pick(game, by, "x", ["a", "b"], None, lambda o: 0) for seed in range(400))
    assert picks.keys() == {0, 1} and 150 < picks[0] < 250, picks  # about half each
    assert game.rng.getstate() == rules_rng  # the rules' generator is never drawn from


def test_a_strict_best_is_picked_and_draws_nothing():
    game = a_game()
    agent = Heuristic(3, 1)
    scores = {"a": 1, "b": 5, "c": 5, "d": 9}
    for _ in range(20):
        assert agent.pick(game, game.participants[1], "x", list(scores), None, scores.get) == 3
    assert agent._rnd is None  # no tie, no draw: the generator is not even made
    assert agent.pick(game, game.participants[1], "x", ["a", "b"], None, None) == 0  # no prefer: the first
    assert agent.pick(game, game.participants[1], "x", list(scores)[:3], None, scores.get) in (1, 2)


def test_the_tie_generator_is_seeded_by_the_game_seed_and_the_seat():
    game = a_game()
    by = game.participants[0]

    def stream(seed, seat):
        agent = Heuristic(seed, seat)
        return [agent.pick(game, by, "x", [1, 2, 3, 4], None, lambda o: 0) for _ in range(40)]

    assert stream(5, 0) == stream(5, 0)
    assert len({tuple(stream(5, seat)) for seat in (-1, 0, 1, 2)}) == 4  # each seat its own stream
    assert stream(5, 0) != stream(6, 0)
    seats, auto = seat_agents(["heuristic", "random", "heuristic"], 5)
    assert isinstance(auto, Heuristic) and auto._ties == "heuristic 5 -1"  # the rules' own participants
    assert [getattr(a, "_ties", None) for a in seats] == ["heuristic 5 0", None, "heuristic 5 2"]


def test_a_whole_game_with_ties_leaves_the_rules_generator_alone(tmp_path):
    def played(agents, seed):
        game = ties_game(tmp_path, agents, seed)
        game.run()
        # (who, how many taken, the die rolled) of each `took` event
        return [(str(e[2][0]), e[2][1], e[2][2]) for e in game.log if e[0] == "e" and len(e[2]) == 3]

    for seed in (1, 2, 3):
        tied = played([Heuristic(seed, 0), Heuristic(seed, 1)], seed)
        first = played([FirstLegal(), FirstLegal()], seed)
        assert [d for _, _, d in tied] == [d for _, _, d in first]  # the same dice whatever the agents pick
        assert {k for _, k, _ in tied} == {1, 2, 3}  # and the ties go every way
        assert tied == played([Heuristic(seed, 0), Heuristic(seed, 1)], seed)  # the same seed, the same game


def test_serial_and_parallel_simulations_agree_with_heuristic_ties():
    names = player_names(load("why_first", ()), 4)
    serial = simulate("why_first", (), names, ["heuristic"] * 4, 24, 7)
    assert simulate("why_first", (), names, ["heuristic"] * 4, 24, 7, jobs=2) == serial


def test_the_first_player_no_longer_gets_most_of_the_cards():
    # one seeded game of Why First? with 4 heuristic players: ties sent 62 of the 100 cards to Anne
    loaded = load("why_first", ())
    game, _ = new_game(loaded, player_names(loaded, 4), ["heuristic"] * 4, 7)
    game.run()
    targets = Counter(e[5] for e in game.log if e[0] == "d" and e[2] == "target")
    assert sum(targets.values()) == 100 and max(targets.values()) < 40, targets


# ---------------------------------------------------------------- replays check tie picks
def tied_decisions(loaded, names, agents, seed):
    """A game played and recorded, with the numbers (in the record) of decisions that were ties."""
    game, header = new_game(loaded, names, agents, seed)
    ties: list[tuple[int, list[int], list[str]]] = []  # (decision number, tied options, words)
    for agent in game.agents + [game.auto_agent]:
        if isinstance(agent, Heuristic):
            def pick(g, by, decision, options, prompt, prefer, _pick=agent.pick):
                scores = [prefer(o) for o in options] if prefer else [0] * len(options)
                tied = [i for i, s in enumerate(scores) if s == max(scores)]
                if len({describe(options[i]) for i in tied}) > 1:  # tied options that read differently
                    ties.append((sum(1 for e in g.log if e[0] == "d"), tied, [describe(o) for o in options]))
                return _pick(g, by, decision, options, prompt, prefer)
            agent.pick = pick
    game.run()
    return record_lines(game, header), ties


@pytest.mark.parametrize(("game", "variants", "players", "seed"), [
    ("why_first", (), 4, 7), ("why_first", (), 2, 1), ("street_illegal", (), 3, 1),
    ("street_illegal", ("tactical_starting_positions",), 4, 1),
])
def test_a_record_of_heuristic_ties_replays_and_an_edited_tie_pick_is_refused(tmp_path, game, variants, players,
                                                                              seed):
    loaded = load(game, variants)
    names = player_names(loaded, players)
    lines, ties = tied_decisions(loaded, names, ["heuristic"] * players, seed)
    assert ties, "no tie in this game: pick another"
    rec = tmp_path / "game.jsonl"
    rec.write_text("\n".join(lines) + "\n")
    r = invoke("replay", rec)
    assert r.exit_code == 0, r.output

    # the first tie picked otherwise (another option of the same score): the replay must say so
    decisions = [i for i, line in enumerate(lines) if '"decision"' in line]
    number, tied, words = ties[0]
    at = decisions[number]
    d = json.loads(lines[at])
    d["pick"] = next(i for i in tied if words[i] != words[d["pick"]])
    d["option"] = words[d["pick"]]
    lines[at] = json.dumps(d, separators=(",", ":"))
    rec.write_text("\n".join(lines) + "\n")
    r = invoke("replay", rec)
    assert r.exit_code == 2 and "picks option" in r.output, r.output


def test_resume_goes_on_with_the_same_tie_picks(tmp_path):
    rec = tmp_path / "game.jsonl"
    assert invoke("play", "why-first", "-p", 4, "--seed", 7, "--record", rec).exit_code == 0
    whole = rec.read_text().splitlines()
    cut = next(i for i, line in enumerate(whole) if '"stage":3' in line)
    rec.write_text("\n".join(whole[:cut]) + "\n")
    r = invoke("resume", rec)
    assert r.exit_code == 0, r.output
    assert rec.read_text().splitlines() == whole  # as if never stopped


# ---------------------------------------------------------------- the human agent
def test_plural():
    assert [plural(n, "card") for n in (0, 1, 2, -1)] == ["0 cards", "1 card", "2 cards", "-1 card"]
    assert plural(2, "chip") == "2 chips" and plural(3, "penny", "pennies") == "3 pennies"


VIEWED = """game viewed "Viewed" { players P 2 to 2  play main  view seen }
card C "{v}" { v: int  colour: text }
participant P { n: int = 0  hand: pile of C secret }
deck cards of C { (1, "red") (1, "blue") (2, "red") (3, "red") (5, "red") (6, "red") }
global pile: pile of C = cards
function seen(me: P) -> list of text =
    ["Round of " + me.name + ".", "You hold " + plural(me.n, "point") + ".", "The rules never change.",
     "Nor does this."]
rule main() {
    for p in players {
        draw 1 from pile to p.hand
    }
    repeat 2 as r {
        for p in players {
            choose k from [1, 2, 3] by p "take more?" prefer option
            p.n += k
        }
    }
    choose c from [c for c in pile] by players[0] "pick a card"
    finish players
}
"""


def test_a_human_sees_the_whole_view_once_then_what_changed(tmp_path, monkeypatch):
    add_game(tmp_path, monkeypatch, "viewed", VIEWED)
    r = invoke("play", "viewed", "--agent", "1=human", "--agent", "2=first", input="3\n2\n1\n")
    assert r.exit_code == 0, r.output
    out = r.output
    assert out.count("The rules never change.") == 1  # shown whole the first time only
    assert "Round of Player 1.\nYou hold 0 points.\nThe rules never change.\nNor does this.\n" in out
    assert "Since your last decision (1 line changed):\nYou hold 3 points.\n" \
           "  (3 other lines as before; v shows the whole table)" in out
    # a prompt that is a question gets no colon after its question mark
    assert "Player 1, take more?\n  1, 2, 3\n" in out and "take more?:" not in out


def test_v_shows_the_whole_view_and_asks_again(tmp_path, monkeypatch):
    add_game(tmp_path, monkeypatch, "viewed", VIEWED)
    r = invoke("play", "viewed", "--agent", "1=human", "--agent", "2=first", input="3\nv\n2\n1\n")
    assert r.exit_code == 0, r.output
    assert r.output.count("The rules never change.") == 2
    after_v = r.output.split("v to see the table, q to stop]> ")[2]
    assert after_v.startswith("\nRound of Player 1.\nYou hold 3 points.\nThe rules never change.\nNor does this.\n"
                              "Player 1, take more?\n  1, 2, 3\n")


def test_each_human_seat_keeps_its_own_view(tmp_path, monkeypatch):
    add_game(tmp_path, monkeypatch, "viewed", VIEWED)
    r = invoke("play", "viewed", "--agent", "1=human", "--agent", "2=human", input="1\n1\n1\n1\n1\n")
    assert r.exit_code == 0, r.output
    assert r.output.count("Round of Player 1.") == 1 and r.output.count("Round of Player 2.") == 1
    assert r.output.count("Since your last decision (1 line changed):\nYou hold 1 point.") == 2


def test_options_are_shown_in_the_games_words_and_cards_that_read_alike_told_apart(tmp_path, monkeypatch):
    add_game(tmp_path, monkeypatch, "viewed", VIEWED)
    r = invoke("play", "viewed", "--agent", "1=human", "--agent", "2=first", input="1\n1\n3\n")
    assert r.exit_code == 0, r.output
    # the display template shows only v: the two 1s differ in colour, which is added; 2 and 3 are alone
    assert "Player 1, pick a card:\n  1. 1 (colour red)\n  2. 1 (colour blue)\n  3. 2\n  4. 3\n" in r.output


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=-(2**80), max_value=2**80))
def test_a_seeded_generator_is_random_random_of_that_seed(n):
    made, plain = seeded(n), random.Random(n)
    assert made.getstate() == plain.getstate()
    assert [made.random() for _ in range(3)] == [plain.random() for _ in range(3)]
    assert made.gauss(0, 1) == plain.gauss(0, 1) and made.randrange(10**9) == plain.randrange(10**9)
