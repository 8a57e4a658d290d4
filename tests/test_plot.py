"""--plot (matplotlib, an optional extra) and `pitwall report` (one HTML page, its own SVG):
charts are valid SVG and the same data give the same bytes; the report holds the tables, has no
external address, and escapes every text that comes from rules or files. Results are built by
hand here (the formats of simulate, compare and sweep --json), and also made by the commands."""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from clihelp import invoke
from pitwall.interpreter import plot
from pitwall.interpreter.report import html_report

try:
    import matplotlib  # noqa: F401

    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False
needs_matplotlib = pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="matplotlib (pip install 'pitwall[plot]') "
                                                                   "is not installed")
HOSTILE = '<script>alert("x")</script>&amp;'


def rate(v: float, n: int = 100) -> dict:
    return {"value": v, "lo": max(0.0, v - 0.08), "hi": min(1.0, v + 0.08), "n": n}


def stat(m: float, n: int = 100) -> dict:
    return {"mean": m, "sd": 1.5, "lo": m - 0.4, "hi": m + 0.4, "n": n}


def summary(names=("Anne", "Ben", "Chris"), variants=(), settings=None, shift=0.0, score=True) -> dict:
    k = len(names)
    people = []
    for i, n in enumerate(names):
        v = 1 / k + (i - 1) * 0.05 + shift * (i == 0)
        people.append({"name": n, "agent": "random", "sole_wins": round(v * 100), "shared_wins": 3,
                       "sole_win_rate": rate(v), "shared_win_rate": rate(0.03),
                       "placings": [rate(v)] + [rate((1 - v) / (k - 1))] * (k - 1),
                       "score": stat(5.0 + i) if score else None})
    return {"game": "g", "variants": list(variants), "settings": dict(settings or {}), "games": 100, "seed": 1,
            "length": {"turns": stat(20.0), "decisions": stat(40.0), "events": stat(60.0)},
            "margin": stat(2.0) if score else None, "lead_changes": stat(3.0), "participants": people,
            "events": {"overtakes": stat(1.0)}}


def comparison(base: dict | None = None, other: dict | None = None) -> dict:
    base = base or summary()
    other = other or summary(variants=["v"], shift=0.1)
    return {"base": base, "with": other,
            "rows": [{"metric": "Anne sole win rate", "base": 0.28, "with": 0.38, "difference": 0.1, "lo": 0.01,
                      "hi": 0.19, "p": 0.03, "significant": True, "test": "two-proportion z"}]}


def sweep_result(values=(2, 3, 4), failed: int | None = 5) -> dict:
    points = [{"values": {"X": x}, "summary": summary(variants=[f"X={x}"], shift=0.05 * x)} for x in values]
    if failed is not None:
        points.append({"values": {"X": failed}, "summary": None, "error": "rules.pw:3:1: error: X must be small"})
    return {"vary": ["X"], "points": points}


def svg_root(path: Path) -> ET.Element:
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def texts(root: ET.Element) -> list[str]:
    return ["".join(e.itertext()) for e in root.iter("{http://www.w3.org/2000/svg}text")]


# ---------------------------------------------------------------- plots
@needs_matplotlib
@pytest.mark.parametrize("draw, data", [
    (plot.plot_summary, summary()),
    (plot.plot_configurations, [summary(), summary(variants=["v"], shift=0.1)]),
    (plot.plot_configurations, [summary(score=False), summary(variants=["v"], score=False)]),
    (plot.plot_sweep, sweep_result()),
    (plot.plot_sweep, {"vary": ["X", "Y"], "points": [{"values": {"X": 1, "Y": "a"}, "summary": summary()},
                                                     {"values": {"X": 1, "Y": "b"}, "summary": summary()}]}),
])
def test_a_chart_is_valid_svg_naming_the_participants_and_the_same_data_give_the_same_bytes(tmp_path, draw, data):
    first, again = tmp_path / "a.svg", tmp_path / "b.svg"
    draw(data, first)
    draw(data, again)
    assert first.read_bytes() == again.read_bytes()
    shown = " ".join(texts(svg_root(first)))
    for name in ("Anne", "Ben", "Chris"):
        assert name in shown
    assert "<dc:date>" not in first.read_text()


@needs_matplotlib
def test_a_chart_as_png(tmp_path):
    plot.plot_summary(summary(), tmp_path / "s.png")
    assert (tmp_path / "s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@needs_matplotlib
def test_the_summary_chart_stacks_each_placing_and_the_sweep_chart_runs_along_the_swept_values(tmp_path):
    plot.plot_summary(summary(), tmp_path / "s.svg")
    assert {"1st", "2nd", "3rd"} <= set(texts(svg_root(tmp_path / "s.svg")))
    plot.plot_sweep(sweep_result(), tmp_path / "w.svg")
    shown = texts(svg_root(tmp_path / "w.svg"))
    assert {"2", "3", "4"} <= set(shown) and "5" not in shown  # the point that failed is left out
    assert "X" in shown


@needs_matplotlib
def test_a_sweep_with_no_result_has_nothing_to_plot(tmp_path):
    with pytest.raises(Exception, match="no point of the sweep has a result"):
        plot.plot_sweep({"vary": ["X"], "points": [{"values": {"X": 1}, "summary": None, "error": "e"}]},
                        tmp_path / "w.svg")


def test_without_matplotlib_plot_says_what_to_install_before_any_game(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails, as when not installed
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    r = invoke("simulate", "why-first", "-n", "2", "--plot", tmp_path / "s.svg")
    assert r.exit_code == 2
    assert "install the plot extra: pip install 'pitwall[plot]'" in r.output
    assert "Traceback" not in r.output and not (tmp_path / "s.svg").exists()


def test_plot_takes_svg_or_png(tmp_path):
    r = invoke("simulate", "why-first", "-n", "2", "--plot", tmp_path / "s.pdf")
    assert r.exit_code == 2
    assert "the chart is written as .svg or .png" in r.output


@needs_matplotlib
def test_simulate_and_compare_draw_their_charts(tmp_path):
    r = invoke("simulate", "why-first", "-p", "3", "-n", "5", "--plot", tmp_path / "s.svg")
    assert r.exit_code == 0, r.output
    assert {"Anne", "Ben", "Chris"} <= set(texts(svg_root(tmp_path / "s.svg")))
    r = invoke("compare", "why-first", "--with", "tactical", "-p", "3", "-n", "5", "--plot", tmp_path / "c.svg")
    assert r.exit_code == 0, r.output
    shown = texts(svg_root(tmp_path / "c.svg"))
    assert "tactical" in shown and "base game" in shown


# ---------------------------------------------------------------- report
def svgs_of(page: str) -> list[ET.Element]:
    """Each inline chart of a page, parsed as XML: well-formed, whatever texts it holds."""
    return [ET.fromstring(m) for m in re.findall(r"<svg .*?</svg>", page, re.S)]


@pytest.mark.parametrize("data, heads", [
    (summary(), ["participant", "sole win rate", "shared win rate", "1st place", "turns per game"]),
    (comparison(), ["metric", "difference", "significant", "two-proportion z", "Sole win rate side by side"]),
    (sweep_result(), ["point", "X=2", "X=4", "Sole win rate", "Mean score", "Game length (turns per game)"]),
])
def test_the_report_holds_the_tables_and_charts_and_needs_no_network(data, heads):
    page = html_report(data, "result.json")
    for head in heads:
        assert head in page
    assert page.count("<table>") >= 1 and svgs_of(page)
    assert "http" not in page and "<script" not in page and "src=" not in page and "@import" not in page
    assert "95% interval" in page  # the legend goes with the tables


def test_the_report_of_a_sweep_shows_the_point_that_failed_with_its_message():
    page = html_report(sweep_result(), "r.json")
    assert "X=5" in page and "X must be small" in page


def test_the_report_escapes_every_text_from_rules_or_files():
    base = summary(names=(HOSTILE, "Ben", "Chris"), variants=[HOSTILE], settings={HOSTILE: HOSTILE})
    base["events"] = {HOSTILE: stat(1.0)}
    other = summary(names=(HOSTILE, "Ben", "Chris"), variants=[HOSTILE + "2"])
    data = comparison(base, other)
    data["rows"][0]["metric"] = HOSTILE
    sweep = {"vary": [HOSTILE], "points": [{"values": {HOSTILE: HOSTILE}, "summary": base},
                                           {"values": {HOSTILE: "b"}, "summary": None, "error": HOSTILE}]}
    for result in (base, data, sweep):
        page = html_report(result, HOSTILE)
        assert "<script" not in page and '"x"' not in page.replace("&quot;x&quot;", "")
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;amp;" in page
        svgs_of(page)


def test_report_command_writes_the_page_from_a_file_or_standard_input(tmp_path):
    saved = tmp_path / "sweep.json"
    saved.write_text(json.dumps(sweep_result()))
    r = invoke("report", saved)
    assert r.exit_code == 0, r.output
    assert "X=3" in (tmp_path / "sweep.html").read_text()
    r = invoke("report", "-", "-o", tmp_path / "c.html", input=json.dumps(comparison()))
    assert r.exit_code == 0, r.output
    assert "two-proportion z" in (tmp_path / "c.html").read_text()


@pytest.mark.parametrize("text, message", [
    ("{not json", "is not JSON (line 1, column 2"),
    ('{"x": 1}', "is not the --json of simulate, compare or sweep"),
    ('{"vary": ["X"], "points": [{"values": {"X": 1}, "summary": {"game": "g"}}]}',
     "is not a whole result of sweep --json"),
])
def test_report_of_something_else_is_an_error_without_traceback(tmp_path, text, message):
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    r = invoke("report", bad, "-o", tmp_path / "bad.html")
    assert r.exit_code == 2
    assert message in r.output and "Traceback" not in r.output
    assert not (tmp_path / "bad.html").exists()


def test_report_of_standard_input_needs_an_output_name():
    r = invoke("report", "-", input="{}")
    assert r.exit_code == 2
    assert "-o FILE.html" in r.output


def test_the_report_of_several_comparisons_shows_each_against_the_same_base():
    data = [comparison(), comparison(other=summary(variants=["w"], shift=0.2))]
    page = html_report(data, "c.json")
    assert "v against base game" in page and "w against base game" in page
    assert page.count("<h2>base game</h2>") == 1 and len(svgs_of(page)) == 1 + 3


@pytest.mark.parametrize("command", [
    ["simulate", "why-first", "-p", "3", "-n", "4", "--events"],
    ["compare", "street-illegal", "-p", "3", "-n", "3", "--with", "nitrous_oxide"],
    ["compare", "street-illegal", "-p", "2", "-n", "2", "--with", "nitrous_oxide", "--with", "better_old_pros"],
])
def test_the_report_reads_what_simulate_and_compare_print(tmp_path, command):
    r = invoke(*command, "--json")
    assert r.exit_code == 0, r.output
    r = invoke("report", "-", "-o", tmp_path / "r.html", input=r.stdout)
    assert r.exit_code == 0, r.output
    page = (tmp_path / "r.html").read_text()
    assert "<table>" in page and "http" not in page
    svgs_of(page)
