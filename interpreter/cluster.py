"""Many games on a Dask cluster (`--cluster ADDRESS`): the same chunks of seeds as `--jobs`, played
by the cluster's workers and gathered in seed order, so the results equal a serial run's.

Dask is an optional extra (`pip install 'pitwall[cluster]'`); nothing here imports it until a
cluster is asked for. Each worker needs the same pitwall installed: before any game is played,
every worker's pitwall code and the game's rules are checked against this process's, since a
worker with other code or rules would quietly play another game."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .. import __version__
from .errors import PitwallError
from .load import load

CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler and to see a worker: a wrong address fails soon
EXTRA_HINT = "install the cluster extra: pip install 'pitwall[cluster]'"
WORKER_HINT = ("each worker needs the same pitwall as this machine: install it (the same version) "
               "in the environment that runs `dask worker`")


class ClusterError(PitwallError):
    """The cluster cannot play (no Dask, no scheduler, no workers, a worker with other code or
    rules): unlike an error of the rules, it is the same for every configuration tried."""


def _code_digest() -> str:
    """What besides the rules decides a game: the interpreter's modules and the grammar."""
    root = Path(__file__).resolve().parent.parent
    files = sorted(root.joinpath("interpreter").glob("*.py")) + sorted(root.joinpath("grammar").glob("*.lark"))
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


CODE = _code_digest()  # of the code this process runs, read when it was imported


def identity() -> tuple[str, str]:
    """This pitwall's version and code digest; run on each worker to compare with ours."""
    return __version__, CODE


def play_chunk(expected: tuple[str, str, str], rules: tuple, chunk: Callable, args: tuple):
    """On a worker: refuse to play unless its pitwall and the game's rules are the client's, then
    play one chunk. Checked per chunk too, since workers may join after the first check."""
    version, code, digest = expected
    if identity() != (version, code):
        raise ClusterError(f"a worker runs pitwall {__version__} (code {CODE}), not {version} (code {code})",
                           hint=WORKER_HINT)
    try:
        here = load(*rules).rules_hash
    except PitwallError as e:  # a plain error: every kind survives the trip back to the client
        raise ClusterError(f"a worker cannot load {rules[0]}: {e.message}",
                           hint="each worker reads the game and its variants from its own disk, at the same path "
                                "as here") from None
    if here != digest:
        raise ClusterError(f"a worker's rules of {rules[0]} differ from these (rules hash {here}, not {digest})",
                           hint="give each worker the same game files: " + WORKER_HINT)
    return chunk(args)


def run_on_cluster(address: str, chunk: Callable, work: Callable[[range], tuple], seed: int, games: int,
                   rules: tuple, progress: Callable[[int], None] | None = None) -> list:
    """Play games seed.. on the cluster: `work(seeds)` is what `chunk` takes for those seeds (as in
    the local pool); `rules` is (game, variants, settings), checked on each worker."""
    from .simulate import chunks

    distributed = _distributed()
    _probe(address)
    with distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False) as client:
        threads = _check_workers(client, address)
        expected = (__version__, CODE, load(*rules).rules_hash)
        parts = chunks(seed, games, threads)
        futures = [client.submit(play_chunk, expected, rules, chunk, work(c), pure=False) for c in parts]
        out: list = []
        try:  # in seed order, as serial play: of several failing games, the first is the one told
            for future, seeds in zip(futures, parts):
                part = _result(distributed, future, seeds)
                out.extend(part)
                if progress:
                    progress(len(part))
        finally:  # after a failure, the chunks still to come are of no use
            client.cancel([f for f in futures if not f.done()])
    return out


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ClusterError("--cluster needs Dask's distributed scheduler, which is not installed",
                           hint=EXTRA_HINT) from None
    return distributed


def _probe(address: str) -> None:
    """Ask the scheduler who it is before making a client: a client that fails to connect takes
    seconds more to close and prints a traceback as it goes, and a peer that is no scheduler can
    answer with nonsense (any error at all)."""
    from distributed.core import rpc

    async def ask():
        async with rpc(address, timeout=CONNECT_TIMEOUT) as scheduler:
            return await asyncio.wait_for(scheduler.identity(), CONNECT_TIMEOUT)

    shown = repr(address if len(address) <= 80 else address[:77] + "...")
    try:
        with ThreadPoolExecutor(1) as pool:  # a loop of its own, even if the caller runs one
            answer = pool.submit(asyncio.run, ask()).result()
    except Exception as e:  # noqa: BLE001 - whatever went wrong, the user's answer is the same
        why = ("it answers, but not as a Dask scheduler" if isinstance(e, MemoryError)  # read a length from garbage
               else str(e).replace(address, shown[1:-1]) or f"no answer within {CONNECT_TIMEOUT:g} s")
        raise ClusterError(f"cannot reach a Dask scheduler at {shown}: {why[:300]}",
                           hint="start one with `dask scheduler` and give its address, e.g. "
                                "--cluster tcp://HOST:8786") from None
    if not isinstance(answer, dict) or answer.get("type") != "Scheduler":
        raise ClusterError(f"{shown} answers, but is no Dask scheduler",
                           hint="give the address `dask scheduler` prints, e.g. tcp://HOST:8786")


def _check_workers(client, address: str) -> int:
    """Wait a little for a worker; each one must run our pitwall. Returns their threads in all."""
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
    except Exception:  # noqa: BLE001 - a timeout, named differently by each Dask version
        raise ClusterError(f"the Dask scheduler at {address} has no workers",
                           hint=f"start some with `dask worker {address}`; " + WORKER_HINT) from None
    answers = client.run(identity, on_error="return")
    for worker, answer in sorted(answers.items()):
        if isinstance(answer, Exception):  # most likely it cannot import pitwall at all
            raise ClusterError(f"the worker at {worker} cannot run pitwall: {str(answer)[:200]}", hint=WORKER_HINT)
        if tuple(answer) != identity():
            raise ClusterError(f"the worker at {worker} runs pitwall {answer[0]} (code {answer[1]}), "
                               f"not {__version__} (code {CODE}) as here", hint=WORKER_HINT)
    return sum(client.nthreads().values()) or 1


def _result(distributed, future, seeds: range):
    """A chunk's outcomes; a failed game's error comes back as raised on the worker (with its seed
    and the command that plays it again), a lost worker as an error naming the seeds."""
    try:
        return future.result()
    except distributed.KilledWorker:
        raise ClusterError(f"the workers playing seeds {seeds.start} to {seeds.stop - 1} died",
                           hint="see the workers' logs; this plays those games here: "
                                f"--seed {seeds.start} --games {len(seeds)}") from None
