"""Every number of a rulebook is a named constant of the rules files, and the heuristics and views
ask the rules' own functions: one `replace` (or `modify`) changes what the rules do, what the
heuristic players aim at, what the view shows and what narration tells, together.

The three example variants of docs/variants.md (first_wins, uphill_chips, long_board) are the
designer's side of this; a scan of the shipped rules files keeps new bare numbers out."""

from __future__ import annotations

import json
import re
from pathlib import Path

import attrs
import pytest
from pitwall.interpreter import ast
from pitwall.interpreter.agents import Heuristic
from pitwall.interpreter.engine import new_game, player_names
from pitwall.interpreter.load import find_game, games, load
from pitwall.interpreter.parse import parse, parse_file
from pitwall.interpreter.record import record_lines
from pitwall.interpreter.runtime import Game

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
GUIDE = ROOT / "docs" / "variants.md"
# The example variants this change made possible, with their game.
DESIGNED = {"first_wins": "why_first", "uphill_chips": "street_illegal", "long_board": "why_first"}


def example(name: str) -> str:
    return str(EXAMPLES / f"{name}.pw")


def play(game: str, variants: tuple[str, ...], players: int, seed: int, agents) -> list[dict]:
    """A whole game's record, without its header: events (with their text) and decisions."""
    loaded = load(game, variants)
    agents = [agents] * players if isinstance(agents, str) else agents
    g, header = new_game(loaded, player_names(loaded, players), agents, seed)
    g.run()
    return [json.loads(line) for line in record_lines(g, header)[1:]]


def events(body: list[dict], name: str) -> list[dict]:
    return [e for e in body if e.get("event") == name]


def variant_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "v.pw"
    path.write_text('variant v "V"\n' + text, encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------- the example variants
@pytest.mark.parametrize("name", sorted(DESIGNED))
def test_each_example_variant_loads_and_plays_50_games(name):
    game = find_game(DESIGNED[name]).name
    for seed in range(50):
        count = 2 + seed % 3 if game == "why_first" else 1 + seed % 4
        agents = "heuristic" if seed % 5 == 0 else ["random"] * (count - 1) + ["heuristic"]
        body = play(game, (example(name),), count, seed, agents)
        result = body[-1]["result"]
        assert result["winners"], f"{name}, seed {seed}: nobody won"
        if name == "first_wins":  # the highest total wins now
            assert all(result["scores"][w] == max(result["scores"].values()) for w in result["winners"])
        if name == "long_board":  # 4 card rounds a stage, on a board from -15 to +20
            assert len(events(body, "round_begins")) == 4 * 5
            assert all(-15 <= e["args"]["position"] <= 20 for e in events(body, "moves"))


def test_every_example_file_is_shown_whole_in_the_guide():
    guide = GUIDE.read_text(encoding="utf-8")
    shown = [body for lang, body in re.findall(r"```(\w*)\n(.*?)```", guide, re.S) if lang == "pitwall"]
    files = sorted(EXAMPLES.glob("*.pw"))
    assert {f.stem for f in files} >= set(DESIGNED)
    for f in files:
        assert f.read_text(encoding="utf-8") in shown, f"{f.name} is not shown whole in docs/variants.md"
    for name, game in DESIGNED.items():
        assert f"pitwall check --game {game.replace('_', '-')} docs/examples/{name}.pw" in guide
        assert re.search(rf"pitwall compare {game.replace('_', '-')} .*--with docs/examples/{name}\.pw", guide)
    for f in files:  # "each in at most 25 lines"
        if f.stem in DESIGNED:
            assert len(f.read_text(encoding="utf-8").splitlines()) <= 25, f.name


# ---------------------------------------------------------------- first wins: heuristic and view follow
def decisions_before_first_scoring(body: list[dict]) -> list[dict]:
    out = []
    for e in body:
        if e.get("event") in ("second_space", "no_second"):
            break
        if "decision" in e:
            out.append(e)
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_under_first_wins_the_heuristic_aims_at_the_new_goal(players):
    # Until the first stage is scored the two games stand in the same positions, so a different
    # decision there is the heuristic's aim changing, not the board.
    for seed in (1, 2, 3):
        base = decisions_before_first_scoring(play("why_first", (), players, seed, "heuristic"))
        first = decisions_before_first_scoring(play("why_first", (example("first_wins"),), players, seed, "heuristic"))
        assert len(base) == len(first) == players * 5 * 2  # a card and its target, 5 rounds
        assert base != first, f"seed {seed}: the heuristic plays the same under 'first wins'"


class Watching(Heuristic):
    """A heuristic seat that keeps the view it would show a person at each of its decisions."""

    def __init__(self):
        self.views: list[str] = []

    def pick(self, game, by, decision, options, prompt, prefer):
        self.views.append(game.view_of(by))
        return super().pick(game, by, decision, options, prompt, prefer)


def views(variants: tuple[str, ...], seed: int = 2) -> list[str]:
    loaded = load("why_first", variants)
    seat = Watching()
    Game(loaded, ["Anne", "Ben", "Chris"], [seat, Heuristic(), Heuristic()], seed, auto_agent=Heuristic()).run()
    return seat.views


def scoring_claims(seen: list[str]) -> list[tuple[int, str, list[int]]]:
    """(space, place words, positions of the figures) of every view that names a scoring space."""
    out = []
    for v in seen:
        m = re.search(r"Space (-?\d+) \(([\w-]+)\) would score now\.", v)
        if m:
            positions = [int(p) for p in re.findall(r"^  \w+(?: \(you\))?: on (-?\d+),", v, re.M)]
            out.append((int(m.group(1)), m.group(2), positions))
    return out


def test_the_view_names_the_scorer_of_the_rules_in_force():
    base = scoring_claims(views(()))
    first = scoring_claims(views((example("first_wins"),)))
    assert base and first
    for space, words, positions in base:
        assert words == "second-farthest" and space == max(p for p in positions if p < max(positions))
    for space, words, positions in first:
        assert words == "farthest" and space == max(positions)
    # and each figure's line says what it would score: the farthest figures, under 'first wins'
    seen = views((example("first_wins"),))
    assert any(re.search(r"would score -?\d+ points? now", v) for v in seen)


def test_the_view_and_narration_show_the_leaders_penalty():
    seen = views((example("long_board"),))
    assert any("would score -1 point now" in v for v in seen)
    assert all("on a track from -15 to 20" in v for v in seen)
    body = play("why_first", (example("long_board"),), 3, 2, "heuristic")
    assert any(e["text"].endswith("scores -1 point and now has " + str(e["args"]["total"]) + ".")
               for e in events(body, "scores"))


# ---------------------------------------------------------------- Why First?: constants that follow
def test_fewer_card_rounds_deal_fewer_cards_to_the_players_and_to_leo(tmp_path):
    body = play("why_first", (variant_file(tmp_path, "replace const ROUNDS = 4\n"),), 2, 1, "random")
    assert len(events(body, "round_begins")) == 4 * 5
    # Leo flips a card in every round but the last: 3 a stage, from his stack of LEO_CARDS = ROUNDS - 1
    assert len(events(body, "leo_flips")) == 3 * 5


def test_the_narration_of_the_scoring_names_the_place_that_scores():
    base = play("why_first", (), 3, 2, "random")
    first = play("why_first", (example("first_wins"),), 3, 2, "random")
    assert all("second-farthest occupied space" in e["text"] for e in events(base, "second_space"))
    assert all("the farthest occupied space" in e["text"] for e in events(first, "second_space"))
    assert events(first, "winners")[0]["text"].startswith("The highest total is")


# ---------------------------------------------------------------- Street Illegal: mph per chip
def payments(body: list[dict]) -> list[tuple[str, dict]]:
    """Every pays_over event, with the situation of the track card it was paid on."""
    out, track = [], ""
    for e in body:
        if e.get("event") == "track_begins":
            track = e["args"]["track"]
        elif e.get("event") == "pays_over":
            out.append((track, e["args"]))
    return out


def chips_in(words: str) -> int:
    return int(words.split()[0])


def check_payments(body: list[dict], mph_of) -> int:
    """Each payment over the limit: the chips owed and the speed told follow the chip's worth."""
    n = 0
    for track, a in payments(body):
        mph = mph_of(track)
        owed = chips_in(a["chips"])
        assert owed == -(-(a["speed"] - a["limit"]) // mph), (track, a)
        assert a["counted"] == a["speed"] - mph * owed, (track, a)
        n += 1
    return n


def check_bids(body: list[dict], mph_of) -> int:
    """Each chip bid in a duel adds the chip's worth to the speed the narration tells."""
    n, track, speeds = 0, "", {}
    for e in body:
        if e.get("event") == "track_begins":
            track = e["args"]["track"]
        elif e.get("event") == "attacks":
            speeds = {e["args"]["a"]: e["args"]["a_speed"], e["args"]["f"]: e["args"]["f_speed"]}
        elif e.get("event") == "pro_duel":
            speeds = {e["args"]["p"]: e["args"]["p_speed"]}
        elif e.get("event") == "bids" and e["args"]["d"] in speeds:
            chips = chips_in(e["args"]["chips"])
            assert e["args"]["total"] == speeds[e["args"]["d"]] + mph_of(track) * chips, (track, e)
            n += chips > 0
    return n


def test_a_replaced_mph_per_chip_changes_the_payments_and_their_narration(tmp_path):
    twenty = variant_file(tmp_path, "replace const CHIP_MPH = 20\n")
    seen = {10: [0, 0], 20: [0, 0]}
    for seed in range(1, 6):
        for mph, variants in ((10, ()), (20, (twenty,))):
            body = play("street_illegal", variants, 3, seed, "heuristic")
            seen[mph][0] += check_payments(body, lambda track, mph=mph: mph)
            seen[mph][1] += check_bids(body, lambda track, mph=mph: mph)
    assert all(paid > 0 and bid > 0 for paid, bid in seen.values()), seen


def test_uphill_chips_are_worth_20_mph_on_uphill_tracks_only():
    def mph_of(track: str) -> int:
        return 20 if track.endswith("/ uphill") else 10

    uphill = plain = 0
    for seed in range(1, 13):
        body = play("street_illegal", (example("uphill_chips"),), 3, seed, "heuristic")
        check_payments(body, mph_of)
        check_bids(body, mph_of)
        uphill += sum(1 for track, _ in payments(body) if mph_of(track) == 20)
        plain += sum(1 for track, _ in payments(body) if mph_of(track) == 10)
    assert uphill > 0 and plain > 0


def test_a_bigger_start_hand_raises_the_hand_limit_and_tells_it(tmp_path):
    # The issue's own example: `replace const START_HAND = 9` once still narrated "draws 8".
    body = play("street_illegal", (variant_file(tmp_path, "replace const START_HAND = 9\n"),), 3, 1, "random")
    assert all(" draws 9 tempo cards " in e["text"] for e in events(body, "deals"))
    assert events(body, "hands_ready")[0]["text"] == "Each player holds 6 tempo cards in hand. The race is on."
    first_braking = {}
    for e in events(body, "loses_card"):
        first_braking.setdefault(e["args"]["d"], e["args"]["limit"])
    assert first_braking and set(first_braking.values()) == {5}  # HAND_LIMIT = START_HAND - FACE_UP, less one


def test_a_slower_slow_down_is_demanded_and_told(tmp_path):
    body = play("street_illegal", (variant_file(tmp_path, "replace const SLOW_DOWN = 20\n"),), 3, 3, "heuristic")
    told = events(body, "tries_again") + events(body, "cannot_slow")
    assert told and all("20 mph" in e["text"] for e in told)


def test_the_street_illegal_view_shows_what_a_chip_is_worth_there(tmp_path):
    loaded = load("street_illegal", (example("uphill_chips"),))
    seat = Watching()
    Game(loaded, ["Alex", "Bob", "Chris"], [seat, Heuristic(), Heuristic()], 1, auto_agent=Heuristic()).run()
    worth = {}
    for v in seat.views:
        track = re.search(r"^Track card \d+ of \d+: [^;\n]* / ([\w ]+?)(?:;|$)", v, re.M)
        chips = re.search(r"chips: \d+ \((\d+) mph each", v)
        if track and chips:
            worth.setdefault(track.group(1), set()).add(int(chips.group(1)))
    assert worth.get("uphill") == {20}
    assert all(w == {10} for situation, w in worth.items() if situation != "uphill") and len(worth) > 1


# ---------------------------------------------------------------- no bare rulebook numbers
# Numbers a shipped rules or variant file may write outside `const` and `setting` declarations.
ALLOWED_VALUES = {0, 1, -1}  # nothing, one (a card, a point, a step), and its negative: words, not rules numbers
# Each further exception, with its reason:
#   * scenario files: a scenario states the position of a rulebook example (spaces, chips, the
#     cards to find by their speed or value, a track number): its numbers are that position;
#   * Why First?'s deck `race_cards`: the printed cards (value, white number), data that a player
#     who owns the game edits row by row (see the top of its cards.pw);
#   * Race! Formula 90's data tables (cards.pw, charts.pw, robots.pw, monza.pw, hungaroring.pw,
#     monza_track_cards.pw, hungaroring_track_cards.pw): reconstructed components and boards,
#     edited row by row by an owner of the real game;
#   * the first argument of Street Illegal's `emit phase(N, ...)`: the names of the rulebook's
#     three phases ("PHASE 2: DRIVING"), labels rather than quantities.
# Player counts of `game` and `variant` declarations and deck copy counts (`3 * (v, s)`) are part
# of those declarations' syntax, not expressions, and are not scanned.
ALLOWED_DECKS = {("why_first", "race_cards")} | {
    ("race_formula_90", name) for name in (
        "race_cards", "car_charts", "damage_discs", "robot_chits",
        *(f"{track}_{table}" for track in ("monza", "hungaroring")
          for table in ("sections", "trajectories", "offtrack", "turns", "track_cards")))}
ALLOWED_EMITS = {("street_illegal", "phase")}


def bare_numbers(tree, game: str):
    """(value, span) of every int literal outside const/setting declarations and the exceptions."""
    def walk(node):
        if isinstance(node, ast.ConstDecl) or isinstance(node, ast.ScenarioDecl):
            return
        if isinstance(node, ast.DeckDecl) and (game, node.name) in ALLOWED_DECKS:
            return
        if isinstance(node, ast.Emit) and (game, node.event) in ALLOWED_EMITS:
            yield from walk(node.args[1:])
            return
        if isinstance(node, ast.Int):
            if node.value not in ALLOWED_VALUES:
                yield node.value, node.span
            return
        if isinstance(node, (list, tuple)):
            for x in node:
                yield from walk(x)
        elif attrs.has(type(node)):
            for f in attrs.fields(type(node)):
                if f.name != "span":
                    yield from walk(getattr(node, f.name))
    return list(walk(tree))


def shipped_files():
    for g in games():
        for path in g.base_files() + list(g.variant_files().values()):
            yield g.name, path


@pytest.mark.parametrize(("game", "path"), list(shipped_files()), ids=lambda x: x if isinstance(x, str) else x.name)
def test_no_bare_rulebook_number_in_a_shipped_rules_file(game, path):
    found = bare_numbers(parse_file(path), game)
    assert not found, ("bare numbers (name each in a `const` with the rulebook's words, or add an "
                       "exception with its reason above):\n" + "\n".join(f"{span}: {v}" for v, span in found))


def test_the_scan_finds_a_new_bare_number():
    # Not vacuous: a rule that writes 10 mph out again, or a second-place 2, is caught; the
    # allowed forms are not.
    tree = parse('function boost(chips: int) -> int = chips * 10\n'
                 'function second(xs: list of int) -> int = if len(xs) >= 2 then xs[1] else xs[0]\n'
                 'const FINE = 10\nrule r() {\n    emit phase(2, "x")\n    emit other(3)\n}\n', "t.pw")
    assert [v for v, _ in bare_numbers(tree, "street_illegal")] == [10, 2, 3]
    assert [v for v, _ in bare_numbers(tree, "why_first")] == [10, 2, 2, 3]


def test_every_rulebook_constant_cites_the_rulebook_or_a_reading():
    # Declared once, with a comment beside or above it: the rulebook's words, or the reading chosen.
    for _game, path in shipped_files():
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if line.startswith(("const ", "setting ")):
                beside = "#" in line
                above = i > 0 and lines[i - 1].lstrip().startswith("#")
                assert beside or above, f"{path.name}:{i + 1}: {line.strip()} has no comment"
