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
from mscsp.backends.ganak import GanakBackend
from mscsp.backends.order import open_constraints
from mscsp.backends.sat import SatBackend
from mscsp.board import parse_board
from mscsp.cli import main
from mscsp.constraints import Component, ComponentCount
from mscsp.errors import InvalidInputError, SolverLimitError
from mscsp.evaluation.benchmark import load_corpus, load_entries, run_benchmark, select_backends
from mscsp.evaluation.families import band, lattice, toollib
from mscsp.evaluation.played_positions import sample_positions
from mscsp.reference import brute_force

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
    by_name = {r["name"]: r for r in rows}
    assert by_name["dss"]["counts"] == "exact" and by_name["dss"]["decides"] == "from counts"
    assert by_name["sat"]["decides"] == "search"


def test_backends_names_missing_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SatBackend, "supported", classmethod(lambda c: False))
    result = CliRunner().invoke(main, ["backends"])
    assert result.exit_code == 0
    line = next(x for x in result.output.splitlines() if x.startswith("sat "))
    assert "no: pip install 'mscsp[sat]'" in line


def test_bench_corpus_exact_backends_agree(corpus_file: Path) -> None:
    # A long limit: ``external`` starts a counter process per query (about 40 per
    # component), which can pass the default 10 s on a loaded machine; its answers are what
    # is tested here, not its speed.
    args = ["bench", "--corpus", str(corpus_file), "--backend", "all", "--repeat", "2"]
    result = CliRunner().invoke(main, [*args, "--time-limit", "120", "--json"])
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
    for name in ("components.csv", "positions.csv", "summary.json", "latency.png", "width.png"):
        assert (tmp_path / name).stat().st_size > 0
    positions = (tmp_path / "positions.csv").read_text().splitlines()
    assert positions[0] == (
        "backend,position,family,seconds,status,max_abs_diff,calls,safe,"
        "mean_abs_diff,brier,log_loss"
    )
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
    result = run_benchmark([board], ["flaky"], repeat=2, isolate=False)
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
        [sys.executable, str(ROOT / "bench" / "corpora" / "make_corpus.py"), str(out)],
        check=True,
        env=env,
        capture_output=True,
    )
    shipped = resources.files("mscsp.data").joinpath("bench_corpus.jsonl").read_text()
    assert out.read_text() == shipped
    assert len(load_corpus()) == len(shipped.splitlines())


def test_hard_corpus_is_reproducible(tmp_path: Path) -> None:
    out = tmp_path / "hard.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "corpora" / "make_hard.py"), str(out)],
        check=True,
        capture_output=True,
    )
    assert out.read_text() == (ROOT / "bench" / "corpora" / "hard.jsonl").read_text()
    entries = load_entries(out)
    families = {e.family for e in entries}
    assert {"lattice", "band", "toollib", "strip", "dense", "large"} <= families
    assert all(e.name and e.line for e in entries)


def test_hard_generators_are_consistent() -> None:
    # Numbers come from a real layout: the brute force finds that layout among its solutions.
    for make in (lattice, band):
        for seed in range(3):
            board = make(4, 5, 0.4, seed)
            exact = brute_force(board)
            assert exact and all(0 <= p <= 1 for p in exact.values())
    assert toollib(seed=1).shape == (21, 10)


def test_width_grows_with_the_lattice() -> None:
    def widest(board) -> int:
        return max(open_constraints(c) for c, _ in solve(board).components)

    small, large = widest(lattice(8, 8, 0.3, 2)), widest(lattice(14, 14, 0.3, 2))
    assert 1 <= small < large
    assert widest(band(5, 30, 0.5, 0)) < large


def test_empty_corpus_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    result = CliRunner().invoke(main, ["bench", "--corpus", str(empty)])
    assert result.exit_code == 2 and "holds no positions" in result.output


def test_failing_position_names_its_corpus_line(tmp_path: Path) -> None:
    corpus = tmp_path / "bad.jsonl"
    good = json.dumps({"board": "3x1x1\n1?1\n"})
    impossible = json.dumps({"board": "4x1x1\n1??1\n", "name": "two ones, one mine"})
    corpus.write_text(f"{good}\n\n{impossible}\n")
    result = CliRunner().invoke(main, ["bench", "--corpus", str(corpus), "--backend", "sat"])
    assert result.exit_code == 3
    assert "corpus line 3 (two ones, one mine)" in result.output
    malformed = tmp_path / "malformed.jsonl"
    bad_row = json.dumps({"board": "3x1x1\n1?x\n"})
    malformed.write_text(f"{good}\n{bad_row}\n")
    result = CliRunner().invoke(main, ["bench", "--corpus", str(malformed)])
    assert result.exit_code == 2 and "corpus line 2" in result.output


def test_families_widths_and_legend(tmp_path: Path) -> None:
    corpus = tmp_path / "fam.jsonl"
    lines = [
        {"board": lattice(6, 6, 0.3, 1).to_text(), "family": "lattice", "name": "l"},
        {"board": band(5, 9, 0.5, 1).to_text(), "family": "band", "name": "b"},
    ]
    corpus.write_text("".join(json.dumps(x) + "\n" for x in lines))
    result = CliRunner().invoke(main, ["bench", "--corpus", str(corpus), "--backend", "sat"])
    assert result.exit_code == 0, result.output
    assert "x ref: median over positions both solved" in result.output
    assert "per family" in result.output and "lattice" in result.output
    out = json.loads(
        CliRunner()
        .invoke(main, ["bench", "--corpus", str(corpus), "--backend", "sat", "--json"])
        .output
    )
    assert [row["family"] for row in out["by_family"]] == ["lattice", "band"]
    assert out["by_family"][0]["sat"]["failed"] == 0


def test_a_backend_stopped_at_its_limit_is_recorded_as_a_limit() -> None:
    # Ganak cannot be interrupted inside a count: it counts in a child killed at the limit.
    if not GanakBackend.supported():
        pytest.skip("pyganak not installed")
    boards = [parse_board("3x1x1\n1?1\n"), lattice(16, 16, 0.4, 0)]
    result = run_benchmark(boards, ["ganak"], time_limit=0.5, grace=0.5)
    rows = [r for r in result.latencies if r.backend == "ganak"]
    assert [r.status for r in rows] == ["ok", "limit"]
    assert result.summary()[1]["limits"] == 1 and result.summary()[1]["timeouts"] == 0


def test_a_worker_past_the_bench_wait_is_killed_and_recorded_as_a_timeout() -> None:
    # The bench's own stop, for a backend that overruns its limit: a grace below zero makes
    # the bench stop waiting long before ganak's own limit of 5 s.
    if not GanakBackend.supported():
        pytest.skip("pyganak not installed")
    result = run_benchmark([lattice(16, 16, 0.4, 0)], ["ganak"], time_limit=5.0, grace=-4.7)
    statuses = [r.status for r in result.latencies if r.backend == "ganak"]
    assert statuses == ["timeout"]
    timed_out = [c for c in result.components if c.backend == "ganak"]
    assert timed_out and all(c.status == "timeout" and c.seconds is None for c in timed_out)
    assert result.summary()[1]["timeouts"] == 1


def test_isolated_and_in_process_agree(corpus_file: Path) -> None:
    entries = load_entries(corpus_file)
    runs = [
        run_benchmark(entries, ["sat"], time_limit=30, isolate=isolate) for isolate in (True, False)
    ]
    for result in runs:
        assert all(r.status == "ok" and r.max_abs_diff == 0.0 for r in result.latencies)
    keys = [
        [(c.backend, c.position, c.cells, c.width, c.solutions) for c in r.components] for r in runs
    ]
    assert keys[0] == keys[1]


def test_decide_mode_reports_calls_and_agreement(corpus_file: Path) -> None:
    args = ["bench", "--corpus", str(corpus_file), "--backend", "sat,cpsat", "--decide"]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["mode"] == "decide"
    rows = {r["backend"]: r for r in out["summary"]}
    assert rows["dss"]["native"] is False and rows["dss"]["median_calls"] == 0
    for name in ("sat", "cpsat"):
        assert rows[name]["native"] and rows[name]["median_calls"] >= 1
        assert rows[name]["max_abs_diff"] == 0.0 and rows[name]["solved"] == 4
        assert rows[name]["no_safe_cell"] == rows["dss"]["no_safe_cell"]
    text = CliRunner().invoke(main, args).output
    assert "no safe cell: positions with no certainly safe cell" in text
