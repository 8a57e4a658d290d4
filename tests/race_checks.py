"""What the Race! tests check of a race (test_race_formula_90.py describes the properties): the
Checker that listens to every event, and the helpers that play and check races, shared by the Basic
game's tests and the modules' (test_race_modules.py)."""

from __future__ import annotations

from collections import Counter
from itertools import chain
from operator import attrgetter
from typing import NamedTuple

from pitwall.interpreter.engine import new_game, player_names
from pitwall.interpreter.errors import PitwallError
from pitwall.interpreter.load import load
from pitwall.interpreter.runtime import FIELD_PREFIX

GAME = "race_formula_90"
TRACKS = ("monza", "hungaroring")
PLAYERS = range(2, 7)
RACE_CARDS = 184
TRACK_CARDS = {"monza": 34, "hungaroring": 42}  # "34 Track Cards Monza and 42 Track Cards Hungaroring"
DISCS = 30
PROPERTIES = ("crash", "cards", "table", "chips", "damage", "robots", "turns", "leader", "winner", "invariants",
              "places")
# the events by which a car takes its individual turn (an off-track car's elimination, too)
TURN_EVENTS = {"robot_moves", "plays_cards", "skips", "reenters",
               # variants/off_track.pw: a turn lost when the Safety Car comes out, a turn behind it,
               # a pit stop behind it (which ends the turn), the last turn's frozen finish
               "loses_turn", "sc_follows", "rejoins_queue", "finishes_frozen"}
# events that end a car's move or come between turns: no card lies on the table
TABLE_CLEAR = {"turn_begins", "wins", "stands", "robot_moves", "skips", "pits", "reenters", "contest_begins",
               "contest_result", "on_trajectory", "new_stage", "robot_refuels", "starting_grid"}


def loaded_for(track: str, variants: tuple[str, ...] = ()):
    return load(GAME, variants, (("track", track),))


def track_piles(game) -> list:
    """The Track deck and its discard pile, under the Track Cards module (variants/track_cards.pw)."""
    if "track_deck" not in game.loaded.program.globals:
        return []
    return [game.state.track_deck, game.state.track_discards]


def all_cards(game) -> int:
    """The Race Cards, and the Track Cards of the track in use under the Track Cards module."""
    return RACE_CARDS + (TRACK_CARDS[game.loaded.consts["track"]] if track_piles(game) else 0)


class Car(NamedTuple):
    """A participant's fields, read at once (reading them one by one from Python is slow)."""

    d: object
    name: str
    is_player: bool
    progress: int
    place: int
    out: bool
    moved: bool
    chips: int
    chart: object
    hand: list
    frozen: list
    target: list
    damage: list
    played: list


_FIELDS = attrgetter(*(FIELD_PREFIX + f for f in Car._fields[3:]))


def snapshot(game) -> list[Car]:
    """Every participant: the players, and the robots once made."""
    return [Car(d, d.name, d.is_player, *_FIELDS(d)) for d in game.by_name.values()]


def race_order(cars: list[Car]) -> list[Car]:
    """The cars in the race front first, by sections driven and then place."""
    return sorted((c for c in cars if not c.out), key=lambda c: (c.progress, -c.place), reverse=True)


# ---------------------------------------------------------------- the listener
def last_turn(game) -> int:
    """The rules' LAST_TURN: the Turn Indicator's last box (a variant such as the Short Race may set
    another); it must be a box of the Turn Indicator."""
    last = game.loaded.consts["LAST_TURN"]
    assert 0 < last <= len(game.state.turn_boxes)
    return last


def car_limits(game, c) -> tuple[int, int]:
    """Tyre chips and damage slots of a player's car: the Car Chart's, or the setup chits' where the
    Car Setup variant fitted them (its global `fitted`, by seat)."""
    fitted = getattr(game.state, "fitted", None) if "fitted" in game.loaded.program.globals else None
    if fitted is not None and c.d.seat < len(fitted):
        return fitted[c.d.seat].chips, fitted[c.d.seat].slots
    return c.chart.chips, c.chart.slots


class Checker:
    """Checks the properties after every event; keeps the first violation of each."""

    def __init__(self, loaded, label: str):
        self.events = loaded.compiled.events
        self.label = label
        self.game = None
        self.broken: dict[str, str] = {}
        self.counts: Counter = Counter()
        self.event = ""
        self.cards: set | None = None  # the identities of the 184 Race Cards, fixed at the first event
        self.discs: set | None = None
        self.gridded = False  # the starting grid stands
        self.turn = 0
        self.turns: Counter = Counter()  # car -> individual turns taken in the current game turn
        self.pits: Counter = Counter()
        self.off: set[str] = set()  # cars off-track
        self.out_before: set[str] = set()  # cars out of the race when the current turn began
        self.winner = None

    def fail(self, prop: str, detail: str) -> None:
        if prop not in self.broken:
            self.broken[prop] = f"{self.label}: turn {self.turn}, after {self.event!r}: {detail}"

    def __call__(self, entry):
        if entry[0] != "e":
            return
        self.event = name = self.events[entry[1]]
        args = entry[2]
        self.counts[name] += 1
        game = self.game
        cars = snapshot(game)
        if name == "starting_grid":
            self.gridded = True
        self.check_cards(game, cars)
        self.check_table(game, name)
        self.check_chips_and_damage(game, cars)
        self.check_turns(game, cars, name, args)
        if self.gridded:
            self.check_places(game, cars)
            self.check_leader(game, cars, name, args)
        broken = game.broken_invariants()
        if broken:
            self.fail("invariants", str([inv.message for inv in broken]))

    def check_cards(self, game, cars):
        s = game.state
        piles = [s.deck, s.discards, s.on_table, s.drawn, *track_piles(game)]
        for c in cars:
            piles += (c.hand, c.frozen, c.target)
        cards = list(chain.from_iterable(piles))
        ids = set(map(id, cards))
        total = all_cards(game)
        if self.cards is None:
            self.cards = ids
            if len(cards) != total or len(ids) != total:
                self.fail("cards", f"{len(cards)} cards ({len(ids)} distinct) at the start, not {total}")
        elif len(cards) != total or ids != self.cards:
            self.fail("cards", f"{len(cards)} cards in their places, {len(ids & self.cards)} of the {total}, "
                               f"{len(ids - self.cards)} unknown")
        if self.gridded:
            for c in cars:
                if c.is_player and not c.out and len(c.target) != 1:
                    self.fail("cards", f"{c.name} holds {len(c.target)} Target Checks")

    def check_table(self, game, name):
        s = game.state
        if name in TABLE_CLEAR:
            for pile in ("on_table", "drawn"):
                if getattr(s, pile):
                    self.fail("table", f"{pile} holds {list(map(str, getattr(s, pile)))}")

    def check_chips_and_damage(self, game, cars):
        held = []
        for c in cars:
            held += c.damage
            if c.is_player and c.chart is not None:
                chips, slots = car_limits(game, c)
                if not 0 <= c.chips <= chips:
                    self.fail("chips", f"{c.name} has {c.chips} tyre chips, chart {chips}")
                if not c.out and len(c.damage) > slots:
                    self.fail("damage", f"{c.name} holds {len(c.damage)} discs in {slots} slots")
            elif c.chips != 0:
                self.fail("chips", f"{c.name} (no chart) has {c.chips} tyre chips")
            if c.out and c.damage:
                self.fail("damage", f"{c.name} is out of the race and keeps {len(c.damage)} discs")
            if not c.is_player:
                if c.damage:
                    self.fail("robots", f"robot {c.name} holds damage")
                if c.hand or c.frozen or c.target or c.played:
                    self.fail("robots", f"robot {c.name} holds Race Cards")
        bag = game.state.discs
        discs = list(bag) + held
        ids = set(map(id, discs))
        if self.discs is None:
            self.discs = ids
        if len(discs) != DISCS or ids != self.discs or len(ids) != DISCS:
            self.fail("damage", f"{len(discs)} damage discs (bag {len(bag)}, cars {len(held)})")

    def check_turns(self, game, cars, name, args):
        if name == "turn_begins":
            t = args[0]
            if t != self.turn + 1:
                self.fail("turns", f"turn {t} follows turn {self.turn}")
            if self.turn:
                self.end_turn(cars)
            self.turn = t
            self.turns.clear()
            self.pits.clear()
            self.out_before = {c.name for c in cars if c.out}
        elif name in TURN_EVENTS or (name == "eliminated" and args[0].name in self.off
                                      and not self.turns[args[0].name]):
            who = args[0].name
            self.turns[who] += 1
            if self.turns[who] > 1:
                self.fail("turns", f"{who} takes a second individual turn")
        elif name == "pits":
            who = args[0].name
            self.pits[who] += 1
            if self.pits[who] > 1:
                self.fail("turns", f"{who} pits twice")
            if self.turns[who]:
                self.fail("turns", f"{who} pits after its turn")
        elif name == "wins":
            last = last_turn(game)
            if self.turn != last or args[1] != last:
                self.fail("turns", f"the race ends after turn {self.turn} (told: {args[1]}), not {last}")
            self.end_turn(cars)
        if name == "goes_off":
            self.off.add(args[0].name)
        elif name in ("reenters", "eliminated"):
            self.off.discard(args[0].name)

    def end_turn(self, cars):
        for c in cars:
            n = self.turns[c.name]
            if c.name in self.out_before:
                if n:
                    self.fail("turns", f"{c.name}, out of the race, takes {n} turns in turn {self.turn}")
            elif c.out:
                if n > 1:
                    self.fail("turns", f"{c.name} takes {n} turns in turn {self.turn}")
            elif n != 1 or not c.moved:
                self.fail("turns", f"{c.name} takes {n} individual turns in turn {self.turn} (moved: {c.moved})")

    def check_places(self, game, cars):
        s = game.state
        lap = s.lap
        sections: dict[int, list[Car]] = {}
        for c in cars:
            if not c.out:
                sections.setdefault(c.progress % lap, []).append(c)
        for k, here in sections.items():
            if sorted(c.place for c in here) != list(range(1, len(here) + 1)):
                places = sorted((c.place, c.name) for c in here)
                self.fail("places", f"section {k} ({s.sections[k]}): places {places}")

    def check_leader(self, game, cars, name, args):
        expected = [c.d for c in race_order(cars)]
        if not expected:
            return
        leader = game.value_of("leader")
        order = list(game.value_of("race_order"))
        if leader is not order[0]:
            self.fail("leader", f"leader() is {leader.name}, race_order() begins with {order[0].name}")
        if order != expected and len({(c.progress, c.place) for c in cars if not c.out}) == len(expected):
            self.fail("leader", f"race_order() is {order}, not {expected}")
        if name == "wins":
            if self.winner is not None:
                self.fail("winner", "the race tells two winners")
            self.winner = args[0]
            if args[0] is not leader or args[0] is not expected[0]:
                self.fail("winner", f"{args[0].name} wins, the Leader is {leader.name} ({expected[0].name})")

    def finish(self, game, winners):
        """After the race: one `wins`, one winner, who is the Leader."""
        if self.counts["wins"] != 1:
            self.fail("winner", f"the race tells `wins` {self.counts['wins']} times")
        if self.counts["turn_begins"] != last_turn(game):
            self.fail("turns", f"{self.counts['turn_begins']} turns of {last_turn(game)}")
        front = race_order(snapshot(game))[0].d
        if len(winners or ()) != 1 or winners[0] is not self.winner:
            self.fail("winner", f"the result is {winners}, told {self.winner}")
        elif winners[0] is not front:
            self.fail("winner", f"{winners[0].name} wins but {front.name} leads")


def run_checked(track: str, players: int, seed: int, agents="random", variants=(), record=False):
    loaded = loaded_for(track, variants)
    names = player_names(loaded, players)
    agents = [agents] * players if isinstance(agents, str) else list(agents)
    checker = Checker(loaded, f"{track}, {players} players, agents {','.join(agents)}, seed {seed}")
    game, header = new_game(loaded, names, agents, seed, listener=checker, record=record)
    checker.game = game
    try:
        winners = game.run()
    except PitwallError as e:
        checker.fail("crash", f"{e}")
        return game, header, None, checker
    checker.finish(game, winners)
    return game, header, winners, checker


def play(track: str, players: int, seed: int, agents="random", record=False):
    """A race without the listener (faster): the game, its header and its winners."""
    loaded = loaded_for(track)
    agents = [agents] * players if isinstance(agents, str) else list(agents)
    game, header = new_game(loaded, player_names(loaded, players), agents, seed, record=record)
    return game, header, game.run()


def mixed(players: int, seat: int) -> list[str]:
    """One heuristic seat among random ones."""
    return ["heuristic" if i == seat % players else "random" for i in range(players)]


def assert_ends_in_order(game, winners, label: str) -> None:
    """A race played without the listener, checked where it ends: every card in one place, chips
    and damage within the charts, the invariants, the places, and one winner who leads."""
    checker = Checker(game.loaded, label)
    checker.game, checker.gridded = game, True
    cars = snapshot(game)
    checker.check_cards(game, cars)
    checker.check_chips_and_damage(game, cars)
    checker.check_places(game, cars)
    if game.broken_invariants():
        checker.fail("invariants", str([inv.message for inv in game.broken_invariants()]))
    front = race_order(cars)[0].d
    if len(winners) != 1 or winners[0] is not front:
        checker.fail("winner", f"the result is {[w.name for w in winners]}, {front.name} leads")
    assert not checker.broken, checker.broken
