"""Games per second: the one timing loop every benchmark here uses."""

from __future__ import annotations

import time
from collections.abc import Callable


def throughput(play_one: Callable[[int], object], seconds: float = 1.0) -> float:
    """Play games with consecutive seeds 0, 1, ... for about `seconds` of this thread's CPU time;
    return games per CPU second. CPU time, not the wall clock's: on a shared machine the time a
    neighbour holds the core is not the game's (what a neighbour does to the caches still is)."""
    games, start = 0, time.thread_time()
    while time.thread_time() - start < seconds:
        play_one(games)
        games += 1
    return games / (time.thread_time() - start)


def interpreted(game: str, players: int, agent: str, settings=()) -> Callable[[int], object]:
    """One seeded game of the interpreter, played the way `pitwall simulate` does (no record)."""
    from pitwall.interpreter.engine import new_game, player_names
    from pitwall.interpreter.load import load

    loaded = load(game, (), settings)
    names = player_names(loaded, players)

    def play_one(seed: int):
        g, _ = new_game(loaded, names, [agent] * players, seed, record=False)
        winners = g.run()
        if hasattr(g, "close"):  # as simulate does: the game's objects freed at once (older code: no close)
            g.close()
        return winners

    return play_one


def serve(play_one: Callable[[int], object]) -> None:
    """The worker's side of `interleaved`: warm, say so, then for each length of CPU time read from
    stdin play games with consecutive seeds for that long and answer "games seconds"."""
    import sys

    play_one(10**6)  # compiled and warm before any clock starts
    print("ready", flush=True)
    seed, clock = 0, time.thread_time
    for line in sys.stdin:
        length, games, start = float(line), 0, clock()
        while clock() - start < length:
            play_one(seed)
            seed += 1
            games += 1
        print(games, clock() - start, flush=True)


class _Worker:
    """A process that plays one kind of game when told (`serve`)."""

    def __init__(self, command: list[str], env: dict | None):
        import subprocess
        import tempfile

        # stderr to a file, read only if the worker stops: a pipe nobody reads would block a worker
        # that wrote more than the pipe holds (warnings, say)
        self.errors = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(command, env=env, text=True, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.errors)

    def answer(self) -> str:
        line = self.process.stdout.readline()
        if not line:
            self.process.wait()
            self.errors.seek(0)
            raise RuntimeError(f"a benchmark worker stopped: {self.errors.read().strip()[-2000:]}")
        return line

    def play(self, seconds: float) -> tuple[int, float]:
        self.process.stdin.write(f"{seconds}\n")
        self.process.stdin.flush()
        games, took = self.answer().split()
        return int(games), float(took)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()
        self.errors.close()


def interleaved(commands: list[tuple[list[str], dict | None]], seconds: float, chunk: float) -> list[list[tuple]]:
    """(games, CPU seconds) of each chunk of each worker (a command that `serve`s, its environment),
    the workers taking turns a chunk at a time until each has played `seconds`.

    Each side runs in a process of its own, as a user's would, and the turns are short: whatever
    the machine's neighbours do to its speed, they do it to both sides within the same fraction of
    a second, so a ratio of the totals does not move with them (slices of seconds, one process
    after another, gave ratios from 1.0x to 1.9x within one run on a shared machine)."""
    workers = [_Worker(command, env) for command, env in commands]
    try:
        for w in workers:
            if w.answer().strip() != "ready":
                raise RuntimeError("a benchmark worker did not start")
        got: list[list[tuple]] = [[] for _ in workers]
        turn = 0
        while turn == 0 or min(sum(t for _, t in g) for g in got) < seconds:
            order = range(len(workers)) if turn % 2 == 0 else reversed(range(len(workers)))
            for i in order:
                got[i].append(workers[i].play(chunk))
            turn += 1
        return got
    finally:
        for w in workers:
            w.close()


def rate(chunks: list[tuple]) -> float:
    """Games per CPU second over chunks of (games, seconds)."""
    return sum(g for g, _ in chunks) / sum(t for _, t in chunks)


def block_ratios(ours: list[tuple], theirs: list[tuple], blocks: int = 5) -> list[float]:
    """The ratio theirs / ours in each of `blocks` consecutive parts of an interleaved run, sorted:
    their spread shows how far the machine moved the figure."""
    size = max(1, len(ours) // blocks)
    parts = [(ours[i:i + size], theirs[i:i + size]) for i in range(0, len(ours) - size + 1, size)]
    return sorted(rate(b) / rate(a) for a, b in parts)
