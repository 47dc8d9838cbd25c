"""``mscsp bench --workers N``: a backend's runs spread over isolated workers give the serial
run's records, statuses, tables and files, in the same order, and a worker killed at the
limit loses no other run."""

from __future__ import annotations

import csv
import json
from dataclasses import asdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from mscsp.cli import main
from mscsp.errors import InvalidInputError
from mscsp.evaluation.bench_runs import RunsLog
from mscsp.evaluation.benchmark import (
    BenchResult,
    CorpusEntry,
    bench_settings,
    load_corpus,
    run_benchmark,
)
from mscsp.evaluation.families import lattice

#: Timing columns: everything else must be equal whatever the number of workers.
TIMES = {
    "seconds",
    "cpu_seconds",
    "peak_mb",
    "median_ms",
    "p95_ms",
    "max_ms",
    "par2",
    "ratio_to_reference",
}
#: A 16x16 lattice: dss counts it in seconds, mdd in about 2 s; the easy ones in ms.
HARD = lattice(16, 16, 0.4, 0)


def corpus(*hard_at: int, size: int = 4) -> list[CorpusEntry]:
    """Easy positions of the built-in corpus, with :data:`HARD` at the indices ``hard_at``."""
    easy = iter(load_corpus())
    boards = [HARD if i in hard_at else next(easy) for i in range(size)]
    return [
        CorpusEntry(b, i + 1, "lattice" if i in hard_at else "game", f"p{i}")
        for i, b in enumerate(boards)
    ]


def untimed(rows: list) -> list[dict]:
    """Records (dataclasses or dicts) without their timings."""
    dicts = [row if isinstance(row, dict) else asdict(row) for row in rows]
    return [{k: v for k, v in row.items() if k not in TIMES} for row in dicts]


def same_results(one: BenchResult, other: BenchResult) -> None:
    """Asserts two benches found the same: every record but its timings, in the same order."""
    assert untimed(one.runs) == untimed(other.runs)
    assert untimed(one.latencies) == untimed(other.latencies)
    assert untimed(one.components) == untimed(other.components)
    assert untimed(one.summary()) == untimed(other.summary())
    assert list(one.errors) == list(other.errors)
    assert families(one) == families(other)


def families(result: BenchResult) -> list[dict]:
    """The per-family table without its timings."""
    return [
        {k: untimed([v])[0] if isinstance(v, dict) else v for k, v in row.items()}
        for row in result.by_family()
    ]


def test_two_workers_give_the_serial_records_with_a_worker_killed_at_the_limit() -> None:
    # The bench stops waiting 0.5 s into each position (a grace below zero): the lattice's
    # workers are killed (a timeout), the easy positions answer within it.
    entries = corpus(1)
    results = [
        run_benchmark(entries, ["mdd"], time_limit=5.0, grace=-4.5, workers=workers)
        for workers in (1, 2)
    ]
    for result in results:
        statuses = [(r["backend"], r["instance"], r["status"]) for r in result.runs]
        assert statuses == [
            *[("dss", i, "timeout" if i == 1 else "ok") for i in range(4)],
            *[("mdd", i, "timeout" if i == 1 else "ok") for i in range(4)],
        ]
    same_results(*results)


def test_a_worker_killed_at_the_limit_loses_no_other_run(tmp_path: Path) -> None:
    entries = corpus(0, 3, size=6)
    log = tmp_path / "runs.jsonl"
    result = run_benchmark(entries, [], time_limit=5.0, grace=-4.5, workers=2, runs=RunsLog(log))
    assert [r["status"] for r in result.runs] == [
        "timeout" if i in (0, 3) else "ok" for i in range(6)
    ]
    assert all(r["wrong"] is False for r in result.runs if r["status"] == "ok")
    # Every run is in the log (in finishing order), and a resumed bench reads them all back.
    lines = [json.loads(x) for x in log.read_text().splitlines()[1:]]
    assert sorted(x["instance"] for x in lines) == list(range(6))
    settings = bench_settings(entries, "dss", 5.0, None, None, 1, False, True)
    assert len(RunsLog(log, resume=True).open(settings)) == 6


def test_bench_workers_write_the_serial_run_s_files(tmp_path: Path) -> None:
    # mdd and dss both stop themselves at the lattice (their own limit: a "limit").
    path = tmp_path / "corpus.jsonl"
    path.write_text(
        "".join(
            json.dumps({"board": e.board.to_text(), "family": e.family, "name": e.name}) + "\n"
            for e in corpus(2)
        )
    )
    outputs = {}
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}"
        args = ["bench", "--corpus", str(path), "--backend", "mdd", "--time-limit", "0.3"]
        result = CliRunner().invoke(main, [*args, "-w", workers, "--out", str(out), "--json"])
        assert result.exit_code == 0, result.output
        summary = json.loads(result.output.splitlines()[-1])
        outputs[workers] = {
            name: untimed(list(csv.DictReader((out / name).open())))
            for name in ("runs.csv", "positions.csv", "components.csv")
        }
        outputs[workers]["summary"] = untimed(summary["summary"])
    assert outputs["1"] == outputs["2"]
    statuses = [(r["backend"], r["instance"], r["status"]) for r in outputs["2"]["runs.csv"]]
    assert [s for _, i, s in statuses if i == "2"] == ["limit", "limit"]
    assert [s for _, i, s in statuses if i != "2"] == ["ok"] * 6


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_workers_must_be_a_whole_number_of_at_least_one(workers: object) -> None:
    with pytest.raises(InvalidInputError, match="workers must be a whole number >= 1"):
        run_benchmark(corpus(size=1), [], workers=workers)


def test_an_unknown_executor_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="unknown executor 'threads'"):
        run_benchmark(corpus(size=1), [], executor="threads")
