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

A bench counts positions whole (every component, every mine number at once), so its
evidence is the position's, and each of the position's instances carries it. Counter
programs run on the set's files themselves (``bench/solvers/count_set.py``'s log,
:mod:`~mscsp.export.counter_runs`), as the competitions run them, leave evidence per file:
an instance is graded by every counter of either kind, each by its own evidence.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError
from ..evaluation.bench_runs import BENCH_LOG
from ..evaluation.benchmark import CorpusEntry, bench_settings
from ..runtime.runlog import ResumableLog
from ..trust.files import open_regular
from .counter_runs import COUNTER_RUNS, set_digest

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
        evidence: ``{counter: {position: Evidence}}``, from bench runs.
        files: ``{counter: {file name: Evidence}}``, from counter runs on the files.
        limits: ``{counter: [the time limit of each runs file it ran in]}`` (``None``: no
            limit).
    """

    evidence: dict[str, dict[int, Evidence]] = field(default_factory=dict)
    files: dict[str, dict[str, Evidence]] = field(default_factory=dict)
    limits: dict[str, list[float | None]] = field(default_factory=dict)


def read_runs(
    paths: Sequence[str | Path],
    entries: Sequence[CorpusEntry],
    records: Sequence[dict[str, Any]] = (),
) -> Runs:
    """The evidence of every counting run in the files ``paths``: ``runs.jsonl`` of
    ``mscsp bench`` on ``entries``, or counter runs on the files of ``records`` (an export's
    index; :data:`~mscsp.export.counter_runs.COUNTER_RUNS`).

    Lines are read as a resume reads them (damaged lines reported and skipped; fields a
    later version adds are ignored). A bench run with no count (an estimator's) is left
    out: it counts nothing.

    Raises:
        InvalidInputError: A file that is neither, bench runs in ``decide`` mode, or runs of
            other positions or files than these (their numbers and names would not be
            this set's).
    """
    runs = Runs()
    for path in paths:
        if _kind(path) == COUNTER_RUNS.kind:
            _read_counter_runs(runs, path, records)
        else:
            _read_bench_runs(runs, path, entries)
    return runs


def _kind(path: str | Path) -> Any:
    """The ``type`` of a log's first line (``None`` where it has none)."""
    with open_regular(path, "runs file") as handle:
        first = handle.readline(1 << 16)
    try:
        value = json.loads(first)
    except ValueError:
        return None
    return value.get("type") if isinstance(value, dict) else None


def _read_bench_runs(runs: Runs, path: str | Path, entries: Sequence[CorpusEntry]) -> None:
    """Adds the evidence of a bench's ``runs.jsonl`` on ``entries``."""
    corpus = bench_settings(entries, "dss", None, None, None, 1, False, False).corpus
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
        if add_run(runs, line, limit):
            counters.add(line["backend"])
    for counter in sorted(counters):
        runs.limits.setdefault(counter, []).append(settings["time_limit"])


def _read_counter_runs(runs: Runs, path: str | Path, records: Sequence[dict[str, Any]]) -> None:
    """Adds the evidence of counter runs on the files of ``records``."""
    contents = ResumableLog(path, COUNTER_RUNS).read()
    settings = contents.header.settings  # (the first line is its header: read refuses else)
    if settings["set"] != set_digest(records) or settings["instances"] != len(records):
        raise InvalidInputError(
            f"{path}: counter runs on another set ({settings['instances']} files, digest "
            f"{settings['set']}; these {len(records)} files: {set_digest(records)}): run "
            "the counters on the set packaged"
        )
    # A run retried (count_set.py --retry) is logged again: the last run of a command on a
    # file is the one that counts.
    last = {(r["file"], r["counter"], r["command"]): r for _, r in contents.records}
    counters = set()
    for line in last.values():
        add_file_run(runs, line, settings["time_limit"])
        counters.add(line["counter"])
    for counter in sorted(counters):
        runs.limits.setdefault(counter, []).append(settings["time_limit"])


def add_run(runs: Runs, line: dict[str, Any], limit: float) -> bool:
    """Adds the evidence of a bench's run line, run under ``limit`` seconds; whether it is
    a counter's."""
    if line["status"] == "ok" and line.get("count") is None:
        return False  # an estimator: no count to grade by
    by_position = runs.evidence.setdefault(line["backend"], {})
    _note(by_position.setdefault(line["instance"], Evidence()), line, limit)
    return True


def add_file_run(runs: Runs, line: dict[str, Any], limit: float) -> None:
    """Adds the evidence of a counter's run on one file (a
    :data:`~mscsp.export.counter_runs.COUNTER_RUNS` record), run under ``limit`` seconds."""
    by_file = runs.files.setdefault(line["counter"], {})
    _note(by_file.setdefault(Path(line["file"]).name, Evidence()), line, limit)


def _note(evidence: Evidence, line: dict[str, Any], limit: float) -> None:
    """What one run (``status``, ``seconds``, ``wrong``) tells, added to ``evidence``."""
    status, wrong = line["status"], line.get("wrong")
    if status == "ok" and not wrong:
        seconds = line["seconds"]
        evidence.solved = seconds if evidence.solved is None else min(evidence.solved, seconds)
        return
    timed_out = status in _TIMED_OUT and not wrong
    if status == "limit" and line["seconds"] < _CAP_SHARE * limit:
        timed_out = False  # stopped by a cap, not the clock
    evidence.failed_at = max(evidence.failed_at, limit if timed_out else math.inf)


def grade(runs: Runs, position: int, limit: float, file: str | None = None) -> dict[str, Any]:
    """The grade at ``limit`` of the instance ``file`` of ``position`` (``file`` ``None``:
    the position's, from bench runs alone): ``{"grade", "solved_by", "not_measured"}``
    (the counters that counted it within the limit, and those whose outcome is unknown)."""
    evidence = {counter: by.get(position, Evidence()) for counter, by in runs.evidence.items()}
    if file is not None:
        base = Path(file).name
        evidence.update({counter: by.get(base, Evidence()) for counter, by in runs.files.items()})
    solved, unknown = [], []
    for counter in sorted(evidence):
        outcome = evidence[counter].outcome(limit)
        if outcome is None:
            unknown.append(counter)
        elif outcome:
            solved.append(counter)
    if unknown or not evidence:
        name = "not measured"
    elif len(solved) == len(evidence):
        fast = all(evidence[c].solved < TRIVIAL_SECONDS for c in solved)
        name = "trivial" if fast else "easy"
    else:
        name = "hard" if solved else "beyond"
    return {"grade": name, "solved_by": solved, "not_measured": unknown}


def limit_key(limit: float) -> str:
    """A limit as a key of an index record's ``grades``: ``"60"``, ``"1800"``."""
    return f"{limit:g}"
