"""Hostile rules, variants, scenarios, records and arguments: each ends in a positioned error, fast.

Running someone's rules file must be as safe as reading it. Each file in tests/attacks/ is one
attack, on its first line what it tries and what must come of it:

    # WHAT IT TRIES -- expect: REGEX         play fails (exit 2) with REGEX; check may pass or fail so
    # WHAT IT TRIES -- expect check: REGEX   check already fails (exit 2) with REGEX, and so does play
    # WHAT IT TRIES -- expect ok: REGEX      harmless: check and play succeed, and play's narration matches

and optionally, on the lines after it, `# on: GAME` (the game a variant is for, default why_first),
`# play: ARGS` (more arguments for play; `--agent human` answers 1 to every question) and
`# error in: FILE` (a variant whose error belongs in a rules file of its game, named so; `A or B`: either) and
`# simulate: no` (an attack on narration, which a simulation nobody listens to never words). A
file with a `variant` line is a variant of that game, one with a `scenario` block a scenario
(played with `pitwall scenario`), anything else a whole little game (copied alone into a folder
of its own). Lines marked `# <-` are where the error belongs: at least one reported position
must be on one of them. After play, the record it kept is replayed (a finished game must replay,
one the rules stopped must stop again, in time), and an attack on a running game is also
simulated (`simulate -n 2`), which must stop it the same way.

Every case runs in a subprocess of its own (click's CliRunner inside, see DRIVER) with a time
limit and a memory limit, so a hang or a memory bomb fails its test instead of the whole run;
the attack files' cases run two at a time.
Whatever the outcome: no traceback, no Python exception name as the message, no Python object
in the output, nothing of the environment (PITWALL_SECRET_CANARY) in the output or the record,
and no file written by the rules. Errors name the attack file with line and column.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ATTACKS = Path(__file__).parent / "attacks"
HEADER = re.compile(r"^#\s*(?P<what>.+?)\s+--\s+expect(?: (?P<mode>check|ok))?:\s*(?P<rx>.+?)\s*$")
CANARY = "canary-7f3e9b21-do-not-print"
LIMIT = 10  # seconds of CPU for one command (three times that on the clock); the subprocess of a
# case is killed after all its commands' clock time
MEMORY = 1 << 30  # bytes of address space for a case: a memory bomb fails fast instead of swapping
HUMAN_ANSWERS = "1\n" * 400

# What must never reach the user: Python's own words and objects, and the environment.
LEAKS = ("Traceback", "<class", "object at 0x", "<function", "<built-in", "<module", "<bound method",
         "mappingproxy", "<pitwall-rules>", "_Told", CANARY)
EXCEPTION_NAME = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception)\b")

# Runs CLI commands in-process with CliRunner, each under an alarm, and prints what happened as JSON.
DRIVER = r"""
import json, signal, sys, time, traceback
from click.testing import CliRunner
from pitwall.cli import cli

class Hung(BaseException):
    pass

def stop(signum, frame):
    raise Hung(signum)

# The limit is CPU time (a budget must stop the work within seconds of it, whatever else the
# machine runs: a parallel test run, a neighbour); a wait that spends none, three times as long
# on the clock.
signal.signal(signal.SIGPROF, stop)
signal.signal(signal.SIGALRM, stop)
out = []
for args, stdin, limit in json.loads(sys.stdin.read()):
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_PROF, limit)
    signal.alarm(3 * limit)
    try:
        r = CliRunner().invoke(cli, args, input=stdin, catch_exceptions=True)
        crash = ""
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            crash = "".join(traceback.format_exception(*r.exc_info))
        code, stdout, stderr = r.exit_code, r.stdout, r.stderr
    except Hung as h:
        code, stdout, stderr = None, "", ""
        crash = ("hung: still working after %d s of CPU" % limit if h.args[0] == signal.SIGPROF
                 else "hung: still waiting after %d s" % (3 * limit))
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.alarm(0)
    out.append({"exit": code, "stdout": stdout, "stderr": stderr, "crash": crash,
                "seconds": round(time.perf_counter() - start, 2)})
    if code is None:
        break
sys.stdout.write("\n@@RESULTS@@" + json.dumps(out))
"""


def _limit_memory():  # in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run_cli(commands: list[tuple[list[str], str]], cwd: Path, env: dict | None = None) -> list[dict]:
    """Run `pitwall ARGS` for each (args, stdin) in one subprocess; one result dict per command run.

    A command still working after LIMIT seconds of CPU (or waiting three times that on the clock),
    or a subprocess that has to be killed, gives a result with exit None and what happened in
    'crash'."""
    env = {**os.environ, "PITWALL_SECRET_CANARY": CANARY, "PITWALL_NO_CACHE": "1", **(env or {})}
    payload = json.dumps([[list(map(str, args)), stdin, LIMIT] for args, stdin in commands])
    start = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-c", DRIVER], input=payload, cwd=cwd, env=env, capture_output=True,
                           text=True, timeout=3 * LIMIT * len(commands) + 5, preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired as e:
        return [{"exit": None, "stdout": "", "stderr": "", "seconds": round(time.perf_counter() - start, 2),
                 "crash": f"killed: the case ran past {e.timeout} s (a hang Python's alarm could not stop)"}]
    raw, sep, results = p.stdout.rpartition("\n@@RESULTS@@")
    if not sep:
        return [{"exit": None, "stdout": p.stdout[-5000:], "stderr": p.stderr[-5000:], "seconds": 0,
                 "crash": f"the case's process died (return code {p.returncode}); stderr above"}]
    out = json.loads(results)
    if raw.strip() or p.stderr.strip():  # anything outside CliRunner: written by something else
        out[-1]["stray"] = raw + p.stderr
    return out


def command_line(args: list[str], stdin: str = "") -> str:
    line = "pitwall " + " ".join(shlex.quote(str(a)) for a in args)
    return f"{line}  (with input {stdin[:20]!r}...)" if stdin else line


def show(result: dict, args: list[str], stdin: str = "") -> str:
    """A failing case: what ran, how to run it again, and what came out."""
    stray = result.get("stray", "")
    return (f"\nrerun: {command_line(args, stdin)}\nexit: {result['exit']}  ({result['seconds']} s)\n"
            f"--- stdout\n{result['stdout'][-3000:]}\n--- stderr\n{result['stderr'][-3000:]}\n"
            + (f"--- crash\n{result['crash'][-4000:]}\n" if result.get("crash") else "")
            + (f"--- written outside the CLI\n{stray[-2000:]}\n" if stray else ""))


def problems_of(result: dict, exits=(0, 2)) -> list[str]:
    """What is wrong with a command's result whatever the input: too slow, a crash, a leak."""
    if result["exit"] is None:
        return ["no result in time: " + result.get("crash", "")[:300]]
    found = []
    if result.get("crash"):
        found.append("a Python exception escaped: " + result["crash"].strip().splitlines()[-1][:300])
    if result.get("stray"):
        found.append("output that did not come through the CLI: " + result["stray"][:300])
    if result["exit"] not in exits:
        found.append(f"exit code {result['exit']}, expected one of {exits}")
    text = result["stdout"] + result["stderr"]
    found += [f"{leak!r} in the output" for leak in LEAKS if leak in text]
    name = EXCEPTION_NAME.search(result["stderr"])
    if name is not None:
        found.append(f"a Python exception name ({name.group()}) in the message")
    return found


def assert_clean(result: dict, args: list[str], stdin: str = "", exits=(0, 2)) -> str:
    """Finished in time with an allowed exit code, and nothing leaked; returns stdout + stderr."""
    found = problems_of(result, exits)
    assert not found, "; ".join(found) + show(result, args, stdin)
    return result["stdout"] + result["stderr"]


# ---------------------------------------------------------------- attack files
class Attack:
    def __init__(self, path: Path):
        self.path = path
        self.text = path.read_text(encoding="utf-8")
        lines = self.text.splitlines()
        m = HEADER.match(lines[0])
        assert m, f"{path.name}:1: the first line must be '# WHAT -- expect[ check| ok]: REGEX'"
        self.what, self.mode, self.rx = m["what"], m["mode"] or "run", re.compile(m["rx"], re.M)
        directives = {}
        for line in lines[1:]:
            d = re.match(r"#\s*(on|play|error in|simulate):\s*(.*)$", line)
            if not line.startswith("#"):
                break
            if d:
                directives[d[1]] = d[2].strip()
        self.game = directives.get("on", "why_first")
        self.play_args = shlex.split(directives.get("play", ""))
        self.error_in = directives.get("error in")  # the error belongs in this file of the game, not the attack's
        # an attack on what is told: a simulation, which nobody listens to, never words it
        self.simulated = directives.get("simulate", "yes") != "no"
        self.marks = {n for n, line in enumerate(lines, 1) if re.search(r"#\s*<-", line)}
        if re.search(r"^\s*variant\s+\w+\s+\"", self.text, re.M):
            self.kind = "variant"
        elif re.search(r"^\s*scenario\s+\"", self.text, re.M):
            self.kind = "scenario"
        else:
            self.kind = "game"

    def reproduce(self) -> str:
        """The commands that run this attack by hand, from the repository's root."""
        rel, extra = f"tests/attacks/{self.path.name}", " ".join(map(shlex.quote, self.play_args))
        if self.kind == "variant":
            return f"pitwall check --game {self.game} {rel}; pitwall play {self.game} -v {rel} {extra}"
        if self.kind == "scenario":
            return f"pitwall check {rel}; pitwall scenario {rel}"
        d = f"/tmp/{self.path.stem}"
        return f"mkdir -p {d} && cp {rel} {d}/ && pitwall check {d}/{self.path.name}; pitwall play {d} {extra}"

    def commands(self, home: Path, record: Path) -> list[tuple[list, str]]:
        """check and play this attack, from a copy of it in a folder of its own; then replay the record
        play kept (also of a game the rules stopped) and, for an attack on a running game, simulate it."""
        folder = home / self.path.stem
        folder.mkdir()
        copy = folder / self.path.name
        shutil.copyfile(self.path, copy)
        stdin = HUMAN_ANSWERS if "human" in self.play_args else ""
        if self.kind == "variant":
            check = ["check", "--game", self.game, copy]
            play = ["play", self.game, "-v", copy, "--record", record, *self.play_args]
        elif self.kind == "scenario":
            check, play = ["check", copy], ["scenario", copy]
        else:
            check = ["check", copy]
            play = ["play", folder, "--record", record, *self.play_args]
        commands = [(check, ""), (play, stdin)]
        if self.kind != "scenario":
            commands.append((["replay", record], ""))
        if self.mode == "run" and self.kind != "scenario" and "human" not in self.play_args and self.simulated:
            game = [self.game, "-v", copy] if self.kind == "variant" else [folder]
            commands.append((["simulate", *game, "-n", "2", *self.play_args], ""))
        return commands


ALL = sorted(ATTACKS.glob("*.pw"))


def positions(text: str, name: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in re.findall(re.escape(name) + r":(\d+):(\d+)", text)]


WORKERS = min(2, os.cpu_count() or 1)  # cases run side by side, each in its own process


@pytest.fixture(scope="module")
def attack_runs(request, tmp_path_factory):
    """Every selected attack, started at once on WORKERS processes: path -> (attack, commands, folder, future)."""
    selected = [item.callspec.params["path"] for item in request.session.items
                if item.originalname == "test_attack" and hasattr(item, "callspec")]
    pool = ThreadPoolExecutor(WORKERS)
    runs = {}
    for path in selected:
        attack, folder = Attack(path), tmp_path_factory.mktemp(path.stem)
        (folder / "files").mkdir()
        (folder / "cwd").mkdir()
        commands = attack.commands(folder / "files", folder / "record.jsonl")
        runs[path] = (attack, commands, folder, pool.submit(run_cli, commands, folder / "cwd"))
    yield runs
    pool.shutdown(wait=False, cancel_futures=True)


@pytest.mark.parametrize("path", ALL, ids=[p.stem for p in ALL])
def test_attack(path, attack_runs):
    attack, commands, folder, future = attack_runs[path]
    results = future.result()
    cwd, record = folder / "cwd", folder / "record.jsonl"
    failed, shown = [], []
    for (args, stdin), result in zip(commands, results):
        command = args[0]
        found = problems_of(result)
        text = result["stdout"] + result["stderr"]
        if result["exit"] is None:
            pass
        elif command == "replay":
            if not record.exists() or "Error: Invalid value for 'RECORD'" in result["stderr"]:
                continue  # the rules never ran: no record to replay
            played = results[1]["exit"]  # a finished game replays (0); one the rules stopped stops again (2)
            if result["exit"] != played:
                found.append(f"replay of the record play kept exits {result['exit']}, play exited {played}")
            elif result["exit"] == 2 and not re.search(r"\.(pw|jsonl):\d+", result["stderr"]):
                found.append("no position in replay's error")
        elif attack.mode == "ok":
            if result["exit"] != 0:
                found.append("a harmless file must check and play")
            elif command != "check" and not attack.rx.search(result["stdout"]):
                found.append(f"the narration lacks /{attack.rx.pattern}/")
        elif command == "check" and attack.mode == "run" and result["exit"] == 0:
            pass  # a runtime attack: `check` cannot know, `play` must stop it
        elif result["exit"] != 2:
            found.append(f"{command} must reject this attack (exit 2), not exit {result['exit']}")
        else:
            if not attack.rx.search(text):
                found.append(f"the message lacks /{attack.rx.pattern}/")
            at = attack.error_in or path.name
            where = [w for name in at.split(" or ") for w in positions(result["stderr"], name)]
            if not where:
                found.append(f"no {at}:LINE:COL position in the error")
            elif attack.marks and not attack.error_in and not {line for line, _ in where} & attack.marks:
                found.append(f"the error is at line {where[0][0]}, not on a line marked '# <-' {sorted(attack.marks)}")
        failed += [f"{command}: {f}" for f in found]
        if found:
            shown.append(show(result, args, stdin))
    if len(results) < len(commands):
        failed.append(f"{commands[len(results)][0][0]}: never ran (the command before it hung)")
    if record.exists() and CANARY in record.read_text(encoding="utf-8", errors="replace"):
        failed.append("the record holds the environment's canary")
    written = sorted(p.name for p in cwd.iterdir())
    if written:
        failed.append(f"the rules wrote files: {written}")
    assert not failed, (f"{path.name}: {attack.what}\n  " + "\n  ".join(failed)
                        + f"\nreproduce: {attack.reproduce()}\n" + "".join(shown))


def test_attack_files_are_well_formed():
    """Each file says what it tries; together they cover every class of the issue."""
    assert len(ALL) >= 80
    kinds = {Attack(p).kind for p in ALL}
    assert kinds == {"game", "variant", "scenario"}
    for prefix, least in {"escape_": 8, "template_": 15, "name_": 6, "inline_": 2, "limit_": 12, "overflow_": 8,
                          "runaway_": 20, "variant_": 6, "scenario_": 4}.items():
        count = sum(p.name.startswith(prefix) for p in ALL)
        assert count >= least, f"{count} attacks named {prefix}*, expected {least}+"
    for p in ALL:
        a = Attack(p)
        if a.mode != "ok" and not a.error_in:
            assert a.marks, f"{p.name}: mark the line the error belongs on with '# <-'"


# ---------------------------------------------------------------- records
@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """A finished game of Why First? played by `random` agents, and one played by `first` agents."""
    home = tmp_path_factory.mktemp("records")
    made = {}
    for agent in ("random", "first"):
        path = home / f"{agent}.jsonl"
        [r] = run_cli([(["play", "why-first", "-p", "3", "--seed", "5", "--agent", agent, "--record", path], "")],
                      home)
        assert r["exit"] == 0, show(r, ["play"])
        made[agent] = path.read_text(encoding="utf-8").splitlines()
    return made


def _sub_once(pattern: str, new: str):
    def tamper(lines):
        text = "\n".join(lines)
        assert re.search(pattern, text), f"the record has no {pattern!r}"
        return re.sub(pattern, new, text, count=1).splitlines()
    return tamper


def _line_where(key: str, edit):
    """Apply edit to the first line holding key."""
    def tamper(lines):
        i = next(i for i, line in enumerate(lines) if key in line)
        return lines[:i] + [edit(lines[i])] + lines[i + 1:]
    return tamper


def _insert(after: int, line: str):
    return lambda lines: lines[: after + 1] + [line] + lines[after + 1:]


def _header(edit):
    def tamper(lines):
        h = json.loads(lines[0])
        edit(h)
        return [json.dumps(h)] + lines[1:]
    return tamper


DEEP = '{"event": "stage_begins", "text": "x", "args": {"stage": ' + "[" * 100_000 + "]" * 100_000 + "}}"
RECORD_TAMPERING = {
    # header
    "forged_agents_first_for_random": ("random", _sub_once(r'"agents":\["random","random","random"\]',
                                                           '"agents":["first","first","first"]'), r"agent|diverge"),
    "forged_agents_random_for_first": ("first", _sub_once(r'"agents":\["first","first","first"\]',
                                                          '"agents":["random","random","random"]'), r"agent|diverge"),
    "unknown_header_key": ("random", _header(lambda h: h.update(evil="x")), r"unknown|evil"),
    "unknown_header_key_dunder": ("random", _header(lambda h: h.update(__class__="x")), r"unknown|__class__"),
    "version_true_for_1": ("random", _sub_once(r'"version":1', '"version":true'), r"version|whole number"),
    "version_float": ("random", _sub_once(r'"version":1', '"version":1.0'), r"version|whole number"),
    "seed_float": ("random", _sub_once(r'"seed":5', '"seed":5.0'), r"seed|whole number"),
    "seed_true": ("random", _sub_once(r'"seed":5', '"seed":true'), r"seed|whole number"),
    "seed_5000_digits": ("random", _sub_once(r'"seed":5', '"seed":' + "7" * 5000), r"seed|digit|whole number|large"),
    "seed_2_64": ("random", _sub_once(r'"seed":5', f'"seed":{2**64}'), r"seed"),
    "seed_negative": ("random", _sub_once(r'"seed":5', '"seed":-5'), r"seed"),
    "seed_nan": ("random", _sub_once(r'"seed":5', '"seed":NaN'), r"seed|NaN|number|JSON"),
    "seed_duplicated_key": ("random", _sub_once(r'"seed":5', '"seed":6,"seed":5'), r"twice|duplicate|repeat|seed"),
    "game_duplicated_key": ("random", _sub_once(r'"game":"why_first"', '"game":"street_illegal","game":"why_first"'),
                            r"twice|duplicate|repeat|game"),
    "settings_unknown": ("random", _header(lambda h: h.update(settings={"__class__": "1"})), r"setting|__class__"),
    "players_renamed": ("random", _sub_once(r'"players":\["Anne"', '"players":["__class__"'), r"diverge|player"),
    # body
    "true_for_1_in_event_args": ("random", _sub_once(r'"stage":1\}', '"stage":true}'), r"diverge|whole number|true"),
    "float_for_int_in_event_args": ("random", _sub_once(r'"stage":1\}', '"stage":1.0}'), r"diverge|whole number"),
    "float_for_int_position": ("random", _sub_once(r'"position":(-?\d+)', r'"position":\1.0'), r"diverge|whole number"),
    "true_for_1_in_of": ("random", _sub_once(r'"of":1,', '"of":true,'), r"diverge|whole number|true"),
    "float_for_int_in_of": ("random", _sub_once(r'"of":5,', '"of":5.0,'), r"diverge|whole number"),
    "int_for_true_in_secret": ("random", _sub_once(r'"secret":true', '"secret":1'), r"diverge|true|false|bool"),
    "float_in_result_scores": ("random", _sub_once(r'("scores":\{"Anne":)(-?\d+)', r"\g<1>\g<2>.0"),
                               r"diverge|whole number"),
    "true_in_result_scores": ("random", _sub_once(r'("scores":\{"Anne":)(-?\d+)', r"\g<1>true"),
                              r"diverge|whole number"),
    "duplicated_key_in_decision": ("random", _sub_once(r'"pick":(\d+)', r'"pick":99,"pick":\1'),
                                   r"twice|duplicate|repeat|pick"),
    "duplicated_key_in_event": ("random", _sub_once(r'"text":', '"text":"forged","text":'),
                                r"twice|duplicate|repeat|text"),
    "unknown_key_in_decision": ("random", _line_where('"decision"', lambda s: s[:-1] + ',"evil":1}'),
                                r"diverge|unknown|evil"),
    "deep_nesting": ("random", _insert(1, DEEP), r"deep|nest|depth|long"),
    "nesting_past_limit": ("random", _insert(1, '{"event": "stage_begins", "text": "x", "args": {"stage": '
                                                + "[" * 20 + "1" + "]" * 20 + "}}"), r"deep|nest|depth|diverge"),
    "huge_line": ("random", _insert(1, '{"event": "' + "x" * 2_000_000 + '"}'), r"long|characters|line"),
    "huge_int_in_pick": ("random", _sub_once(r'"pick":\d+', '"pick":' + "9" * 5000), r"pick|digit|whole number|large"),
}


@pytest.mark.parametrize("name", sorted(RECORD_TAMPERING))
def test_tampered_record(records, tmp_path, name):
    """replay, and resume of the same game stopped before its result, refuse a tampered record at
    its line (and never accept a value that only compares equal, like true for 1 or 5.0 for 5)."""
    source, tamper, rx = RECORD_TAMPERING[name]
    lines = tamper(list(records[source]))
    finished = tmp_path / "game.jsonl"
    finished.write_text("\n".join(lines) + "\n", encoding="utf-8")
    stopped = tmp_path / "stopped" / "game.jsonl"
    stopped.parent.mkdir()
    stopped.write_text("\n".join(line for line in lines if not line.startswith('{"result"')) + "\n",
                       encoding="utf-8")
    commands = [(["replay", finished], ""), (["resume", stopped], "")]
    untouched = [line for line in records[source] if not line.startswith('{"result"')]
    if stopped.read_text(encoding="utf-8") == "\n".join(untouched) + "\n":
        commands = commands[:1]  # the tampering is in the result line, which a stopped game lacks
    results = run_cli(commands, tmp_path)
    assert len(results) == len(commands), show(results[-1], commands[len(results) - 1][0])
    for (args, stdin), r in zip(commands, results):
        text = assert_clean(r, args, stdin, exits=(2,))
        why = f"\n{name}" + show(r, args, stdin)
        assert re.search(rx, text), f"the message lacks /{rx}/" + why
        assert re.search(r"game\.jsonl:\d+", text), "no game.jsonl:LINE position in the error" + why


def test_untampered_records_replay(records, tmp_path):
    """The baseline of the tampering cases: the records as made replay cleanly."""
    for agent, lines in records.items():
        path = tmp_path / f"{agent}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        [r] = run_cli([(["replay", path], "")], tmp_path)
        assert_clean(r, ["replay", path], exits=(0,))


def _play_until_waiting(tmp_path: Path, waits: int):
    """A real `pitwall play --agent human --record` process, stopped at its `waits`-th question."""
    record = tmp_path / "game.jsonl"
    env = {**os.environ, "PITWALL_NO_CACHE": "1"}
    p = subprocess.Popen([sys.executable, "-m", "pitwall.cli", "play", "why-first", "-p", "3", "--seed", "4",
                          "--agent", "human", "--record", str(record)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=tmp_path)
    seen: list[bytes] = []
    reader = threading.Thread(target=lambda: seen.extend(iter(lambda: p.stdout.read1(4096), b"")), daemon=True)
    reader.start()
    deadline = time.monotonic() + LIMIT
    asked = answered = 0
    while time.monotonic() < deadline:
        asked = b"".join(seen).count(b"q to stop]> ")
        if asked >= waits:
            break
        while answered < asked:  # answer each question but the last one, which stays open
            p.stdin.write(b"1\n")
            p.stdin.flush()
            answered += 1
        time.sleep(0.05)
    assert asked >= waits, b"".join(seen).decode(errors="replace")[-3000:]
    time.sleep(0.2)  # the game is waiting for input: everything it did so far is done
    return p, record


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: s.name)
def test_a_killed_game_keeps_its_record_to_resume(tmp_path, sig):
    """`play --record` killed while it waits for a person: the game so far is in the record, and
    `resume` replays it and plays on to a record that replays."""
    p, record = _play_until_waiting(tmp_path, waits=4)
    p.send_signal(sig)
    try:
        p.wait(timeout=LIMIT)
    finally:
        p.kill()
    assert record.exists() and record.read_text(encoding="utf-8").strip(), f"no record after {sig.name}"
    lines = record.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["record"] == "pitwall"
    assert sum('"decision"' in line for line in lines) >= 3, f"the decisions made before {sig.name} are lost"
    resumed, replayed = run_cli([(["resume", record], HUMAN_ANSWERS), (["replay", record], "")], tmp_path)
    assert_clean(resumed, ["resume", record], HUMAN_ANSWERS, exits=(0,))
    assert_clean(replayed, ["replay", record], exits=(0,))


# ---------------------------------------------------------------- arguments and file sizes
CLI_ATTACKS = {
    # name: (args, allowed exit codes, regex the output must match)
    "simulate_1e14_games": (["simulate", "why-first", "-n", "100000000000000"], (2,), r"games|at most|-n|range"),
    "simulate_past_games_max": (["simulate", "why-first", "-n", "10000001"], (2,), r"games|at most|-n|range"),
    "compare_1e14_games": (["compare", "why-first", "--with", "tactical", "-n", "100000000000000"], (2,),
                           r"games|at most|-n|range"),
    "simulate_seeds_past_seed_max": (["simulate", "why-first", "-n", "5", "--seed", str(2**63 - 3)], (2,), r"seed"),
    "simulate_jobs_100000": (["simulate", "why-first", "-n", "3", "--jobs", "100000"], (0, 2), r"."),
    "play_seed_5000_digits": (["play", "why-first", "--seed", "7" * 5000], (2,), r"seed|integer"),
    "play_seed_2_64": (["play", "why-first", "--seed", str(2**64)], (2,), r"seed"),
    "play_seed_negative": (["play", "why-first", "--seed", "-1"], (2,), r"seed"),
    "play_players_5000_digits": (["play", "why-first", "--players", "7" * 5000], (2,), r"players|integer|range"),
    "play_races_5000_digits": (["play", "street-illegal", "-p", "3", "--races", "7" * 5000], (2,),
                               r"races|digit|whole number|range"),
    "play_set_races_huge": (["play", "street-illegal", "-p", "3", "--set", "races=1000000000000"], (2,),
                            r"races|range|1000"),
    "play_set_dunder": (["play", "why-first", "--set", "__class__=1"], (2,), r"setting|__class__"),
    "play_option_dunder": (["play", "why-first", "--__class__", "1"], (2,), r"setting|__class__"),
    "play_names_like_templates": (["play", "why-first", "--names", "{__class__},{0!r},{p:>99999999999}"], (0,),
                                  r"\{__class__\}"),
    "play_names_huge": (["play", "why-first", "--names", "x" * 200_000 + ",y"], (0, 2), r"."),
    "play_variant_path_dunder": (["play", "why-first", "-v", "__init__.py"], (2,), r"variant"),
    "play_game_name_5000_digits": (["play", "7" * 5000], (2,), r"game"),
    "compare_game_name_5000_digits": (["compare", "7" * 5000, "--with", "tactical"], (2,), r"game"),
}


@pytest.mark.parametrize("name", sorted(CLI_ATTACKS))
def test_cli_attack(tmp_path, name):
    args, exits, rx = CLI_ATTACKS[name]
    [r] = run_cli([(args, "")], tmp_path)
    text = assert_clean(r, args, exits=exits)
    assert re.search(rx, text), f"the output lacks /{rx}/" + show(r, args)


def test_a_rules_file_past_source_max_is_refused(tmp_path):
    from pitwall.interpreter.limits import SOURCE_MAX

    folder = tmp_path / "huge"
    folder.mkdir()
    rules = folder / "huge.pw"
    filler = "# " + "x" * 98 + "\n"
    rules.write_text('game huge "Huge" { players P 2 to 2 play main }\nparticipant P { n: int = 0 }\n'
                     "rule main() { finish players }\n" + filler * (SOURCE_MAX // len(filler) + 10), encoding="utf-8")
    commands = [(["check", rules], ""), (["play", folder], "")]
    for (args, _), r in zip(commands, run_cli(commands, tmp_path)):
        text = assert_clean(r, args, exits=(2,))
        assert re.search(r"bytes|large|long|MB|size", text), show(r, args)
        assert positions(r["stderr"], "huge.pw"), "no huge.pw:LINE:COL position" + show(r, args)


def test_the_canary_is_seen_by_the_cases():
    """The canary works: a case's environment holds it, so its absence from outputs means something."""
    probe = "import os; print(os.environ.get('PITWALL_SECRET_CANARY'))"
    env = {**os.environ, "PITWALL_SECRET_CANARY": CANARY}
    assert subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True).stdout.strip() \
        == CANARY


def test_the_cases_limit_is_cpu_time_and_stops_a_command_that_spends_it(tmp_path, monkeypatch):
    """The harness works: a command still working at the limit is stopped and reported as hung, and
    the limit counts CPU, so a parallel run or a busy neighbour does not make a budget look slow."""
    monkeypatch.setattr(sys.modules[__name__], "LIMIT", 1)
    variant = ATTACKS / "variant_huge_stages.pw"  # a budget's worth of work: seconds, more than 1
    [played] = run_cli([(["play", "why_first", "-v", variant], "")], tmp_path)
    assert played["exit"] is None and played["crash"] == "hung: still working after 1 s of CPU", played
    assert 0.9 < played["seconds"] < 10, played


def _game_of(folder: Path, body: str) -> Path:
    folder.mkdir()
    (folder / "rules.pw").write_text('game big "Big" { players P 2 to 2 play main }\nparticipant P { n: int = 0 }\n'
                                     + body, encoding="utf-8")
    return folder


def test_rules_past_callables_max_are_refused_at_the_first_too_many(tmp_path):
    """Python compiles the functions of one closure in time growing with the square of their
    number: past the limit a file is refused at the declaration that passes it, once."""
    from pitwall.interpreter.limits import CALLABLES_MAX

    folder = _game_of(tmp_path / "many", "rule main() { finish players }\n" + "".join(
        f"function f{i}(a: int) -> int = a + {i}\n" for i in range(CALLABLES_MAX + 50)))
    args = ["check", folder / "rules.pw"]
    [r] = run_cli([(args, "")], tmp_path)
    text = assert_clean(r, args, exits=(2,))
    assert f"more than {CALLABLES_MAX:,} functions and rules" in text, show(r, args)
    # main is line 3, f0 line 4: the one past the limit, f{CALLABLES_MAX - 1}, stands on line CALLABLES_MAX + 3
    assert positions(r["stderr"], "rules.pw") == [(CALLABLES_MAX + 3, 1)], show(r, args)


def test_a_variant_replacing_a_function_of_rules_at_the_limit_is_not_refused(tmp_path):
    """`replace` adds nothing: rules with exactly CALLABLES_MAX functions and rules take it."""
    from pitwall.interpreter.limits import CALLABLES_MAX

    folder = _game_of(tmp_path / "full", "rule main() {\n    players[0].n = f0(1)\n    finish players\n}\n" + "".join(
        f"function f{i}(a: int) -> int = a + {i}\n" for i in range(CALLABLES_MAX - 1)))
    (folder / "variants").mkdir()
    variant = 'variant other "Other"\nreplace function f0(a: int) -> int = a + 41\n'
    (folder / "variants" / "other.pw").write_text(variant, encoding="utf-8")
    args = ["play", folder, "-v", "other", "--seed", "1"]
    [r] = run_cli([(args, "")], tmp_path)
    assert "Winners: Player 1" in assert_clean(r, args, exits=(0,)), show(r, args)


@pytest.mark.parametrize("order", ["callee first", "caller first"])
def test_a_chain_of_calls_as_long_as_the_limit_allows_compiles_and_plays(tmp_path, order):
    """Each function calls the next: the compiler's analyses follow such chains without recursion
    and in linear time, declared in either order (they once overflowed Python's stack past about
    500, and passes over the functions repeated once per link)."""
    from pitwall.interpreter.limits import CALLABLES_MAX

    n = CALLABLES_MAX - 1  # f0 calls f1 ... calls f{n-1}, which adds 1 to its argument; each adds 1
    links = [f"function f{i}(a: int) -> int = f{i + 1}(a) + 1\n" for i in range(n - 1)]
    links.append(f"function f{n - 1}(a: int) -> int = a + 1\n")
    chain = "".join(links if order == "caller first" else reversed(links))
    folder = _game_of(tmp_path / "chain", chain + "rule main() {\n    players[0].n = f0(0)\n"
                      f"    finish [p for p in players if p.n == {n}]\n}}\n")
    commands = [(["check", folder / "rules.pw"], ""), (["play", folder, "--seed", "1"], "")]
    checked, played = run_cli(commands, tmp_path)
    assert "ok" in assert_clean(checked, commands[0][0], exits=(0,))
    assert "Winners: Player 1" in assert_clean(played, commands[1][0], exits=(0,))


def test_functions_calling_each_other_in_a_ring_compile_at_once(tmp_path):
    """Each of forty functions calls the next two, in a ring: working out which calls to write in
    place followed every path round the ring (exponential: ten functions took a minute). The
    case's alarm ends a hang."""
    n = 40
    ring = "".join(f"function f{i}(a: int) -> int = if a <= 0 then 1 "
                   f"else f{(i + 1) % n}(a - 1) + f{(i + 2) % n}(a - 2)\n" for i in range(n))
    folder = _game_of(tmp_path / "ring", ring + "rule main() {\n    players[0].n = f0(10)\n"
                      "    finish [p for p in players if p.n == 144]\n}\n")  # Fibonacci: f(a) = f(a-1) + f(a-2)
    args = ["play", folder, "--seed", "1"]
    [r] = run_cli([(args, "")], tmp_path)
    assert "Winners: Player 1" in assert_clean(r, args, exits=(0,)), show(r, args)


def test_calls_nested_past_python_s_depth_end_at_a_rule_with_a_hint(tmp_path):
    """A chain of rules about a thousand deep is refused where Python's stack ends, not with a traceback."""
    from pitwall.interpreter.limits import CALLABLES_MAX

    n = CALLABLES_MAX - 3  # main and r0..r{n}: the most rules allowed
    rules = "".join(f"rule r{i}() {{\n    players[0].n += 1\n    r{i + 1}()\n}}\n" for i in range(n))
    last = f"rule r{n}() {{\n    finish players\n}}\n"
    folder = _game_of(tmp_path / "deep", "rule main() {\n    r0()\n}\n" + rules + last)
    args = ["play", folder, "--seed", "1"]
    [r] = run_cli([(args, "")], tmp_path)
    text = assert_clean(r, args, exits=(2,))
    assert "rules call each other without end" in text and "a chain of calls that long" in text, show(r, args)
    [(line, col)] = positions(r["stderr"], "rules.pw")
    # in one of the rules r0..r{n}: its first line, or the first statement, where no charge on entry
    # comes first (its callers pay for it: costs.entry_costs)
    assert ((line - 6) % 4, col) in ((0, 1), (1, 5)), show(r, args)


# Each `prefer` worked out apart is a Python function in its rule, and a `choose` makes about twenty
# lines of Python: past DEFS_MAX functions or RULES_LINES_MAX lines (Python took over half a minute
# for a rule of 2 MB) the rules are refused at the statement that passes the limit.
@pytest.mark.parametrize("limit, prefer, count, message", [
    ("DEFS_MAX", " prefer option", lambda limit: limit + 10, "Python functions"),
    ("RULES_LINES_MAX", "", lambda limit: limit // 10, "lines of Python"),
])
def test_rules_making_too_much_python_are_refused_where_they_pass_the_limit(tmp_path, limit, prefer, count, message):
    from pitwall.interpreter import limits

    value = getattr(limits, limit)
    n = count(value)
    chooses = "".join(f"    choose x{i} from [1, 2] by players[0]{prefer}\n    players[0].n += x{i}\n"
                      for i in range(n))
    folder = _game_of(tmp_path / "long", "rule main() {\n" + chooses + "    finish players\n}\n")
    args = ["check", folder / "rules.pw"]
    [r] = run_cli([(args, "")], tmp_path)
    text = assert_clean(r, args, exits=(2,))
    assert f"more than {value:,} {message}" in text, show(r, args)
    [(line, col)] = positions(r["stderr"], "rules.pw")
    assert col == 5 and 4 <= line < 4 + 2 * n, show(r, args)  # a statement of the rule, before its end
