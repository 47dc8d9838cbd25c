"""The benchmark's results file, one line per finished (instance, backend) run.

``mscsp bench --out DIR`` appends every run to ``DIR/runs.jsonl`` as soon as it finishes
(the bench holds ``DIR``'s output lock), after a header line with the settings that decide
its outcome (:class:`BenchSettings`). ``--resume`` reads the file back and skips the runs it
holds, so a bench killed half way goes on where it stopped; a file written with other
settings is refused, naming the difference, as ``mscsp play --resume`` refuses another
run's log. A last line cut short by the kill is dropped, and its run run again.

A run line keeps what the competitions report (instance, backend, status, seconds, the
count, a digest of the answer; an isolated run's peak resident memory and CPU seconds, and
for one that failed its crash text: how its worker died, the last line it wrote to standard
error, escaped to one printable line) and, so that a resumed bench summarises exactly like
an uninterrupted one, the answer itself and the component rows. A field a line does not
have (a log written before it was recorded) reads as unknown.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import json
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..backends.position import PositionDecision
from ..bigint import from_decimal
from ..board import MAX_CELLS
from ..errors import InvalidInputError
from ..runtime.runlog import LogFormat, ResumableLog
from ..trust.escape import comment_line, csv_cell
from ..trust.files import open_output
from ..trust.jsonlog import Damaged, typed

#: Columns of ``runs.csv`` (and the leading keys of a ``runs.jsonl`` run line).
RUN_COLUMNS = (
    "instance",
    "name",
    "family",
    "backend",
    "status",
    "seconds",
    "wrong",
    "count",
    "answer",
    "peak_mb",
    "cpu_seconds",
    "crash",
)


@dataclass(frozen=True)
class BenchSettings:
    """Everything that decides a bench's runs: what a resumed bench must match.

    ``corpus`` is a digest of the positions (their text and mine counts, in order), so
    ``instance`` numbers mean the same positions in every session.
    """

    corpus: str
    positions: int
    reference: str
    mode: str
    time_limit: float | None
    memory_limit: int | None
    max_solutions: int | None
    repeat: int
    isolate: bool


def corpus_digest(texts: list[str]) -> str:
    """A short digest of the positions' texts, in order."""
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode() + b"\0")
    return digest.hexdigest()[:16]


def encode_answer(answer: Any) -> dict[str, Any] | None:
    """A JSON form of a run's answer that :func:`decode_answer` gives back exactly: a
    probability array (its float64 bytes, compressed) or a :class:`PositionDecision`."""
    if answer is None:
        return None
    if isinstance(answer, PositionDecision):
        return {
            "safe": sorted(map(list, answer.safe)),
            "mines": sorted(map(list, answer.mines)),
            "calls": answer.calls,
        }
    array = np.ascontiguousarray(answer, dtype=np.float64)
    packed = base64.b64encode(zlib.compress(array.tobytes())).decode("ascii")
    return {"shape": list(array.shape), "float64": packed}


def decode_answer(data: dict[str, Any] | None) -> Any:
    """The answer :func:`encode_answer` encoded.

    Raises:
        ValueError: ``data`` is no answer this module encoded: a shape of more than
            :data:`~mscsp.board.MAX_CELLS` cells, or bytes that do not fit it (never
            inflated past the shape's size: a file's few bytes cannot claim gigabytes).
    """
    if data is None:
        return None
    if "calls" in data:
        return PositionDecision(
            frozenset(map(tuple, data["safe"])), frozenset(map(tuple, data["mines"])), data["calls"]
        )
    shape = data["shape"]
    if not (isinstance(shape, list) and all(type(n) is int and n >= 0 for n in shape)):
        raise ValueError("an answer's shape must be a list of sizes")
    cells = int(np.prod(shape, dtype=object))
    if cells > MAX_CELLS:
        raise ValueError(f"an answer of {cells} cells")
    inflater = zlib.decompressobj()
    raw = inflater.decompress(base64.b64decode(data["float64"], validate=True), 8 * cells + 1)
    if len(raw) != 8 * cells or inflater.unconsumed_tail:
        raise ValueError("an answer whose bytes do not fit its shape")
    return np.frombuffer(raw, dtype=np.float64).reshape(shape).copy()


def answer_digest(answer: Any) -> str | None:
    """A short digest of an answer: equal answers, equal digests (across runs and hosts)."""
    encoded = encode_answer(answer)
    if encoded is None:
        return None
    if "float64" in encoded:  # the raw bytes, not their compressed form
        bytes_ = np.ascontiguousarray(answer, dtype=np.float64).tobytes()
    else:
        bytes_ = json.dumps(encoded, sort_keys=True).encode()
    return hashlib.sha256(bytes_).hexdigest()[:16]


class RunsLog:
    """``runs.jsonl``: a header line with the settings, then one line per finished run
    (a :class:`~mscsp.runtime.runlog.ResumableLog`, under the lock of its folder: the
    bench's output).

    A file whose first line is not a bench header is refused untouched; a damaged line
    after it is reported and skipped, the lines after it kept (its run is run again), and a
    last line cut short by a kill is dropped. The file is never written through a link.

    Args:
        path: The file.
        resume: Go on from the runs the file holds (else it is started afresh).
    """

    #: What the file is, for messages.
    WHAT = "bench runs log"

    def __init__(self, path: str | Path, resume: bool = False):
        self.path = Path(path)
        self.resume = resume
        self._log = ResumableLog(self.path, BENCH_LOG, lock=self.path.parent)

    def open(self, settings: BenchSettings) -> dict[tuple[str, int], dict[str, Any]]:
        """Checks the file against ``settings`` and readies it for appending.

        Returns:
            The runs already recorded, by ``(backend, instance)`` (none unless resuming).

        Raises:
            InvalidInputError: Resuming with no file, a file that is not a bench's runs, or
                one written with other settings (the message names the difference).
        """
        if not self.resume:
            self._log.start(asdict(settings), new=True)
            return {}
        contents = self._log.resume(asdict(settings), "drop --resume")
        return {(line["backend"], line["instance"]): line for _, line in contents.records}

    def append(self, row: dict[str, Any]) -> None:
        """Records one finished run (flushed at once: a kill loses at most this line)."""
        self._log.append({"type": "run", **row})


#: The settings of a bench header, and the JSON types each must have.
_SETTING_KINDS: dict[str, tuple[type, ...]] = {
    "corpus": (str,),
    "positions": (int,),
    "reference": (str,),
    "mode": (str,),
    "time_limit": (float, type(None)),
    "memory_limit": (int, type(None)),
    "max_solutions": (int, type(None)),
    "repeat": (int,),
    "isolate": (bool,),
}
#: The JSON types of a logged component row (a ``ComponentRecord`` but its backend and
#: position), in order.
_COMPONENT_KINDS: tuple[tuple[type, ...], ...] = (
    (int,),
    (int,),
    (int,),
    (int,),
    (int, type(None)),
    (float, type(None)),
    (str,),
)


def _run_line(value: Any) -> dict[str, Any]:
    """A run line, checked for everything a resumed bench reads back from it (its answer
    decoded, within its shape's size): :class:`Damaged` if anything is missing or wrong."""
    if typed(value, "type", str) != "run":
        raise Damaged(f"a {value['type']!r} record, not a run")
    typed(value, "backend", str)
    typed(value, "status", str)
    typed(value, "seconds", float)
    if typed(value, "instance", int) < 0:
        raise Damaged(f"a negative instance {value['instance']}")
    optional = {
        "peak_mb": (float, type(None)),
        "cpu_seconds": (float, type(None)),
        "count": (str, type(None)),
        "crash": (str, type(None)),
    }
    for key, kinds in optional.items():
        if key in value:
            typed(value, key, *kinds)
    if value.get("crash") is not None and comment_line(value["crash"]) != value["crash"]:
        raise Damaged("a crash text that is not one line of printable ASCII")
    if value.get("count") is not None:
        try:
            from_decimal(value["count"])
        except InvalidInputError as exc:
            raise Damaged(str(exc)) from None
    for row in typed(value, "components", list) if "components" in value else ():
        if not isinstance(row, list) or len(row) != len(_COMPONENT_KINDS):
            raise Damaged(f"a component row of {len(_COMPONENT_KINDS)} values expected")
        for position, kinds in enumerate(_COMPONENT_KINDS):
            typed(dict(enumerate(row)), position, *kinds)
    try:
        decode_answer(typed(value, "values", dict, type(None)) if "values" in value else None)
    except (KeyError, TypeError, ValueError, zlib.error) as exc:
        raise Damaged(f"its answer cannot be decoded ({type(exc).__name__})") from None
    return value


#: ``runs.jsonl``'s format: a ``bench`` header with the :class:`BenchSettings`, run lines.
BENCH_LOG = LogFormat(
    RunsLog.WHAT, _run_line, kind="bench", settings=_SETTING_KINDS, noun="runs file", where="file"
)


def write_runs_csv(rows: list[dict[str, Any]], path: Path) -> Path:
    """``runs.csv``: the :data:`RUN_COLUMNS` of every run (a corpus line's name or family
    that a spreadsheet would run as a formula starts with an apostrophe)."""
    with open_output(path, "runs file") as handle:  # (never through a link)
        writer = csv.DictWriter(handle, fieldnames=list(RUN_COLUMNS), extrasaction="ignore")
        writer.writeheader()
        writer.writerows({key: csv_cell(value) for key, value in row.items()} for row in rows)
    return path
