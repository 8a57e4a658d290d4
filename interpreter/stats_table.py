"""How `pitwall simulate` and `pitwall compare` show a Summary or a Comparison (stats.py): tables
with their legend, all on stdout, so a saved table keeps what its signs mean; and CSV, every
figure a row.

Rates are shown with their Wilson interval in brackets (it is not symmetric about the rate);
means with ± the half-width of their t interval (which is).
"""

from __future__ import annotations

import csv
import io

from .stats import ALPHA, TEST_PAIRED, TEST_RATES, TEST_WELCH, ordinal

WIDE = 400  # a file or pipe has no width: tables keep their natural width there, never squeezed
LENGTH = (("turns", "turns"), ("decisions", "decisions"), ("events", "events told"))


def console():
    from rich.console import Console

    screen = Console()
    return screen if screen.is_terminal else Console(width=WIDE)


def _table(title: str, columns: list[str], rows: list[list[str]]):
    from rich.table import Table

    table = Table(title=title)
    for i, col in enumerate(columns):
        table.add_column(col, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*row)
    return table


def pct(r: dict) -> str:
    return f"{100 * r['value']:.1f}%"


def pct_interval(r: dict) -> str:
    return f"{pct(r)} ({100 * r['lo']:.1f}-{100 * r['hi']:.1f})"


def mean(s: dict | None) -> str:
    return "-" if s is None else f"{s['mean']:.2f} ±{(s['hi'] - s['lo']) / 2:.2f}"


def configuration(summary: dict) -> str:
    """base game, or its variants and settings: `VARIANT, NAME=VALUE`."""
    words = list(summary["variants"]) + [f"{k}={v}" for k, v in summary["settings"].items()]
    return ", ".join(words) or "base game"


def seeds(summary: dict) -> str:
    n, s = summary["games"], summary["seed"]
    return f"seed {s}" if n == 1 else f"seeds {s} to {s + n - 1}"


# ---------------------------------------------------------------- simulate
def show_summary(summary: dict) -> None:
    out = console()
    for table in summary_tables(summary):
        out.print(table)
    for line in summary_legend(summary):
        out.print(line, markup=False, highlight=False, soft_wrap=True)


def summary_tables(summary: dict) -> list:
    people = summary["participants"]
    scored = any(p["score"] for p in people)
    columns = ["participant", "agent", "sole wins", "sole win rate", "shared wins", "shared win rate"]
    rows = [[p["name"], p["agent"], str(p["sole_wins"]), pct_interval(p["sole_win_rate"]), str(p["shared_wins"]),
             pct_interval(p["shared_win_rate"])] + ([mean(p["score"])] if scored else []) for p in people]
    title = f"{summary['game']} ({configuration(summary)}): {summary['games']} games, {seeds(summary)}"
    tables = [_table(title, columns + (["mean score"] if scored else []), rows)]
    places = max((len(p["placings"]) for p in people), default=0)
    if places:
        tables.append(_table("placings: share of games",
                             ["participant"] + [ordinal(i + 1) for i in range(places)],
                             [[p["name"]] + [pct(r) for r in p["placings"]] for p in people]))
    tables.append(_table("per game", ["figure", "mean", "sd", "games"],
                         [[label, mean(s), f"{s['sd']:.2f}", str(s["n"])] for label, s in _shape(summary)]))
    if summary["events"]:
        tables.append(_table("events told per game, most told first", ["event", "mean", "sd"],
                             [[e, mean(s), f"{s['sd']:.2f}"] for e, s in summary["events"].items()]))
    return tables


def _shape(summary: dict) -> list[tuple[str, dict]]:
    """The per-game figures the game has: length, margin, lead changes."""
    shape = [(label, summary["length"][key]) for key, label in LENGTH]
    shape += [("margin", summary["margin"]), ("lead changes", summary["lead_changes"])]
    return [(label, s) for label, s in shape if s is not None]


def summary_legend(summary: dict) -> list[str]:
    lines = [f"The games played {seeds(summary)}; `pitwall play GAME --seed S` plays any one of them again.",
             "Rates: % of games, with the 95% confidence interval in brackets (Wilson). "
             "±: half-width of the 95% confidence interval of a mean (Student's t); sd: standard deviation.",
             "sole wins: games won alone; shared wins: games won together with others (a tie the rules allow)."]
    if any(p["placings"] for p in summary["participants"]):
        lines.append("placings: the share of games each participant finished in each place, by the game's ranking "
                     "(its `rank`, else winners first, then by score).")
    if summary["length"]["turns"] is not None:
        lines.append("turns: the game's `turns` at the end; decisions and events told: every one, forced ones too.")
    if summary["margin"] is not None:
        lines.append("margin: the best-ranked winner's score minus the best-ranked other's (below 0 where the rules "
                     "let a lower score win; games that everybody won are left out).")
    if summary["lead_changes"] is not None:
        lines.append("lead changes: how often the game's `leader` changed, looked at as each turn begins and at the "
                     "end.")
    lines.append("--json and --csv give every figure with its interval.")
    return lines


# ---------------------------------------------------------------- compare
def show_comparison(comparison: dict, base_label: str, label: str) -> None:
    out = console()
    for table in comparison_tables(comparison, base_label, label):
        out.print(table)


def comparison_tables(comparison: dict, base_label: str, label: str) -> list:
    base, other = comparison["base"], comparison["with"]
    columns = ["metric", base_label, label, "difference (95% interval)", "p", "p < 0.05"]
    figures = [r for r in comparison["rows"] if not r["metric"].startswith("event: ")]
    events = [r for r in comparison["rows"] if r["metric"].startswith("event: ")]
    title = f"{base['game']}: {base_label} and {label}, {base['games']} games each, the same {seeds(base)}"
    tables = [_table(title, columns, [_compared(r) for r in figures])]
    if events:
        rows = []
        for r in events:
            name = r["metric"][len("event: "):]
            row = _compared(r)
            # "-": the configuration does not have the event at all (a variant adds it)
            row[1] = row[1] if name in base["events"] else "-"
            row[2] = row[2] if name in other["events"] else "-"
            rows.append([name] + row[1:])
        tables.append(_table("events told per game, largest change first", ["event"] + columns[1:], rows))
    return tables


def _is_rate(row: dict) -> bool:
    return row["test"] == TEST_RATES


def _compared(r: dict) -> list[str]:
    if _is_rate(r):  # in percentage points
        a, b = f"{100 * r['base']:.1f}%", f"{100 * r['with']:.1f}%"
        d = f"{100 * r['difference']:+.1f} ({100 * r['lo']:+.1f} to {100 * r['hi']:+.1f})"
    else:
        a, b = f"{r['base']:.2f}", f"{r['with']:.2f}"
        d = f"{r['difference']:+.2f} ({r['lo']:+.2f} to {r['hi']:+.2f})"
    p = "<0.001" if r["p"] < 0.001 else f"{r['p']:.3f}"
    return [r["metric"], a, b, d, p, "*" if r["significant"] else ""]


def comparison_legend(base_label: str, tests: set[str]) -> list[str]:
    lines = [f"difference: the configuration minus the {base_label}, with its 95% confidence interval; rates in "
             "percentage points. Both play the same seeds."]
    how = []
    if TEST_RATES in tests:
        how.append("rates: two-proportion z-test (interval: Newcombe's, from the Wilson intervals)")
    if TEST_PAIRED in tests:
        how.append("means: paired t-test on the per-seed differences")
    if TEST_WELCH in tests:
        how.append("means some games lack (margin) or without the games at hand: Welch's t-test")
    lines.append("p: " + "; ".join(how) + ".")
    lines.append(f"*: significant at the {100 * ALPHA:.0f}% level (p < {ALPHA}). With many rows, about one unchanged "
                 "figure in 20 is marked by chance: play more games before believing a lone mark.")
    lines.append("--json and --csv give every figure; `pitwall simulate` shows one configuration in full.")
    return lines


def show_legend(lines: list[str]) -> None:
    out = console()
    for line in lines:
        out.print(line, markup=False, highlight=False, soft_wrap=True)


# ---------------------------------------------------------------- CSV
SUMMARY_CSV = ["metric", "name", "value", "sd", "lo", "hi", "n"]
COMPARISON_CSV = ["configuration", "metric", "base", "with", "difference", "lo", "hi", "p", "significant", "test"]


def summary_csv(summary: dict) -> str:
    """One row per figure (SUMMARY_CSV): `name` is the participant, event or setting a row is
    about (empty for the game's own figures); a rate's row has no sd, a count's only a value."""
    rows = [["game", "", summary["game"]], ["variants", "", "+".join(summary["variants"])],
            ["seed", "", summary["seed"]], ["games", "", summary["games"]]]
    rows += [["setting", k, v] for k, v in summary["settings"].items()]
    rows += [_stat_row(label, "", s) for label, s in _shape(summary)]
    for p in summary["participants"]:
        name = p["name"]
        rows += [["agent", name, p["agent"]], ["sole wins", name, p["sole_wins"]],
                 ["shared wins", name, p["shared_wins"]], _rate_row("sole win rate", name, p["sole_win_rate"]),
                 _rate_row("shared win rate", name, p["shared_win_rate"])]
        rows += [_rate_row(f"{ordinal(i + 1)} place", name, r) for i, r in enumerate(p["placings"])]
        if p["score"] is not None:
            rows.append(_stat_row("score", name, p["score"]))
    rows += [_stat_row("event", e, s) for e, s in summary["events"].items()]
    return _csv([SUMMARY_CSV] + rows)


def _stat_row(metric: str, name: str, s: dict) -> list:
    return [metric, name, s["mean"], s["sd"], s["lo"], s["hi"], s["n"]]


def _rate_row(metric: str, name: str, r: dict) -> list:
    return [metric, name, r["value"], "", r["lo"], r["hi"], r["n"]]


def comparison_csv(comparisons: list[tuple[str, dict]]) -> str:
    """One row per compared figure (COMPARISON_CSV), for each configuration against the base."""
    rows = [[label] + [r[k] for k in COMPARISON_CSV[1:]] for label, c in comparisons for r in c["rows"]]
    return _csv([COMPARISON_CSV] + rows)


def _csv(rows: list[list]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([[_cell(v) for v in row] for row in rows])
    return out.getvalue()


def _cell(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v) if isinstance(v, float) else str(v)
