"""`pitwall report RESULT.json -o report.html`: the result of `simulate`, `compare` or `sweep
--json` as one self-contained HTML page, its tables and charts.

The page needs nothing else: no network, no script, its CSS and charts (SVG drawn here, so no
plot extra is needed) inline. Every text that comes from rules or files (names of participants,
variants, settings, events) is escaped: a result file is data, never markup.
"""

from __future__ import annotations

import json
import math
from html import escape
from pathlib import Path

from .errors import PitwallError, read_text

COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")
LEGEND = ("Each rate and mean is followed by its 95% interval [low, high]: a rate's is the Wilson interval, a "
          "mean's the normal one. Figures whose intervals overlap may differ by chance alone. A sole win is a game "
          "won alone; a shared win, one won jointly with others.")
CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 75em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; } h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; }
td { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; } td.text { text-align: left; }
th { background: #f2f2f2; } tr.section td { border-top: 2px solid #888; }
p.legend { color: #555; font-size: 0.9em; max-width: 60em; } .error { color: #a00; }
.yes { font-weight: bold; } svg { display: block; margin: 0.5em 0 1.5em; }
"""


class ReportError(PitwallError):
    pass


# ---------------------------------------------------------------- reading
def read_result(path: Path | str) -> dict:
    """A saved --json of simulate, compare or sweep ("-": standard input)."""
    import sys

    name = "standard input" if str(path) == "-" else str(path)
    text = sys.stdin.read() if str(path) == "-" else read_text(path, "result file", ReportError)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(f"{name} is not JSON (line {e.lineno}, column {e.colno}: {e.msg})",
                          hint="write it with: pitwall simulate|compare|sweep ... --json > RESULT.json") from None
    kind_of(data, name)
    return data


def kind_of(data, name: str = "the result") -> str:
    if isinstance(data, list) and data and all(isinstance(c, dict) and "base" in c and "rows" in c for c in data):
        return "compare"  # several --with: a Comparison each
    if isinstance(data, dict) and "points" in data and "vary" in data:
        return "sweep"
    if isinstance(data, dict) and "base" in data and "rows" in data:
        return "compare"
    if isinstance(data, dict) and "participants" in data and "games" in data:
        return "simulate"
    raise ReportError(f"{name} is not the --json of simulate, compare or sweep",
                      hint="write it with: pitwall simulate|compare|sweep ... --json > RESULT.json")


def html_report(data: dict | list, source: str = "") -> str:
    """The page for a result; a result missing figures it needs is an error, not a broken page."""
    kind = kind_of(data)
    try:
        title, body = {"simulate": _simulate, "compare": _compare, "sweep": _sweep}[kind](data)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        raise ReportError(f"{source or 'the result'} is not a whole result of {kind} --json: "
                          f"{type(e).__name__} {e}", hint="write it again with the same pitwall") from None
    made = f"<p class=legend>From {escape(source)}.</p>" if source else ""
    return (f"<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n<title>{escape(title)}</title>\n"
            f"<style>{CSS}</style>\n</head>\n<body>\n<h1>{escape(title)}</h1>\n{made}\n"
            f"<p class=legend>{escape(LEGEND)}</p>\n{body}\n</body>\n</html>\n")


# ---------------------------------------------------------------- the three kinds of result
def _simulate(s: dict) -> tuple[str, str]:
    return f"{s['game']} ({_label(s)}): {s['games']} games", _summary_section(s)


def _compare(data: dict | list) -> tuple[str, str]:
    """One Comparison, or several against the same base (compare with several --with)."""
    comparisons = data if isinstance(data, list) else [data]
    base, others = comparisons[0]["base"], [c["with"] for c in comparisons]
    parts = [f"<p>{_int(base['games'])} games each on the same seeds, from seed {_int(base['seed'])}.</p>",
             "<h3>Sole win rate side by side</h3>", _side_by_side([base, *others])]
    for c in comparisons:
        parts += [f"<h2>{escape(_label(c['with']))} against {escape(_label(base))}</h2>",
                  _table(["metric", escape(_label(base)), escape(_label(c["with"])), "difference", "95% interval",
                          "p", "significant", "test"], [_compare_row(r) for r in c["rows"]])]
    for s in (base, *others):
        parts.append(f"<h2>{escape(_label(s))}</h2>{_summary_section(s, heading=False)}")
    against = ", ".join(_label(s) for s in others)
    return f"{base['game']}: {against} against {_label(base)}", "\n".join(parts)


def _compare_row(r: dict) -> list[str]:
    yes = "yes" if r["significant"] else "no"
    return [_text(r["metric"]), _num(r["base"]), _num(r["with"]), _num(r["difference"]),
            _interval(r["lo"], r["hi"]), _num(r["p"]), f"<td class={yes}>{yes}</td>", _text(r["test"])]


def _sweep(w: dict) -> tuple[str, str]:
    from .sweep import label

    done = [p for p in w["points"] if p.get("summary")]
    first = done[0]["summary"] if done else None
    vary = ", ".join(str(v) for v in w["vary"])
    title = f"{first['game'] if first else 'sweep'}: sweep of {vary}"
    names: list[str] = []
    for p in done:
        names += [q["name"] for q in p["summary"]["participants"] if q["name"] not in names]
    rows, marks = [], []
    for p in w["points"]:
        start = len(rows)
        if p.get("summary") is None:
            rows.append([_text(label(p["values"])),
                         f"<td class='text error' colspan=5>{escape(str(p.get('error')))}</td>"])
        for q in (p["summary"] or {}).get("participants", []):
            rows.append([_text(label(p["values"]) if len(rows) == start else ""), _text(q["name"]),
                         _rate(q["sole_win_rate"]), _rate(q["shared_win_rate"]), _stat(q.get("score")),
                         _stat(_length(p["summary"])) if len(rows) == start else _cell("")])
        marks.append(start)
    games = f"{_int(first['games'])} games per point on the same seeds, from seed {_int(first['seed'])}. " if first \
        else ""
    parts = [f"<p>{games}{len(w['points'])} points.</p>",
             _table(["point", "participant", "sole win rate", "shared win rate", "mean score", "game length"],
                    rows, sections=marks[1:])]
    if done:
        xs = [label(p["values"]) for p in done]
        parts += ["<h3>Sole win rate</h3>",
                  _svg_lines(xs, [(n, [_find(p, n, "sole_win_rate") for p in done]) for n in names])]
        if any(_find(p, n, "score") for p in done for n in names):
            parts += ["<h3>Mean score</h3>",
                      _svg_lines(xs, [(n, [_as_rate(_find(p, n, "score")) for p in done]) for n in names])]
        parts += [f"<h3>Game length ({_length_word(first)} per game)</h3>",
                  _svg_lines(xs, [("length", [_as_rate(_length(p["summary"])) for p in done])])]
    return title, "\n".join(parts)


def _find(point: dict, name: str, key: str):
    return next((q.get(key) for q in point["summary"]["participants"] if q["name"] == name), None)


def _length(s: dict) -> dict:
    """The game's length: its turns where it counts them, else its decisions."""
    return s["length"].get("turns") or s["length"]["decisions"]


def _length_word(s: dict) -> str:
    return "turns" if s["length"].get("turns") else "decisions"


# ---------------------------------------------------------------- one configuration
def _summary_section(s: dict, heading: bool = True) -> str:
    people = s["participants"]
    places = max((len(p["placings"]) for p in people), default=0)
    rows = [[_text(p["name"]), _text(p["agent"]), _cell(_int(p["sole_wins"])), _cell(_int(p["shared_wins"])),
             _rate(p["sole_win_rate"]), _rate(p["shared_win_rate"]), _stat(p.get("score"))]
            + [_pct(r["value"]) for r in p["placings"]] + [_cell("")] * (places - len(p["placings"])) for p in people]
    head = ["participant", "agent", "sole wins", "shared wins", "sole win rate", "shared win rate", "mean score"]
    parts = ["<h2>Participants</h2>" if heading else "",
             f"<p>{_int(s['games'])} games from seed {_int(s['seed'])}{_settings(s)}.</p>",
             _table(head + [f"{_ordinal(i + 1)} place" for i in range(places)], rows),
             _svg_bars([p["name"] for p in people], [("sole wins", [p["sole_win_rate"] for p in people]),
                                                     ("shared wins", [p["shared_win_rate"] for p in people])])]
    length = s["length"]
    figures = [(f"{k} per game", length.get(k)) for k in ("turns", "decisions", "events")]
    figures += [("winning margin", s.get("margin")), ("lead changes per game", s.get("lead_changes"))]
    parts += ["<h3>The games</h3>",
              _table(["figure", "mean", "sd", "95% interval"],
                     [[_text(n), _num(f["mean"]), _num(f["sd"]), _interval(f["lo"], f["hi"])]
                      for n, f in figures if f])]
    events = s.get("events") or {}
    if events:
        parts += ["<h3>Events told per game</h3>",
                  _table(["event", "mean", "95% interval"],
                         [[_text(n), _num(f["mean"]), _interval(f["lo"], f["hi"])]
                          for n, f in events.items()])]
    return "\n".join(parts)


def _side_by_side(summaries: list[dict]) -> str:
    names: list[str] = []
    for s in summaries:
        names += [p["name"] for p in s["participants"] if p["name"] not in names]
    series = []
    for s in summaries:
        rows = {p["name"]: p for p in s["participants"]}
        series.append((_label(s), [rows[n]["sole_win_rate"] if n in rows else None for n in names]))
    return _svg_bars(names, series)


def _label(s: dict) -> str:
    words = [str(v) for v in s.get("variants") or []]
    words += [f"{n}={v}" for n, v in (s.get("settings") or {}).items()]
    return " + ".join(words) or "base game"


def _settings(s: dict) -> str:
    return f", variants and settings: {escape(_label(s))}" if _label(s) != "base game" else ""


# ---------------------------------------------------------------- cells
def _table(head: list[str], rows: list[list[str]], sections: list[int] = ()) -> str:
    """head: markup already (escaped); rows: cells already made by the helpers below."""
    out = ["<table>", "<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for i, row in enumerate(rows):
        out.append(f"<tr{' class=section' if i in sections else ''}>" + "".join(row) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _text(value) -> str:
    return f"<td class=text>{escape(str(value))}</td>"


def _cell(text: str) -> str:
    return f"<td>{escape(text)}</td>"


def _num(x) -> str:
    return _cell(_fmt(x))


def _interval(lo, hi) -> str:
    return _cell(f"[{_fmt(lo)}, {_fmt(hi)}]")


def _int(x) -> str:
    return escape(str(int(x)))


def _pct(x) -> str:
    return _cell(f"{100 * _finite(x):.1f}%")


def _rate(r: dict | None) -> str:
    if not r:
        return _cell("-")
    return _cell(f"{100 * _finite(r['value']):.1f}% [{100 * _finite(r['lo']):.1f}, {100 * _finite(r['hi']):.1f}]")


def _stat(s: dict | None) -> str:
    if not s:
        return _cell("-")
    return _cell(f"{_finite(s['mean']):.2f} [{_finite(s['lo']):.2f}, {_finite(s['hi']):.2f}]")


def _fmt(x) -> str:
    x = _finite(x)
    return f"{x:.4g}" if abs(x) < 1e4 else f"{x:.0f}"


def _finite(x) -> float:
    """A figure as a number: a file's NaN or infinity draws as 0 rather than breaking the page."""
    x = float(x)
    return x if math.isfinite(x) else 0.0


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _as_rate(stat: dict | None) -> dict | None:
    return None if stat is None else {"value": stat["mean"], "lo": stat["lo"], "hi": stat["hi"]}


# ---------------------------------------------------------------- charts (inline SVG)
W, H, LEFT, BOTTOM, TOP = 640, 260, 56, 60, 16


def _scale(series: list[tuple[str, list]]) -> tuple[float, float]:
    """The value axis: from 0 (or below, for negative figures), in four round steps."""
    values = [_finite(v) for _, rates in series for r in rates if r for v in (r["lo"], r["hi"], r["value"])]
    lo, hi = min(values + [0.0]), max(values + [0.0])
    raw = (hi - lo) / 4 or 0.25
    power = 10 ** math.floor(math.log10(raw))
    steps = [k * power for k in (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 12.5, 15, 20)]
    step = next(k for k in steps if k >= raw)
    while math.floor(lo / step) * step + 4 * step < hi:  # rounding lo down can leave the top out
        step = next(k for k in steps if k > step)
    lo = math.floor(lo / step) * step
    return lo, lo + 4 * step


def _y(v, lo: float, hi: float) -> float:
    return TOP + (H - TOP - BOTTOM) * (1 - (_finite(v) - lo) / (hi - lo))


def _axes(lo: float, hi: float, labels: list[tuple[float, str]], width: int) -> list[str]:
    base = _y(lo, lo, hi)
    out = [_tag("line", x1=LEFT, y1=TOP, x2=LEFT, y2=H - BOTTOM, stroke="#444"),
           _tag("line", x1=LEFT, y1=base, x2=width - 8, y2=base, stroke="#444")]
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        out.append(_tag("text", _fmt(v), x=LEFT - 4, y=_y(v, lo, hi) + 4, **{"text-anchor": "end"}))
    for x, text in labels:
        out.append(_tag("text", text[:40], x=x, y=H - BOTTOM + 14, transform=f"rotate(-25 {x:.1f} {H - BOTTOM + 14})",
                        **{"text-anchor": "end"}))
    return out


def _legend(series: list[tuple[str, list]], width: int) -> list[str]:
    out = []
    for k, (name, _) in enumerate(series):
        y = TOP + 14 * k
        out += [_tag("rect", x=width - 150, y=y, width=10, height=10, fill=COLOURS[k % len(COLOURS)]),
                _tag("text", str(name)[:24], x=width - 136, y=y + 9)]
    return out


def _tag(name: str, text: str | None = None, **attributes) -> str:
    """One SVG element, well-formed XML (every value quoted and escaped, numbers to 0.1)."""
    shown = " ".join(f'{k}="{escape(f"{v:.1f}" if isinstance(v, float) else str(v))}"' for k, v in attributes.items())
    font = ' font-size="11"' if name == "text" else ""
    return f"<{name} {shown}{font}/>" if text is None else f"<{name} {shown}{font}>{escape(text)}</{name}>"


def _svg(width: int, parts: list[str]) -> str:
    return (f'<svg width="{width}" height="{H}" viewBox="0 0 {width} {H}" role="img">' + "".join(parts) + "</svg>")


def _svg_bars(groups: list[str], series: list[tuple[str, list]]) -> str:
    """Grouped bars, one group per name and one bar per series, each with its interval's whisker."""
    lo, hi = _scale(series)
    width = max(W, LEFT + 35 * len(groups) * max(1, len(series)) + 170)
    step = (width - LEFT - 170) / max(1, len(groups))
    bar = step * 0.8 / max(1, len(series))
    parts = _axes(lo, hi, [(LEFT + step * (i + 0.5), str(g)) for i, g in enumerate(groups)], width)
    for k, (_, rates) in enumerate(series):
        colour = COLOURS[k % len(COLOURS)]
        for i, r in enumerate(rates):
            if not r:
                continue
            x = LEFT + step * (i + 0.1) + bar * k
            top, base = _y(r["value"], lo, hi), _y(max(lo, 0.0), lo, hi)
            mid = x + bar / 2
            parts += [_tag("rect", x=x, y=min(top, base), width=bar, height=abs(base - top), fill=colour),
                      _tag("line", x1=mid, y1=_y(r["lo"], lo, hi), x2=mid, y2=_y(r["hi"], lo, hi), stroke="#000")]
    return _svg(width, parts + _legend(series, width))


def _svg_lines(xs: list[str], series: list[tuple[str, list]]) -> str:
    """One line per series over the points in order, with its interval as a band."""
    lo, hi = _scale(series)
    width = max(W, LEFT + 60 * len(xs) + 170)
    step = (width - LEFT - 170) / max(1, len(xs))
    at = [LEFT + step * (i + 0.5) for i in range(len(xs))]
    parts = _axes(lo, hi, list(zip(at, xs)), width)
    for k, (_, rates) in enumerate(series):
        colour = COLOURS[k % len(COLOURS)]
        drawn = [(x, r) for x, r in zip(at, rates) if r]
        if not drawn:
            continue
        band = [f"{x:.1f},{_y(r['hi'], lo, hi):.1f}" for x, r in drawn]
        band += [f"{x:.1f},{_y(r['lo'], lo, hi):.1f}" for x, r in reversed(drawn)]
        line = " ".join(f"{x:.1f},{_y(r['value'], lo, hi):.1f}" for x, r in drawn)
        parts += [_tag("polygon", points=" ".join(band), fill=colour, **{"fill-opacity": "0.18"}),
                  _tag("polyline", points=line, fill="none", stroke=colour, **{"stroke-width": "2"})]
        parts += [_tag("circle", cx=x, cy=_y(r["value"], lo, hi), r=3, fill=colour) for x, r in drawn]
    return _svg(width, parts + _legend(series, width))
