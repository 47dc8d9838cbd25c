"""Where a list of independent jobs runs: here and in local processes, or on Ray.

One executor layer under every command that runs many jobs (``mscsp play``, ``replay``,
``learn data``, ``learn dagger``, ``bench``): results come back in finishing order, Ctrl-C
stops the workers and keeps what is finished.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..errors import BackendUnavailableError, InvalidInputError
from . import interrupts

EXECUTORS = ("process", "ray")


#: Libraries whose own threads make a fork unsafe (see :func:`parallel_map`).
_THREADED = ("jax", "ray", "torch", "tensorflow", "xgboost", "sklearn")


def _ignore_sigint() -> None:
    # Workers leave Ctrl-C to the parent, which stops them and keeps what is finished.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def check_executor(executor: str) -> None:
    """Refuses an executor name other than :data:`EXECUTORS`' (:class:`InvalidInputError`)."""
    if executor not in EXECUTORS:
        raise InvalidInputError(f"unknown executor {executor!r}; choose from {EXECUTORS}")


def parallel_map(
    func: Callable[[Any], Any], items: list[Any], workers: int, executor: str = "process"
) -> Iterator[Any]:
    """``func(item)`` for every item, in finishing order, on ``workers`` workers.

    ``executor`` is ``"process"`` (this process and ``workers - 1`` local processes, forked
    or spawned: see below)
    or ``"ray"`` (Ray tasks on a cluster already initialised, else on a local one of
    ``workers`` CPUs). ``func`` and the items must pickle. The other processes ignore Ctrl-C: the
    parent gets it, stops them at once (unfinished items are lost, finished ones are yielded
    first) and the ``KeyboardInterrupt`` carries on to the caller; Ray tasks still pending
    are cancelled.

    Raises:
        InvalidInputError: Unknown executor.
        BackendUnavailableError: ``executor="ray"`` without Ray installed.
    """
    check_executor(executor)
    if executor == "ray":
        yield from _ray_map(func, items, workers)
        return
    # (A Ctrl-C that Python drops, inside a garbage collector's callback, still stops the
    # run before the next item this process plays.)
    with interrupts.kept():
        if workers <= 1:
            for item in items:
                interrupts.raise_if_pressed()
                yield func(item)
            return
        yield from _on_processes(func, items, workers)


def _on_processes(func: Callable[[Any], Any], items: list[Any], workers: int) -> Iterator[Any]:
    """:func:`parallel_map` on local processes."""
    import multiprocessing

    # The parent works too: one process start fewer. Forked workers start with what the
    # parent has loaded (a spawned one first pays about 1.3 s of imports and the kernel's
    # load, which weighs on short runs); but a fork copies other threads' locks held, so
    # where a thread of Python's runs (a progress display) or a library with threads of
    # its own is loaded (JAX, Ray, OpenMP's users), the workers are spawned. (numpy's
    # OpenBLAS threads are fork-safe.)
    fork = (
        threading.active_count() == 1
        and not any(name in sys.modules for name in _THREADED)
        and "fork" in multiprocessing.get_all_start_methods()
    )
    context = multiprocessing.get_context("fork" if fork else "spawn")
    if fork:
        for stream in (sys.stdout, sys.stderr):  # (a forked worker flushes its copy on exit)
            if stream is not None:
                stream.flush()
    pool = context.Pool(workers - 1, initializer=_ignore_sigint)
    try:
        yield from _shared_with(pool, workers - 1, func, items)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _shared_with(pool: Any, children: int, func: Callable[[Any], Any], items: list[Any]):
    """``func`` of every item, in finishing order: by the pool's ``children`` processes,
    each kept a few items ahead, and by this process whenever items are left."""
    import queue
    from collections import deque

    pending = deque(items)
    finished: queue.SimpleQueue = queue.SimpleQueue()  # (ok, result or error), by the pool
    running = 0

    def top_up() -> None:
        # Each child a few items ahead, but never more of them in the pool than are left
        # for this process: with few items (two, on two workers), each process plays one.
        nonlocal running
        while pending and running < 2 * children and len(pending) > running:
            pool.apply_async(
                func,
                (pending.popleft(),),
                callback=lambda result: finished.put((True, result)),
                error_callback=lambda error: finished.put((False, error)),
            )
            running += 1

    def take(block: bool):
        nonlocal running
        ok, value = finished.get(block=block)
        running -= 1
        if not ok:
            raise value
        return value

    top_up()
    while pending or running:
        while running and not finished.empty():
            yield take(block=False)
            top_up()
        if pending:
            try:
                interrupts.raise_if_pressed()
                mine = func(pending.popleft())
            except KeyboardInterrupt:
                while running and not finished.empty():
                    yield take(block=False)
                raise
            yield mine
            top_up()
        elif running:
            yield take(block=True)


def _ray_map(func: Callable[[Any], Any], items: list[Any], workers: int) -> Iterator[Any]:
    try:
        import ray
    except ImportError:
        raise BackendUnavailableError(
            "--executor ray needs Ray: pip install 'mscsp[ray]'"
        ) from None
    if not ray.is_initialized():
        # Workers import this copy of mscsp (and learners beside it), whatever is installed.
        root = str(Path(__file__).resolve().parents[2])
        ray.init(
            num_cpus=workers,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": root}},
        )
    remote = ray.remote(func)
    pending = [remote.remote(item) for item in items]
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            yield ray.get(ready[0])
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
