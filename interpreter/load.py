"""Find games and run the front half of the pipeline: parse -> link -> check -> compile.

Compiled games are cached per process, keyed by game and variants, so simulations compile once.
"""

from __future__ import annotations

import functools
from pathlib import Path

import attrs

from . import ast
from .blame import blame
from .compile_cache import compile_program
from .compiled import Compiled
from .errors import PitwallError, read_text
from .limits import FILES_MAX, INCLUDE_DEPTH_MAX, LOAD_BUDGET
from .link import Program, apply_settings, link
from .overrides import is_override, override_variant, refuse_settings
from .parse import parse_file
from .requires import Unmet, unmet, unmet_error
from .runtime import GENERATED, NAMESPACE, SAFE_BUILTINS, load_error, metered, rules_span

GAMES = Path(__file__).resolve().parent.parent / "games"
EXT = ".pw"


@attrs.frozen
class GameDir:
    name: str
    path: Path

    def base_files(self) -> list[Path]:
        return sorted(self.path.glob("*" + EXT))

    def variant_files(self) -> dict[str, Path]:
        return {p.stem: p for p in sorted((self.path / "variants").glob("*" + EXT))}

    def scenario_files(self) -> list[Path]:
        return sorted((self.path / "scenarios").glob("*" + EXT))

    @property
    def ref(self) -> str:
        """How records and worker processes name the game: its name if shipped, else its folder."""
        return self.name if self.path.parent == _resolved(GAMES) else str(self.path)


@functools.cache
def _resolved(folder: Path) -> Path:
    # resolved once per folder: every new game names its game (a resolve is a walk of the file
    # system). Keyed by the folder, not made once: a test that puts the games elsewhere must not
    # leave its folder behind for the games after it (a record would name them by path).
    return folder.resolve()


@attrs.frozen
class Loaded:
    game: GameDir | None
    variants: tuple[str, ...]
    program: Program
    compiled: Compiled
    namespace: dict
    filename: str = GENERATED
    settings: tuple[tuple[str, str], ...] = ()  # overridden settings, as given: (name, value)
    # sets of the rules' functions that closed games gave back, for the next games (runtime.CodeSet)
    pool: list = attrs.field(factory=list, eq=False, repr=False)

    @functools.cached_property
    def consts(self) -> dict:
        """Each constant's value by its rules name, as narration templates read them."""
        return {name: self.namespace[f"C_{name}"] for name in self.program.consts}

    @property
    def rules_hash(self) -> str:
        return self.program.digest

    @functools.cached_property
    def ref(self) -> str:
        """How records name the game (GameDir.ref, worked out once: it compares paths)."""
        return self.game.ref if self.game else self.program.game.name


def canonical(name: str) -> str:
    return name.strip().lower().replace("-", "_")


def games() -> list[GameDir]:
    return [GameDir(p.name, p) for p in sorted(GAMES.iterdir()) if p.is_dir() and any(p.glob("*" + EXT))]


def _is_dir(name: str) -> bool:
    try:
        return Path(name).is_dir()
    except (OSError, ValueError):  # a name too long for a path, or with a NUL: no folder
        return False


def find_game(name: str) -> GameDir:
    """A shipped game by name, or a game in a folder of one's own (a path to it or to one of its files)."""
    if any(sep in name for sep in ("/", "\\")) or name.endswith(EXT) or name.startswith("."):
        path = Path(name).expanduser()
        try:
            game = game_of_file(path / "rules.pw") if path.is_dir() else game_of_file(path) if path.is_file() else None
        except (OSError, ValueError):  # a name too long for a path, or with a NUL
            game = None
        if game is None:
            raise PitwallError(f"no game's rules at {name[:60]!r}", hint="name a folder that holds its .pw rules files")
        return game
    want = canonical(name)
    for g in games():
        if g.name == want:
            return g
    if _is_dir(name):  # a folder of one's own in the current directory: `play mygame`
        return find_game("./" + name)
    known = ", ".join(g.name.replace("_", "-") for g in games())
    shown = name if len(name) <= 40 else name[:40] + "..."
    raise PitwallError(f"no game named {shown!r}", hint=f"games: {known}, or a path to a game's folder")


class ParsedPath(type(Path())):
    """A path that carries its already-parsed file, so no file is parsed twice."""

    def __new__(cls, parsed: ast.SourceFile):
        self = super().__new__(cls, parsed.path)
        self.parsed = parsed
        return self


def build(base: list[Path], variants: list[Path], game: GameDir | None = None,
          variant_names: tuple[str, ...] = (), execute: bool = True,
          settings: tuple[tuple[str, str], ...] = ()) -> Loaded:
    files, sources = [], {}
    for path in base + with_includes(variants, game):
        f = getattr(path, "parsed", None) or parse_file(path)
        files.append(f)
        text = getattr(path, "source_text", None)  # a ParsedPath of a file kept in a record: not on disk
        sources[str(path)] = text if text is not None else read_text(path, "rules file")
    prog = link(files[: len(base)], files[len(base):], sources)
    apply_settings(prog, settings)
    compiled = compile_program(prog, _check)  # checked first, unless the cache holds it (checked then)
    namespace = module_namespace(prog, compiled)
    if execute:
        run_module(prog, compiled, namespace)
    return Loaded(game, variant_names, prog, compiled, namespace, settings=settings)


def _check(prog: Program) -> dict:
    """The checker, imported only when it must run (compile_cache.compile_program)."""
    from .check import check

    return check(prog)


def with_includes(variants: list[Path], game: GameDir | None = None) -> list[Path]:
    """The variants to link, each bundle (`variant NAME "Title" includes A, B`) preceded by the
    variants it includes, recursively: from the bundle's own folder, else the game's variants (so a
    bundle of one's own, anywhere, may name the game's); a variant already applied is not applied
    again, so `-v flags -v advanced` is the bundle with `flags` first."""
    out: list[Path] = []
    folders = [game.path / "variants"] if game is not None else []
    for path in variants:
        _expand(path if getattr(path, "parsed", None) else ParsedPath(parse_file(path)), (), out, folders)
    return out


def _expand(path: Path, chain: tuple[Path, ...], out: list[Path], folders: list[Path]) -> None:
    decl = next((i for i in path.parsed.items if isinstance(i, ast.VariantDecl)), None)
    for ref in decl.includes if decl is not None else ():
        if len(chain) >= INCLUDE_DEPTH_MAX or len(out) >= FILES_MAX:
            what = f"bundles nest more than {INCLUDE_DEPTH_MAX} deep" if len(chain) >= INCLUDE_DEPTH_MAX \
                else f"the bundles bring in more than {FILES_MAX} variant files"
            raise PitwallError(f"variant {decl.name!r} includes {ref.name!r}: {what}", ref.span,
                               "include the variants themselves rather than bundles of bundles")
        target = next((f / (ref.name + EXT) for f in [path.parent] + folders if (f / (ref.name + EXT)).is_file()),
                      None)
        if target is None:
            there = sorted({p.stem for f in [path.parent] + folders for p in f.glob("*" + EXT)} - {Path(path).stem})
            raise PitwallError(f"variant {decl.name!r} includes {ref.name!r}, which is not a variant here",
                               ref.span, "variants: " + (", ".join(there) or "none"))
        if target.resolve() in (p.resolve() for p in chain + (Path(path),)):
            raise PitwallError(f"variant {decl.name!r} includes {ref.name!r}, which includes it again",
                               ref.span, "a bundle cannot include itself, directly or through another bundle")
        if all(target.resolve() != p.resolve() for p in out):
            _expand(ParsedPath(parse_file(target)), chain + (Path(path),), out, folders)
    if all(Path(path).resolve() != p.resolve() for p in out):
        out.append(path)


def module_namespace(prog: Program, compiled: Compiled) -> dict:
    """What the generated module runs in: the runtime's helpers and the load budget."""
    namespace = dict(NAMESPACE, _T=compiled.parts, __builtins__=SAFE_BUILTINS, __name__="pitwall_rules")
    namespace.update(metered(LOAD_BUDGET))  # constants, decks, requirements: the game's budget replaces it
    namespace["_unmet"] = unmet(prog, compiled.spans)
    return namespace


def run_module(prog: Program, compiled: Compiled, namespace: dict) -> None:
    """Work out the constants, decks and requirements; a failure is an error at its rules line (a
    requirement over a deck's rows: at the row that breaks it)."""
    try:
        exec(compiled.code, namespace)  # noqa: S102 - our own generated code, from checked rules
    except Exception as exc:  # noqa: BLE001 - a constant or deck row failed: point at it
        if isinstance(exc, Unmet):
            error = unmet_error(exc, rules_span(exc.__traceback__, GENERATED, compiled.linemap))
        else:
            error = load_error(exc, GENERATED, compiled.linemap)
        # a row at fault: what its line and the requirement read may both come from a variant
        required = exc.require.span if isinstance(exc, Unmet) and exc.row is not None else None
        suspects = blame(prog, error.span, required)
        if suspects:
            error.hint = f"{error.hint}\n{suspects}" if error.hint else suspects
        raise error from None


def load(name: str, variants: tuple[str, ...] = (), settings: tuple[tuple[str, str], ...] = ()) -> Loaded:
    """A game with its variants and settings, compiled and ready to play: one per process for
    each, however the call names its arguments (`load(g)` and `load(g, (), ())` alike)."""
    return _load(name, tuple(variants), tuple(settings))


@functools.lru_cache(maxsize=32)
def _load(name: str, variants: tuple[str, ...], settings: tuple[tuple[str, str], ...]) -> Loaded:
    game = find_game(name)
    available = game.variant_files()
    paths = []
    names = []
    overrides = []
    for v in variants:
        if is_override(v):  # NAME=VALUE: a constant replaced, as a one-line variant would
            path, given = override_variant(v)
            paths.append(path)
            names.append(given)
            overrides.append(given)
            continue
        if v.endswith(EXT):  # a variant file of one's own, not (yet) in the game's folder
            path = Path(v).expanduser().resolve()
            if not path.is_file():
                raise PitwallError(f"no variant file {v!r}")
            paths.append(path)
            names.append(str(path))
            continue
        key = canonical(v)
        if key not in available:
            raise PitwallError(f"{game.name} has no variant {v!r}",
                               hint="variants: " + (", ".join(available) or "none") + ", or a path to a .pw file")
        paths.append(available[key])
        names.append(key)
    twice = next((v for v, p in zip(variants, paths) if paths.count(p) > 1), None)
    if twice is not None:
        raise PitwallError(f"variant {twice!r} is given twice", hint="apply each variant once")
    loaded = build(game.base_files(), paths, game, tuple(names), settings=settings)
    refuse_settings(loaded.program, overrides)
    return loaded


load.cache_clear = _load.cache_clear  # tests and benchmarks start afresh, as a new process would


def game_of_file(path: Path) -> GameDir | None:
    """The game a rules, variant or scenario file belongs to, judged by its folder."""
    folder = path.resolve().parent
    if folder.name in ("variants", "scenarios"):
        folder = folder.parent
    if folder.is_dir() and any(folder.glob("*" + EXT)):
        return GameDir(folder.name, folder)
    return None


def check_file(path: Path, game_name: str | None = None) -> Loaded | ast.SourceFile:
    """`pitwall check`: a variant is checked on top of its game (its folder's, or the one named);
    a rules file with its siblings."""
    parsed = parse_file(path)
    path = ParsedPath(parsed)
    if any(isinstance(i, ast.ScenarioDecl) for i in parsed.items):
        from .scenario import load_scenario, start_scenario

        start_scenario(load_scenario(path))  # its position checked against the game's invariants
        return parsed
    is_variant = any(isinstance(i, ast.VariantDecl) for i in parsed.items)
    if game_name is not None:  # named as a variant of GAME: checked as one, with or without its 'variant' line
        game = find_game(game_name)
        return build(game.base_files(), [path], game, (path.stem,))
    if is_variant and path.resolve().parent.name != "variants":
        raise PitwallError(f"{path} is a variant, but not in a game's variants/ folder: which game is it for?",
                           hint=f"name the game: pitwall check --game GAME {path}")
    game = game_of_file(path)
    if game is None:
        return build([path], [])
    if is_variant:
        return build(game.base_files(), [path], game, (path.stem,))
    # In the game's own order (a constant may use constants of files read before it), the named
    # file in its place.
    files = [path if b.resolve() == path.resolve() else b for b in game.base_files()]
    return build(files if path in files else files + [path], [], game)
