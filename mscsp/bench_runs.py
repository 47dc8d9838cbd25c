"""The benchmark's results file, one line per finished (instance, backend) run.

``mscsp bench --out DIR`` appends every run to ``DIR/runs.jsonl`` as soon as it finishes
(the bench holds ``DIR``'s output lock), after a header line with the settings that decide
its outcome (:class:`BenchSettings`). ``--resume`` reads the file back and skips the runs it
holds, so a bench killed half way goes on where it stopped; a file written with other
settings is refused, naming the difference, as ``mscsp play --resume`` refuses another
run's log. A last line cut short by the kill is dropped, and its run run again.

A run line keeps what the competitions report (instance, backend, status, seconds, the
count, a digest of the answer, the memory peak) and, so that a resumed bench summarises
exactly like an uninterrupted one, the answer itself and the component rows.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import json
import zlib
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from .backends.position import PositionDecision
from .errors import InvalidInputError
from .trust.escape import csv_cell

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

    def difference(self, other: BenchSettings) -> str:
        """``"time_limit: 10.0 in the file, 5.0 here; ..."``: what the two disagree on."""
        return "; ".join(
            f"{f.name}: {getattr(self, f.name)!r} in the file, {getattr(other, f.name)!r} here"
            for f in fields(BenchSettings)
            if getattr(self, f.name) != getattr(other, f.name)
        )


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
    """The answer :func:`encode_answer` encoded."""
    if data is None:
        return None
    if "calls" in data:
        return PositionDecision(
            frozenset(map(tuple, data["safe"])), frozenset(map(tuple, data["mines"])), data["calls"]
        )
    raw = zlib.decompress(base64.b64decode(data["float64"]))
    return np.frombuffer(raw, dtype=np.float64).reshape(data["shape"]).copy()


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
    """``runs.jsonl``: a header line with the settings, then one line per finished run.

    Args:
        path: The file.
        resume: Go on from the runs the file holds (else it is started afresh).
    """

    def __init__(self, path: str | Path, resume: bool = False):
        self.path = Path(path)
        self.resume = resume

    def open(self, settings: BenchSettings) -> dict[tuple[str, int], dict[str, Any]]:
        """Checks the file against ``settings`` and readies it for appending.

        Returns:
            The runs already recorded, by ``(backend, instance)`` (none unless resuming).

        Raises:
            InvalidInputError: Resuming with no file, a file that is not a bench's runs, or
                one written with other settings (the message names the difference).
        """
        if not self.resume:
            self._write("w", {"type": "bench", "settings": asdict(settings)})
            return {}
        if not self.path.is_file():
            raise InvalidInputError(f"cannot resume: no runs file at {self.path}")
        logged, done = self._read()
        if logged is None:
            raise InvalidInputError(f"cannot resume: {self.path} holds no bench header")
        if logged != settings:
            raise InvalidInputError(
                f"{self.path} records a bench with other settings "
                f"({logged.difference(settings)}); resume with its settings, or drop --resume"
            )
        self._repair()
        return done

    def append(self, row: dict[str, Any]) -> None:
        """Records one finished run (flushed at once: a kill loses at most this line)."""
        self._write("a", {"type": "run", **row})

    def _write(self, mode: str, record: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open(mode) as handle:
            handle.write(json.dumps(record) + "\n")

    def _read(self) -> tuple[BenchSettings | None, dict[tuple[str, int], dict[str, Any]]]:
        settings, done = None, {}
        with self.path.open(encoding="utf-8", errors="replace") as handle:
            for lineno, line in enumerate(handle, start=1):
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:  # a line cut short by a kill
                    continue
                kind = record.get("type") if isinstance(record, dict) else None
                try:
                    if kind == "bench" and settings is None:
                        settings = BenchSettings(**record["settings"])
                    elif kind == "run":
                        done[(record["backend"], int(record["instance"]))] = record
                    else:
                        raise ValueError(f"unexpected record type {kind!r}")
                except (KeyError, TypeError, ValueError) as exc:
                    raise InvalidInputError(
                        f"{self.path} line {lineno} is not a bench run record ({exc})"
                    ) from None
        return settings, done

    def _repair(self) -> None:
        """Drops a last line cut short by a kill (its run is run again)."""
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            with self.path.open("rb+") as handle:
                handle.truncate(end)


def write_runs_csv(rows: list[dict[str, Any]], path: Path) -> Path:
    """``runs.csv``: the :data:`RUN_COLUMNS` of every run (a corpus line's name or family
    that a spreadsheet would run as a formula starts with an apostrophe)."""
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(RUN_COLUMNS), extrasaction="ignore")
        writer.writeheader()
        writer.writerows({key: csv_cell(value) for key, value in row.items()} for row in rows)
    return path
