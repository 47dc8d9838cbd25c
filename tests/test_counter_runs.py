"""Counter programs on a benchmark set's files (``mscsp.export.counter_runs``,
``bench/solvers/count_set.py``): each answer checked against the set's count, the runs
resumable, and the set graded from them by ``mscsp export --package --grades``.

The programs: mscsp's own MCC counter (``python -m mscsp.counters.mcc``, Ganak inside), and
small scripts that answer wrong, crash, print nothing or never finish, as a foreign program
may."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from mscsp.bigint import from_decimal
from mscsp.cli import main
from mscsp.errors import InvalidInputError
from mscsp.export.counter_runs import COUNTER_RUNS, run_counter, set_digest
from mscsp.export.grades import Runs, add_file_run, grade, read_runs
from mscsp.export.index import read_index
from mscsp.runtime.runlog import ResumableLog

pytest.importorskip("pysat")
pytest.importorskip("pyganak")

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "solvers" / "count_set.py"
HARD = ROOT / "bench" / "corpora" / "hard.jsonl"
#: mscsp's own counter program, as a counter command.
OURS = [sys.executable, "-m", "mscsp.counters.mcc"]


def _program(folder: Path, name: str, body: str) -> list[str]:
    """A counter program: a Python script ``body`` (the instance's path in ``sys.argv[1]``)."""
    path = folder / f"{name}.py"
    path.write_text("import os, sys, time\n" + body + "\n")
    return [sys.executable, str(path)]


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, Path]:
    """The corpus of the two smallest lattices of the hard corpus, and its export (peak
    mine numbers)."""
    folder = tmp_path_factory.mktemp("set")
    corpus = folder / "small.jsonl"
    corpus.write_text("".join(HARD.read_text().splitlines(keepends=True)[:2]))
    args = ["export", "--corpus", str(corpus), "--out", str(folder / "export")]
    result = CliRunner().invoke(main, [*args, "--mine-numbers", "peak"])
    assert result.exit_code == 0, result.output
    assert len(read_index(folder / "export")) >= 2
    return corpus, folder / "export"


def test_each_answer_is_checked_against_the_sets_count(exported, tmp_path):
    _, folder = exported
    record = read_index(folder)[0]
    path, count = folder / record["file"], from_decimal(record["count"])
    limits = {"time_limit": 30.0, "memory_mb": 2048}

    right = run_counter(OURS, path, count, **limits)
    assert right["status"] == "ok" and right["count"] == record["count"] and not right["wrong"]

    wrong = _program(tmp_path, "plus_one", f"print('c s exact arb int {count + 1}')")
    answer = run_counter(wrong, path, count, **limits)
    assert answer["status"] == "ok" and answer["count"] == str(count + 1) and answer["wrong"]

    # A native crash, its text kept; an abort (C++'s bad_alloc ends so) under a memory limit
    # is a memory out, as mscsp bench counts it.
    crash = _program(
        tmp_path, "fpe", "sys.stderr.write('divided by 0\\n'); os.kill(os.getpid(), 8)"
    )
    died = run_counter(crash, path, count, **limits)
    assert died["status"] == "crash" and "SIGFPE: divided by 0" in died["detail"]
    aborted = run_counter(_program(tmp_path, "abort", "os.abort()"), path, count, **limits)
    assert aborted["status"] == "memout" and "SIGABRT" in aborted["detail"]

    silent = run_counter(_program(tmp_path, "silent", "pass"), path, count, **limits)
    assert silent["status"] == "error" and "silent.py" in silent["detail"]

    slow = _program(tmp_path, "slow", "time.sleep(60)")
    late = run_counter(slow, path, count, time_limit=0.5, memory_mb=2048)
    assert late["status"] == "timeout" and late["count"] is None

    # What a program leaves beside its input, killed at the limit, is not left in the set.
    before = sorted(folder.iterdir())
    litter = "open(sys.argv[1] + '.tmp', 'w').write('x'); time.sleep(60)"
    left = run_counter(
        _program(tmp_path, "litter", litter), path, count, time_limit=1.0, memory_mb=2048
    )
    assert left["status"] == "timeout" and sorted(folder.iterdir()) == before

    with pytest.raises(InvalidInputError, match="not found"):
        run_counter(["no-such-counter-program"], path, count, **limits)
    for bad, message in (
        ({"time_limit": 0.0}, "positive"),
        ({"time_limit": float("nan")}, "positive"),
        ({"time_limit": True}, "seconds"),
        ({"memory_mb": 0}, "memory_mb"),
    ):
        with pytest.raises(InvalidInputError, match=message):
            run_counter(OURS, path, count, **{**limits, **bad})
    with pytest.raises(InvalidInputError, match="a count"):
        run_counter(OURS, path, -1, **limits)
    with pytest.raises(InvalidInputError, match="no instance file"):
        run_counter(OURS, folder / "missing.cnf", count, **limits)


def test_a_wrong_count_is_never_a_solve_in_a_grade():
    runs = Runs()
    add_file_run(runs, {"counter": "a", "file": "x.cnf", "status": "ok", "seconds": 0.1}, 60)
    wrong = {"counter": "b", "file": "instances/x.cnf", "status": "ok", "seconds": 0.1}
    add_file_run(runs, {**wrong, "wrong": True}, 60)
    add_file_run(runs, {"counter": "c", "file": "x.cnf", "status": "timeout", "seconds": 60}, 60)
    assert grade(runs, 0, 60.0, "x.cnf") == {
        "grade": "hard",
        "solved_by": ["a"],
        "not_measured": [],
    }
    # A timeout at 60 s says nothing of 1,800 s; a wrong count fails at every limit.
    assert grade(runs, 0, 1800.0, "x.cnf")["not_measured"] == ["c"]
    assert grade(runs, 0, 60.0, "other.cnf")["grade"] == "not measured"


def test_a_retried_run_replaces_the_one_before_it(exported, tmp_path):
    _, folder = exported
    records = read_index(folder)
    settings = {"set": set_digest(records), "instances": len(records)}
    log = ResumableLog(tmp_path / "runs.jsonl", COUNTER_RUNS)
    log.start({**settings, "time_limit": 60.0, "memory_mb": 4096}, new=True)
    run = {"instance": 0, "file": records[0]["file"], "counter": "x", "command": "x"}
    log.append({**run, "status": "error", "seconds": 0.1, "count": None, "wrong": False})
    log.append({**run, "status": "timeout", "seconds": 60.0, "count": None, "wrong": False})
    runs = read_runs([log.path], [], records)
    # The error (a failure at every limit) was retried: a timeout at 60 s tells nothing of
    # 1,800 s.
    assert grade(runs, records[0]["position"], 60.0, records[0]["file"])["grade"] == "beyond"
    at_1800 = grade(runs, records[0]["position"], 1800.0, records[0]["file"])
    assert at_1800 == {"grade": "not measured", "solved_by": [], "not_measured": ["x"]}


def _count_set(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600
    )


def test_counter_runs_resume_and_grade_the_package(exported, tmp_path):
    corpus, folder = exported
    wrong = _program(tmp_path, "seven", "print('c s exact arb int 7')")
    commands = ["--command", f"ours={shlex.join(OURS)}", "--command", f"seven={shlex.join(wrong)}"]
    out = tmp_path / "runs"
    args = [str(folder), "--out", str(out), "--time-limit", "30", "--json", *commands]
    first = _count_set(*args)
    assert first.returncode == 0, first.stderr
    summary = json.loads(first.stdout)
    records = read_index(folder)
    assert summary["counters"]["ours"]["solved"] == len(records)
    assert summary["counters"]["seven"]["solved"] == 0
    assert summary["counters"]["seven"]["wrong"] == sum(r["count"] != "7" for r in records)
    assert (out / "cactus.png").stat().st_size > 0
    # Started again on the same folder: refused; resumed: nothing left to run.
    again = _count_set(*args)
    assert again.returncode != 0 and "--resume" in again.stderr
    resumed = _count_set(*args, "--resume")
    assert resumed.returncode == 0 and f"0 runs to do ({2 * len(records)} logged)" in (
        resumed.stderr
    )
    retried = _count_set(*args, "--retry", "error")
    assert retried.returncode != 0 and "--retry goes with --resume" in retried.stderr
    header = json.loads((out / "runs.jsonl").read_text().splitlines()[0])
    assert header["type"] == COUNTER_RUNS.kind and header["settings"]["set"] == set_digest(records)

    # The package graded from them: ours counted every file, "seven" none right.
    archive = tmp_path / "graded.tar.gz"
    args = ["export", "--corpus", str(corpus), "--out", str(tmp_path / "again")]
    args += ["--package", str(archive), "--mine-numbers", "peak", "--check-with", "mdd"]
    result = CliRunner().invoke(main, [*args, "--grades", str(out / "runs.jsonl")])
    assert result.exit_code == 0, result.output
    with tarfile.open(archive) as tar:
        index = tar.extractfile("graded/index.jsonl").read().decode().splitlines()
        readme = tar.extractfile("graded/README.md").read().decode()
    for line in index:
        grades = json.loads(line)["grades"]
        assert grades["60"]["solved_by"] == ["ours"] and grades["60"]["grade"] == "hard"
    assert "`ours` 30 s" in readme

    # Runs on another set's files grade nothing here.
    with pytest.raises(InvalidInputError, match="another set"):
        read_runs([out / "runs.jsonl"], [], records[:1])
