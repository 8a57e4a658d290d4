"""The `pitwall` commands that play many games: simulate, compare, sweep, and the report of their
results; with the options they share (players, games, seeds, agents, --jobs, --cluster, --plot).
Registered on the `pitwall` group by cli.py."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from .cli import (
    WITH_SETTINGS,
    UserError,
    Whole,
    _say,
    _settings,
    _setup,
    cli,
    guarded,
    seed_option,
    settings_option,
    variant_option,
)
from .interpreter.errors import PitwallError
from .interpreter.limits import GAMES_MAX, SEED_MAX


def _json(value, indent: int) -> str:
    import json  # only a run that prints JSON needs it: `pitwall --help` starts without

    return json.dumps(value, indent=indent)


def many_games_options(fn):
    """The options simulate and compare share: who plays, how many games, on what seeds."""
    for option in reversed([
        click.option("--players", "-p", type=Whole(1, 99), help="Number of players."),
        click.option("--games", "-n", "count", type=Whole(1, GAMES_MAX), default=1000, show_default=True,
                     help=f"Games to play (game i on seed S+i), at most {GAMES_MAX}."),
        click.option("--jobs", "-j", type=Whole(1), default=1, show_default=True, help="Worker processes."),
        click.option("--cluster", metavar="ADDRESS", expose_value=False, callback=_remember_cluster,
                     help="Play the games on a Dask cluster instead, given its scheduler's address "
                          "(tcp://HOST:8786); needs pip install 'pitwall[cluster]'."),
        seed_option,
        click.option("--agent", "-a", "agents", multiple=True, metavar="[SEAT=]AGENT",
                     help="As for play; default random."),
        click.option("--events", "count_events", is_flag=True,
                     help="Also count each event of the rules: how often it is told per game."),
        click.option("--plot", metavar="FILE", expose_value=False, callback=_remember_plot,
                     help="Also draw the results into FILE.svg or FILE.png; needs pip install 'pitwall[plot]'."),
    ]):
        fn = option(fn)
    return fn


PLOT = "pitwall.plot"  # where --plot waits in ctx.meta, checked (format, matplotlib) before any game is played


def _remember_plot(ctx, param, value):
    if value is not None:
        from .interpreter.plot import check

        try:
            check(Path(value))
        except PitwallError as e:
            raise UserError(e) from None
        ctx.meta[PLOT] = Path(value)


def _plot(draw, result) -> None:
    """With --plot FILE: draw(result, FILE), and say where the chart is."""
    path = click.get_current_context().meta.get(PLOT)
    if path is not None:
        draw(result, path)
        _say(f"Chart written to {path}")


def _play_many(loaded, names, agents, count, seed, jobs, command, count_events=False):
    """Outcomes of `count` games on seeds seed.., with a progress bar on a terminal."""
    from .interpreter.engine import agent_names
    from .interpreter.simulate import simulate as run

    if seed + count - 1 > SEED_MAX:
        raise click.BadParameter(f"{count} games from seed {seed} would play seeds past {SEED_MAX}, the largest",
                                 param_hint="--seed")
    seats = agent_names(list(agents), len(names), "random")
    if "human" in seats:
        raise click.UsageError(f"{command} plays without people; choose random, first or heuristic agents")
    cluster = _cluster()
    return seats, _with_progress(count, lambda tick: run(loaded.game.ref, loaded.variants, names, seats, count,
                                                         seed, jobs, tick, loaded.settings, count_events,
                                                         cluster=cluster))


CLUSTER = "pitwall.cluster"  # where --cluster waits in ctx.meta: no command needs a parameter of its own for it


def _remember_cluster(ctx, param, value):
    if value is not None and not value.strip():
        raise click.BadParameter("give the Dask scheduler's address, e.g. tcp://HOST:8786")
    if value is not None:
        ctx.meta[CLUSTER] = value.strip()


def _cluster() -> str | None:
    """The scheduler's address, if --cluster gave one. With it, --jobs is a mistake: the cluster's
    workers decide how many games are played at once."""
    from click.core import ParameterSource

    ctx = click.get_current_context()
    address = ctx.meta.get(CLUSTER)
    if address and ctx.get_parameter_source("jobs") not in (None, ParameterSource.DEFAULT):
        raise click.UsageError("--jobs and --cluster do not go together: on a cluster, its workers play the games "
                               "(`dask worker --nthreads N` sets how many each plays at once); drop --jobs")
    return address



@cli.command(short_help='Simulate many games and summarise the results.', context_settings=WITH_SETTINGS)
@click.argument("game")
@variant_option
@many_games_options
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON (every figure, with its interval).")
@click.option("--csv", "as_csv", is_flag=True, help="Print every figure as CSV: metric,name,value,sd,lo,hi,n.")
@settings_option
@guarded
def simulate(ctx, game, variants, players, count, jobs, seed, agents, count_events, as_json, as_csv, sets):
    """Simulate many games (game i uses seed S+i) and summarise the results.

    Per participant: sole and shared wins, win rates, placings and mean score; per game: length
    (turns, decisions, events), winning margin and lead changes, as far as the game declares
    them; with --events, how often each event is told. Each with its 95% interval; the legend
    is printed under the tables.

    \b
    Example:
        pitwall simulate GAME --players 4 --games 10000 --jobs 2
        pitwall simulate GAME -v VARIANT -p 4 -n 2000 --json
        pitwall simulate GAME -p 4 -n 2000 --csv > figures.csv
    """
    from .interpreter.plot import plot_summary
    from .interpreter.stats_table import show_summary, summary_csv

    _one_format(as_json, as_csv)
    loaded, names_ = _setup(game, variants, players, None, _settings(sets, ctx.args))
    start = time.perf_counter()
    summary = _summary(loaded, names_, agents, count, seed, jobs, "simulate", count_events)
    elapsed = time.perf_counter() - start
    _plot(plot_summary, summary)
    if as_json:
        click.echo(_json(summary, indent=2))
    elif as_csv:
        click.echo(summary_csv(summary), nl=False)
    else:
        show_summary(summary)
        _say(f"{count / elapsed:.0f} games/s")


def _one_format(as_json: bool, as_csv: bool) -> None:
    if as_json and as_csv:
        raise click.UsageError("--json and --csv are two ways to print the figures: choose one")


@cli.command(short_help='Simulate variants on the same seeds, side by side.', context_settings=WITH_SETTINGS)
@click.argument("game")
@variant_option
@click.option("--with", "alternatives", multiple=True, required=True, metavar="V[+V2...]",
              help="Variants to compare with the baseline (repeatable; join several with '+').")
@many_games_options
@click.option("--json", "as_json", is_flag=True,
              help="Print the comparison as JSON (a list of them for several --with).")
@click.option("--csv", "as_csv", is_flag=True,
              help="Print every compared figure as CSV: configuration,metric,base,with,difference,lo,hi,p,"
                   "significant,test.")
@settings_option
@guarded
def compare(ctx, game, variants, alternatives, players, count, jobs, seed, agents, count_events, as_json, as_csv,
            sets):
    """Simulate the baseline and each alternative on the same seeds, side by side.

    The baseline is GAME with its --variant options; each --with adds variants to it. Each
    figure of `simulate` is shown for both, with the difference, its 95% interval, the p of a
    stated test and a mark where it is significant (p < 0.05); --events rows come largest
    change first. The legend is printed under the tables.

    \b
    Example:
        pitwall compare GAME --with VARIANT -p 4 -n 5000 --jobs 2
        pitwall compare GAME -v VARIANT --with OTHER --with OTHER+THIRD
        pitwall compare GAME --with VARIANT --events --csv > changes.csv
    """
    from .interpreter.plot import plot_configurations
    from .interpreter.stats import compare_summaries, summarize
    from .interpreter.stats_table import comparison_csv, comparison_legend, show_comparison, show_legend

    _one_format(as_json, as_csv)
    settings = _settings(sets, ctx.args)
    configs = [tuple(variants)] + [tuple(variants) + tuple(a.split("+")) for a in alternatives]
    played = []
    for config in configs:
        loaded, names_ = _setup(game, config, players, None, settings)
        seats, outcomes = _play_many(loaded, names_, agents, count, seed, jobs, "compare", count_events)
        summary = summarize(outcomes, game=loaded.program.game.name, variants=list(loaded.variants),
                            settings=dict(loaded.settings), seed=seed, players=names_, agents=seats)
        played.append((" + ".join(Path(v).stem for v in config) or "base game", summary, outcomes))
    (base_label, base, base_outcomes), others = played[0], played[1:]
    comparisons = [(label, compare_summaries(base, summary, (base_outcomes, outcomes)))
                   for label, summary, outcomes in others]
    _plot(plot_configurations, [summary for _, summary, _ in played])
    if as_json:
        shown = [c for _, c in comparisons]
        click.echo(_json(shown[0] if len(shown) == 1 else shown, indent=2))
    elif as_csv:
        click.echo(comparison_csv(comparisons), nl=False)
    else:
        for label, c in comparisons:
            show_comparison(c, base_label, label)
        show_legend(comparison_legend(base_label, {r["test"] for _, c in comparisons for r in c["rows"]}))


def _with_progress(total, work):
    if not sys.stderr.isatty():
        return work(None)
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("simulating", total=total)
        return work(lambda k: bar.advance(task, k))


@cli.command(short_help="Simulate the game for each value of some constants or settings.",
             context_settings=WITH_SETTINGS)
@click.argument("game")
@variant_option
@click.option("--vary", "varies", multiple=True, required=True, metavar="NAME=VALUES",
              help="A constant or setting and its values: a list (3,4,5; true,false; texts) or a range of whole "
                   "numbers, START..END, both included. Repeatable: every combination is played.")
@many_games_options
@click.option("--json", "as_json", is_flag=True, help="Print the sweep as JSON (each point's values and summary).")
@click.option("--csv", "as_csv", is_flag=True, help="Print a flat table, one row per point and participant.")
@settings_option
@guarded
def sweep(ctx, game, variants, varies, players, count, jobs, seed, agents, count_events, as_json, as_csv, sets):
    """Simulate the game for each value, or each combination of values, of constants and settings.

    Every point plays the same seeds (game i on seed S+i), so points compare fairly. A swept
    setting is given as --set NAME=VALUE would give it, a swept constant as -v NAME=VALUE (a
    one-line variant) after the other variants. A point whose values break a `require` of
    the rules is reported with its message; the other points still play. At most 100 points.

    \b
    Example:
        pitwall sweep GAME --vary CONSTANT=2..6 -p 4 -n 2000
        pitwall sweep GAME --vary CONSTANT=3,5 --vary SETTING=true,false --csv
        pitwall sweep GAME --vary CONSTANT=2..6 --json > sweep.json && pitwall report sweep.json
    """
    from .interpreter.load import load
    from .interpreter.plot import plot_sweep
    from .interpreter.sweep import axes, flat_rows, table
    from .interpreter.sweep import sweep as run_sweep

    if as_json and as_csv:
        raise click.UsageError("--json and --csv are two ways to print the sweep: choose one")
    loaded, names_ = _setup(game, variants, players, None, _settings(sets, ctx.args))
    swept = axes(loaded.program, loaded.consts, list(varies), loaded.settings, loaded.variants)

    def measure(point_variants, point_settings) -> dict:
        point = load(game, point_variants, point_settings)
        return _summary(point, names_, agents, count, seed, jobs, "sweep", count_events)

    result = run_sweep(swept, loaded.variants, loaded.settings, measure)
    failed = [p for p in result["points"] if p["summary"] is None]
    if len(failed) == len(result["points"]):
        raise PitwallError(f"no point of the sweep could be played; the first: {failed[0]['error']}")
    _plot(plot_sweep, result)
    if as_json:
        click.echo(_json(result, indent=2))
    elif as_csv:
        _print_csv(flat_rows(result), result["vary"])
    else:
        from rich.console import Console

        # Not a terminal (a file, a pipe): wide enough that no interval is broken over two lines.
        Console(width=None if sys.stdout.isatty() else 200).print(table(result))
    for p in failed:
        _say(f"note: point {_point_label(p['values'])} was not played: {p['error']}")


def _summary(loaded, names, agents, count, seed, jobs, command, count_events) -> dict:
    """The Summary of `count` games of one configuration, as simulate --json prints it."""
    from .interpreter.stats import summarize

    seats, outcomes = _play_many(loaded, names, agents, count, seed, jobs, command, count_events)
    return summarize(outcomes, game=loaded.program.game.name, variants=list(loaded.variants),
                     settings=dict(loaded.settings), seed=seed, players=names, agents=seats)


def _point_label(values: dict) -> str:
    from .interpreter.sweep import label

    return label(values)


def _print_csv(rows: list[dict], first: list[str]) -> None:
    import csv
    import io

    from .interpreter.sweep import FIELDS

    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(first) + list(FIELDS), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    click.echo(out.getvalue(), nl=False)


@cli.command(short_help="Write a simulate, compare or sweep result as one HTML page.")
@click.argument("result", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path))
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="The HTML file to write (default: RESULT with .html; needed when RESULT is -).")
@guarded
def report(result, output):
    """Write the --json of simulate, compare or sweep as one self-contained HTML page.

    The page holds the result's tables and charts, with their legend; it needs no network and
    no plot extra (its charts are drawn as inline SVG). RESULT is a file, or - for standard
    input.

    \b
    Example:
        pitwall sweep GAME --vary CONSTANT=2..6 --json > sweep.json
        pitwall report sweep.json -o sweep.html
        pitwall compare GAME --with VARIANT --json | pitwall report - -o compare.html
    """
    from .interpreter.report import html_report, read_result

    if output is None and str(result) == "-":
        raise click.UsageError("the page of standard input needs a name: -o FILE.html")
    out = output or result.with_suffix(".html")
    page = html_report(read_result(result), "standard input" if str(result) == "-" else result.name)
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as e:
        raise click.BadParameter(f"cannot write {str(out)!r}: {e.strerror}", param_hint="--output") from None
    _say(f"Report written to {out}")
