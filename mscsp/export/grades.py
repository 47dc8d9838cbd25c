"""Grades of a benchmark set's positions, from measured bench runs, as competitions grade.

``mscsp bench --out DIR`` writes ``DIR/runs.jsonl``: one line per (position, backend) run,
after a header with the corpus's digest and the time limit. Read back
(:func:`read_runs`, several files allowed: several counters, several limits), each counter
leaves one piece of evidence per position (:class:`Evidence`): the fastest time it counted
it in, and the largest limit it failed under. At each limit of :data:`LIMITS` a position is

* ``trivial``: every counter counted it, each in under :data:`TRIVIAL_SECONDS`;
* ``easy``: every counter counted it within the limit;
* ``hard``: some counters did, not all;
* ``beyond``: no counter did ("beyond every counter at this limit");
* ``not measured``: some counter's outcome at this limit is unknown (no run of it on this
  position, or it failed under a smaller limit only). Never guessed.

A run stopped by the time limit failed at that limit only; any other failure (a memory
out, a crash, a wrong count, a backend's own cap such as ``brute``'s size bound) fails at
every limit.

A bench counts positions whole (every component, every mine number at once), so the grade
is the position's; each of its instances carries it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError
from ..evaluation.bench_runs import BENCH_LOG
from ..evaluation.benchmark import CorpusEntry, bench_settings
from ..runtime.runlog import ResumableLog

#: The limits (seconds) the set is graded at: the Model Counting Competition's 1,800 s
#: and a one-minute one.
LIMITS = (60.0, 1800.0)
#: Every counter under this many seconds: ``trivial``.
TRIVIAL_SECONDS = 1.0
#: The grades, easiest first.
GRADES = ("trivial", "easy", "hard", "beyond", "not measured")
#: Statuses of a run stopped by its time limit (any other failure fails at every limit:
#: a memory out, a crash, a wrong count).
_TIMED_OUT = ("timeout", "limit")
#: A ``limit`` that came before this share of the time limit is the backend's own cap (a
#: solution cap, ``brute``'s size bound), which no longer limit lifts.
_CAP_SHARE = 0.9


@dataclass
class Evidence:
    """What the runs tell of one counter on one position.

    Attributes:
        solved: The fastest time it counted the position in (``None``: never).
        failed_at: The largest time limit it failed under (``math.inf``: it failed
            whatever the limit; 0: never failed).
    """

    solved: float | None = None
    failed_at: float = 0.0

    def outcome(self, limit: float) -> bool | None:
        """Whether it counts the position within ``limit`` (``None``: not known)."""
        if self.solved is not None and self.solved <= limit:
            return True
        if self.solved is not None or self.failed_at >= limit:
            return False
        return None


@dataclass
class Runs:
    """The runs graded from.

    Attributes:
        evidence: ``{counter: {position: Evidence}}``.
        limits: ``{counter: [the time limit of each runs file it ran in]}`` (``None``: no
            limit).
    """

    evidence: dict[str, dict[int, Evidence]] = field(default_factory=dict)
    limits: dict[str, list[float | None]] = field(default_factory=dict)


def read_runs(paths: Sequence[str | Path], entries: Sequence[CorpusEntry]) -> Runs:
    """The evidence of every counting run in the ``runs.jsonl`` files ``paths``.

    Lines are read as a resumed bench reads them (damaged lines reported and skipped;
    fields a later bench adds are ignored). A run with no count (an estimator's) is left
    out: it counts nothing.

    Raises:
        InvalidInputError: A file that is not a bench's runs, runs in ``decide`` mode, or
            runs of another corpus than ``entries`` (the position numbers would not be
            this set's).
    """
    corpus = bench_settings(entries, "dss", None, None, None, 1, False, False).corpus
    runs = Runs()
    for path in paths:
        contents = ResumableLog(path, BENCH_LOG).read()
        if contents.header is None:
            raise InvalidInputError(f"{path} holds no bench runs")
        settings = contents.header.settings
        if settings["mode"] != "count":
            raise InvalidInputError(f"{path}: runs of mscsp bench --decide count nothing")
        if settings["corpus"] != corpus or settings["positions"] != len(entries):
            raise InvalidInputError(
                f"{path}: runs of another corpus ({settings['positions']} positions, digest "
                f"{settings['corpus']}; these {len(entries)} positions: {corpus}): bench the "
                "corpus packaged"
            )
        limit = settings["time_limit"] if settings["time_limit"] is not None else math.inf
        counters = set()
        for _, line in contents.records:
            if _add(runs, line, limit):
                counters.add(line["backend"])
        for counter in sorted(counters):
            runs.limits.setdefault(counter, []).append(settings["time_limit"])
    return runs


def _add(runs: Runs, line: dict[str, Any], limit: float) -> bool:
    """Adds one run line's evidence; whether it is a counter's."""
    status, wrong = line["status"], line.get("wrong")
    if status == "ok" and line.get("count") is None:
        return False  # an estimator: no count to grade by
    by_position = runs.evidence.setdefault(line["backend"], {})
    evidence = by_position.setdefault(line["instance"], Evidence())
    if status == "ok" and not wrong:
        seconds = line["seconds"]
        evidence.solved = seconds if evidence.solved is None else min(evidence.solved, seconds)
    else:
        timed_out = status in _TIMED_OUT and not wrong
        if status == "limit" and line["seconds"] < _CAP_SHARE * limit:
            timed_out = False  # stopped by a cap, not the clock
        evidence.failed_at = max(evidence.failed_at, limit if timed_out else math.inf)
    return True


def grade(runs: Runs, position: int, limit: float) -> dict[str, Any]:
    """The position's grade at ``limit``: ``{"grade", "solved_by", "not_measured"}`` (the
    counters that counted it within the limit, and those whose outcome is unknown)."""
    evidence = runs.evidence
    solved, unknown = [], []
    for counter in sorted(evidence):
        outcome = evidence[counter].get(position, Evidence()).outcome(limit)
        if outcome is None:
            unknown.append(counter)
        elif outcome:
            solved.append(counter)
    if unknown or not evidence:
        name = "not measured"
    elif len(solved) == len(evidence):
        fast = all(evidence[c][position].solved < TRIVIAL_SECONDS for c in solved)
        name = "trivial" if fast else "easy"
    else:
        name = "hard" if solved else "beyond"
    return {"grade": name, "solved_by": solved, "not_measured": unknown}


def limit_key(limit: float) -> str:
    """A limit as a key of an index record's ``grades``: ``"60"``, ``"1800"``."""
    return f"{limit:g}"
