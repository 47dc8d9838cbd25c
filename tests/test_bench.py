"""The ``backends`` and ``bench`` commands and the benchmark harness behind them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from mscsp import solve
from mscsp.backends import BACKENDS
from mscsp.backends.dss import DssBackend
from mscsp.backends.sat import SatBackend
from mscsp.benchmark import load_corpus, run_benchmark, select_backends
from mscsp.cli import main
from mscsp.constraints import Component, ComponentCount
from mscsp.errors import InvalidInputError, SolverLimitError
from mscsp.positions import sample_positions

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "corpus.jsonl"
    boards = sample_positions(9, 9, 10, 4, seed=11)
    path.write_text("".join(json.dumps({"board": b.to_text()}) + "\n" for b in boards))
    return path


def test_backends_json_lists_registry() -> None:
    result = CliRunner().invoke(main, ["backends", "--json"])
    assert result.exit_code == 0
    rows = json.loads(result.output)
    assert [r["name"] for r in rows][:2] == ["dss", "brute"]
    assert rows[0]["default"] and rows[0]["available"] and rows[0]["exact"]


def test_backends_names_missing_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SatBackend, "supported", classmethod(lambda c: False))
    result = CliRunner().invoke(main, ["backends"])
    assert result.exit_code == 0
    line = next(x for x in result.output.splitlines() if x.startswith("sat "))
    assert "no: pip install 'mscsp[sat]'" in line


def test_bench_corpus_exact_backends_agree(corpus_file: Path) -> None:
    result = CliRunner().invoke(
        main, ["bench", "--corpus", str(corpus_file), "--backend", "all", "--repeat", "2", "--json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["positions"] == 4
    rows = {r["backend"]: r for r in out["summary"]}
    assert set(select_backends("all")) <= set(rows)
    for row in rows.values():
        assert row["solved"] == 4 and row["limits"] == 0
        assert row["max_abs_diff"] == 0.0
    assert rows["dss"]["ratio_to_reference"] == 1.0


def test_bench_preset_writes_records_and_plot(tmp_path: Path) -> None:
    args = [
        "bench",
        "--preset",
        "beginner",
        "--positions",
        "3",
        "--backend",
        "dss,brute",
        "--out",
        str(tmp_path),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "max |dp|" in result.output and "brute" in result.output
    for name in ("components.csv", "positions.csv", "summary.json", "latency.png"):
        assert (tmp_path / name).stat().st_size > 0
    positions = (tmp_path / "positions.csv").read_text().splitlines()
    assert positions[0] == "backend,position,seconds,status,max_abs_diff"
    assert len(positions) == 1 + 2 * 3


def test_bench_out_without_matplotlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None)
    args = [
        "bench",
        "--preset",
        "beginner",
        "--positions",
        "1",
        "--backend",
        "dss",
        "--out",
        str(tmp_path),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "pip install 'mscsp[plot]'" in result.output
    assert (tmp_path / "summary.json").exists() and not (tmp_path / "latency.png").exists()


def test_bench_rejects_bad_input(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["bench", "--backend", "nope"])
    assert result.exit_code == 2 and "choose from all, dss" in result.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"board": "3x1x1\\n1??\\n"}\n["not", "a", "record"]\n')
    result = CliRunner().invoke(main, ["bench", "--corpus", str(bad)])
    assert result.exit_code == 2 and "corpus line 2" in result.output


def test_limits_are_reported_not_compared() -> None:
    boards = load_corpus()[:10]
    result = run_benchmark(boards, ["sat"], reference="dss", time_limit=0)
    limited = [r for r in result.latencies if r.status == "limit"]
    assert limited and all(r.max_abs_diff is None for r in limited)
    assert sum(r["limits"] for r in result.summary()) == len(limited)


def test_repeat_keeps_a_finished_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # A backend that finishes its first timed run, then hits its limit on the repeat.
    class Flaky(DssBackend):
        name = "flaky"
        calls = 0

        def count(self, component: Component) -> ComponentCount:
            Flaky.calls += 1
            if Flaky.calls == 3:  # 1: warm-up, 2: first run, 3: repeat
                raise SolverLimitError("flaky")
            return super().count(component)

    monkeypatch.setitem(BACKENDS, "flaky", Flaky)
    board = next(b for b in load_corpus() if len(solve(b).components) == 1)
    result = run_benchmark([board], ["flaky"], repeat=2)
    (row,) = [r for r in result.summary() if r["backend"] == "flaky"]
    assert Flaky.calls == 3
    assert (row["solved"], row["limits"], row["max_abs_diff"]) == (1, 0, 0.0)


def test_select_backends() -> None:
    assert "brute" not in select_backends("all")
    assert select_backends("sat:cadical195, dss") == ["sat:cadical195", "dss"]
    assert select_backends("all,brute,dss") == [*select_backends("all"), "brute"]
    with pytest.raises(InvalidInputError):
        select_backends("dss,nope")


def test_builtin_corpus_is_reproducible(tmp_path: Path) -> None:
    out = tmp_path / "corpus.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "make_corpus.py"), str(out)],
        check=True,
        env=env,
        capture_output=True,
    )
    shipped = resources.files("mscsp.data").joinpath("bench_corpus.jsonl").read_text()
    assert out.read_text() == shipped
    assert len(load_corpus()) == len(shipped.splitlines())
