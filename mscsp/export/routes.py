"""A second count of every exported instance, by a route that shares no counting code with
``dss`` (whose count the export's ``index.jsonl`` holds).

* ``d4``, ``ganak``: the instance *file* counted by a model counter that reads it
  (:func:`mscsp.export.check.count_file`, a child process killed at the time limit). This
  checks what a benchmark set publishes: the file as written, encoding included.
* ``mdd``: the position split again and each component recounted by the ``mdd`` backend (a
  decision diagram evaluated modulo primes, not ``dss``'s search), its counts read off for
  each instance as the export reads ``dss``'s. This checks the count of what the file
  states, not the file's encoding; it reaches components too large for the file counters.

A route that answers must give the index's count to the last digit: :func:`recount`
raises otherwise (:func:`refuse_disagreement`), naming the instance and both counts. A route
that does not answer within the limit leaves the instance with one count, said so in the
record (:attr:`Recount.why`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..backends import get_backend
from ..bigint import from_decimal, to_decimal
from ..errors import (
    InvalidInputError,
    MemoryLimitError,
    SolverLimitError,
    WrongCountError,
)
from ..evaluation.benchmark import CorpusEntry
from ..formats.instances import position_systems
from .check import COUNTERS, count_file

#: The routes, and the index kinds each can count exactly.
ROUTES: dict[str, tuple[str, ...]] = {
    "d4": COUNTERS["d4"][1],
    "ganak": COUNTERS["ganak"][1],
    "mdd": ("pmc", "wmc"),
}
#: The route the index's counts come from (the export's counter).
FIRST_ROUTE = "dss"


@dataclass(frozen=True)
class Recount:
    """One route's count of one instance.

    Attributes:
        route: A name of :data:`ROUTES`.
        count: Its count (``None``: it gave none).
        why: Why it gave none (empty when it did).
    """

    route: str
    count: int | None
    why: str = ""


def check_routes(routes: Sequence[str], kinds: Iterable[str]) -> tuple[str, ...]:
    """``routes`` checked against the instances' ``kinds``.

    Raises:
        InvalidInputError: No route, an unknown or repeated one, or one that cannot count a
            kind exactly (``d4`` gives a ``wmc`` count as a 5-digit float).
    """
    if not routes:
        raise InvalidInputError(f"give a second route to count with ({', '.join(ROUTES)})")
    if len(set(routes)) != len(routes):
        raise InvalidInputError(f"a route named twice: {', '.join(routes)}")
    for route in routes:
        if route not in ROUTES:
            raise InvalidInputError(f"unknown route {route!r} (one of {', '.join(ROUTES)})")
        for kind in sorted(set(kinds) - set(ROUTES[route])):
            raise InvalidInputError(f"{route} cannot count {kind} instances exactly")
    return tuple(routes)


def recount(
    folder: Path,
    records: Sequence[dict[str, Any]],
    entries: Sequence[CorpusEntry],
    routes: Sequence[str],
    time_limit: float | None,
    progress: Callable[[int], Any] | None = None,
) -> list[dict[str, Recount]]:
    """Every route's count of every record of an export of ``entries`` in ``folder``.

    Args:
        folder: The export's folder (its ``index.jsonl`` gave ``records``).
        records: The index's records, in order.
        entries: The positions exported (``record["position"]`` indexes them).
        routes: Names of :data:`ROUTES`.
        time_limit: Seconds for each file (``d4``, ``ganak``) or position (``mdd``).
        progress: Called with 1 after each record.

    Returns:
        ``{route: Recount}`` for each record, in order.

    Raises:
        WrongCountError: A route gave another count than the index's
            (:func:`refuse_disagreement`), at once.
    """
    systems: dict[int, dict[int | None, tuple[int, ...]] | str] = {}
    out = []
    for record in records:
        counts = {}
        for route in routes:
            if route == "mdd":
                position = record["position"]
                if position not in systems:
                    per = "position" if record["component"] is None else "component"
                    systems[position] = _mdd_counts(entries[position], per, time_limit)
                counts[route] = _read_off(record, systems[position])
            else:
                counts[route] = _count_file(folder / record["file"], route, time_limit)
        refuse_disagreement(record, counts)
        out.append(counts)
        if progress is not None:
            progress(1)
    return out


def refuse_disagreement(record: dict[str, Any], counts: dict[str, Recount]) -> None:
    """Raises :class:`WrongCountError` if a route's count is not the index's.

    Never a benchmark to publish: one of the two counters miscounts, or the file does not
    state what was counted.
    """
    expected = from_decimal(record["count"])
    for recount in counts.values():
        if recount.count is not None and recount.count != expected:
            raise WrongCountError(
                f"{record['file']} ({record['source']}): {FIRST_ROUTE} counted "
                f"{to_decimal(expected)}, {recount.route} counted {to_decimal(recount.count)}; "
                "no archive is written with a count two routes disagree on"
            )


def _count_file(path: Path, route: str, time_limit: float | None) -> Recount:
    """``route``'s count of the file (its reason in words the same on every machine)."""
    start = time.perf_counter()
    try:
        return Recount(route, count_file(path, route, time_limit))
    except MemoryLimitError:
        return Recount(route, None, "ran out of memory")
    except SolverLimitError:
        if time_limit is not None and time.perf_counter() - start >= time_limit:
            return Recount(route, None, f"no answer within {time_limit:g} s")
        return Recount(route, None, "its process stopped without an answer")


def _mdd_counts(
    entry: CorpusEntry, per: str, time_limit: float | None
) -> dict[int | None, tuple[int, ...]] | str:
    """``{component: counts by mine number}`` of the position split as the export split it
    (``per``; the component ``None``: all joined), counted by ``mdd``; or why there are none."""
    counter = get_backend("mdd", time_limit=time_limit)
    try:
        systems = position_systems(entry.board, counter, per, time_limit)
        return {system.component: system.counts for system in systems}
    except MemoryLimitError:
        return "ran out of memory"
    except SolverLimitError:
        return "no answer" + ("" if time_limit is None else f" within {time_limit:g} s")


def _read_off(record: dict[str, Any], counts: dict[int | None, tuple[int, ...]] | str) -> Recount:
    """The instance's count from its position's ``mdd`` counts, as the export reads dss's."""
    if isinstance(counts, str):
        return Recount("mdd", None, counts)
    by_mines = counts.get(record["component"], (0,))
    if record["mines"] is None:  # wmc: every mine number, weighted
        weight = record["weight"]
        return Recount("mdd", sum(n * weight**k for k, n in enumerate(by_mines)))
    k = record["mines"]
    return Recount("mdd", by_mines[k] if k < len(by_mines) else 0)
