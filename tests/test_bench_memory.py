"""The bench under a memory limit on what a run holds resident: D4, which reserves about
2 GB it never touches, counts under 1 GB; a run's record carries its CPU seconds, its peak
and, for one whose worker died, the crash text it left (never on the bench's own output);
a runs log written before these fields were recorded still resumes."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest

from mscsp.backends.d4 import IN_PROCESS_CELLS
from mscsp.board import parse_board
from mscsp.evaluation.bench_runs import RunsLog, write_runs_csv
from mscsp.evaluation.benchmark import CorpusEntry, bench_settings, run_benchmark

#: Families-ladder positions: a game position whose component of 29 cells D4 counts in a
#: child process, and a lattice whose component of 12 cells it counts in its worker.
LADDER = (
    "game 16x30 d0.206 s1 step 10",
    "lattice 6x6 d0.1 s1",
)
#: A counter that answers small files (the bench's warm-up) through mscsp's own counter,
#: and on a larger one writes glibc's last words to its worker's standard error and aborts
#: the worker, as a native double free in the worker would.
DYING_COUNTER = """\
import os, re, signal, subprocess, sys, time
text = open(sys.argv[1]).read()
if int(re.search(r"^p cnf (\\d+)", text, re.M)[1]) > 8:
    with open(f"/proc/{os.getppid()}/fd/2", "a") as worker_stderr:
        worker_stderr.write("double free or corruption (out)\\n")
    os.kill(os.getppid(), signal.SIGABRT)
    time.sleep(60)
out = subprocess.run([sys.executable, "-m", "mscsp.counters.mcc", sys.argv[1]],
                     capture_output=True, text=True, check=True).stdout
print(out)
"""


def ladder(*names: str) -> list[CorpusEntry]:
    """The named positions of ``bench/corpora/families.jsonl``."""
    root = Path(__file__).resolve().parent.parent
    lines = map(json.loads, (root / "bench/corpora/families.jsonl").read_text().splitlines())
    found = {line["name"]: line for line in lines}
    return [
        CorpusEntry(parse_board(found[name]["board"]), i + 1, found[name]["family"], name)
        for i, name in enumerate(names)
    ]


def test_d4_counts_under_a_limit_of_1_gb() -> None:
    pytest.importorskip("py_d4", reason="d4 needs d4solver (mscsp[d4])")
    result = run_benchmark(ladder(*LADDER), ["d4"], time_limit=60, memory_limit=1024)
    runs = [r for r in result.runs if r["backend"] == "d4"]
    assert [(r["status"], r["wrong"]) for r in runs] == [("ok", False), ("ok", False)]
    assert all(r["peak_mb"] < 1024 and r["cpu_seconds"] is not None for r in runs)
    cells = [c.cells for c in result.components if c.backend == "d4"]
    assert max(cells) > IN_PROCESS_CELLS >= min(cells)  # in a child, and in the worker


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the counter uses /proc")
def test_a_crash_s_text_lands_in_the_record_and_old_logs_still_resume(
    tmp_path: Path, capfd: pytest.CaptureFixture
) -> None:
    counter = tmp_path / "dying.py"
    counter.write_text(DYING_COUNTER)
    name = f"external:{sys.executable} {counter}"
    entries = ladder(*LADDER)
    log = tmp_path / "runs.jsonl"
    result = run_benchmark(entries, [name], time_limit=60, memory_limit=1024, runs=RunsLog(log))
    mine = [r for r in result.runs if r["backend"] == name]
    # A SIGABRT under a memory limit is read as out of memory, as a failed allocation's is.
    expected = "killed by SIGABRT: double free or corruption (out)"
    assert [(r["status"], r["crash"]) for r in mine] == [("memout", expected)] * 2
    assert all(r["crash"] is None for r in result.runs if r["backend"] == "dss")
    assert "double free" not in "".join(capfd.readouterr())  # in the record only
    lines = [json.loads(x) for x in log.read_text().splitlines()[1:]]
    assert [x["crash"] for x in lines if x["backend"] == name] == [expected] * 2
    table = write_runs_csv(result.runs, tmp_path / "runs.csv").read_text()
    rows = list(csv.DictReader(table.splitlines()))
    assert [r["crash"] for r in rows if r["backend"] == name] == [expected] * 2
    assert all(float(r["cpu_seconds"]) >= 0 for r in rows)
    # A log of before: no CPU seconds, no crash text; resumed, they read as unknown.
    header, *runs = log.read_text().splitlines()
    old = [
        {k: v for k, v in json.loads(x).items() if k not in ("cpu_seconds", "crash")} for x in runs
    ]
    log.write_text("\n".join([header, *map(json.dumps, old)]) + "\n")
    resumed = run_benchmark(
        entries, [name], time_limit=60, memory_limit=1024, runs=RunsLog(log, resume=True)
    )
    assert [(r["status"], r["crash"], r["cpu_seconds"]) for r in resumed.runs] == [
        (r["status"], None, None) for r in result.runs
    ]
    settings = bench_settings(entries, "dss", 60.0, 1024, None, 1, False, True)
    assert len(RunsLog(log, resume=True).open(settings)) == 4
