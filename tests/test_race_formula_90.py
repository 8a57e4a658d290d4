"""Race! Formula 90 (Basic game): properties of many random and heuristic races on both tracks and
every player count, the heuristic agent against random players and the SLOW robots, and the
command line.

A listener checks after every single event (as in test_properties.py and test_street_illegal.py):
  * cards: the 184 Race Cards are conserved, each in exactly one place: the deck, the discards, the
    globals on_table and drawn of movement.pw, every car's hand, frozen cards and Target Check
    (`played` only names cards already in the discards: it is no place of its own); a player in
    the race holds exactly one Target Check once qualifying is over; under the Track Cards module
    the track's Track Cards too, the Track deck and its discard pile being two more places;
  * table: `on_table` and `drawn` are empty between turns and at every event that ends a car's
    move (a card lives there only while a move, a check or a LUCKY draw is under way);
  * chips: tyre chips stay within 0..the Car Chart's chips (0 without a chart, and for robots);
  * damage: a car in the race holds no more discs than its chart's slots, robots and cars out of
    the race hold none, and the 30 damage discs are conserved (the bag plus the cars);
  * robots: robots never hold Race Cards (hand, frozen, target, played) nor damage;
  * turns: every car takes exactly one individual turn each game turn (counted from the events:
    robot_moves, plays_cards, skips, reenters, or its elimination while off-track when it has not
    yet taken its turn; under the Off-track and Safety Car module also a turn lost as the Safety Car
    enters, a turn behind it, a pit stop behind it, and the frozen finish behind it at the last
    turn), cars out of the race at most one, and every car in the race has `moved` set when the
    next turn begins;
    a car pits at most once a turn; the turns run 1..LAST_TURN in order;
  * leader: the rules' leader() is the first of race_order(), which is the order of the cars by
    (progress, place) worked out here;
  * winner: the race tells `wins` once, after the last turn, naming the Leader, who is the one and
    only winner;
  * invariants: the rules' own invariants (`Game.broken_invariants()`) hold;
  * places: once the grid stands, the places of the cars in a board section are exactly 1..n.
A violation is kept with the race that showed it (track, players, agents, seed, turn, event) and
each property is its own test over one shared batch of races, so one broken property does not hide
the others. Everything is seeded: the same races every run.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from itertools import chain

import pytest
from clihelp import invoke
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from pitwall.interpreter.load import find_game
from pitwall.interpreter.record import record_lines
from race_checks import GAME, PLAYERS, PROPERTIES, TRACKS, assert_ends_in_order, mixed, play, run_checked


class Batch:
    """Many races; per property, the violations found (one line per race that broke it)."""

    def __init__(self, races):
        self.races = 0
        self.events = 0
        self.found: dict[str, list[str]] = {p: [] for p in PROPERTIES}
        for track, players, seed, agents in races:
            _, _, _, checker = run_checked(track, players, seed, agents)
            self.races += 1
            self.events += sum(checker.counts.values())
            for prop, what in checker.broken.items():
                self.found[prop].append(what)

    def assert_kept(self, prop: str):
        bad = self.found[prop]
        assert not bad, f"{prop}: broken in {len(bad)} of {self.races} races, e.g.\n  " + "\n  ".join(bad[:5])


RANDOM_SEEDS = 3  # per track and player count: 2 x 5 x 3 = 30 random races
HEURISTIC_SEEDS = 1  # per track and player count, all heuristic and one heuristic seat: 20 races


@pytest.fixture(scope="module")
def random_races():
    return Batch((track, players, 100 + seed, "random")
                 for track in TRACKS for players in PLAYERS for seed in range(RANDOM_SEEDS))


@pytest.fixture(scope="module")
def heuristic_races():
    return Batch(chain.from_iterable(
        ((track, players, 300 + seed, "heuristic"), (track, players, 400 + seed, mixed(players, seed)))
        for track in TRACKS for players in PLAYERS for seed in range(HEURISTIC_SEEDS)))


@pytest.mark.parametrize("prop", PROPERTIES)
@pytest.mark.parametrize("batch", ["random_races", "heuristic_races"])
def test_races_keep(request, batch, prop):
    races = request.getfixturevalue(batch)
    assert races.races >= 20 and races.events > races.races * 1000  # the races ran, and were heard
    races.assert_kept(prop)


# Derandomized (the same examples every run) and not shrunk: a race is the smallest example there is.
@settings(max_examples=10, deadline=None, derandomize=True, database=None, phases=[Phase.explicit, Phase.generate])
@given(seed=st.integers(0, 2**32), track=st.sampled_from(TRACKS), players=st.integers(2, 6),
       agent=st.sampled_from(["random", "heuristic", "mixed"]))
def test_any_seed_keeps_every_property(seed, track, players, agent):
    agents = mixed(players, seed) if agent == "mixed" else agent
    _, _, _, checker = run_checked(track, players, seed, agents)
    assert not checker.broken, "\n".join(f"{p}: {what}" for p, what in checker.broken.items())


@settings(max_examples=10, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 2**32), track=st.sampled_from(TRACKS), players=st.integers(2, 6),
       heuristic=st.booleans())
def test_same_seed_same_record(seed, track, players, heuristic):
    agent = "heuristic" if heuristic else "random"
    a, ha, wa = play(track, players, seed, agent, record=True)
    b, hb, wb = play(track, players, seed, agent, record=True)
    assert record_lines(a, ha) == record_lines(b, hb)
    assert [w.name for w in wa] == [w.name for w in wb]


def test_the_tracks_differ_and_robots_fit_the_player_count():
    for track, lap, last in (("monza", 26, 26), ("hungaroring", 30, 30)):
        for players in PLAYERS:
            game, _, winners = play(track, players, 7)
            s = game.state
            assert s.turn == last == len(s.turn_boxes)
            assert s.lap == lap == len(s.sections)
            assert len(winners) == 1
            robots = 3 if players <= 3 else 2  # "2 - 3: 3 FAST, 3 SLOW; 4 - 6: 2 FAST, 2 SLOW"
            kinds = Counter(str(r.kind) for r in s.robots)
            assert kinds == {"FAST": robots, "SLOW": robots}, kinds
            assert len(s.cars) == players + 2 * robots
            assert sorted(d.grid for d in s.cars) == list(range(1, len(s.cars) + 1))


@pytest.mark.parametrize("broken, prop", [
    ("global limbo: pile of RaceCard\nextend rule game_turn(t: int) {\n    draw 1 from deck to limbo\n}\n",
     "cards"),
    ("extend rule pit_stop(p: Driver) {\n    p.chips += 1\n}\n", "chips"),
    ("extend rule game_turn(t: int) {\n    for r in robots {\n        if not r.out {\n"
     "            robot_turn(r)\n        }\n    }\n}\n", "turns"),
    ("replace function leader() -> Driver = min(d for d in running() by (d.progress, 0 - d.place))\n", "leader"),
], ids=["a_card_lost", "chips_overfilled", "robots_move_twice", "the_last_car_leads"])
def test_the_checker_catches_broken_rules(tmp_path, broken, prop):
    # The listener is not vacuous: a variant that loses a card, overfills the tyre chips, gives the
    # robots a second turn or names the last car the Leader is caught.
    variant = tmp_path / "broken.pw"
    variant.write_text('variant broken "Broken"\n' + broken)
    for seed in range(4):
        _, _, _, checker = run_checked(TRACKS[seed % 2], 4, seed, "heuristic", (str(variant),))
        if prop in checker.broken:
            return
    raise AssertionError(f"{prop} not caught")


# ---------------------------------------------------------------- the heuristic agent
def final_positions(game) -> dict[str, int]:
    """Position at the end, 1 = the winner; cars out of the race behind every car in it."""
    order = [d for d in game.value_of("race_order")] + [d for d in game.state.cars if d.out]
    return {d.name: i for i, d in enumerate(order, 1)}


def test_heuristic_players_beat_random_players_and_the_slow_robots():
    # One heuristic seat (rotating through the four seats) against three random seats, 100 races,
    # both tracks. Measured (these seeds, seeds 1000..1099 and 2000..2099): the heuristic seat wins
    # 48-52% of the races (the FAST robots the rest), a random seat never; the heuristic player
    # finishes ahead of every SLOW robot in 98-99 races of 100, a random player in none of 300.
    # Bounds: the heuristic wins at least 35% (three standard deviations below), each random
    # seat at most 5%; ahead of the SLOW robots 85% against at most 5%. A heuristic that plays no
    # better than random fails every one of them.
    races = 100
    wins: Counter = Counter()
    heuristic_ahead = random_ahead = 0
    for i in range(races):
        track = TRACKS[i % 2]
        seat = i % 4
        game, _, winners = play(track, 4, 500 + i, mixed(4, seat))
        assert len(winners) == 1
        w = winners[0]
        wins["heuristic" if w.is_player and w.seat == seat else (w.name if w.is_player else "robots")] += 1
        pos = final_positions(game)
        slow = [pos[r.name] for r in game.state.robots if str(r.kind) == "SLOW"]
        for p in game.participants:
            ahead = pos[p.name] < min(slow)
            if p.seat == seat:
                heuristic_ahead += ahead
            else:
                random_ahead += ahead
    rate = wins["heuristic"] / races
    random_rates = {p.name: wins[p.name] / races for p in game.participants}
    assert rate >= 0.35, wins
    assert all(r <= 0.05 for r in random_rates.values()), wins
    assert rate >= 7 * max(random_rates.values()) + 0.2, wins
    assert heuristic_ahead >= 0.85 * races, (heuristic_ahead, races)
    assert random_ahead <= 0.05 * 3 * races, (random_ahead, 3 * races)


def test_heuristic_players_finish_ahead_of_the_slow_robots():
    # All heuristic, 2..6 players, both tracks: 60 races. Measured (these seeds, and 200 races from
    # seed 3000): a heuristic player finishes ahead of every SLOW robot in 98-99.6% of the (player,
    # race) pairs, and a player wins 93-97% of the races. Bounds: 85% and 80%.
    pairs = ahead = player_wins = 0
    races = 60
    for i in range(races):
        track, players = TRACKS[i % 2], 2 + i % 5
        game, _, winners = play(track, players, 600 + i, "heuristic")
        player_wins += winners[0].is_player
        pos = final_positions(game)
        slow = min(pos[r.name] for r in game.state.robots if str(r.kind) == "SLOW")
        for p in game.participants:
            pairs += 1
            ahead += pos[p.name] < slow
    assert ahead >= 0.85 * pairs, (ahead, pairs)
    assert player_wins >= 0.8 * races, (player_wins, races)


# ---------------------------------------------------------------- the command line
def test_play_four_players_is_deterministic():
    a = invoke("play", "race_formula_90", "--players", 4, "--seed", 1)
    b = invoke("play", "race_formula_90", "--players", 4, "--seed", 1)
    assert a.exit_code == 0, a.output[-3000:]
    assert "Traceback" not in a.output
    assert a.stdout == b.stdout
    out = a.stdout
    for name in ("Alan", "Bob", "Carl", "Dirk", "FAST1", "FAST2", "SLOW1", "SLOW2"):
        assert name in out
    assert "FAST3" not in out and "Emma" not in out  # 4 players: 2 FAST and 2 SLOW robots
    assert "Turn 1 of 26" in out and "Turn 26 of 26" in out and "Turn 27" not in out
    lines = out.rstrip().splitlines()
    assert lines[-1].startswith("Winners: ") and len(lines[-1].split(",")) == 1
    assert sum(line.startswith("Winners: ") for line in lines) == 1
    other = invoke("play", "race_formula_90", "--players", 4, "--seed", 2)
    assert other.exit_code == 0 and other.stdout != out


def test_play_on_the_hungaroring():
    r = invoke("play", "race_formula_90", "--players", 3, "--seed", 1, "--track", "hungaroring")
    assert r.exit_code == 0, r.output[-3000:]
    assert "Turn 30 of 30" in r.stdout and "Turn 31" not in r.stdout
    assert r.stdout.count("Winners: ") == 1
    assert "Traceback" not in r.output
    monza = invoke("play", "race_formula_90", "--players", 3, "--seed", 1, "--track", "monza")
    assert monza.exit_code == 0 and "Turn 26 of 26" in monza.stdout and monza.stdout != r.stdout
    same = invoke("play", "race_formula_90", "--players", 3, "--seed", 1, "--set", "track=hungaroring")
    assert same.exit_code == 0 and same.stdout == r.stdout


def test_an_unknown_track_exits_2_with_a_message():
    r = invoke("play", "race_formula_90", "--players", 4, "--track", "nowhere")
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    assert "error" in r.output and "track" in r.output
    assert "monza" in r.output and "hungaroring" in r.output  # the message names the tracks there are
    assert "Turn 1" not in r.output


def test_simulate_five_races():
    r = invoke("simulate", "race_formula_90", "-n", 5)
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output
    assert "5 games" in r.output and "race_formula_90" in r.output
    again = invoke("simulate", "race_formula_90", "-n", 5, "--players", 6, "--track", "hungaroring", "--json")
    assert again.exit_code == 0, again.output
    summary = json.loads(again.stdout)
    assert summary["games"] == 5
    assert sum(row["sole_wins"] for row in summary["participants"]) == 5  # a winner in each race, alone


@pytest.mark.parametrize("variant", sorted(find_game(GAME).variant_files()))
def test_every_variant_keeps_every_property(variant):
    # Each variant of the game (found by the loader, so one added later is covered too), on both
    # tracks, random and heuristic: every property the base game keeps.
    for seed, (track, players, agents) in enumerate(itertools.product(TRACKS, (2, 4, 6), ("random", "heuristic"))):
        _, _, winners, checker = run_checked(track, players, seed, agents, (variant,))
        assert winners is not None and not checker.broken, (variant, checker.broken)


@pytest.mark.parametrize("first", [0, 250, 500, 750], ids=lambda s: f"seeds{s}-{s + 249}")
def test_a_thousand_races_end_in_order(first):
    # Thousands of races over the runs: the per-event checks above watch some dozens closely; here
    # a thousand (both tracks, 2-6 players, every fourth with heuristic players; in four parts that
    # parallel workers share) are checked where they end.
    for seed in range(first, first + 250):
        track, players = TRACKS[seed % 2], 2 + seed % 5
        game, _, winners = play(track, players, seed, "heuristic" if seed % 4 == 0 else "random")
        assert_ends_in_order(game, winners, f"{track}, {players} players, seed {seed}")
