"""`--plot FILE.svg|.png`: charts of a Summary, of configurations side by side, and of a Sweep.

matplotlib is an optional extra (pip install 'pitwall[plot]'); without it --plot stops with a
clear message before any game is played. The same data give the same bytes (an SVG's ids
are salted with a fixed text and it carries no date), so a chart can be kept and compared.
"""

from __future__ import annotations

from pathlib import Path

from .errors import PitwallError

EXTRA = "install the plot extra: pip install 'pitwall[plot]'"
FORMATS = (".svg", ".png")
_ORDINAL = {1: "st", 2: "nd", 3: "rd"}


def check(path: Path) -> None:
    """Before the games: the file's format, and that matplotlib is there."""
    if path.suffix.lower() not in FORMATS:
        raise PitwallError(f"--plot {str(path)!r}: the chart is written as .svg or .png",
                           hint="name the file so, e.g. --plot chart.svg")
    _matplotlib()


def _matplotlib():
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        raise PitwallError(EXTRA, hint="--plot draws its charts with matplotlib") from None
    return matplotlib, Figure


def label_of(summary: dict) -> str:
    """A configuration as a chart's legend names it: its variants and settings."""
    words = list(summary.get("variants") or [])
    words += [f"{n}={v}" for n, v in (summary.get("settings") or {}).items()]
    return " + ".join(words) or "base game"


def ordinal(place: int) -> str:
    return f"{place}{'th' if 10 <= place % 100 <= 20 else _ORDINAL.get(place % 10, 'th')}"


def plot_summary(summary: dict, path: Path) -> None:
    """Win rates (sole and shared) with their intervals; each participant's placings, stacked."""
    people = summary["participants"]
    names = [p["name"] for p in people]
    fig, (rates, places) = _figure(2, len(names))
    _bars(rates, names, [("sole wins", [p["sole_win_rate"] for p in people]),
                         ("shared wins", [p["shared_win_rate"] for p in people])])
    rates.set_ylabel("share of games (95% interval)")
    rates.set_title(f"{summary['game']} ({label_of(summary)}): {summary['games']} games")
    left = [0.0] * len(names)
    for i in range(max((len(p["placings"]) for p in people), default=0)):
        share = [p["placings"][i]["value"] if i < len(p["placings"]) else 0.0 for p in people]
        places.barh(names, share, left=left, label=ordinal(i + 1))
        left = [a + b for a, b in zip(left, share)]
    places.invert_yaxis()
    places.set_xlabel("share of games by place")
    places.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="small")
    _save(fig, path)


def plot_configurations(summaries: list[dict], path: Path) -> None:
    """Configurations side by side: each participant's sole win rate (and mean score, where the
    game keeps one) per configuration, with 95% intervals."""
    names: list[str] = []
    for s in summaries:
        names += [p["name"] for p in s["participants"] if p["name"] not in names]
    scored = any(p.get("score") for s in summaries for p in s["participants"])
    fig, panels = _figure(2 if scored else 1, len(names))
    panels = panels if scored else (panels,)
    by_name = [{p["name"]: p for p in s["participants"]} for s in summaries]
    _bars(panels[0], names, [(label_of(s), [rows.get(n, {}).get("sole_win_rate") for n in names])
                             for s, rows in zip(summaries, by_name)])
    panels[0].set_ylabel("sole win rate (95% interval)")
    panels[0].set_title(f"{summaries[0]['game']}: {summaries[0]['games']} games each, same seeds")
    if scored:
        _bars(panels[1], names, [(label_of(s), [_as_rate(rows.get(n, {}).get("score")) for n in names])
                                 for s, rows in zip(summaries, by_name)], legend=False)
        panels[1].set_ylabel("mean score (95% interval)")
    _save(fig, path)


def plot_sweep(result: dict, path: Path) -> None:
    """Each metric against the swept values: one line per participant with its 95% band."""
    from .sweep import label

    done = [p for p in result["points"] if p.get("summary")]
    if not done:
        raise PitwallError("no point of the sweep has a result to plot")
    xs, ticks = _x_axis(result, done, label)
    names: list[str] = []
    for p in done:
        names += [q["name"] for q in p["summary"]["participants"] if q["name"] not in names]
    metrics = [("sole win rate", lambda q: q["sole_win_rate"])]
    if any(q.get("score") for p in done for q in p["summary"]["participants"]):
        metrics.append(("mean score", lambda q: _as_rate(q.get("score"))))
    fig, panels = _figure(len(metrics) + 1, len(done), wide=False, sharex=True)
    for panel, (title, get) in zip(panels, metrics):
        for name in names:
            rows = [(x, get(q)) for x, p in zip(xs, done) for q in p["summary"]["participants"] if q["name"] == name]
            _line(panel, [x for x, r in rows if r], [r for _, r in rows if r], name)
        panel.set_ylabel(f"{title} (95% band)")
        panel.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="small")
    length = panels[-1]
    key = "turns" if all(p["summary"]["length"].get("turns") for p in done) else "decisions"
    _line(length, xs, [_as_rate(p["summary"]["length"][key]) for p in done], f"{key} per game")
    length.set_ylabel(f"{key} per game (95% band)")
    length.set_xlabel(" / ".join(result["vary"]))
    if ticks:
        length.set_xticks(xs, ticks, rotation=30, ha="right", fontsize="small")
    elif len(xs) <= 25:  # whole numbers: each swept value, and no value between them
        length.set_xticks(xs)
    panels[0].set_title(f"{done[0]['summary']['game']}: {done[0]['summary']['games']} games per point, same seeds")
    _save(fig, path)


def _x_axis(result: dict, done: list[dict], label) -> tuple[list, list[str] | None]:
    """One swept whole number: its values on the x axis; anything else: the points in order, named."""
    values = [p["values"][result["vary"][0]] for p in done]
    if len(result["vary"]) == 1 and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return values, None
    return list(range(len(done))), [label(p["values"]) for p in done]


def _as_rate(stat: dict | None) -> dict | None:
    """A Stat drawn as a Rate is: its mean between lo and hi."""
    return None if stat is None else {"value": stat["mean"], "lo": stat["lo"], "hi": stat["hi"]}


def _figure(panels: int, items: int, wide: bool = True, sharex: bool = False):
    _, Figure = _matplotlib()
    width = max(6.4, 1.1 * items + 3) if wide else 7.5
    fig = Figure(figsize=(width, 3.2 * panels), layout="constrained")
    axes = fig.subplots(panels, 1, squeeze=True, sharex=sharex)
    return fig, axes


def _bars(ax, names: list[str], series: list[tuple[str, list]], legend: bool = True) -> None:
    """Grouped bars, one group per name and one bar per series, each with its interval."""
    width = 0.8 / max(1, len(series))
    for k, (title, rates) in enumerate(series):
        xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(names))]
        shown = [(x, r) for x, r in zip(xs, rates) if r]
        ax.bar([x for x, _ in shown], [r["value"] for _, r in shown], width, label=title,
               yerr=[[r["value"] - r["lo"] for _, r in shown], [r["hi"] - r["value"] for _, r in shown]],
               capsize=3)
    ax.set_xticks(range(len(names)), names)
    if legend:
        ax.legend(fontsize="small")


def _line(ax, xs: list, rates: list[dict], name: str) -> None:
    if not xs:
        return
    (drawn,) = ax.plot(xs, [r["value"] for r in rates], marker="o", label=name)
    ax.fill_between(xs, [r["lo"] for r in rates], [r["hi"] for r in rates], alpha=0.2, color=drawn.get_color())


def _save(fig, path: Path) -> None:
    matplotlib, _ = _matplotlib()
    fmt = path.suffix.lower().lstrip(".")
    # No date and fixed ids: the same data give the same file.
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    try:
        with matplotlib.rc_context({"svg.hashsalt": "pitwall", "svg.fonttype": "none"}):
            fig.savefig(path, format=fmt, metadata=metadata)
    except OSError as e:
        raise PitwallError(f"cannot write the chart {str(path)!r}: {e.strerror or e}") from None
