"""``mscsp bench`` in the competitions' terms: memory limit, wrong answers, PAR-2, the
resumable runs file, cactus and scatter plots."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from click.testing import CliRunner

from mscsp.backends.approxmc import ApproxmcBackend
from mscsp.board import parse_board
from mscsp.cli import main
from mscsp.errors import BackendUnavailableError
from mscsp.evaluation.bench_plots import ALL_PAIRS_UP_TO, cactus, scatter_pairs
from mscsp.evaluation.benchmark import load_corpus, run_benchmark
from mscsp.evaluation.families import band, lattice

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_par2_is_the_competitions_formula() -> None:
    # Three easy positions and a 16x16 lattice that sat cannot count in 0.3 s.
    boards = [*load_corpus()[:3], lattice(16, 16, 0.4, 0)]
    result = run_benchmark(boards, ["sat"], time_limit=0.3, isolate=False)
    rows = {r["backend"]: r for r in result.summary()}
    assert [r["status"] for r in result.runs if r["backend"] == "sat"][-1] == "limit"
    for name, row in rows.items():
        mine = [r for r in result.runs if r["backend"] == name]
        hand = sum(
            r["seconds"] if r["status"] == "ok" and not r["wrong"] else 2 * 0.3 for r in mine
        )
        assert row["par2"] == pytest.approx(hand)
        solved = sum(r["status"] == "ok" and not r["wrong"] for r in mine)
        assert row["solved"] == solved
        assert solved + row["limits"] + row["timeouts"] + row["memouts"] + row["wrong"] == 4
    assert rows["sat"]["par2"] > 2 * 0.3  # the lattice's penalty


def test_a_run_past_the_memory_limit_is_a_memout_and_the_bench_goes_on() -> None:
    # mdd compiles a 20x20 lattice's diagram in arrays of tens of MB; 50 MB is not enough.
    boards = [lattice(20, 20, 0.4, 0), parse_board("3x1x1\n1?1\n")]
    result = run_benchmark(boards, ["mdd"], time_limit=60, memory_limit=50)
    runs = [r for r in result.runs if r["backend"] == "mdd"]
    assert [r["status"] for r in runs] == ["memout", "ok"]
    assert runs[0]["seconds"] < 60 and runs[0]["wrong"] is None
    row = next(r for r in result.summary() if r["backend"] == "mdd")
    assert (row["memouts"], row["solved"], row["timeouts"]) == (1, 1, 0)
    assert row["par2"] == pytest.approx(2 * 60 + runs[1]["seconds"])
    memout = [c for c in result.components if c.backend == "mdd" and c.position == 0]
    assert memout and any(c.status == "memout" for c in memout)


def test_an_approximate_answer_is_counted_wrong() -> None:
    # approxmc's marginals are sampled (UniGen): on the band, some cell's probability
    # differs from dss's exact one; on the small lattice it counts and samples exactly.
    if not ApproxmcBackend.supported():
        pytest.skip("pyapproxmc not installed")
    boards = [band(5, 9, 0.5, 1), lattice(6, 6, 0.3, 1)]
    result = run_benchmark(boards, ["approxmc"], time_limit=30, isolate=False)
    runs = [r for r in result.runs if r["backend"] == "approxmc"]
    assert [(r["status"], r["wrong"]) for r in runs] == [("ok", True), ("ok", False)]
    reference = [r for r in result.runs if r["backend"] == "dss"]
    assert runs[0]["answer"] != reference[0]["answer"]
    assert runs[1]["answer"] == reference[1]["answer"]
    row = next(r for r in result.summary() if r["backend"] == "approxmc")
    assert (row["wrong"], row["solved"]) == (1, 1)
    assert row["par2"] == pytest.approx(2 * 30 + runs[1]["seconds"])


def _bench(corpus: Path, out: Path, *extra: str) -> dict:
    args = ["bench", "--corpus", str(corpus), "--backend", "sat", "--out", str(out), "--json"]
    result = CliRunner().invoke(main, [*args, *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.output.splitlines()[-1])  # after the "wrote FILE" lines


def _runs(out: Path) -> list[dict]:
    lines = (out / "runs.jsonl").read_text().splitlines()
    return [json.loads(x) for x in lines[1:]]


def _key(run: dict) -> tuple:
    return (run["instance"], run["backend"], run["status"], run["count"], run["answer"])


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    """An uninterrupted bench of dss and sat on 4 positions: the corpus, --out, --json."""
    folder = tmp_path_factory.mktemp("competition")
    corpus = folder / "corpus.jsonl"
    lines = [{"board": b.to_text()} for b in load_corpus()[:3]]
    lines.append({"board": band(5, 9, 0.5, 1).to_text(), "family": "band"})
    corpus.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = folder / "whole"
    return corpus, out, _bench(corpus, out)


def test_a_killed_bench_resumes_from_its_runs_file(whole, tmp_path: Path) -> None:
    corpus, out, summary = whole
    full = _runs(out)
    assert len(full) == 8 and {r["backend"] for r in full} == {"dss", "sat"}
    # A kill after two runs, in the middle of writing the third.
    cut = tmp_path / "cut"
    cut.mkdir()
    lines = (out / "runs.jsonl").read_text().splitlines(keepends=True)
    (cut / "runs.jsonl").write_text("".join(lines[:3]) + lines[3][:40])
    resumed = _bench(corpus, cut, "--resume")
    again = _runs(cut)
    assert again[:2] == full[:2]  # kept as they were, not run again
    assert len(again) == 8  # the cut line is skipped; the six others are run once
    assert sorted(map(_key, again)) == sorted(map(_key, full))
    strip = ("par2", "median_ms", "p95_ms", "max_ms", "ratio_to_reference", "positions_per_s")
    assert [{k: v for k, v in r.items() if k not in strip} for r in resumed["summary"]] == [
        {k: v for k, v in r.items() if k not in strip} for r in summary["summary"]
    ]
    csv_rows = (cut / "runs.csv").read_text().splitlines()
    assert csv_rows[0].startswith("instance,name,family,backend,status,seconds,wrong,count")
    assert len(csv_rows) == 1 + 8


def test_resume_refuses_other_settings(whole, tmp_path: Path) -> None:
    corpus, out, _ = whole
    other = tmp_path / "other"
    other.mkdir()
    (other / "runs.jsonl").write_text((out / "runs.jsonl").read_text())
    args = ["bench", "--corpus", str(corpus), "--backend", "sat", "--out", str(other)]
    result = CliRunner().invoke(main, [*args, "--resume", "--time-limit", "5"])
    assert result.exit_code == 2
    assert "time_limit: 10.0 in the file, 5.0 here" in result.output
    result = CliRunner().invoke(main, ["bench", "--resume", "--backend", "sat"])
    assert result.exit_code == 2 and "give --out" in result.output
    missing = CliRunner().invoke(main, [*args[:-1], str(tmp_path / "none"), "--resume"])
    assert missing.exit_code == 2 and "no runs file" in missing.output


def test_cactus_and_scatter_plots_are_valid_png_and_svg(whole) -> None:
    _, out, _ = whole
    for stem in ("cactus", "scatter-dss-vs-sat"):
        png = (out / f"{stem}.png").read_bytes()
        assert png.startswith(PNG_MAGIC) and len(png) > 1000
        root = ElementTree.parse(out / f"{stem}.svg").getroot()
        assert root.tag.endswith("svg") and len(root) > 0


def test_plots_without_matplotlib_name_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(BackendUnavailableError, match=r"mscsp\[plot\]"):
        cactus([], tmp_path / "cactus", 1.0)


def test_scatter_plots_pair_every_backend_of_a_few_and_the_leader_of_many() -> None:
    def runs(names: list[str], solved: dict[str, int]) -> list[dict]:
        return [
            {"backend": name, "status": "ok" if i < solved[name] else "limit", "seconds": 1.0}
            for name in names
            for i in range(10)
        ]

    few = ["a", "b", "c"]
    assert scatter_pairs(runs(few, dict.fromkeys(few, 5))) == [("a", "b"), ("a", "c"), ("b", "c")]
    many = [f"b{i}" for i in range(ALL_PAIRS_UP_TO + 3)]
    solved = {name: i for i, name in enumerate(many)}  # the last solves the most
    pairs = scatter_pairs(runs(many, solved))
    assert pairs == [(many[-1], name) for name in many[:-1]]


def test_a_counter_program_whose_counts_fail_their_checks_is_a_named_wrong(tmp_path) -> None:
    # A counter that doubles every count: no answer from it is kept, and bench says so.
    counter = tmp_path / "double.py"
    counter.write_text(
        "import re, subprocess, sys\n"
        "out = subprocess.run([sys.executable, '-m', 'mscsp.counters.mcc', sys.argv[1]],\n"
        "                     capture_output=True, text=True, check=True).stdout\n"
        "print('c s exact arb int', 2 * int(re.search(r'c s exact arb int (\\d+)', out)[1]))\n"
    )
    name = f"external:{sys.executable} {counter}"
    boards = [parse_board("5x3x3\n1?1??\n?????\n?????\n")]
    result = run_benchmark(boards, [name], time_limit=60, isolate=False)
    runs = [r for r in result.runs if r["backend"] == name]
    assert [(r["status"], r["wrong"]) for r in runs] == [("wrong", True)]
    row = next(r for r in result.summary() if r["backend"] == name)
    assert (row["wrong"], row["solved"]) == (1, 0)
