"""The page `pitwall view` writes: HTML, CSS and JavaScript in one file, with the game as JSON.

Nothing is fetched: no network, no server, no external address (the Content-Security-Policy
forbids any). The script builds every element with textContent, never from markup, so a text
of the game (a player's name, an event) is shown as text whatever it holds; the JSON is embedded
with <, > and & escaped, so no text can close the script element it sits in.
"""

from __future__ import annotations

import html
import json
import re


def fill(title: str, about: str, data: dict) -> str:
    """The page for a game: its title and who played (escaped as HTML), the steps as JSON."""
    values = {"TITLE": html.escape(title), "ABOUT": html.escape(about), "DATA": script_json(data)}
    # one pass over the template: a text that holds "{{DATA}}" is never filled in itself
    return re.sub(r"\{\{(TITLE|ABOUT|DATA)\}\}", lambda m: values[m.group(1)], PAGE)


def script_json(data) -> str:
    """JSON safe inside <script>: <, > and & (and the line separators JavaScript once refused)
    escaped, which JSON.parse reads back as they were."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for ch, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                        ("\u2029", "\\u2029")):
        text = text.replace(ch, escaped)
    return text


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
      content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{TITLE}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d232a; background: #f4f5f7; }
header { padding: .6em 1em; background: #1d232a; color: #fff; }
header h1 { font-size: 1.2em; margin: 0; }
header p { margin: .2em 0 0; color: #c8ced6; }
#controls { position: sticky; top: 0; z-index: 2; display: flex; gap: .5em; align-items: center;
  padding: .5em 1em; background: #fff; border-bottom: 1px solid #d5d9df; flex-wrap: wrap; }
#controls button { font-size: 1em; min-width: 2.4em; }
#slider { flex: 1; min-width: 12em; }
#position { white-space: nowrap; color: #555; }
main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(16em, 1.2fr); gap: 1em; padding: 1em; }
.panel { background: #fff; border: 1px solid #d5d9df; border-radius: 6px; padding: .6em .8em; margin-bottom: 1em; }
h2 { font-size: 1em; margin: 0 0 .4em; }
#current { font-size: 1.15em; font-weight: 600; min-height: 1.4em; }
#current.kind-d { color: #34527a; }
#current.kind-r { color: #8a4b00; }
#choice { color: #555; margin-top: .3em; }
#options { margin: .3em 0 0; padding-left: 1.6em; }
#options li.picked { font-weight: 700; }
#facts span { margin-right: 1.5em; }
#board { display: flex; flex-wrap: wrap; gap: 4px; }
.box { border: 1px solid #b9c0c9; border-radius: 4px; min-width: 4.5em; max-width: 14em; padding: 2px 5px;
  background: #fafbfc; }
.box.taken { background: #e8f0fb; border-color: #7f9cc4; }
.box .place { font-size: .8em; color: #666; }
.box .who { font-weight: 600; min-height: 1.2em; }
.changed { outline: 2px solid #e0a400; }
table { border-collapse: collapse; margin-bottom: .6em; }
th, td { border: 1px solid #d5d9df; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #eef0f3; font-weight: 600; }
td.hidden { color: #777; font-style: italic; }
tr.leader td:first-child { font-weight: 700; }
tr.leader td:first-child::after { content: " (leader)"; font-weight: 400; color: #8a4b00; }
.scroll { overflow-x: auto; }
dl { margin: 0; display: grid; grid-template-columns: max-content 1fr; gap: 2px 1em; }
dt { font-weight: 600; }
dd { margin: 0; max-height: 6em; overflow: auto; }
aside .panel { max-height: 44vh; overflow: auto; position: relative; }
ol.lines { margin: 0; padding-left: 3.2em; }
ol.lines li { cursor: pointer; }
ol.lines li.kind-d { color: #34527a; font-size: .92em; }
ol.lines li.now { background: #ffe9a8; }
#narration.no-decisions li.kind-d { display: none; }
label { white-space: nowrap; }
@media (max-width: 800px) { main { grid-template-columns: 1fr; } }
</style>
</head>
<body>
<header><h1>{{TITLE}}</h1><p>{{ABOUT}}</p></header>
<noscript><p>This page steps through the game with JavaScript, which is turned off.</p></noscript>
<div id="controls">
  <button id="first" title="first step (Home)">|&#x25C0;</button>
  <button id="prev" title="previous step (left arrow)">&#x25C0;</button>
  <input id="slider" type="range" min="0" max="0" value="0" aria-label="step">
  <button id="next" title="next step (right arrow)">&#x25B6;</button>
  <button id="last" title="last step (End)">&#x25B6;|</button>
  <span id="position"></span>
</div>
<main>
<div>
  <div class="panel"><div id="current"></div><div id="choice"></div>
    <label><input type="checkbox" id="show-secrets"> show what only the decider knew: the options, and choices
      made secretly</label>
    <ol id="options"></ol></div>
  <div class="panel" id="board-panel"><h2>Board</h2><div id="facts"></div><div id="board"></div></div>
  <div class="panel"><h2>Participants</h2><div id="participants" class="scroll"></div></div>
  <div class="panel"><h2>Table</h2><dl id="globals"></dl></div>
</div>
<aside>
  <div class="panel"><h2>Narration</h2>
    <label><input type="checkbox" id="with-decisions" checked> with decisions</label>
    <ol id="narration" class="lines"></ol></div>
  <div class="panel"><h2>Jump to a decision</h2>
    <label>by <select id="who"><option value="">anyone</option></select></label>
    <label><input type="checkbox" id="forced"> with forced ones</label>
    <ol id="decisions" class="lines"></ol></div>
</aside>
</main>
<script id="game-data" type="application/json">{{DATA}}</script>
<script>
"use strict";
const DATA = JSON.parse(document.getElementById("game-data").textContent);
const STEPS = DATA.steps, N = STEPS.length;
const $ = id => document.getElementById(id);

// The state at each step, rebuilt from the changes each step keeps; states share their values.
const STATES = [];
{
  let before = {};
  for (const d of DATA.diffs) {
    const [changed, gone] = Array.isArray(d) ? d : [d, []];
    const s = Object.assign({}, before, changed);
    for (const k of gone) delete s[k];
    STATES.push(s);
    before = s;
  }
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// Values in the words narration uses: yes/no, none, nothing, lists joined by commas.
function words(v) {
  if (v === null || v === undefined) return "none";
  if (v === true) return "yes";
  if (v === false) return "no";
  if (Array.isArray(v)) return v.length ? v.map(words).join(", ") : "nothing";
  if (typeof v === "object") {
    const e = Object.entries(v);
    return e.length ? e.map(([k, x]) => k + ": " + words(x)).join("; ") : "nothing";
  }
  return String(v);
}
const hiddenWords = v => v === null ? "hidden" : v + " hidden";

// One pass over a state's keys: participants, globals and board places, in the order kept.
function parse(s) {
  const parts = [], globals = {f: [], h: []}, board = [];
  const part = i => parts[i] || (parts[i] = {f: [], h: []});
  for (const k of Object.keys(s)) {
    let m;
    if ((m = /^([NKY])(\\d+)$/.exec(k))) part(+m[2])[m[1]] = s[k];
    else if ((m = /^P(\\d+)\\.([fh])\\.(.+)$/.exec(k))) part(+m[1])[m[2]].push([m[3], k]);
    else if ((m = /^G\\.([fh])\\.(.+)$/.exec(k))) globals[m[1]].push([m[2], k]);
    else if ((m = /^B(\\d+)$/.exec(k))) board[+m[1]] = k;
  }
  return {parts: parts.filter(Boolean), globals, board: board.filter(Boolean)};
}

function drawBoard(s, p, changed) {
  const board = $("board");
  board.replaceChildren();
  $("board-panel").hidden = !p.board.length && s.T === null && s.L === null;
  for (const k of p.board) {
    const text = s[k], at = text.indexOf(": ");
    const place = at < 0 ? text : text.slice(0, at), who = at < 0 ? "" : text.slice(at + 2);
    const box = el("div", "box" + (who ? " taken" : "") + (changed.has(k) ? " changed" : ""));
    box.dataset.place = place;
    box.append(el("div", "place", place), el("div", "who", who));
    board.append(box);
  }
  const facts = $("facts");
  facts.replaceChildren();
  if (s.T !== null && s.T !== undefined) facts.append(el("span", "", "Turn " + s.T));
  if (s.L !== null && s.L !== undefined) facts.append(el("span", "", "Leader: " + s.L));
}

function drawParticipants(s, p, changed) {
  const out = $("participants");
  out.replaceChildren();
  const kinds = new Map();
  for (const q of p.parts) {
    if (!kinds.has(q.K)) kinds.set(q.K, []);
    kinds.get(q.K).push(q);
  }
  for (const [kind, qs] of kinds) {
    const table = el("table"), head = el("tr");
    table.dataset.kind = kind;
    head.append(el("th", "", kind));
    for (const [f] of qs[0].f) head.append(el("th", "", f));
    for (const [f] of qs[0].h) head.append(el("th", "", f));
    table.append(head);
    for (const q of qs) {
      const row = el("tr", q.N === s.L ? "leader" : "");
      row.dataset.name = q.N;
      row.append(el("td", "", q.N));
      for (const [, k] of q.f) row.append(el("td", changed.has(k) ? "changed" : "", words(s[k])));
      for (const [, k] of q.h) row.append(el("td", "hidden" + (changed.has(k) ? " changed" : ""), hiddenWords(s[k])));
      table.append(row);
    }
    out.append(table);
  }
}

function drawGlobals(s, p, changed) {
  const dl = $("globals");
  dl.replaceChildren();
  for (const [f, k] of p.globals.f) dl.append(el("dt", "", f), el("dd", changed.has(k) ? "changed" : "", words(s[k])));
  for (const [f, k] of p.globals.h) {
    dl.append(el("dt", "", f), el("dd", "hidden" + (changed.has(k) ? " changed" : ""), hiddenWords(s[k])));
  }
}

// A step's words: a decision made secretly names its choice only when secrets are shown.
const secretsShown = () => $("show-secrets").checked;
const told = step => step[0] === "d" && step[6] && secretsShown() ? step[6] : step[1];

function drawStep(step) {
  const kind = step[0];
  $("current").textContent = told(step);
  $("current").className = "kind-" + kind;
  const options = $("options");
  options.replaceChildren();
  if (kind !== "d") {
    $("choice").textContent = "";
    return;
  }
  const [, , by, pick, of, choices, secret] = step;
  $("choice").textContent = secret && !secretsShown() ? by + " picks one of " + of + " options, secretly"
    : by + " picks option " + (pick + 1) + " of " + of + (secret ? ", secretly" : "");
  if (!secretsShown()) return;
  choices.forEach((c, i) => options.append(el("li", i === pick ? "picked" : "", c)));
}

function retell() {
  lines.forEach((li, i) => { li.textContent = told(STEPS[i]); });
  for (const li of decisionItems) li.textContent = told(STEPS[+li.dataset.step]).replace(/^> /, "");
  show(now);
}

let now = 0;
const lines = [], decisionItems = [];

function show(i) {
  if (!N) return;
  now = Math.max(0, Math.min(N - 1, i));
  const s = STATES[now], p = parse(s);
  const d = DATA.diffs[now];
  const changed = new Set(now === 0 ? [] : Object.keys(Array.isArray(d) ? d[0] : d));
  $("slider").value = now;
  $("position").textContent = "step " + (now + 1) + " of " + N + " (record line " + (DATA.first_line + now) + ")";
  drawStep(STEPS[now]);
  drawBoard(s, p, changed);
  drawParticipants(s, p, changed);
  drawGlobals(s, p, changed);
  for (const li of document.querySelectorAll("li.now")) li.classList.remove("now");
  lines[now].classList.add("now");
  keepInView(lines[now]);
  const mine = decisionItems.filter(li => +li.dataset.step <= now && !li.hidden).pop();
  if (mine) {
    mine.classList.add("now");
    keepInView(mine);
  }
  $("prev").disabled = $("first").disabled = now === 0;
  $("next").disabled = $("last").disabled = now === N - 1;
}

// Scroll the list's own box, never the page, to show its current line.
function keepInView(li) {
  const box = li.closest(".panel");
  if (li.offsetTop < box.scrollTop || li.offsetTop + li.offsetHeight > box.scrollTop + box.clientHeight) {
    box.scrollTop = li.offsetTop - box.clientHeight / 2;
  }
}

// The next (or previous) decision shown in the list from step i.
function decisionFrom(i, ahead) {
  const steps = decisionItems.filter(li => !li.hidden).map(li => +li.dataset.step);
  const found = ahead ? steps.find(k => k > i) : steps.reverse().find(k => k < i);
  return found === undefined ? i : found;
}

function filterDecisions() {
  const who = $("who").value, forced = $("forced").checked;
  for (const li of decisionItems) {
    const step = STEPS[+li.dataset.step];
    li.hidden = (who && step[2] !== who) || (!forced && step[4] < 2);
  }
  show(now);
}

function build() {
  $("slider").max = Math.max(0, N - 1);
  const narration = $("narration"), decisions = $("decisions"), people = [];
  STEPS.forEach((step, i) => {
    const li = el("li", "kind-" + step[0], step[1]);
    li.value = i + 1;
    li.addEventListener("click", () => show(i));
    narration.append(li);
    lines.push(li);
    if (step[0] !== "d") return;
    if (!people.includes(step[2])) people.push(step[2]);
    const item = el("li", "", step[1].replace(/^> /, ""));
    item.value = i + 1;
    item.dataset.step = i;
    item.addEventListener("click", () => show(i));
    decisions.append(item);
    decisionItems.push(item);
  });
  for (const who of people) {
    const option = el("option", "", who);
    option.value = who;
    $("who").append(option);
  }
  $("slider").addEventListener("input", () => show(+$("slider").value));
  $("first").addEventListener("click", () => show(0));
  $("prev").addEventListener("click", () => show(now - 1));
  $("next").addEventListener("click", () => show(now + 1));
  $("last").addEventListener("click", () => show(N - 1));
  $("show-secrets").addEventListener("change", retell);
  $("with-decisions").addEventListener("change", e => narration.classList.toggle("no-decisions", !e.target.checked));
  $("who").addEventListener("change", filterDecisions);
  $("forced").addEventListener("change", filterDecisions);
  document.addEventListener("keydown", e => {
    const t = e.target;
    if (t === $("slider") || t instanceof HTMLSelectElement || e.altKey || e.ctrlKey || e.metaKey) return;
    const to = {ArrowRight: e.shiftKey ? decisionFrom(now, true) : now + 1,
                ArrowLeft: e.shiftKey ? decisionFrom(now, false) : now - 1, Home: 0, End: N - 1}[e.key];
    if (to === undefined) return;
    e.preventDefault();
    show(to);
  });
  filterDecisions();
}

build();
</script>
</body>
</html>
"""
