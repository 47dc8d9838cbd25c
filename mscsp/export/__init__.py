"""``mscsp export``: positions out as standard instance files, with their exact counts.

Each position is split as :func:`mscsp.solve` splits it (:mod:`mscsp.formats.instances`);
each component (or the whole frontier, ``per="position"``) and mine number ``k`` becomes
one instance, "these cells with exactly ``k`` mines", in one of :data:`FORMATS`: DIMACS
CNF for model counters (:mod:`~mscsp.formats.dimacs`), OPB for pseudo-Boolean solvers
(:mod:`~mscsp.formats.opb`), MiniZinc data for CP solvers (:mod:`~mscsp.formats.mzn`), CPLEX
LP for integer programming (:mod:`~mscsp.formats.lp`). ``index.jsonl``
(:mod:`~mscsp.export.index`) gives each file's exact count, so that anyone can check a
solver against ours; :mod:`~mscsp.export.check` counts the files with real solvers.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..backends import DEFAULT_BACKEND, get_backend
from ..bigint import to_decimal
from ..errors import InconsistentBoardError, InvalidInputError, SolverLimitError
from ..evaluation.benchmark import CorpusEntry
from ..formats import dimacs, lp, mzn, opb
from ..formats.instances import PER, CellSystem, position_systems
from ..runtime.outlock import output_lock
from ..trust.files import open_output, refuse_link, remove_regular
from ..trust.inputs import read_bounded
from ..trust.jsonl import loads_bounded
from .index import INDEX, MAX_INDEX_BYTES, index_line

#: Export formats and their writer modules.
FORMATS = {"mcc": dimacs, "opb": opb, "mzn": mzn, "lp": lp}
#: Which mine numbers of a component become instances: every one, or the one with the most
#: layouts (a set of one instance per component, for a benchmark of bounded size).
MINE_NUMBERS = ("all", "peak")


@dataclass
class ExportSummary:
    """What an export wrote: instances, positions, and the positions left out (and why)."""

    out: str
    format: str
    instances: int = 0
    positions: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)
    seconds: float = 0.0


def check_options(
    fmt: str, per: str, kind: str, encoding: str, weight: int, mine_numbers: str = "all"
) -> None:
    """Refuses a combination of export options that makes no instance.

    Raises:
        InvalidInputError: An unknown format, split, kind, encoding or choice of mine
            numbers; ``wmc`` outside ``mcc``, with an encoding whose auxiliary variables
            are not fixed by the cells, or with ``peak`` (it has no mine number); a weight
            below 1.
    """
    if fmt not in FORMATS:
        raise InvalidInputError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    if per not in PER:
        raise InvalidInputError(f"unknown split {per!r} (one of {', '.join(PER)})")
    if kind not in dimacs.KINDS:
        raise InvalidInputError(f"unknown kind {kind!r} (one of {', '.join(dimacs.KINDS)})")
    if kind == "wmc" and fmt != "mcc":
        raise InvalidInputError(f"kind 'wmc' is a CNF track: it needs format mcc, not {fmt!r}")
    if encoding not in dimacs.ENCODINGS:
        raise InvalidInputError(
            f"unknown encoding {encoding!r} (one of {', '.join(dimacs.ENCODINGS)})"
        )
    if kind == "wmc" and encoding not in dimacs.DETERMINED:
        raise InvalidInputError(
            f"encoding {encoding!r} leaves auxiliary variables free, which a wmc count (no "
            f"projection) would count: use {', '.join(dimacs.DETERMINED)}"
        )
    if isinstance(weight, bool) or not isinstance(weight, int) or weight < 1:
        raise InvalidInputError(f"weight must be an integer of at least 1, got {weight!r}")
    if mine_numbers not in MINE_NUMBERS:
        raise InvalidInputError(
            f"unknown choice of mine numbers {mine_numbers!r} (one of {', '.join(MINE_NUMBERS)})"
        )
    if kind == "wmc" and mine_numbers != "all":
        raise InvalidInputError("a wmc instance weighs every mine number: it takes no 'peak'")


#: The name of every instance file an export writes: ``p<position>[-c<component>]-<k<mines>
#: or w><suffix>`` (numbers zero-padded to at least 5 and 3 digits).
_INSTANCE_NAME = re.compile(
    r"p[0-9]{5,}(-c[0-9]{3,})?-(k[0-9]{3,}|w)("
    + "|".join(re.escape(module.SUFFIX) for module in FORMATS.values())
    + r")\Z"
)

#: What a name that is not ours is, for the error.
_KINDS_OF_ENTRY = {stat.S_IFREG: "a file", stat.S_IFDIR: "a directory", stat.S_IFLNK: "a link"}


def _earlier_files(out: Path) -> set[str]:
    """The instance files the earlier export's ``out/index.jsonl`` lists: plain names
    inside ``out`` that an export writes, nothing else (an index is a file anyone can
    edit; a name such as ``../notes.txt`` or ``puzzle.lp`` in it is refused).

    Raises:
        InvalidInputError: The index is a link or not a regular file, too large, or a line
            is not an index record; the message names the line.
    """
    path = out / INDEX
    if not os.path.lexists(path):
        return set()
    refuse_link(path, "--out's export index")
    data = read_bounded(path, MAX_INDEX_BYTES, "export index", allow_stdin=False)
    files = set()
    for lineno, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path} line {lineno}"
        record = loads_bounded(line, where)
        name = record.get("file") if isinstance(record, dict) else None
        if not isinstance(name, str) or not _INSTANCE_NAME.match(name):
            raise InvalidInputError(
                f"{where}: not an export's index record (its 'file' must be an instance "
                "file name such as p00000-c000-k004.cnf); remove the folder's files yourself"
            )
        files.add(name)
    return files


def _clear(out: Path, overwrite: bool) -> None:
    """Makes ``out`` a folder to write in: new, empty, or (``overwrite``) one whose earlier
    export is removed.

    ``overwrite`` removes only what the earlier export wrote: the instance files its
    ``index.jsonl`` lists (regular files only), that index, and a ``model.mzn`` holding
    exactly the model an export writes. Anything else stays; anything else where this
    export writes (an instance file name the index does not list, a folder or a link named
    like one, a ``model.mzn`` of the user's) is refused before a file is touched.

    Raises:
        InvalidInputError: ``out`` is a file; it is not empty and not ``overwrite``; a
            name this export writes is taken by something not ours.
    """
    if out.exists() and not out.is_dir():
        raise InvalidInputError(f"--out {out} is a file, not a folder")
    if out.is_dir() and any(out.iterdir()):
        if not overwrite:
            raise InvalidInputError(f"--out {out} is not empty (give --overwrite to replace it)")
        listed = _earlier_files(out)
        ours = []
        for path in sorted(out.iterdir()):
            name = path.name
            if name != INDEX and name != mzn.MODEL_FILE and not _INSTANCE_NAME.match(name):
                continue  # a file of the user's that this export never writes: it stays
            mode = os.lstat(path).st_mode
            regular = stat.S_ISREG(mode)
            if name == mzn.MODEL_FILE:
                mine = regular and _holds(path, mzn.MODEL)
            else:
                mine = regular and (name == INDEX or name in listed)
            if not mine:
                what = _KINDS_OF_ENTRY.get(stat.S_IFMT(mode), "not a regular file")
                raise InvalidInputError(
                    f"--out {out} holds {name!r} ({what}), which is not the earlier "
                    f"export's (see its {INDEX}): move it, or export to another folder"
                )
            ours.append(path)
        for path in ours:
            remove_regular(path)
    out.mkdir(parents=True, exist_ok=True)


def _holds(path: Path, text: str) -> bool:
    """Whether the regular file ``path`` holds exactly ``text`` (read no further)."""
    expected = text.encode()
    with path.open("rb") as handle:
        return handle.read(len(expected) + 1) == expected


def _write(path: Path, text: str, what: str) -> None:
    """Writes a new file ``path`` (never through a link, never over anything)."""
    with open_output(path, what, exclusive=True) as handle:
        handle.write(text)


def _instances(
    system: CellSystem, kind: str, weight: int, mine_numbers: str
) -> Iterable[tuple[str, int | None, int]]:
    """``(file stem suffix, mines, count)`` of each instance of ``system``."""
    if kind == "wmc":
        yield "w", None, system.weighted(weight)
        return
    numbers = system.mine_numbers()
    if mine_numbers == "peak" and numbers:  # the fewest mines of those with the most layouts
        numbers = [max(numbers, key=lambda k: (system.counts[k], -k))]
    for k in numbers:
        yield f"k{k:03d}", k, system.counts[k]


def export(
    entries: Iterable[CorpusEntry],
    out: str | Path,
    fmt: str = "mcc",
    per: str = "component",
    kind: str = "pmc",
    encoding: str = "seqcounter",
    weight: int = 2,
    time_limit: float | None = None,
    overwrite: bool = False,
    progress: Callable[[int], Any] | None = None,
    mine_numbers: str = "all",
) -> ExportSummary:
    """Writes the instances of every position of ``entries`` and ``out/index.jsonl``.

    Args:
        entries: The positions (a corpus's, or generated ones).
        out: The folder (created; refused when not empty unless ``overwrite``).
        fmt: One of :data:`FORMATS`.
        per: ``component`` (one instance per component and mine number) or ``position``
            (per mine number of all the position's components joined).
        kind: ``pmc`` (projected count, one per mine number) or ``wmc`` (one weighted
            instance: ``weight`` per mine), for ``mcc``.
        encoding: The :class:`pysat.card.CardEnc` encoding of large cardinality
            constraints in CNF.
        weight: A mine's weight in ``wmc``.
        time_limit: Seconds to count each position (``None``: no limit); a position past
            it is skipped and listed in the summary.
        overwrite: Replace the instances of an earlier export in ``out``.
        progress: Called with 1 after each position.
        mine_numbers: ``all`` (an instance per mine number) or ``peak`` (per component,
            the mine number with the most layouts), for ``pmc`` and the other formats.

    Raises:
        InvalidInputError: Bad options (:func:`check_options`), ``out`` not empty.
        OutputLockedError: Another run writes ``out``.
    """
    check_options(fmt, per, kind, encoding, weight, mine_numbers)
    writer = FORMATS[fmt]
    start = time.perf_counter()
    summary = ExportSummary(str(out), fmt)
    out = Path(out)
    counter = get_backend(DEFAULT_BACKEND)
    with output_lock(out, "export folder"):
        _clear(out, overwrite)
        if fmt == "mzn":
            _write(out / mzn.MODEL_FILE, mzn.MODEL, "MiniZinc model")
        with open_output(out / INDEX, "export index", exclusive=True) as index:
            for position, entry in enumerate(entries):
                source = entry.where if entry.line else entry.name
                try:
                    systems = list(position_systems(entry.board, counter, per, time_limit))
                except (SolverLimitError, InconsistentBoardError) as exc:
                    summary.skipped.append({"source": source, "reason": str(exc)})
                    systems = []
                summary.positions += 1
                for system in systems:
                    if not system.cells:
                        continue
                    part = "" if system.component is None else f"-c{system.component:03d}"
                    title = f"{source}, position {position}" + (
                        f", component {system.component}" if part else ", all components"
                    )
                    for stem, mines, count in _instances(system, kind, weight, mine_numbers):
                        name = f"p{position:05d}{part}-{stem}{writer.SUFFIX}"
                        if fmt == "mcc":
                            written = dimacs.write(system, mines, kind, encoding, weight, title)
                        else:
                            written = writer.write(system, mines, title)
                        _write(out / name, written.text, "instance file")
                        record = {
                            "file": name,
                            "kind": kind if fmt == "mcc" else writer.KIND,
                            "count": to_decimal(count),
                            "position": position,
                            "component": system.component,
                            "mines": mines,
                            "variables": written.variables,
                            "constraints": written.constraints,
                            "cells": system.cells,
                            "source": source,
                            "family": entry.family,
                        }
                        if kind == "wmc":
                            record["weight"] = weight
                        if fmt == "mcc":
                            record["encoding"] = encoding
                        index.write(index_line(record))
                        summary.instances += 1
                if progress is not None:
                    progress(1)
    summary.seconds = time.perf_counter() - start
    return summary
