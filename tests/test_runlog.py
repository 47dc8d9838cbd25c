"""The one resumable log (:mod:`mscsp.runtime.runlog`): its header (kind, version, settings),
its resume rule, its writes under the output's lock; on a small log of its own (the play,
bench and replay logs are tested through their commands and in ``test_trust_files.py``)."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

import pytest

from mscsp.errors import InvalidInputError, OutputLockedError
from mscsp.runtime.outlock import lock_path
from mscsp.runtime.runlog import LogFormat, ResumableLog
from mscsp.trust.jsonlog import Damaged, typed


def _record(value: Any) -> int:
    if typed(value, "type", str) != "step":
        raise Damaged("not a step")
    return typed(value, "n", int)


def _fields(value: dict[str, Any]) -> dict[str, Any]:
    return {"label": typed(value, "label", str) if "label" in value else ""}


TEST_LOG = LogFormat(
    "test log",
    _record,
    kind="test",
    settings={"seed": (int,), "fast": (bool,)},
    optional={"fast": False},
    fields=_fields,
)
SETTINGS = {"seed": 3, "fast": False}


def written(path: Path, settings: dict[str, Any] = SETTINGS) -> ResumableLog:
    """A log of two steps."""
    log = ResumableLog(path, TEST_LOG)
    log.start(settings, new=True, label="first")
    for n in (1, 2):
        log.append({"type": "step", "n": n})
    return log


def test_the_header_holds_kind_version_and_settings_and_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    log = written(path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    # A setting at its default is left out, and read back as it.
    assert lines[0] == {"type": "test", "version": 1, "settings": {"seed": 3}, "label": "first"}
    contents = log.read()
    assert contents.header is not None
    assert contents.header.settings == SETTINGS and contents.header.fields == {"label": "first"}
    assert contents.records == [(2, 1), (3, 2)] and not contents.damaged
    # A header of the format before versions were written is version 1.
    path.write_text('{"type": "test", "settings": {"seed": 3}}\n')
    assert log.read().header.settings == SETTINGS


def test_a_resume_with_other_settings_is_refused_in_one_line_untouched(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    log = written(path)
    before = path.read_bytes()
    with pytest.raises(InvalidInputError) as refused:
        log.resume({"seed": 4, "fast": True}, "start afresh")
    message = str(refused.value)
    assert "\n" not in message and "records a different test" in message
    assert "seed: 3 in the log, 4 here; fast: False in the log, True here" in message
    assert message.endswith("resume with the log's settings, or start afresh")
    assert path.read_bytes() == before
    assert [n for _, n in log.resume(SETTINGS, "start afresh").records] == [1, 2]
    with pytest.raises(InvalidInputError, match="cannot resume: no log at"):
        ResumableLog(tmp_path / "missing.jsonl", TEST_LOG).resume(SETTINGS, "start afresh")


def test_a_later_version_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    text = '{"type": "test", "version": 2, "settings": {"seed": 3}}\n'
    path.write_text(text)
    with pytest.raises(InvalidInputError, match="version 2.*reads version 1") as refused:
        ResumableLog(path, TEST_LOG).resume(SETTINGS, "start afresh")
    assert "\n" not in str(refused.value) and path.read_text() == text


def test_a_log_started_again_keeps_its_settings_or_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    log = written(path)
    log.start(SETTINGS, label="again")  # (a resumed run's new header: same settings)
    log.append({"type": "step", "n": 3})
    contents = log.read()
    assert contents.header.fields == {"label": "again"}
    assert [n for _, n in contents.records] == [1, 2, 3]
    log.start({"seed": 5, "fast": False})
    with pytest.raises(InvalidInputError, match=r"mixes two runs \(line 6: seed: 3 in the log"):
        log.read()


def test_a_log_without_a_header_starts_with_a_record(tmp_path: Path) -> None:
    records = LogFormat("record log", _record)
    path = tmp_path / "log.jsonl"
    log = ResumableLog(path, records)
    for n in (1, 2):
        log.append({"type": "step", "n": n})
    contents = log.read()
    assert contents.header is None and contents.records == [(1, 1), (2, 2)]
    path.write_text('{"type": "test", "settings": {"seed": 3}}\n{"type": "step", "n": 1}\n')
    with pytest.raises(InvalidInputError, match="is not a record log"):
        log.read()


def test_every_write_is_under_the_outputs_lock(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    log = written(path)
    before = path.read_bytes()
    # Another writer holds the lock (a second open file: its flock conflicts with ours).
    sidecar = lock_path(path)
    fd = os.open(sidecar, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        os.write(fd, json.dumps({"pid": 1, "command": "another run"}).encode())
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(OutputLockedError, match="another run"):
            log.append({"type": "step", "n": 3})
        with pytest.raises(OutputLockedError):
            log.start(SETTINGS, new=True)
    finally:
        os.close(fd)
    assert path.read_bytes() == before
    log.append({"type": "step", "n": 3})  # (the lock released: written, the lock file gone)
    assert [n for _, n in log.read().records] == [1, 2, 3] and not sidecar.exists()
