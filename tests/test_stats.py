"""The statistics of simulate and compare (interpreter/stats.py, stats_table.py): the interval and
test math against known values, every Summary field against figures worked out independently
from recorded games, significance that comes and goes as it should, serial and --jobs alike, CSV
with every figure, the legend on stdout, and golden tables.

The golden tables: PITWALL_GOLDEN=1 pytest tests/test_stats.py rewrites them; then read the diff."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import statistics
from pathlib import Path

import pytest
from clihelp import add_game, invoke
from pitwall.interpreter.engine import new_game, player_names
from pitwall.interpreter.load import load
from pitwall.interpreter.record import result_line
from pitwall.interpreter.stats import compare_summaries, normal_p, rate, stat, summarize, t95, t_p

GOLDEN = Path(__file__).resolve().parent / "golden" / "stats"
ROOT = Path(__file__).resolve().parents[1]
FIRST_WINS = str(ROOT / "docs" / "examples" / "first_wins.pw")


# ---------------------------------------------------------------- the math, against known values
@pytest.mark.parametrize("df, t", [(1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423),
                                   (100, 1.9840), (1000, 1.9623), (10**7, 1.9600)])
def test_t_quantiles_are_the_tables(df, t):
    assert t95(df) == pytest.approx(t, abs=1e-4)
    assert t_p(t95(df), df) == pytest.approx(0.05, abs=1e-9)


def test_p_values_of_t_and_normal():
    assert t_p(2.0, 10) == pytest.approx(0.07339, abs=1e-5)
    assert t_p(1.0, 1) == pytest.approx(0.5, abs=1e-12)  # the Cauchy distribution
    assert t_p(0.0, 7) == pytest.approx(1.0)
    assert normal_p(1.959963984540054) == pytest.approx(0.05, abs=1e-12)
    assert normal_p(3.2905) == pytest.approx(0.001, abs=1e-6)


@pytest.mark.parametrize("k, n, lo, hi", [(5, 10, 0.236593, 0.763407), (0, 10, 0.0, 0.277533),
                                          (10, 10, 0.722467, 1.0), (1, 3, 0.061492, 0.792340),
                                          (81, 263, 0.2553, 0.3662)])
def test_wilson_intervals(k, n, lo, hi):
    r = rate(k, n)
    assert r["value"] == k / n and r["n"] == n
    assert r["lo"] == pytest.approx(lo, abs=1e-4) and r["hi"] == pytest.approx(hi, abs=1e-4)


def test_a_mean_with_its_t_interval():
    s = stat([1, 2, 3, 4])
    assert s["mean"] == 2.5 and s["n"] == 4
    assert s["sd"] == pytest.approx(statistics.stdev([1, 2, 3, 4]))
    half = 3.182446 * s["sd"] / 2  # t(0.975, 3) * sd / sqrt(4)
    assert s["lo"] == pytest.approx(2.5 - half, abs=1e-5) and s["hi"] == pytest.approx(2.5 + half, abs=1e-5)
    assert stat([7]) == {"mean": 7.0, "sd": 0.0, "lo": 7.0, "hi": 7.0, "n": 1}
    assert stat([]) is None


def _summary(values_a, values_b=None, wins=(45, 100)):
    """A Summary holding only what a comparison of one mean and one rate reads."""
    length = {"turns": None, "decisions": stat(values_a), "events": stat(values_a)}
    return {"game": "g", "variants": [], "settings": {}, "games": wins[1], "seed": 1, "length": length,
            "margin": None, "lead_changes": None, "events": {},
            "participants": [{"name": "A", "agent": "random", "sole_wins": wins[0], "shared_wins": 0,
                              "sole_win_rate": rate(*wins), "shared_win_rate": rate(0, wins[1]), "placings": [],
                              "score": None}]}


def test_the_two_proportion_z_test_and_welchs_t():
    a = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4]
    b = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4]
    rows = {r["metric"]: r for r in compare_summaries(_summary(a, wins=(45, 100)), _summary(b, wins=(60, 100)))["rows"]}
    welch = rows["decisions"]
    # Welch's t-test of these samples (the example of its Wikipedia article): t = 2.46, df = 24.9, p = 0.021
    assert welch["test"] == "Welch t" and welch["p"] == pytest.approx(0.0213, abs=2e-4) and welch["significant"]
    assert welch["difference"] == pytest.approx(statistics.mean(b) - statistics.mean(a))
    assert welch["lo"] < welch["difference"] < welch["hi"] and welch["lo"] > 0
    wins = rows["A: sole win rate"]
    pooled = 105 / 200
    z = 0.15 / math.sqrt(pooled * (1 - pooled) * (2 / 100))
    assert wins["test"] == "two-proportion z" and wins["p"] == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert wins["p"] == pytest.approx(0.0337, abs=1e-4) and wins["significant"]
    assert wins["difference"] == pytest.approx(0.15) and wins["lo"] < 0.15 < wins["hi"]


def test_a_paired_test_where_the_same_seeds_pair_the_games():
    from pitwall.interpreter.simulate import Outcome

    def games(decisions):
        return [Outcome(seed, ("A",), (), decisions=d) for seed, d in enumerate(decisions)]

    a, b = [10, 20, 30, 40, 50], [11, 21, 32, 41, 51]  # the spread is the seeds'; each seed gains about 1
    base, other = (summarize(games(x), game="g", variants=(), settings={}, seed=0, players=["A"], agents=["first"])
                   for x in (a, b))
    unpaired = {r["metric"]: r for r in compare_summaries(base, other)["rows"]}["decisions"]
    paired = {r["metric"]: r for r in compare_summaries(base, other, (games(a), games(b)))["rows"]}["decisions"]
    assert unpaired["test"] == "Welch t" and not unpaired["significant"]
    diffs = [y - x for x, y in zip(a, b)]
    t = statistics.mean(diffs) / (statistics.stdev(diffs) / math.sqrt(5))
    assert paired["test"] == "paired t" and paired["p"] == pytest.approx(t_p(t, 4)) and paired["significant"]
    assert paired["difference"] == pytest.approx(1.2)


# ---------------------------------------------------------------- every field, worked out from records
def played(game: str, names: list[str], agents: list[str], seed: int) -> dict:
    """One game played as `play --record` plays it (narrated, logged), with the leader looked at
    as each turn begins (at its first decision) and at the end: what the statistics report of it."""
    loaded = load(game)
    decl = loaded.program.game
    seen = {"turn": None, "leader": None, "changes": 0, "first": True}
    g = None

    def look():
        now = g.leader()
        if now is not None:
            seen["changes"] += seen["leader"] is not None and now is not seen["leader"]
            seen["leader"] = now

    def listen(entry):
        if entry[0] == "d":
            turn = getattr(g.state, decl.turns)
            if seen["first"] or turn != seen["turn"]:
                seen["turn"], seen["first"] = turn, False
                look()

    g, _ = new_game(loaded, names, agents, seed, listener=listen)
    g.run()
    look()
    result = result_line(g)["result"]
    return {"winners": result["winners"], "scores": result["scores"], "ranking": [p.name for p in g.ranking()],
            "turns": g.turns(), "decisions": sum(e[0] == "d" for e in g.log),
            "events": [loaded.compiled.events[e[1]] for e in g.log if e[0] == "e"], "lead_changes": seen["changes"]}


def margin_of(game: dict) -> int | None:
    won = [n for n in game["ranking"] if n in game["winners"] and n in game["scores"]]
    others = [n for n in game["ranking"] if n not in game["winners"] and n in game["scores"]]
    return game["scores"][won[0]] - game["scores"][others[0]] if won and others else None


def assert_stat(figure: dict, values: list) -> None:
    assert set(figure) == {"mean", "sd", "lo", "hi", "n"}
    assert figure["n"] == len(values)
    assert figure["mean"] == pytest.approx(statistics.mean(values))
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    assert figure["sd"] == pytest.approx(sd, abs=1e-9)
    half = t95(len(values) - 1) * sd / math.sqrt(len(values)) if len(values) > 1 else 0.0
    assert figure["lo"] == pytest.approx(figure["mean"] - half) and figure["hi"] == pytest.approx(figure["mean"] + half)


def assert_rate(figure: dict, k: int, n: int) -> None:
    assert set(figure) == {"value", "lo", "hi", "n"}
    assert figure["n"] == n and figure["value"] == pytest.approx(k / n)
    z = 1.959963984540054
    centre = (k / n + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(k / n * (1 - k / n) / n + z * z / (4 * n * n))
    assert figure["lo"] == pytest.approx(centre - half if k else 0.0, abs=1e-12)
    assert figure["hi"] == pytest.approx(centre + half if k < n else 1.0, abs=1e-12)


RUNS = [  # game, players' names, agents, first seed, games
    ("why_first", ["Anne", "Ben", "Chris"], ["heuristic", "random", "random"], 11, 8),
    ("why_first", ["Anne", "Ben"], ["random", "random"], 3, 5),  # Leo, the rules' own, plays too
    ("street_illegal", ["Alex", "Bob", "Chris"], ["heuristic", "random", "random"], 2, 4),
    ("race_formula_90", ["Alan", "Bob"], ["random", "heuristic"], 1, 2),
]


@pytest.mark.parametrize("game, names, agents, seed, count", RUNS, ids=lambda x: x if isinstance(x, str) else None)
def test_every_summary_field_is_what_the_recorded_games_say(game, names, agents, seed, count):
    assert player_names(load(game), len(names)) == names  # the game's own names: simulate takes no --names
    args = [a for i, agent in enumerate(agents, 1) for a in ("--agent", f"{i}={agent}")]
    r = invoke("simulate", game, "-p", len(names), *args, "-n", count, "--seed", seed, "--json", "--events")
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    games = [played(game, names, agents, s) for s in range(seed, seed + count)]
    decl = load(game).program.game
    assert set(summary) == {"game", "variants", "settings", "games", "seed", "length", "margin", "lead_changes",
                            "participants", "events"}
    assert (summary["game"], summary["variants"], summary["settings"], summary["games"], summary["seed"]) == (
        game, [], {}, count, seed)
    assert set(summary["length"]) == {"turns", "decisions", "events"}
    assert_stat(summary["length"]["turns"], [x["turns"] for x in games])
    assert_stat(summary["length"]["decisions"], [x["decisions"] for x in games])
    assert_stat(summary["length"]["events"], [len(x["events"]) for x in games])
    assert_stat(summary["lead_changes"], [x["lead_changes"] for x in games])
    margins = [m for m in map(margin_of, games) if m is not None]
    if decl.score:
        assert_stat(summary["margin"], margins)
    else:
        assert summary["margin"] is None
    ranked = {n for x in games for n in x["ranking"] + x["winners"]}
    assert [p["name"] for p in summary["participants"]][:len(names)] == names
    assert {p["name"] for p in summary["participants"]} == ranked | set(names)
    places = max(len(x["ranking"]) for x in games)
    for p in summary["participants"]:
        name = p["name"]
        assert set(p) == {"name", "agent", "sole_wins", "shared_wins", "sole_win_rate", "shared_win_rate",
                          "placings", "score"}
        assert p["agent"] == (agents[names.index(name)] if name in names else "rules")
        sole = sum(x["winners"] == [name] for x in games)
        shared = sum(len(x["winners"]) > 1 and name in x["winners"] for x in games)
        assert (p["sole_wins"], p["shared_wins"]) == (sole, shared)
        assert_rate(p["sole_win_rate"], sole, count)
        assert_rate(p["shared_win_rate"], shared, count)
        assert len(p["placings"]) == places
        for i, figure in enumerate(p["placings"]):
            assert_rate(figure, sum(i < len(x["ranking"]) and x["ranking"][i] == name for x in games), count)
        scores = [x["scores"][name] for x in games if name in x["scores"]]
        if scores:
            assert_stat(p["score"], scores)
        else:
            assert p["score"] is None
    declared = load(game).compiled.events
    assert list(summary["events"]) == sorted(declared, key=lambda e: -sum(x["events"].count(e) for x in games))
    for e in declared:
        assert_stat(summary["events"][e], [x["events"].count(e) for x in games])


def test_the_rules_own_participants_come_after_the_players_in_name_order():
    r = invoke("simulate", "race_formula_90", "-p", 2, "-n", 2, "--json")
    names = [p["name"] for p in json.loads(r.stdout)["participants"]]
    assert names == ["Alan", "Bob", "FAST1", "FAST2", "FAST3", "SLOW1", "SLOW2", "SLOW3"]


PLAIN_GAME = """game plain "Plain" { players P 2 to 3  play main LEADER }
participant P { n: int = 0 }
function lead() -> P = players[10 / (len(players) - 2)]
rule main() {
    for p in players {
        choose k from [1, 2, 3] by p "how many"
        p.n = k
    }
    finish [p for p in players if p.n == max([q.n for q in players])]
}
"""


def test_a_game_that_declares_nothing_for_the_statistics(tmp_path, monkeypatch):
    add_game(tmp_path, monkeypatch, "plain", PLAIN_GAME.replace("LEADER", ""))
    r = invoke("simulate", "plain", "-n", 20, "--json")
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    assert summary["length"]["turns"] is None and summary["margin"] is None and summary["lead_changes"] is None
    assert all(p["score"] is None for p in summary["participants"])
    assert summary["length"]["decisions"]["mean"] == 2
    # no rank: winners first, then the others by seat; with shared wins, 1st place is more than the sole wins
    first = [p["placings"][0]["value"] * 20 for p in summary["participants"]]
    assert sum(first) == 20 and all(k >= p["sole_wins"] for k, p in zip(first, summary["participants"]))
    table = invoke("simulate", "plain", "-n", 20)
    assert "margin" not in table.stdout and "lead changes" not in table.stdout and "mean score" not in table.stdout


def test_a_failing_leader_says_the_statistics_asked_it(tmp_path, monkeypatch):
    add_game(tmp_path, monkeypatch, "plain", PLAIN_GAME.replace("LEADER", "leader lead"))
    r = invoke("simulate", "plain", "-n", 3)
    assert r.exit_code == 2 and "division by zero" in r.output and "Traceback" not in r.output
    assert "the statistics asked the game's `leader` function" in r.output
    assert invoke("play", "plain").exit_code == 0  # a game nobody asks for its leader plays on


# ---------------------------------------------------------------- compare: significance
def test_the_same_configuration_twice_has_no_significant_row(tmp_path):
    nothing = tmp_path / "nothing.pw"
    nothing.write_text('variant nothing "Changes nothing"\nconst UNUSED_HERE = 1\n')
    r = invoke("compare", "why-first", "-p", 4, "-n", 60, "-a", "1=heuristic", "--with", nothing, "--events", "--json")
    assert r.exit_code == 0, r.output
    comparison = json.loads(r.stdout)
    assert set(comparison) == {"base", "with", "rows"}
    assert comparison["rows"] and not any(row["significant"] for row in comparison["rows"])
    assert all(row["difference"] == 0 and row["p"] == 1.0 for row in comparison["rows"])
    for row in comparison["rows"]:
        assert set(row) == {"metric", "base", "with", "difference", "lo", "hi", "p", "significant", "test"}


def test_a_variant_that_changes_who_wins_gives_significant_rows():
    r = invoke("compare", "why-first", "-p", 4, "-n", 200, "-a", "1=heuristic", "--with", FIRST_WINS, "--json")
    assert r.exit_code == 0, r.output
    rows = {row["metric"]: row for row in json.loads(r.stdout)["rows"]}
    anne = rows["Anne: sole win rate"]
    assert anne["significant"] and anne["p"] < 1e-6 and anne["test"] == "two-proportion z"
    assert anne["lo"] > 0.1 and anne["difference"] > 0.2  # the heuristic seat now aims at the highest total
    score = rows["Anne: score"]
    assert score["significant"] and score["test"] == "paired t" and score["difference"] > 5
    assert rows["margin"]["test"] == "Welch t"  # a game everyone won has no margin: the seeds do not all pair
    assert not rows["turns"]["significant"] and rows["turns"]["difference"] == 0


def test_event_rows_come_largest_change_first():
    r = invoke("compare", "why-first", "-p", 4, "-n", 40, "--with", "docs/examples/long_board.pw", "--events", "--json")
    rows = [row for row in json.loads(r.stdout)["rows"] if row["metric"].startswith("event: ")]
    sizes = [abs(row["difference"]) for row in rows]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > 0
    rounds = next(row for row in rows if row["metric"] == "event: round_begins")
    assert (rounds["base"], rounds["with"], rounds["p"]) == (25, 20, 0.0)  # 20 card rounds a game instead of 25
    assert rows.index(rounds) < len(rows) - 3


# ---------------------------------------------------------------- serial and --jobs, CSV, legend
def test_serial_and_two_jobs_give_the_same_json():
    for command in (["simulate", "why-first", "-p", 3, "-n", 30, "--events"],
                    ["compare", "street-illegal", "-p", 3, "-n", 12, "--with", "nitrous_oxide", "--events"]):
        serial = invoke(*command, "--json")
        parallel = invoke(*command, "--json", "--jobs", 2)
        assert serial.exit_code == parallel.exit_code == 0, serial.output
        assert serial.stdout == parallel.stdout


def test_a_pool_gives_the_serial_outcomes_field_for_field():
    # a local pool's workers send outcomes as plain tuples (simulate._packed): each field must
    # come back to its place, the events counted and the statistics of a game with a leader too
    from pitwall.interpreter.simulate import _PACK, Outcome, simulate

    every = []
    for game, players, settings, count in (("why_first", 4, (), 12), ("street_illegal", 3, (), 8),
                                           ("race_formula_90", 4, (("track", "monza"),), 2)):
        names = player_names(load(game, (), settings), players)
        args = (game, (), names, ["random"] * players, count, 5)
        serial = simulate(*args, settings=settings, count_events=True)
        parallel = simulate(*args, jobs=2, settings=settings, count_events=True)
        assert parallel == serial and {type(o) for o in parallel} == {Outcome}
        assert [Outcome(*_PACK(o)) for o in serial] == serial  # the packing itself, on a machine of one core too
        assert all(o.events and o.ranking for o in parallel)
        every += parallel
    assert any(o.lead_changes for o in every) and any(o.margin is not None for o in every)


@pytest.mark.parametrize("games, jobs", [(10_000, 2), (100_000, 8), (7, 2), (1, 1), (100, 64), (999, 3)])
def test_runs_of_seeds_cover_every_game_once_in_order_and_shrink_at_the_end(games, jobs):
    from pitwall.interpreter.simulate import chunks

    runs = chunks(11, games, jobs)
    assert [s for r in runs for s in r] == list(range(11, 11 + games))
    sizes = [len(r) for r in runs]
    full = max(sizes)
    assert full <= 200 and all(n >= max(1, full // 8) for n in sizes[:-1])
    assert sizes == sorted(sizes, reverse=True)  # the long runs first, none long at the end
    if games // (jobs * 24) >= 16:  # runs long enough to shrink: the last is an eighth of a full one
        assert sizes[0] == full and sizes[-2] == full // 8


def numbers(data) -> list[float]:
    """Every number of a JSON value, in order."""
    if isinstance(data, dict):
        return [x for v in data.values() for x in numbers(v)]
    if isinstance(data, list):
        return [x for v in data for x in numbers(v)]
    return [data] if isinstance(data, (int, float)) and not isinstance(data, bool) else []


def floats(cells) -> list[float]:
    out = []
    for c in cells:
        try:
            out.append(float(c))
        except ValueError:  # a text: the game's name, an agent
            pass
    return out


def test_the_csv_of_simulate_has_every_figure():
    args = ["simulate", "street-illegal", "-p", 3, "-n", 6, "--events", "--set", "races=2"]
    summary = json.loads(invoke(*args, "--json").stdout)
    r = invoke(*args, "--csv")
    assert r.exit_code == 0, r.output
    rows = list(csv.reader(io.StringIO(r.stdout)))
    assert rows[0] == ["metric", "name", "value", "sd", "lo", "hi", "n"]
    by_key = {(row[0], row[1]): row[2:] for row in rows[1:]}
    assert len(by_key) == len(rows) - 1  # one row per figure
    assert by_key[("setting", "races")] == ["2"] and by_key[("games", "")] == ["6"]
    for p in summary["participants"]:
        rate = p["sole_win_rate"]
        assert by_key[("sole win rate", p["name"])] == [repr(rate["value"]), "", repr(rate["lo"]), repr(rate["hi"]),
                                                        str(rate["n"])]
        assert by_key[("2nd place", p["name"])][0] == repr(p["placings"][1]["value"])
    moves = summary["events"]["overtakes"]
    assert by_key[("event", "overtakes")] == [repr(moves[k]) for k in ("mean", "sd", "lo", "hi")] + [str(moves["n"])]
    cells = floats(c for row in rows[1:] for c in row[2:])
    missing = [x for x in numbers(summary) if float(x) not in cells]
    assert not missing, missing


def test_the_csv_of_compare_has_every_row():
    args = ["compare", "why-first", "-p", 3, "-n", 10, "--with", "tactical", "--with", "all_together_score", "--events"]
    comparisons = json.loads(invoke(*args, "--json").stdout)
    r = invoke(*args, "--csv")
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert list(rows[0]) == ["configuration", "metric", "base", "with", "difference", "lo", "hi", "p", "significant",
                             "test"]
    expected = [(label, row) for label, c in zip(["tactical", "all_together_score"], comparisons) for row in c["rows"]]
    assert len(rows) == len(expected)
    for got, (label, row) in zip(rows, expected):
        assert got["configuration"] == label and got["metric"] == row["metric"] and got["test"] == row["test"]
        assert [float(got[k]) for k in ("base", "with", "difference", "lo", "hi", "p")] == [
            row[k] for k in ("base", "with", "difference", "lo", "hi", "p")]
        assert got["significant"] == ("true" if row["significant"] else "false")


def test_json_and_csv_together_are_a_usage_error():
    for command in (["simulate", "why-first"], ["compare", "why-first", "--with", "tactical"]):
        r = invoke(*command, "-n", 2, "--json", "--csv")
        assert r.exit_code == 2 and "choose one" in r.output and "Traceback" not in r.output


def test_the_legend_is_on_stdout_under_the_tables():
    r = invoke("simulate", "why-first", "-p", 3, "-n", 10)
    assert r.exit_code == 0, r.output
    assert "±: half-width of the 95% confidence interval" in r.stdout
    assert "shared wins: games won together with others" in r.stdout and "margin: " in r.stdout
    assert r.stdout.index("±: half-width") > r.stdout.index("lead changes │")
    assert "±" not in r.stderr and "games/s" in r.stderr  # the speed only, which changes from run to run
    c = invoke("compare", "why-first", "-p", 3, "-n", 10, "--with", "tactical")
    assert c.exit_code == 0, c.output
    assert "*: significant at the 5% level" in c.stdout and "two-proportion z-test" in c.stdout
    assert "paired t-test" in c.stdout


# ---------------------------------------------------------------- golden tables
TABLES = {
    "simulate-why_first": ["simulate", "why-first", "-p", 3, "-n", 20, "-a", "1=heuristic", "--events"],
    "simulate-street_illegal": ["simulate", "street-illegal", "-p", 2, "-n", 6, "-a", "heuristic"],
    "simulate-race_formula_90": ["simulate", "race_formula_90", "-p", 2, "-n", 2],
    "compare-why_first": ["compare", "why-first", "-p", 2, "-n", 20, "--with", "tactical", "--events"],
}


@pytest.mark.parametrize("name", list(TABLES))
def test_golden_tables(name):
    r = invoke(*TABLES[name])
    assert r.exit_code == 0, r.output
    golden = GOLDEN / f"{name}.txt"
    if os.environ.get("PITWALL_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(r.stdout, encoding="utf-8")
    assert r.stdout == golden.read_text(encoding="utf-8")
