"""`pitwall sweep`: the game played for each value, or each combination of values, of some of
its constants and settings, every point on the same seeds so that points compare fairly.

A swept setting is given to the run as `--set NAME=VALUE` would give it; a swept constant as
the one-line variant `-v NAME=VALUE` (see overrides.py), linked after the user's variants. A
point whose values the rules refuse (a `require` they break) is reported with the message,
and the other points still run.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Callable

import attrs

from .cluster import ClusterError
from .errors import PitwallError
from .link import bounds_text, setting_kind, settings_of, within_bounds
from .overrides import canonical_override, is_override, literal, parse_value, value_kind

POINTS_MAX = 100  # points of one sweep, all --vary combined: each is a whole simulation
_RANGE = re.compile(r"\s*([+-]?[0-9]{1,19})\s*\.\.\s*([+-]?[0-9]{1,19})\s*\Z")


@attrs.frozen
class Axis:
    """One --vary: a constant or setting and the values it takes, in the order given."""

    name: str
    setting: bool
    values: tuple


def parse_vary(text: str) -> tuple[str, list[str]]:
    """NAME=VALUES: a comma list (3,4,5; true,false; texts) or a whole-number range START..END."""
    name, eq, values = text.partition("=")
    name = name.strip()
    if not eq or not name:
        raise PitwallError(f"--vary {_shown(text)} is not NAME=VALUES", hint="for example: --vary NAME=2..6 or "
                                                                           "--vary NAME=3,5,8")
    if ".." in values:
        return name, _range(name, values)
    items = [v.strip() for v in values.split(",")]
    if any(not v for v in items):
        raise PitwallError(f"--vary {_shown(text)} has an empty value", hint="values are separated by single commas")
    return name, items


def _range(name: str, text: str) -> list[str]:
    m = _RANGE.match(text)
    if m is None:
        raise PitwallError(f"--vary {name}={_shown(text)}: a malformed range",
                           hint="a range is START..END of two whole numbers, both included: 2..6")
    lo, hi = int(m[1]), int(m[2])
    if lo > hi:
        raise PitwallError(f"--vary {name}={text.strip()}: the range ends before it starts",
                           hint=f"write it from the smaller value: {hi}..{lo}")
    if hi - lo + 1 > POINTS_MAX:
        raise _too_many(hi - lo + 1)
    return [str(v) for v in range(lo, hi + 1)]


def _too_many(count: int) -> PitwallError:
    return PitwallError(f"the sweep has {count:,} points, more than {POINTS_MAX}",
                        hint="sweep fewer values (a step of a range: list them, as 2,4,6,8), or fewer names at once")


def axes(program, consts: dict, varies: list[str], settings: tuple, variants: tuple) -> list[Axis]:
    """Each --vary checked against the rules (program, and the constants' worked-out values):
    the name exists, every value is of its kind, and the sweep is not too large."""
    out: list[Axis] = []
    given = {name for name, _ in settings} | {v.partition("=")[0].strip() for v in variants if is_override(v)}
    for text in varies:
        name, raw = parse_vary(text)
        if any(a.name == name for a in out):
            raise PitwallError(f"{name!r} is swept twice", hint="give each name one --vary, its values comma-separated")
        if name in given:
            raise PitwallError(f"{name!r} is swept and also given a value", hint=f"drop --set or -v {name}=...")
        out.append(_axis(program, consts, name, raw))
    count = 1
    for a in out:
        count *= len(a.values)
    if count > POINTS_MAX:
        raise _too_many(count)
    return out


def _axis(program, consts: dict, name: str, raw: list[str]) -> Axis:
    decl = program.consts.get(name)
    if decl is None:
        close = difflib.get_close_matches(name, list(program.consts), n=1)
        title = program.game.title if program.game else "the game"
        raise PitwallError(f"{title} has no constant or setting {name!r}",
                           hint=f"did you mean {close[0]!r}?" if close else "pitwall outline GAME lists them")
    setting = name in settings_of(program)
    kind = setting_kind(decl) if setting else value_kind(consts.get(name))
    if kind is None:
        raise PitwallError(f"constant {name!r} is not a whole number, true/false or a text: a sweep cannot vary it",
                           hint=f"change it in a variant file (declared at {decl.span})")
    values = []
    for r in raw:
        try:
            value = parse_value(r, kind)
        except PitwallError as e:
            e.message = f"--vary {name}: {e.message}"
            e.hint = f"{name} is a {'setting' if setting else 'constant'} of {_kind_words(kind)}"
            raise
        if setting and kind == "int" and not within_bounds(decl, value):
            raise PitwallError(f"--vary {name}: setting {name!r} must be {bounds_text(decl)}, not {value}",
                               hint=f"declared at {decl.span}")
        if value in values:
            raise PitwallError(f"--vary {name}: {literal(value)} is given twice")
        values.append(value)
    return Axis(name, setting, tuple(values))


def _kind_words(kind: str) -> str:
    return {"int": "whole numbers", "bool": "true or false", "text": "texts"}[kind]


def points(swept: list[Axis]) -> list[dict]:
    """Every combination of the values, the first --vary changing slowest."""
    return [dict(zip((a.name for a in swept), combo)) for combo in itertools.product(*(a.values for a in swept))]


def configuration(swept: list[Axis], values: dict, variants: tuple, settings: tuple) -> tuple[tuple, tuple]:
    """The variants and settings of one point, as simulate takes them: constants after the
    user's variants, settings after the user's."""
    setting = {a.name for a in swept if a.setting}
    extra = tuple(canonical_override(n, v) for n, v in values.items() if n not in setting)
    given = tuple((n, _setting_text(v)) for n, v in values.items() if n in setting)
    return tuple(variants) + extra, tuple(settings) + given


def _setting_text(value) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def sweep(swept: list[Axis], variants: tuple, settings: tuple,
          measure: Callable[[tuple, tuple], dict]) -> dict:
    """The Sweep: each point's values and Summary (measure(variants, settings)), or, for a point
    the rules refuse, its error instead."""
    out = []
    for values in points(swept):
        point_variants, point_settings = configuration(swept, values, variants, settings)
        try:
            out.append({"values": values, "summary": measure(point_variants, point_settings)})
        except ClusterError:  # the cluster, not this point's values: no point would fare better
            raise
        except PitwallError as e:  # this point's values break the rules: the others still tell
            out.append({"values": values, "summary": None, "error": error_text(e)})
    return {"vary": [a.name for a in swept], "points": out}


def error_text(e: PitwallError) -> str:
    """An error in one line or a few: where, what, and the hint."""
    return str(e) + (f" ({e.hint})" if e.hint else "")


def label(values: dict) -> str:
    return ", ".join(f"{n}={literal(v) if isinstance(v, str) else _setting_text(v)}" for n, v in values.items())


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")


# ---------------------------------------------------------------- the flat table (--csv, the terminal's)
FIELDS = ("participant", "agent", "games", "sole_win_rate", "sole_win_lo", "sole_win_hi", "shared_win_rate",
          "shared_win_lo", "shared_win_hi", "score_mean", "score_lo", "score_hi", "turns_mean", "turns_lo",
          "turns_hi", "decisions_mean", "error")


def flat_rows(result: dict) -> list[dict]:
    """One row per point and participant (a point that failed: one row with its error), the
    swept values first: what --csv prints and a spreadsheet reads."""
    out = []
    for point in result["points"]:
        values = {n: _setting_text(v) if not isinstance(v, str) else v for n, v in point["values"].items()}
        summary = point["summary"]
        if summary is None:
            out.append({**values, **dict.fromkeys(FIELDS, ""), "error": point.get("error", "")})
            continue
        length = summary["length"]
        common = {"games": summary["games"], **_stat("turns", length.get("turns")),
                  "decisions_mean": _num(length["decisions"]["mean"]), "error": ""}
        for p in summary["participants"]:
            sole, shared = p["sole_win_rate"], p["shared_win_rate"]
            out.append({**values, "participant": p["name"], "agent": p["agent"],
                        "sole_win_rate": _num(sole["value"]), "sole_win_lo": _num(sole["lo"]),
                        "sole_win_hi": _num(sole["hi"]), "shared_win_rate": _num(shared["value"]),
                        "shared_win_lo": _num(shared["lo"]), "shared_win_hi": _num(shared["hi"]),
                        **_stat("score", p.get("score")), **common})
    return out


def _stat(name: str, stat: dict | None) -> dict:
    if stat is None:
        return {f"{name}_mean": "", f"{name}_lo": "", f"{name}_hi": ""}
    return {f"{name}_mean": _num(stat["mean"]), f"{name}_lo": _num(stat["lo"]), f"{name}_hi": _num(stat["hi"])}


def _num(x: float) -> str:
    """A figure as a table cell: 4 decimals at most, so equal results print equal text."""
    return f"{x:.4f}".rstrip("0").rstrip(".") if isinstance(x, float) else str(x)


def table(result: dict):
    """The terminal's table: per point and participant the sole and shared win rates, the mean
    score where the game keeps one, and the game's length, each with its 95% interval; the
    legend is the table's caption, so it goes wherever the table goes."""
    from rich.table import Table

    done = [p["summary"] for p in result["points"] if p["summary"]]
    first = done[0] if done else {"game": "?", "games": 0, "seed": 0, "length": {}}
    scored = any(q.get("score") for s in done for q in s["participants"])
    length = "turns" if all(s["length"].get("turns") for s in done) else "decisions"
    out = Table(title=f"{first['game']}: {first['games']} games per point, seeds {first['seed']} to "
                      f"{first['seed'] + first['games'] - 1}",
                caption=_escape("[lo, hi]: the 95% interval (Wilson for rates, normal for means); sole: won "
                                "alone, shared: won jointly"), caption_justify="left")
    for name in result["vary"]:
        out.add_column(name)
    for col in ("participant", "sole win", "shared win") + (("mean score",) if scored else ()) + (length,):
        out.add_column(col, justify="left" if col == "participant" else "right")
    for point in result["points"]:
        values = [_cell_value(v) for v in point["values"].values()]
        s = point["summary"]
        if s is None:
            out.add_row(*values, f"[red]{_escape(point.get('error', ''))}[/red]", end_section=True)
            continue
        people = s["participants"]
        for i, q in enumerate(people):
            row = [_escape(q["name"]), _rate(q["sole_win_rate"]), _rate(q["shared_win_rate"])]
            row += [_mean(q.get("score"))] if scored else []
            row += [_mean(s["length"].get(length)) if i == 0 else ""]
            out.add_row(*(values if i == 0 else [""] * len(values)), *row, end_section=i == len(people) - 1)
    return out


def _cell_value(v) -> str:
    return _escape(v if isinstance(v, str) else _setting_text(v))


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(str(text))


def _rate(r: dict) -> str:
    return f"{100 * r['value']:.1f}% [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]"


def _mean(s: dict | None) -> str:
    return "-" if s is None else f"{s['mean']:.2f} [{s['lo']:.2f}, {s['hi']:.2f}]"
