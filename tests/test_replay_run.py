"""The archive's run loop as a library (:mod:`mscsp.replay.run`): planned, rated, logged
record by record, resumed from its log, its outputs written; no command line in between."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("ms_toollib", reason="replays need pip install 'mscsp[replay]'")

from mscsp.errors import InvalidInputError  # noqa: E402
from mscsp.replay.report import summarise  # noqa: E402
from mscsp.replay.run import Outputs, open_run, write_outputs  # noqa: E402

FIXTURES = Path(__file__).parent / "data" / "replays" / "archive"
GAMES = (str(FIXTURES / "beginner-00000.evf"), str(FIXTURES / "beginner-00003.evf"))


def test_a_run_rates_logs_and_resumes(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    missing = str(tmp_path / "nowhere.evf")
    with open_run((*GAMES, missing), out=str(log)) as run:
        assert run.total == 2 and not run.kept
        assert [r["file"] for r in run.missing] == [missing]
        rated = list(run.rate())
    assert [r["file"] for r in rated] == list(GAMES)
    assert all(r["status"] == "ok" for r in rated)
    # Each record is in the log, one line each, as it was given.
    assert [json.loads(line) for line in log.read_text().splitlines()] == rated
    assert run.records == run.missing + rated
    with (
        pytest.raises(InvalidInputError, match="already holds results"),
        open_run(GAMES, out=str(log)),
    ):
        pass
    with open_run(GAMES, out=str(log), resume=True) as again:
        assert again.kept == rated and again.total == 2 and not list(again.rate())
    assert len(log.read_text().splitlines()) == 2


def test_outputs_are_checked_first_and_written_from_the_records(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="--resume continues"), open_run(GAMES, resume=True):
        pass
    folder = Outputs(csv_file=str(tmp_path))
    with (
        pytest.raises(InvalidInputError, match="--csv .*is a folder"),
        open_run(GAMES, outputs=folder),
    ):
        pass
    outputs = Outputs(str(tmp_path / "g.csv"), str(tmp_path / "s.json"))
    with open_run(GAMES, outputs=outputs) as run:
        records = list(run.rate())
    result = write_outputs(run.records, outputs)
    assert result == summarise(records)
    assert json.loads((tmp_path / "s.json").read_text()) == json.loads(json.dumps(result))
    assert len((tmp_path / "g.csv").read_text().splitlines()) == 1 + len(records)
    assert not (tmp_path / "report.html").exists()
