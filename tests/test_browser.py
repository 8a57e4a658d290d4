"""The page `pitwall view` writes, in a real browser: headless Chromium (the system's, e.g. Debian's
`chromium` package; never one downloaded at run time) driven by Playwright, loads the page of a
recorded game of each shipped game, steps forward and back, jumps to a decision, and reads what
is shown against the game replayed in Python. Skipped, saying why, without either."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from clihelp import add_game, invoke
from pitwall.interpreter.record import read
from pitwall.interpreter.viewer import html_page, watch

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"
GAMES = {"why_first": GOLDEN / "why_first" / "base-p3-seed2-random.jsonl",
         "street_illegal": GOLDEN / "street_illegal" / "base-p3-seed1-heuristic.jsonl",
         "race_formula_90": GOLDEN / "race_formula_90" / "base-p2-seed2-random.jsonl"}
CHROMIUM = os.environ.get("PITWALL_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright import sync_api
    except ImportError as e:  # not installed, or installed without what it needs
        pytest.skip(f'the browser test needs Playwright ({e}): pip install "pitwall[browser]"; it drives the '
                    "system's Chromium")
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (or set PITWALL_CHROMIUM)")
    with sync_api.sync_playwright() as pw:
        try:
            chromium = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except Exception as e:  # noqa: BLE001 - a browser this machine cannot start is not the page's fault
            pytest.skip(f"Chromium at {CHROMIUM} does not start here: {str(e).splitlines()[0]}")
        yield chromium
        chromium.close()


def opened(browser, path: Path, out: Path):
    """The page of a record, loaded (errors of its script are collected in page.errors), and the
    record's steps as Python sees them (the page written from these, as `pitwall view` does)."""
    steps: list = []
    record = read(path)
    out.write_text(html_page(record, watch(record, steps.append), steps), encoding="utf-8")
    page = browser.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    page.on("dialog", lambda d: (page.errors.append(f"a dialog: {d.message}"), d.dismiss()))
    page.goto(out.as_uri())
    return page, steps


def words(v) -> str:
    """A value as the page words it (as narration does)."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        return ", ".join(words(x) for x in v) if v else "nothing"
    if isinstance(v, dict):
        return "; ".join(f"{k}: {words(x)}" for k, x in v.items()) if v else "nothing"
    return str(v)


def told(step) -> str:
    """The step's line as the page shows it, secret choices unasked."""
    line = step.line
    if "event" in line:
        return line["text"]
    if "decision" in line:
        said = f"> {line['by']} chooses {line['decision']}"
        return f"{said} (secretly)" if line["secret"] else f"{said}: {line['option']}"
    return "Winners: " + (", ".join(line["result"]["winners"]) or "nobody")


def assert_shows(page, steps, i: int) -> None:
    """The page shows step i: its line, its place, the whole board, every participant's row."""
    assert page.text_content("#current") == told(steps[i])
    assert page.text_content("#position").startswith(f"step {i + 1} of {len(steps)} ")
    assert page.eval_on_selector("#slider", "e => +e.value") == i
    state = steps[i].state
    boxes = page.eval_on_selector_all("#board .box", "bs => bs.map(b => [b.dataset.place, "
                                      "b.querySelector('.who').textContent])")
    assert boxes == [(text.split(": ", 1) + [""])[:2] for text in state["board"] or []]
    rows = page.eval_on_selector_all("#participants tr[data-name]",
                                     "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    assert sorted(rows) == sorted([p["name"], *map(words, p["fields"].values()),
                                   *(f"{n} hidden" if n is not None else "hidden" for n in p["hidden"].values())]
                                  for p in state["participants"])


@pytest.mark.parametrize("game", GAMES)
def test_stepping_forward_and_back_and_jumping_to_a_decision(browser, game, tmp_path):
    page, steps = opened(browser, GAMES[game], tmp_path / "game.html")
    assert_shows(page, steps, 0)
    for _ in range(40):
        page.keyboard.press("ArrowRight")
    assert_shows(page, steps, 40)
    page.click("#next")
    assert_shows(page, steps, 41)
    page.click("#prev")
    page.click("#prev")
    assert_shows(page, steps, 39)
    page.keyboard.press("ArrowLeft")
    assert_shows(page, steps, 38)
    # jump to a decision from the list (forced ones left out until asked for)
    item = page.locator("#decisions li:not([hidden])").nth(5)
    at = int(item.get_attribute("data-step"))
    assert steps[at].line["of"] > 1
    item.click()
    assert_shows(page, steps, at)
    assert page.text_content("#decisions li.now") == told(steps[at]).removeprefix("> ")
    # the slider, dragged to the end, and the arrow keys on it step once
    page.eval_on_selector("#slider", "(e, v) => { e.value = v; e.dispatchEvent(new Event('input')); }",
                          len(steps) - 1)
    assert_shows(page, steps, len(steps) - 1)
    page.focus("#slider")
    page.keyboard.press("ArrowLeft")
    assert_shows(page, steps, len(steps) - 2)
    page.keyboard.press("Home")  # on the slider, the browser's own key: to the first step
    assert_shows(page, steps, 0)
    assert page.errors == []


def test_secret_choices_and_options_are_shown_only_on_request(browser, tmp_path):
    page, steps = opened(browser, GAMES["why_first"], tmp_path / "game.html")
    at = next(i for i, s in enumerate(steps) if "decision" in s.line and s.line["secret"] and s.line["of"] > 1)
    line = steps[at].line
    page.click(f"#narration li:nth-child({at + 1})")
    assert_shows(page, steps, at)
    assert line["option"] not in page.text_content("#current") and page.locator("#options li").count() == 0
    assert page.text_content("#choice") == f"{line['by']} picks one of {line['of']} options, secretly"
    page.check("#show-secrets")
    assert page.text_content("#current") == f"> {line['by']} chooses {line['decision']}: {line['option']} (secretly)"
    assert page.locator("#options li").all_text_contents() == list(steps[at].options)
    assert page.text_content("#options li.picked") == line["option"]
    # the list of decisions, filtered by who decides
    page.select_option("#who", line["by"])
    shown = page.locator("#decisions li:not([hidden])").all_text_contents()
    assert shown and all(text.startswith(f"{line['by']} chooses ") for text in shown)
    assert page.errors == []


def test_a_hostile_name_is_shown_as_text(browser, tmp_path):
    hostile = '</script><script>alert(1)</script>'
    other = '<img src=x onerror=alert(2)>'
    record = tmp_path / "game.jsonl"
    assert invoke("play", "why-first", "--names", f"{hostile},{other}", "--record", record).exit_code == 0
    page, _ = opened(browser, record, tmp_path / "game.html")
    assert hostile in page.text_content("header p") and other in page.text_content("header p")
    names = page.eval_on_selector_all("#participants tr[data-name]", "rs => rs.map(r => r.dataset.name)")
    assert hostile in names and other in names
    page.keyboard.press("End")
    assert any(hostile in who or other in who for who in page.locator("#board .who").all_text_contents())
    assert page.locator("img").count() == 0
    assert page.errors == []  # no script ran, no dialog opened


def test_a_game_without_a_board_shows_its_participants_by_kind(browser, tmp_path, monkeypatch):
    from test_viewer import BARE_GAME

    add_game(tmp_path, monkeypatch, "bare", BARE_GAME)
    record = tmp_path / "bare.jsonl"
    assert invoke("play", "bare", "--seed", 5, "--record", record).exit_code == 0
    page, steps = opened(browser, record, tmp_path / "bare.html")
    page.keyboard.press("End")
    assert_shows(page, steps, len(steps) - 1)
    assert page.is_hidden("#board-panel")
    kinds = page.eval_on_selector_all("#participants table", "ts => ts.map(t => t.dataset.kind)")
    assert kinds == ["P", "Dealer"]
    assert page.locator("#participants td.hidden").all_text_contents() == ["1 hidden", "hidden"] * 2
    assert page.errors == []
