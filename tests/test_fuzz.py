"""Seeded token-level fuzzing: whatever a shared file or a command line holds, Pitwall answers cleanly.

Hundreds of cases, each a few seeded token edits of one input: a shipped rules file (then check
and play its game), a variant (check on top of its game, then play), a scenario, a game record
(replay it) or an argument list. The edits come from a vocabulary that aims at Python under the
rules language: dunder names, Python keywords, huge numbers, string escapes, format specs in
templates, deep brackets; for records true for 1, 5.0 for 5, duplicated and unknown keys, deep
nesting. Every case runs in-process through the CLI (click's CliRunner) under a time guard and
must end with:

* exit code 0 or 2, no traceback, no Python exception name for a message (like 'TypeError:');
* a FILE:LINE:COL position on every error about a rules file (FILE:LINE for a record);
* nothing the rules did not produce: no environment canary, no '<class', no 'object at 0x', no
  dunder name that the input does not hold;
* a record that replays (exit 0) is the record as made: a replay never accepts a value that only
  compares equal (true for 1, 5.0 for 5), a duplicated or an unknown key.

A failing case prints its mutated input (as a diff from the shipped file) and the command that
reproduces it. The seeds are fixed, so every run makes the same cases.
"""

from __future__ import annotations

import difflib
import json
import os
import random
import re
import resource
import shlex
import shutil
import signal
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from pitwall.cli import cli

GAMES_DIR = Path(__file__).resolve().parent.parent / "games"
GAMES = {"why_first": "why-first", "street_illegal": "street-illegal"}
CANARY = "canary-5c1d0e77-do-not-print"
CASE_SECONDS = 6  # a case still running after this is a hang
MEMORY = 2 << 30  # bytes of address space the fuzz may add to the test process (then MemoryError, not swap)

LEAKS = ("Traceback", "<class", "object at 0x", "<function", "<built-in", "<module", "<bound method",
         "mappingproxy", "<pitwall-rules>", "_Told", CANARY)
EXCEPTION_NAME = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception)\b")
DUNDER = re.compile(r"__[A-Za-z0-9_]+?__")

# ---------------------------------------------------------------- the vocabulary
DUNDERS = ["__class__", "__globals__", "__init__", "__builtins__", "__dict__", "__subclasses__", "__import__",
           "__str__", "__mro__", "__base__"]
KEYWORDS = ["class", "def", "lambda", "import", "None", "True", "False", "self", "pass", "yield", "await", "global",
            "nonlocal", "del", "_t1", "x__t1", "l_x", "_S", "_rt", "_budget", "_B", "_new_game_maker", "print", "exec",
            "eval", "open"]
HUGE = "7" * 5000
NUMBERS = ["0", "-1", "1", "2000000000", "9223372036854775807", "9223372036854775808", str(2**64),
           "100000000000000", HUGE]
STRINGS = ['"\\x"', '"\\N{NOPE}"', '"\\u12"', '"{p.__class__}"', '"{0}"', '"{}"', '"{x!r}"', '"{x:{y}}"',
           '"{x:>99999999999}"', '"{x:30000000000}"', '"{"', '"}"', '"{{"', '"\\\\"', '"' + "x" * 20000 + '"']
TEMPLATE_PIECES = ["{p.__class__}", "{figure.__init__.__globals__}", "{d.__str__.__globals__[sys]}", "{x!r}", "{0}",
                   "{}", "{stage:{stage}}", "{stage:>99999999999}", "{position:30000000000}", "{cards[0]}",
                   "{cards[0].__class__}", "{", "}", "\\x", "\\N{NOPE}", "\\u12", "{d.name.__class__}",
                   "{total:+}", "{{", "}}", "{figure!s:>8}", "{speed:=^7}"]
STRUCTURE = ["(", ")", "[", "]", "{", "}", ",", ".", "=", "==", "+", "*", "-", "/", "%", "not", "and", "if", "then",
             "else", "for", "in", "repeat", "while", "let", "rule", "function", "return", "stop", "finish", "emit",
             "2000000000 * (", "(" * 300, "[" * 300, "(" * 3000 + "1" + ")" * 3000, ".__class__", "[0]", "[i]",
             "(players[0], 1)", "- " * 1000 + "1", "x * x", "s + s"]
RULES_VOCABULARY = DUNDERS + KEYWORDS + NUMBERS + STRINGS + STRUCTURE

PW_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|==|!=|<=|>=|\+=|-=|->|\s+|.',
                      re.S)


RENAMES = KEYWORDS + DUNDERS + ["x__t1", "x__t2", "result", "option", "players", "self", "K_Racer", "E_x"]
# Words of the rules language (docs/language.md §2): renaming them breaks the syntax, not Python.
PW_KEYWORDS = set("""and as by card choose const decide deck desc draw elif else emit empty enum event extend false
    finish for from function game global hidden if in into let list modify move names new none not of or participant
    pile play players prefer public record refill repeat replace return rule run scenario score secret seed setting
    setup shuffle simultaneous stop table then to true variant variants when while int bool text""".split())
EXPRESSION_BEFORE = {"=", "(", ",", "in", "return", "+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "and",
                     "or", "not", "if", "then", "else", "["}


def mutate_rules(text: str, rnd: random.Random) -> str:
    """One or two token edits of a rules text, aimed at Python below the language. Most edits keep
    the syntax (a consistent rename, a number, a template piece, a dunder field, deep brackets) so
    that the case reaches the checker, the compiler and the game; a few are raw token edits."""
    original = text
    for _ in range(1 if rnd.random() < 0.7 else 2):
        toks = PW_TOKEN.findall(text)
        real = [i for i, t in enumerate(toks) if not t.isspace() and not t.startswith("#")]
        names = [i for i in real if (toks[i][0].isalpha() or toks[i][0] == "_") and toks[i] not in PW_KEYWORDS]
        position = {i: k for k, i in enumerate(real)}
        uses = [i for i in names if 0 < position[i] < len(real) - 1 and toks[real[position[i] - 1]] in EXPRESSION_BEFORE
                and toks[real[position[i] + 1]] not in ("(", ":", "{")]
        strings = [i for i in real if toks[i].startswith('"')]
        ints = [i for i in real if toks[i].isdigit()]
        fields = [i for i in names if i > 0 and toks[i - 1] == "."]
        at = rnd.choice(real)
        kind = rnd.random()
        if kind < 0.08:
            toks[at] = rnd.choice(RULES_VOCABULARY)
        elif kind < 0.14:
            toks[at] = rnd.choice(RULES_VOCABULARY) + " " + toks[at]
        elif kind < 0.17:
            toks[at] = ""
        elif kind < 0.20:
            toks[at] = toks[at] + " " + toks[at]
        elif kind < 0.35 and names:  # a consistent rename: every use of a name becomes a Python word
            old, new = toks[rnd.choice(names)], rnd.choice(RENAMES)
            toks = [new if tok == old else tok for tok in toks]
        elif kind < 0.45 and len(names) > 1:
            a, b = rnd.sample(names, 2)
            toks[a] = toks[b]
        elif kind < 0.62 and strings:
            s = rnd.choice(strings)
            cut = rnd.randint(1, len(toks[s]) - 1)
            toks[s] = toks[s][:cut] + rnd.choice(TEMPLATE_PIECES) + toks[s][cut:]
        elif kind < 0.75 and ints:
            i = rnd.choice(ints)
            toks[i] = rnd.choice(NUMBERS + [f"({toks[i]} * 9223372036854775807)", f"({toks[i]} - 9223372036854775807)"])
        elif kind < 0.85 and fields:
            f = rnd.choice(fields)
            toks[f] = rnd.choice([rnd.choice(DUNDERS), toks[f] + "." + rnd.choice(DUNDERS)])
        elif kind < 0.92 and uses:
            n = rnd.choice(uses)
            toks[n] = toks[n] + "." + rnd.choice(DUNDERS)
        else:
            e = rnd.choice(uses or real)
            depth = rnd.choice([20, 70, 300, 3000])
            toks[e] = "(" * depth + toks[e] + ")" * depth
        text = "".join(toks)
    return text if text != original else text + "\nconst __class__ = 1\n"


# ---------------------------------------------------------------- records
JSON_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|\s+|.', re.S)
JSON_VALUES = ["true", "false", "null", "1.0", "5.0", "-0", "1e400", "NaN", "Infinity", "-1", "0", HUGE,
               str(2**64), '"1"', '"__class__"', '"{p.__class__}"', '"\\u0000"', "[]", "{}", '[1, [2]]']


def mutate_record(lines: list[str], rnd: random.Random) -> list[str]:
    lines = list(lines)
    for _ in range(rnd.randint(1, 2)):
        kind = rnd.random()
        i = rnd.randrange(len(lines))
        if kind < 0.08 and len(lines) > 2:
            del lines[i]
            continue
        if kind < 0.14:
            lines.insert(i, lines[rnd.randrange(len(lines))])
            continue
        if kind < 0.18 and len(lines) > 2:
            j = rnd.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            continue
        toks = JSON_TOKEN.findall(lines[i])
        if kind < 0.22:
            lines[i] = '{"event": "' + "x" * rnd.choice([1000, 2_000_000]) + '"}'
            continue
        values = [k for k, t in enumerate(toks) if t[0] in '-0123456789tfn"' and not
                  (k + 1 < len(toks) and toks[k + 1] == ":")]
        keys = [k for k, t in enumerate(toks) if k + 1 < len(toks) and toks[k + 1] == ":"]
        nums = [k for k in values if toks[k][0] in "-0123456789"]
        bools = [k for k in values if toks[k] in ("true", "false")]
        if kind < 0.4 and nums:  # true for 1, 5.0 for 5, huge numbers
            k = rnd.choice(nums)
            toks[k] = rnd.choice(["true", "false", toks[k] + ".0", toks[k] + "e0", HUGE, str(2**64), "-" + toks[k],
                                  "1e400", "NaN"])
        elif kind < 0.5 and bools:
            k = rnd.choice(bools)
            toks[k] = rnd.choice(["1", "0", '"true"', "null"])
        elif kind < 0.62 and keys:  # a duplicated key
            k = rnd.choice(keys)
            toks[k] = f"{toks[k]}: {rnd.choice(JSON_VALUES)}, {toks[k]}"
        elif kind < 0.72 and toks and toks[0] == "{":  # an unknown key
            toks[0] = "{" + rnd.choice(['"evil": 1, ', '"__class__": "x", ', '"pitwall_": [], ', '"text2": "", '])
        elif kind < 0.8 and values:  # deep nesting
            k = rnd.choice(values)
            depth = rnd.choice([3, 9, 30, 100_000])
            toks[k] = "[" * depth + toks[k] + "]" * depth
        elif kind < 0.9 and values:
            toks[rnd.choice(values)] = rnd.choice(JSON_VALUES)
        elif toks:
            del toks[rnd.randrange(len(toks))]
        lines[i] = "".join(toks)
    return lines


def typed_json(line: str):
    """A JSON line with its types kept: true is not 1, 5.0 is not 5, a duplicated key is seen."""
    return json.loads(line, object_pairs_hook=lambda ps: ("object", tuple(sorted(ps, key=lambda kv: kv[0]))),
                      parse_int=lambda s: ("int", s if len(s) > 40 else str(int(s))),
                      parse_float=lambda s: ("float", s), parse_constant=lambda s: ("constant", s))


def same_record(a: list[str], b: list[str]) -> bool:
    a, b = [x for x in a if x.strip()], [x for x in b if x.strip()]
    try:
        return len(a) == len(b) and all(typed_json(x) == typed_json(y) for x, y in zip(a, b))
    except (ValueError, RecursionError):
        return False


# ---------------------------------------------------------------- command lines
CLI_BASES = [
    ["play", "why-first", "-p", "3", "--seed", "7"],
    ["play", "why-first", "-v", "tactical", "--seed", "2", "--agent", "random", "--decisions"],
    ["play", "street-illegal", "-p", "3", "--races", "2", "-v", "nitrous_oxide"],
    ["play", "street-illegal", "-p", "3", "--set", "races=1", "--names", "A,B,C"],
    ["simulate", "why-first", "-p", "3", "-n", "3", "--json"],
    ["compare", "why-first", "-p", "3", "-n", "2", "--with", "tactical", "--events"],
    ["outline", "street-illegal", "-v", "solo_play"],
    ["check", "{games}/why_first/rules.pw", "{games}/why_first/variants/tactical.pw"],
    ["scenario", "{games}/why_first/scenarios/ben_stops.pw"],
    ["replay", "{record}"],
    ["games"],
]
CLI_VALUES = NUMBERS + ["3", "2", "1.5", "-5", "0x10", "1e3", " 3", ""] + DUNDERS + [
    "{p.__class__},b", "{0!r},{x:>99999999999}", "__class__=1", "races=" + HUGE, "races=2000000000", "races=-1",
    "first", "1=human", "9=random", "0=first", "human", "tactical", "nitrous_oxide", "__init__.py", "../../etc/passwd",
    "why-first", "street_illegal", "{games}/why_first", "{record}"]
CLI_OPTIONS = ["--seed", "-p", "--players", "-n", "--races", "--set", "--names", "--agent", "-v", "--with",
               "--__class__", "--decisions", "--json", "--events", "-h"]
CLI_VOCABULARY = CLI_VALUES + CLI_OPTIONS


def mutate_args(args: list[str], rnd: random.Random) -> list[str]:
    """Mostly an option's value swapped, or an option added with a value; sometimes a raw edit."""
    args = list(args)
    original = list(args)
    while args == original:
        for _ in range(rnd.randint(1, 2)):
            kind = rnd.random()
            values = [i for i in range(1, len(args)) if not args[i].startswith("-")]
            if kind < 0.55 and values:
                args[rnd.choice(values)] = rnd.choice(CLI_VALUES)
            elif kind < 0.85:
                args += [rnd.choice(CLI_OPTIONS[:10]), rnd.choice(CLI_VALUES)]
            else:
                at = rnd.randrange(1, len(args) + 1)
                if rnd.random() < 0.5 or at == len(args):
                    args.insert(at, rnd.choice(CLI_VOCABULARY))
                else:
                    del args[at]
    return args


# ---------------------------------------------------------------- running a case
class CaseTimeout(BaseException):
    """Raised by the alarm: a BaseException, so no `except Exception` in Pitwall turns it into a message."""


def _alarm(signum, frame):
    raise CaseTimeout


@pytest.fixture(autouse=True)
def guarded(monkeypatch, tmp_path):
    """The canary in the environment, no parse cache, a scratch working folder, a memory ceiling."""
    monkeypatch.setenv("PITWALL_SECRET_CANARY", CANARY)
    monkeypatch.setenv("PITWALL_NO_CACHE", "1")
    monkeypatch.chdir(tmp_path)
    old = signal.signal(signal.SIGALRM, _alarm)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        with open("/proc/self/status") as fh:
            used = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
    except (OSError, StopIteration):  # not Linux: no ceiling, the time guard still holds
        used = None
    if used is not None and soft == resource.RLIM_INFINITY:
        ceiling = used + MEMORY if hard == resource.RLIM_INFINITY else min(hard, used + MEMORY)
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.signal(signal.SIGALRM, old)


def invoke(args: list[str], stdin: str = "") -> dict:
    start = time.perf_counter()
    signal.alarm(CASE_SECONDS)
    try:
        r = CliRunner().invoke(cli, args, input=stdin)
    except CaseTimeout:
        return {"exit": None, "stdout": "", "stderr": "", "crash": f"still running after {CASE_SECONDS} s",
                "seconds": CASE_SECONDS}
    finally:
        signal.alarm(0)
    crash = ""
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        crash = f"{type(r.exception).__name__}: {str(r.exception)[:500]}"
    return {"exit": r.exit_code, "stdout": r.stdout, "stderr": r.stderr, "crash": crash,
            "seconds": round(time.perf_counter() - start, 2)}


def problems(result: dict, given: str, position: str | None) -> list[str]:
    """What is wrong with one command's result. `given` is all the input (a dunder name it holds may
    be quoted back); `position` a regex every error must match."""
    if result["exit"] is None:
        return [result["crash"]]
    found = []
    if result["crash"]:
        found.append("a Python exception escaped: " + result["crash"])
    if result["exit"] not in (0, 2):
        found.append(f"exit code {result['exit']}")
    text = result["stdout"] + result["stderr"]
    found += [f"{leak!r} in the output" for leak in LEAKS if leak in text]
    if (m := EXCEPTION_NAME.search(result["stderr"])) is not None:
        found.append(f"a Python exception name ({m.group()}) in the message")
    foreign = sorted({d for d in DUNDER.findall(text) if d not in given})
    if foreign:
        found.append(f"Python names the input does not hold: {foreign[:5]}")
    if result["exit"] == 2 and position is not None and not re.search(position, result["stderr"]):
        found.append(f"no position /{position}/ in the error")
    return found


def report(case: str, found: list[str], result: dict, command: str, shown_input: str) -> str:
    return (f"\n=== {case}: " + "; ".join(found) + f"\nreproduce: {command}\n--- input\n{shown_input[:6000]}"
            f"\n--- exit {result['exit']} ({result['seconds']} s), stderr\n{result['stderr'][-1500:]}"
            f"\n--- stdout (end)\n{result['stdout'][-600:]}\n")


def diff(old: str, new: str, name: str) -> str:
    """The exact edit: a line diff, each changed line shown as its character edits with some context."""
    out = [f"--- a/{name}", f"+++ b/{name}"]
    a, b = old.splitlines(), new.splitlines()
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        out.append(f"@@ line {i1 + 1}: {op} {i2 - i1} line(s) with {j2 - j1}")
        if op == "replace" and i2 - i1 == j2 - j1:
            for x, y in zip(a[i1:i2], b[j1:j2]):
                out.append("   " + _char_edits(x, y))
            continue
        out += [f"-  {_clip(line)}" for line in a[i1:i2]] + [f"+  {_clip(line)}" for line in b[j1:j2]]
    return "\n".join(out)


def _clip(s: str, width: int = 300) -> str:
    return s if len(s) <= width else f"{s[:width]}... ({len(s)} characters)"


def _char_edits(x: str, y: str) -> str:
    parts, last = [], 0
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, x, y, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        parts.append(f"...{x[max(last, i1 - 25):i1]}[{_clip(x[i1:i2], 80)!r} -> {_clip(y[j1:j2], 80)!r}]"
                     f"{x[i2:i2 + 25]}...")
        last = i2
    return " ".join(parts) or "(same text)"


def finish(failures: list[str], cases: int, tmp_path: Path) -> None:
    if failures:
        everything = tmp_path / "failures.txt"
        everything.write_text("".join(failures), encoding="utf-8")
        pytest.fail(f"{len(failures)} of {cases} cases failed (all of them in {everything}):" + "".join(failures[:12])
                    + (f"\n... and {len(failures) - 12} more" if len(failures) > 12 else ""), pytrace=False)


def cmd(args) -> str:
    return "pitwall " + " ".join(shlex.quote(str(a)) for a in args)


# ---------------------------------------------------------------- the tests
RULES_CASES = 30  # per game and batch
BATCHES = 2


@pytest.mark.parametrize("batch", range(BATCHES))
@pytest.mark.parametrize("game", sorted(GAMES))
def test_fuzz_rules(tmp_path, game, batch):
    """A shipped game with one rules file mutated: check it, and play it if it checks."""
    source = GAMES_DIR / game
    failures, n = [], 0
    for case in range(batch * RULES_CASES, (batch + 1) * RULES_CASES):
        rnd = random.Random(f"rules-{game}-{case}")
        folder = tmp_path / f"{game}-{case}"
        shutil.copytree(source, folder, ignore=shutil.ignore_patterns("scenarios", "variants"))
        victim = rnd.choice(sorted(folder.glob("*.pw")))
        old = victim.read_text(encoding="utf-8")
        new = mutate_rules(old, rnd)
        victim.write_text(new, encoding="utf-8")
        given = "".join(p.read_text(encoding="utf-8") for p in folder.glob("*.pw"))
        seed = rnd.randrange(100)
        for args in (["check", victim], ["play", folder, "--seed", seed]):
            n += 1
            r = invoke([str(a) for a in args])
            found = problems(r, given, r"\.pw:\d+:\d+")
            if found:
                failures.append(report(f"rules {game}/{victim.name} case {case}", found, r,
                                       f"{cmd(args)}  (games/{game} with the edit below)",
                                       diff(old, new, victim.name)))
            if r["exit"] != 0:
                break
    finish(failures, n, tmp_path)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_fuzz_variants(tmp_path, game):
    """A shipped variant mutated: check it on top of its game, and play with it if it checks."""
    failures, n = [], 0
    variants = sorted((GAMES_DIR / game / "variants").glob("*.pw"))
    for case in range(24):
        rnd = random.Random(f"variant-{game}-{case}")
        original = rnd.choice(variants)
        old = original.read_text(encoding="utf-8")
        new = mutate_rules(old, rnd)
        victim = tmp_path / f"case{case}" / original.name
        victim.parent.mkdir()
        victim.write_text(new, encoding="utf-8")
        given = new + "".join(p.read_text(encoding="utf-8") for p in (GAMES_DIR / game).glob("*.pw"))
        for args in (["check", "--game", game, victim], ["play", game, "-v", victim, "--seed", case]):
            n += 1
            r = invoke([str(a) for a in args])
            found = problems(r, given, r"\.pw:\d+:\d+")
            if found:
                failures.append(report(f"variant {original.name} case {case}", found, r,
                                       f"{cmd(args)}  (games/{game}/variants/{original.name} with the edit below)",
                                       diff(old, new, original.name)))
            if r["exit"] != 0:
                break
    finish(failures, n, tmp_path)


def test_fuzz_scenarios(tmp_path):
    """A shipped scenario mutated: run it (it checks on the way)."""
    failures = []
    scenarios = sorted(GAMES_DIR.glob("*/scenarios/*.pw"))
    cases = 40
    for case in range(cases):
        rnd = random.Random(f"scenario-{case}")
        original = rnd.choice(scenarios)
        old = original.read_text(encoding="utf-8")
        new = mutate_rules(old, rnd)
        victim = tmp_path / f"case{case}" / original.name
        victim.parent.mkdir()
        victim.write_text(new, encoding="utf-8")
        game = original.parent.parent
        given = new + "".join(p.read_text(encoding="utf-8") for p in game.rglob("*.pw"))
        args = ["scenario", str(victim)]
        r = invoke(args)
        found = problems(r, given, r"\.pw:\d+:\d+")
        if found:
            failures.append(report(f"scenario {original.name} case {case}", found, r,
                                   f"{cmd(args)}  ({original.relative_to(GAMES_DIR.parent)} with the edit below)",
                                   diff(old, new, original.name)))
    finish(failures, cases, tmp_path)


@pytest.fixture(scope="module")
def shipped_records(tmp_path_factory):
    """Records of a few seeded games (`pitwall play GAME --seed N --record FILE`)."""
    home = tmp_path_factory.mktemp("fuzz-records")
    plays = [["why-first", "-p", "3", "--seed", "1", "--agent", "random"],
             ["why-first", "-p", "2", "--seed", "2", "-v", "tactical"],
             ["street-illegal", "-p", "3", "--seed", "3", "--agent", "random"],
             ["street-illegal", "-p", "2", "--seed", "4", "-v", "nitrous_oxide", "--agent", "random"]]
    made = []
    for i, play in enumerate(plays):
        path = home / f"game{i}.jsonl"
        r = CliRunner().invoke(cli, ["play", *play, "--record", str(path)])
        assert r.exit_code == 0, r.output
        made.append((play, path.read_text(encoding="utf-8").splitlines()))
    return made


@pytest.mark.parametrize("batch", range(2))
def test_fuzz_records(tmp_path, shipped_records, batch):
    """A record tampered with: replay fails at a line of it, or the record is the game as it was made."""
    failures, cases = [], 60
    for case in range(batch * cases, (batch + 1) * cases):
        rnd = random.Random(f"record-{case}")
        play, original = rnd.choice(shipped_records)
        lines = mutate_record(original, rnd)
        path = tmp_path / f"case{case}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        given = "\n".join(lines)
        args = ["replay", str(path)]
        r = invoke(args)
        found = problems(r, given, r"\.jsonl:\d+")
        if r["exit"] == 0 and not same_record(lines, original):
            found.append("replay accepted a record that is not the one made (true for 1, 5.0 for 5, a key twice, "
                         "an unknown key, ...)")
        if found:
            failures.append(report(f"record case {case}", found, r,
                                   f"pitwall replay {path}  (made by: pitwall play {' '.join(play)} --record "
                                   "game.jsonl, then the edit below)",
                                   diff("\n".join(original), given, "game.jsonl")))
    finish(failures, cases, tmp_path)


def test_fuzz_command_lines(tmp_path, shipped_records):
    """Argument lists mutated: a usage error or a run, never a crash, a hang or a leak."""
    record = tmp_path / "given.jsonl"
    record.write_text("\n".join(shipped_records[0][1]) + "\n", encoding="utf-8")
    fill = {"{games}": str(GAMES_DIR), "{record}": str(record)}
    failures, cases = [], 70
    for case in range(cases):
        rnd = random.Random(f"cli-{case}")
        args = mutate_args(rnd.choice(CLI_BASES), rnd)
        for k, v in fill.items():
            args = [a.replace(k, v) for a in args]
        r = invoke(args, stdin="1\n" * 50)
        found = problems(r, " ".join(args), None)
        if found:
            failures.append(report(f"command line case {case}", found, r, cmd(args), repr(args)[:3000]))
    finish(failures, cases, tmp_path)


def test_mutations_change_their_input():
    rules = (GAMES_DIR / "why_first" / "rules.pw").read_text(encoding="utf-8")
    assert all(mutate_rules(rules, random.Random(i)) != rules for i in range(30))
    assert all(mutate_args(CLI_BASES[0], random.Random(i)) != CLI_BASES[0] for i in range(30))
    assert same_record(['{"a": 1, "b": [true]}'], ['{"b": [true], "a": 1}'])
    for tampered in ('{"a": true, "b": [true]}', '{"a": 1.0, "b": [true]}', '{"a": 1, "a": 1, "b": [true]}',
                     '{"a": 1, "b": [true], "c": 0}', '{"a": 1, "b": [1]}'):
        assert not same_record(['{"a": 1, "b": [true]}'], [tampered]), tampered


def test_the_canary_is_in_the_environment_of_the_cases():
    assert os.environ["PITWALL_SECRET_CANARY"] == CANARY
