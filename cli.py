"""The `pitwall` command: thin click wrappers over the interpreter's library functions."""

from __future__ import annotations

import contextlib
import signal
from pathlib import Path

import click

from . import __version__
from .interpreter.errors import PitwallError, ReaderStopped, render
from .interpreter.limits import INT_DIGITS_MAX, SEED_MAX


class UserError(click.ClickException):
    """A mistake in the user's input: rendered with file, line, caret and hint; exit code 2."""

    exit_code = 2

    def __init__(self, error: PitwallError):
        super().__init__(error.message)
        self.error = error

    def show(self, file=None):
        _say(_rendered(self.error))


def _rendered(error: PitwallError) -> str:
    from .interpreter.record import RecordFileError, render_error

    return render_error(error) if isinstance(error, RecordFileError) else render(error)


def _say(text: str) -> None:
    """A line on stderr, which may be gone too (a closed terminal): then there is nobody to tell."""
    try:
        click.echo(text, err=True)
    except OSError:
        pass


def guarded(fn):
    """Turn every PitwallError into a UserError, so users never see a traceback for their mistakes."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except PitwallError as e:
            raise UserError(e) from None

    return wrapper


class Whole(click.ParamType):
    """A whole number from lo to hi; its digits are counted before Python converts them, so a
    number of 5,000 digits is a usage error like any other, and is never echoed whole."""

    name = "integer"

    def __init__(self, lo: int, hi: int | None = None):
        self.lo, self.hi = lo, hi

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            number = value
        else:
            text = str(value).strip()
            digits = text[1:] if text[:1] in "+-" else text
            if not (digits.isascii() and digits.isdigit()) or len(digits) > INT_DIGITS_MAX:
                shown = text if len(text) <= 24 else f"{text[:20]}... ({len(text)} characters)"
                self.fail(f"{shown!r} is not a whole number {self.bounds()}", param, ctx)
            number = int(text)
        if number < self.lo or (self.hi is not None and number > self.hi):
            self.fail(f"{number} is not {self.bounds()}", param, ctx)
        return number

    def bounds(self) -> str:
        return f"from {self.lo} to {self.hi}" if self.hi is not None else f"of at least {self.lo}"


def variant_option(fn):
    return click.option("--variant", "-v", "variants", multiple=True, metavar="NAME",
                        help="Apply a variant (repeatable; applied in order). NAME=VALUE replaces one constant, "
                             "as the variant 'replace const NAME = VALUE' would.")(fn)


# Commands that take a game's settings also read each one as an option of its own, `--NAME VALUE`
# (after GAME): the options a game has are declared in its rules, so click cannot list them.
WITH_SETTINGS = {"ignore_unknown_options": True, "allow_extra_args": True}


def settings_option(fn):
    fn = click.pass_context(fn)
    return click.option("--set", "sets", multiple=True, metavar="NAME=VALUE",
                        help="Override one of the game's settings (see `pitwall games`); repeatable. "
                             "`--NAME VALUE` after GAME does the same.")(fn)


def _settings(sets: tuple[str, ...], extra: list[str]) -> tuple[tuple[str, str], ...]:
    out = []
    for s in sets:
        name, eq, value = s.partition("=")
        if not eq or not name.strip():
            raise click.BadParameter(f"{s!r} is not NAME=VALUE", param_hint="--set")
        out.append((name.strip(), value.strip()))
    out += _setting_options(extra)
    names = [name for name, _ in out]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise click.BadParameter(f"setting {twice!r} is given twice", param_hint="--set")
    return tuple(out)


def _setting_options(args: list[str]) -> list[tuple[str, str]]:
    """`--NAME VALUE` or `--NAME=VALUE`: a setting of the game, as its own option."""
    out, i = [], 0
    while i < len(args):
        token = args[i]
        if not token.startswith("--") or len(token) == 2:
            raise click.UsageError(f"unexpected argument {token!r}")
        name, eq, value = token[2:].partition("=")
        if not eq:
            if i + 1 >= len(args):
                raise click.UsageError(f"{token} needs a value: {token} VALUE sets the game's setting {name!r}")
            value, i = args[i + 1], i + 1
        out.append((name.replace("-", "_"), value))
        i += 1
    return out



def seed_option(fn):
    return click.option("--seed", "-s", type=Whole(0, SEED_MAX), default=1, show_default=True,
                        help=f"Seed of the game's generator, 0 to {SEED_MAX}.")(fn)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pitwall")
def cli():
    """Write, run and study the rules of racing board games."""


@cli.command()
@guarded
def games():
    """List the games and their variants.

    \b
    Example:
        pitwall games
    """
    from .interpreter.link import bounds_text, settings_of
    from .interpreter.load import games as all_games
    from .interpreter.load import load

    broken = None
    for g in all_games():
        try:
            decl = load(g.name).program.game
        except PitwallError as e:  # one broken game must not hide the others
            click.echo(f"{g.name.replace('_', '-')}: does not load", err=True)
            broken = e
            continue
        click.echo(f"{g.name.replace('_', '-')}: {decl.title} ({decl.min_players}-{decl.max_players} players)")
        click.echo(f"    rules: {g.path}")  # where to read them before writing a variant
        for name, path in g.variant_files().items():
            click.echo(f"    --variant {name}: {_variant_title(path)}")
        for name, c in settings_of(load(g.name).program).items():
            about = f": {c.setting}" if isinstance(c.setting, str) else ""
            allowed = f" ({bounds_text(c)})" if c.bounds else ""
            click.echo(f"    --set {name}={_literal(c.value)}{allowed}{about}")
    if broken is not None:
        raise broken


@cli.command()
@click.argument("game")
@variant_option
@guarded
def outline(game, variants):
    """What a variant can change: constants, settings, functions, rules, events and decks.

    Each with the file and line where it is written (after the given variants, if any).

    \b
    Example:
        pitwall outline GAME
        pitwall outline GAME -v VARIANT
    """
    from .interpreter.load import load
    from .interpreter.outline import outline as sections

    loaded = load(game, tuple(variants))
    _warn(loaded)
    click.echo(f"{loaded.program.game.title}: the rules in {loaded.game.path}")
    for title, items in sections(loaded.program, loaded.game.path):
        click.echo(f"\n{title}:")
        width = min(60, max(len(text) for text, _ in items))
        for text, at in items:
            click.echo(f"  {text:<{width}}  {at}")


def _literal(value) -> str:
    v = getattr(value, "value", "?")
    return str(v).lower() if isinstance(v, bool) else str(v)


def _variant_title(path: Path) -> str:
    from .interpreter import ast
    from .interpreter.parse import parse_file

    decl = next((i for i in parse_file(path).items if isinstance(i, ast.VariantDecl)), None)
    if decl is None:
        return "?"
    return decl.title + (" (" + ", ".join(r.name for r in decl.includes) + ")" if decl.includes else "")


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--game", "-g", metavar="GAME", help="Check variant files on top of this game (a name or a path).")
@guarded
def check(files, game):
    """Parse and check rules, variant or scenario files.

    A variant is checked on top of its game's rules (the game of its folder, or --game); a rules
    file together with the other rules files of its folder. Several variants of one game are then
    also checked together, in the order given, as `play -v A -v B` would combine them.

    \b
    Example:
        pitwall check games/GAME/variants/VARIANT.pw
        pitwall check --game GAME my_variant.pw other.pw
    """
    from .interpreter.load import build, check_file

    failed = False
    variants: dict[Path, tuple] = {}  # game folder -> (game, [variant files that check alone])
    for f in files:
        try:
            checked = check_file(f, game)
        except PitwallError as e:  # report it and go on: every file gets its verdict
            click.echo(render(e), err=True)
            failed = True
            continue
        if hasattr(checked, "program"):
            _warn(checked)
            if checked.variants:
                variants.setdefault(checked.game.path, (checked.game, []))[1].append(f)
        click.echo(f"{f}: ok")
    for g, paths in variants.values():
        if len(paths) > 1:
            try:
                _warn(build(g.base_files(), paths, g, tuple(p.stem for p in paths)))
                click.echo(f"together ({' then '.join(p.name for p in paths)}): ok")
            except PitwallError as e:
                click.echo(render(e), err=True)
                failed = True
    if failed:
        raise click.exceptions.Exit(2)


def _warn(loaded) -> None:
    """Rules that link and check but likely miss their author's intent (a lost variant change)."""
    for w in loaded.program.warnings:
        click.echo(render(w, loaded.program.sources), err=True)


def _setup(game, variants, players, names, settings=()):
    from .interpreter.engine import player_names
    from .interpreter.load import load

    loaded = load(game, tuple(variants), settings)
    _warn(loaded)
    return loaded, player_names(loaded, players, names.split(",") if names else None)


@cli.command(context_settings=WITH_SETTINGS)
@click.argument("game")
@variant_option
@click.option("--players", "-p", type=Whole(1, 99), help="Number of players (default: the fewest allowed).")
@click.option("--names", help="Comma-separated player names.")
@seed_option
@click.option("--agent", "-a", "agents", multiple=True, metavar="[SEAT=]AGENT",
              help="random, first, heuristic or human; SEAT=AGENT for one seat. human alone takes seat 1.")
@click.option("--record", "record_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the game record (JSON Lines) here, line by line as the game goes.")
@click.option("--decisions/--no-decisions", default=False, help="Also narrate every decision.")
@click.option("--step", is_flag=True, help="Wait for Enter after each event (q stops; --record keeps the game).")
@settings_option
@guarded
def play(ctx, game, variants, players, names, seed, agents, record_path, decisions, step, sets):
    """Play a seeded game and narrate it.

    With --record, each line of the record is written the moment it happens, so a game stopped
    any way (q, end of input, Ctrl-C, a kill, a closed pipe) keeps the game so far, for
    `pitwall resume`. An earlier file there is replaced only once the new game has started.

    \b
    Example:
        pitwall play GAME --players 4 --seed 7 --record game.jsonl
        pitwall play GAME --agent human
        pitwall play GAME --set NAME=VALUE     (or --NAME VALUE: any setting of the game)
    """
    from .interpreter.engine import agent_names, new_game
    from .interpreter.record import entry_line, result_line, travelling

    loaded, names_ = _setup(game, variants, players, names, _settings(sets, ctx.args))
    seats = agent_names(list(agents), len(names_), "heuristic")
    tell = _teller(decisions, step)
    writer = None

    def listen(entry: tuple) -> None:
        line = entry_line(loaded, entry)
        if writer is not None:
            writer.write(line)  # the record first: a stdout that closes loses no line of it
        tell(line)

    g, header = new_game(loaded, names_, seats, seed, listener=listen)
    header = travelling(header, loaded)  # each rules file's hash; a variant file of one's own, its text
    with _stoppable():
        try:
            writer = _new_record(record_path, header) if record_path else None
            with writer or contextlib.nullcontext():
                g.run()
                line = result_line(g)
                if writer is not None:
                    writer.write(line)
                tell(line)
        except (PitwallError, KeyboardInterrupt, ReaderStopped, Stopped) as stop:
            _stopped(stop, record_path, kept=writer is not None)
            return
    if record_path:
        _say(f"Record written to {record_path}")


def _new_record(path: Path, header):
    """The record file, its header written: before the game, so a long game is never played for nothing."""
    from .interpreter.record import RecordWriter

    try:
        return RecordWriter.create(path, header)
    except OSError as e:
        raise click.BadParameter(f"cannot write {str(path)!r}: {e.strerror}", param_hint="--record") from None


class Stopped(BaseException):
    """SIGTERM or SIGHUP: end the game now. Not an Exception, so nothing on the way catches it."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _stoppable():
    """While a game runs, SIGTERM and SIGHUP end it as Ctrl-C does: the record so far is told
    about and the process exits at once (its lines are on disk already, whatever happens)."""
    signals = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None]

    def stop(signum, frame):
        for s in signals:  # a second signal while stopping ends the process the usual way
            signal.signal(s, signal.SIG_DFL)
        raise Stopped(signum)

    try:
        before = {s: signal.signal(s, stop) for s in signals}
    except ValueError:  # not the main thread (an embedding program): its own handling stays
        before = {}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def _stopped(stop: BaseException, path: Path | None, kept: bool = True) -> None:
    """A game stopped part-way: say where the game so far is, then end as the stop asks (a reader's
    q quietly, a signal with its exit code, the rest by raising on)."""
    if _PROMPT[0]:  # a --step prompt waits on its line: the message gets a line of its own
        _PROMPT[0] = False
        _say("")
    if isinstance(stop, Stopped):
        name = signal.Signals(stop.signum).name
        where = f"; the game so far is in {path}: pitwall resume {path} goes on" if path and kept else ""
        _say(f"Stopped by {name}{where}")
        raise click.exceptions.Exit(128 + stop.signum)
    if path and kept:
        _saved(path, stop)
    if isinstance(stop, ReaderStopped):
        if not path:
            _say("Stopped. (With --record FILE, pitwall resume FILE goes on later.)")
        return
    raise stop


def _saved(path: Path, stop: BaseException) -> None:
    from .interpreter.errors import RuleRuntimeError

    if isinstance(stop, RuleRuntimeError):  # the rules failed: resuming would fail the same way
        _say(f"The game up to the error is saved in {path}.")
    else:
        _say(f"The game so far is saved in {path}; go on with: pitwall resume {path}")


def _teller(decisions: bool, step: bool = False):
    """Narrate record lines as they come; secret decisions wait until their block is over."""
    from .interpreter.record import text_of

    secret: list[dict] = []

    def tell(line: dict) -> None:
        if line.get("secret"):  # told once the simultaneous block is over, never to later choosers
            secret.append(line)
            return
        for told in secret + [line]:
            text = text_of(told, decisions)
            if text:
                click.echo(text)
        secret.clear()
        if step and "event" in line:
            _wait_for_reader()

    return tell


@cli.command(short_help='Go on with a recorded game that stopped part-way.')
@click.argument("record", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--agent", "-a", "agents", multiple=True, metavar="[SEAT=]AGENT",
              help="Who plays on, as for play; the other seats keep the agents the record names.")
@click.option("--decisions/--no-decisions", default=False, help="Also narrate every decision.")
@click.option("--step", is_flag=True, help="Wait for Enter after each new event (q stops, keeping the game).")
@guarded
def resume(record, agents, decisions, step):
    """Go on with a game saved part-way (play --record, stopped), writing on as it goes.

    The record's decisions are replayed and checked, each against the agent of its seat; then
    each seat's agent (a person at the terminal too) plays on, and RECORD grows line by line. A
    last line cut mid-way (the game was killed while writing it) is left out. With --agent, a
    seat plays on with another agent, which must be one that could have made its decisions so
    far (a person can take any seat over); the record's header then names it.

    \b
    Example:
        pitwall play GAME --agent human --record game.jsonl   (stopped part-way)
        pitwall resume game.jsonl
        pitwall resume game.jsonl --agent 2=human
    """
    from collections import deque

    from .interpreter.engine import agent_names
    from .interpreter.record import read, replay, rules_of, text_of

    rec = read(record, warn=lambda note: _say(note.render()))
    if rec.finished:
        raise rec.error(len(rec.texts), "this game is over: there is nothing to resume",
                        hint=f"pitwall replay {record} shows it")
    rules_of(rec)  # the header's game, players and rules hash, before anything is said about who plays
    seats = agent_names(list(agents), len(rec.header.players), "heuristic", base=list(rec.header.agents))
    _tell_who_plays_on(rec, seats)
    recent: deque[str] = deque(maxlen=5)  # the last events before the stop, to pick up the thread
    checked = [0]
    tell = _teller(decisions, step)

    def on_old(line: dict) -> None:
        checked[0] += 1
        text = text_of(line)
        if text:
            recent.append(text)
        if checked[0] == len(rec.body):  # the record ends here: recap, before anyone is asked anything
            click.echo(f"... {len(rec.body)} lines of {record} replayed and checked; the last events:")
            click.echo("\n".join(recent))
            click.echo("--- the game goes on")

    writer = None

    def on_new(line: dict) -> None:
        writer.write(line)
        tell(line)

    with _stoppable():
        try:
            with _record_to_go_on(rec, seats) as writer:
                replay(rec, on_old, play_on=seats, on_new=on_new)
        except (PitwallError, KeyboardInterrupt, ReaderStopped, Stopped) as stop:
            _stopped(stop, record, kept=writer is not None and writer.written > 0)
            return
    _say(f"Record written to {record}")


def _record_to_go_on(rec, seats: list[str]):
    """The record, to write on after its last whole line; its header names the agents that play on."""
    from .interpreter.record import RecordWriter

    try:
        return RecordWriter.go_on(rec, seats)
    except OSError as e:
        raise click.BadParameter(f"cannot write {str(rec.path)!r}: {e.strerror}", param_hint="RECORD") from None


def _tell_who_plays_on(rec, seats: list[str]) -> None:
    """The header says who plays on; where nobody can check that against the record (a person can
    pick anything), say so: a record from elsewhere must not quietly decide who plays."""
    from .interpreter.record import RecordNote, unchecked_seats

    unchecked = unchecked_seats(rec.header, seats)
    if unchecked:
        who = ", ".join(f"{rec.header.players[i]} (seat {i + 1})" for i in unchecked)
        line = rec.line(1)
        _say(RecordNote(line.span(("agents",)), f"the record's header says a person plays on for {who}; its "
                        "decisions cannot confirm that, as a person can pick anything", line.text,
                        f"--agent {unchecked[0] + 1}=AGENT plays the seat on with an agent that could have made its "
                        "decisions so far").render())


@cli.command()
@click.argument("record", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--step", is_flag=True, help="Wait for Enter after each event.")
@click.option("--decisions/--no-decisions", default=False, help="Also narrate every decision.")
@click.option("--rules-changed", is_flag=True,
              help="Replay under the rules as they are now, though they changed, and show the first line that "
                   "differs.")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON Lines instead: each decision with its options and the public state, each event.")
@guarded
def replay(record, step, decisions, rules_changed, as_json):
    """Re-run a game record, verify every line, and narrate it.

    Each decision is also checked against the agent the record names for its seat (first,
    heuristic and random pick the same again; a human seat can pick anything). A record keeps
    each rules file's hash (and the text of a variant file of one's own), so rules that changed
    since are named file by file.

    With --rules-changed, the record's decisions are made again, each as recorded, under the
    rules as they are now, narrating; the replay stops at the first line the game now tells
    otherwise (an event's text, a decision's options, a decision the rules no longer offer) and
    shows the recorded and the new line. Exit status: 0 if nothing differs, 1 if a line
    differs, 2 for an error (a bad record, rules that do not load).

    With --json, one JSON object a line, for tools: each decision (who, its options, the
    choice, the public state before it), each event (name, text, arguments), then the result
    with the final state; the keys are in docs/viewer.md.

    \b
    Example:
        pitwall replay game.jsonl --step
        pitwall replay game.jsonl --rules-changed
        pitwall replay game.jsonl --json
    """
    from .interpreter.record import read, text_of, unchecked_seats
    from .interpreter.record import replay as run_replay

    told = [0]

    def tell(line):
        text = text_of(line, decisions)
        if text:
            click.echo(text)
            told[0] += "event" in line
            if step and "event" in line:
                _wait_for_reader()

    if as_json and (step or rules_changed):
        raise click.UsageError("--json prints the whole replay: it goes with neither --step nor --rules-changed")
    rec = read(record, warn=lambda note: _say(note.render()))
    if rules_changed:
        _replay_changed(rec, tell, told)
        return
    if as_json:
        _replay_json(rec)
        return
    try:
        run_replay(rec, tell)
    except ReaderStopped:
        _say(f"Replay stopped after {told[0]} events; the rest is not checked.")
        return
    people = unchecked_seats(rec.header, list(rec.header.agents))
    anyone = "".join(f"; {rec.header.players[i]} (human) could pick anything" for i in people)
    _say(f"Replay matches the record ({record}){anyone}")


def _replay_json(rec) -> None:
    """replay --json: a line per step as it is checked, so a divergence ends the output there."""
    from .interpreter.record import dumps_line
    from .interpreter.viewer import step_json, watch

    watch(rec, lambda step: click.echo(dumps_line(step_json(step))), event_states=False)
    _say(f"Replay matches the record ({rec.path})")


@cli.command()
@click.argument("record", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="The HTML file to write (default: the record's name with .html).")
@guarded
def view(record, output):
    """Write a game record as one HTML page to step through in a browser.

    The record is replayed and checked as by `pitwall replay`; the page holds the narration, a
    step slider, a list of decisions to jump to, and at each step the board as the rules draw it
    and every participant's public fields (secret and hidden ones only as counts). The page is
    one file: no network, no server. A game stopped part-way is shown up to its last line.

    \b
    Example:
        pitwall view game.jsonl -o game.html
    """
    from .interpreter.record import read
    from .interpreter.viewer import html_page, watch

    rec = read(record, warn=lambda note: _say(note.render()))
    if not rec.body:
        raise rec.error(1, "the record holds no line of the game yet: there is nothing to show",
                        hint=f"pitwall resume {record} plays it on")
    steps: list = []
    game = watch(rec, steps.append, partial=True)
    out = output or record.with_suffix(".html")
    try:
        out.write_text(html_page(rec, game, steps), encoding="utf-8")
    except OSError as e:
        raise click.BadParameter(f"cannot write {str(out)!r}: {e.strerror}", param_hint="--output") from None
    part = "" if rec.finished else " (a game stopped part-way: up to its last line)"
    _say(f"Wrote {out}: {len(steps)} steps{part}, {out.stat().st_size // 1024} KB")


def _replay_changed(rec, tell, told: list[int]) -> None:
    """replay --rules-changed: which files changed, the narration up to the first line that
    differs, and that line as recorded and as told now; exit status 1 if there is one."""
    from .interpreter.record import dumps_line, replay_changed, rules_differ, rules_of

    loaded = rules_of(rec, same_rules=False)
    changes = [text for _, text in rules_differ(rec, loaded)]
    for text in changes:
        _say(f"note: {text}")
    if not changes:
        _say("note: the rules are the ones the game was recorded with")
    try:
        diff = replay_changed(rec, tell)
    except ReaderStopped:
        _say(f"Replay stopped after {told[0]} events; the rest is not compared.")
        return
    if diff is None:
        end = "" if rec.finished else " (a game stopped part-way: compared up to its last line)"
        _say(f"Nothing differs: every line of {rec.path} comes again under the current rules{end}")
        return
    click.echo(f"--- line {diff.number} of {rec.path} differs:")
    click.echo(f"  recorded: {_told(diff.recorded)}")
    click.echo(f"  now:      {_told(diff.now) if diff.now is not None else 'the game asks: ' + diff.asked}")
    click.echo(f"  recorded line: {dumps_line(diff.recorded)}")
    if diff.now is not None:
        click.echo(f"  new line:      {dumps_line(diff.now)}")
    raise click.exceptions.Exit(1)


def _told(line: dict) -> str:
    """A record line as --rules-changed shows it: an event's text, a decision with its option."""
    if "decision" in line:
        how = ", secretly" if line.get("secret") else ""
        return (f"{line['by']} chooses {line['decision']}: {line['option']} (option {line['pick'] + 1} of "
                f"{line['of']}{how})")
    if "event" in line:
        return f"{line['text']} (event {line['event']})"
    return "Winners: " + (", ".join(line["result"]["winners"]) or "nobody")


_PROMPT = [False]  # whether a --step prompt waits on stderr, its line still open


def _wait_for_reader() -> None:
    """--step: Enter goes on; q (or the end of input) stops the replay."""
    click.echo("[Enter: next, q: stop] ", nl=False, err=True)
    _PROMPT[0] = True  # until answered: a signal that stops the game meanwhile finds the line open
    try:
        answer = input()
    except EOFError:
        _PROMPT[0] = False
        raise ReaderStopped from None
    _PROMPT[0] = False
    if answer.strip().lower() in ("q", "quit"):
        raise ReaderStopped


@cli.command(short_help='Run a scenario and print its narration.')
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--decisions/--no-decisions", default=True, help="Also narrate every decision.")
@guarded
def scenario(file, decisions):
    """Run a scenario (a stated position plus scripted decisions) and print its narration.

    \b
    Example:
        pitwall scenario games/GAME/scenarios/SCENARIO.pw
    """
    from .interpreter.scenario import narrate

    narrate(file, decisions, click.echo)



# The commands that play many games live in cli_many.py; importing it registers them.
from . import cli_many  # noqa: E402,F401


def main():
    cli(prog_name="pitwall")


if __name__ == "__main__":
    # `python -m pitwall.cli` runs this file as __main__, a module apart from pitwall.cli, to whose
    # group cli_many adds its commands (simulate, compare, sweep, report): run that group
    from .cli import main as _main

    _main()
