"""``mscsp export --package``: a benchmark set in one archive, its counts checked by two
routes, its bytes the same every time, graded from real bench runs."""

from __future__ import annotations

import hashlib
import json
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from mscsp.cli import main
from mscsp.errors import InvalidInputError, WrongCountError
from mscsp.evaluation.benchmark import CorpusEntry, load_entries
from mscsp.export import export
from mscsp.export.index import INDEX, read_index
from mscsp.export.package import package
from mscsp.export.provenance import setting_of

pytest.importorskip("pysat")
pytest.importorskip("py_d4")

HARD = Path(__file__).resolve().parent.parent / "bench" / "corpora" / "hard.jsonl"
#: The three smallest lattices of the hard corpus (8x8: 30 to 40 cells), a band (104 cells).
LINES = (1, 2, 3, 35)
#: What a CNF says of its format year.
FORMAT = "c format: Model Counting Competition 2024-2025"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A small corpus file: lines :data:`LINES` of the hard corpus."""
    lines = HARD.read_text().splitlines()
    path = tmp_path / "small.jsonl"
    path.write_text("".join(lines[n - 1] + "\n" for n in LINES))
    return path


def _members(archive: Path) -> dict[str, bytes]:
    """``{name: bytes}`` of every file in the archive."""
    with tarfile.open(archive) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def _records(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines()]


def _package(corpus: Path, out: Path, archive: Path, *more: str) -> dict:
    """``mscsp export --corpus CORPUS --package ARCHIVE`` (peak mine numbers) as JSON."""
    args = ["export", "--corpus", str(corpus), "--out", str(out), "--package", str(archive)]
    args += ["--mine-numbers", "peak", "--time-limit", "5", "--json", *more]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_the_archive_holds_instances_readme_checksums_and_two_agreeing_counts(corpus, tmp_path):
    archive = tmp_path / "minesweeper.tar.gz"
    summary = _package(corpus, tmp_path / "out", archive)
    members = _members(archive)
    names = sorted(members)
    assert [n.split("/")[0] for n in names] == ["minesweeper"] * len(names)
    index = _records(members["minesweeper/index.jsonl"])
    exported = read_index(tmp_path / "out")
    assert summary["package"]["instances"] == len(index) == len(exported) == len(LINES)
    # Each instance: its file, the export's count, counted again by D4 and mdd alike.
    for record, original in zip(index, exported, strict=True):
        assert record["file"] == f"instances/{original['file']}"
        assert record["count"] == original["count"]
        assert "minesweeper/" + record["file"] in members
        assert members["minesweeper/" + record["file"]].decode().splitlines()[1].startswith(FORMAT)
        assert record["counted_by"][:2] == ["dss", "d4"] or record["not_counted"].get("d4")
        assert "mdd" in record["counted_by"]
    assert summary["package"]["two_counts"] == len(index)
    # SHA256SUMS covers every other file, and each sum is right.
    sums = dict(
        reversed(line.split("  "))
        for line in members["minesweeper/SHA256SUMS"].decode().splitlines()
    )
    assert sorted("minesweeper/" + n for n in sums) == [n for n in names if not n.endswith("SUMS")]
    for name, digest in sums.items():
        assert hashlib.sha256(members["minesweeper/" + name]).hexdigest() == digest
    # The README names the format year, the families, the routes; corpus.jsonl is the input.
    readme = members["minesweeper/README.md"].decode()
    assert FORMAT in readme and "lattice" in readme and "band" in readme
    assert f"**{len(index)} of {len(index)} instances have two agreeing counts**" in readme
    assert "`mscsp corpus lattice --size 8x8 --density 0.2 --seed 0`" in readme
    (tmp_path / "back.jsonl").write_bytes(members["minesweeper/corpus.jsonl"])
    back, given = load_entries(tmp_path / "back.jsonl"), load_entries(corpus)
    assert [e.board.to_text() for e in back] == [e.board.to_text() for e in given]


def test_the_same_command_twice_gives_the_same_bytes(corpus, tmp_path):
    for suffix in (".tar.gz", ".tar.xz"):
        first, second = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
        _package(corpus, tmp_path / f"out-1{suffix[5:]}", first, "--check-with", "mdd")
        _package(corpus, tmp_path / f"out-2{suffix[5:]}", second, "--check-with", "mdd")
        # (the folder inside is named after the archive: give both the same name)
        again = tmp_path / "again" / f"a{suffix}"
        again.parent.mkdir(exist_ok=True)
        _package(corpus, tmp_path / f"out-3{suffix[5:]}", again, "--check-with", "mdd")
        assert first.read_bytes() == again.read_bytes()
        assert _members(first).keys() != _members(second).keys()  # a/..., b/...
    # --overwrite replaces the archive with the same bytes; without it, refused at once.
    before = (tmp_path / "a.tar.gz").read_bytes()
    args = ["--check-with", "mdd", "--overwrite"]
    _package(corpus, tmp_path / "out-1gz", tmp_path / "a.tar.gz", *args)
    assert (tmp_path / "a.tar.gz").read_bytes() == before
    result = CliRunner().invoke(
        main,
        ["export", "--corpus", str(corpus), "--out", str(tmp_path / "new")]
        + ["--package", str(tmp_path / "a.tar.gz")],
    )
    assert result.exit_code == 2 and "exists" in result.output
    assert not (tmp_path / "new").exists()  # refused before the export


@pytest.mark.parametrize("routes", [("d4",), ("mdd",)])
def test_a_count_two_routes_disagree_on_is_refused(corpus, tmp_path, routes):
    entries = load_entries(corpus)[:3]
    out = tmp_path / "out"
    export(entries, out, mine_numbers="peak")
    # The index's (dss's) count of one instance made wrong by one: each route sees it.
    lines = (out / INDEX).read_text().splitlines()
    record = json.loads(lines[1])
    record["count"] = str(int(record["count"]) + 1)
    lines[1] = json.dumps(record)
    (out / INDEX).write_text("\n".join(lines) + "\n")
    archive = tmp_path / "set.tar.gz"
    with pytest.raises(WrongCountError, match=f"{record['file']}.*{routes[0]} counted"):
        package(entries, out, archive, origin="test", routes=routes, time_limit=30)
    assert not archive.exists()


def test_grades_come_from_real_bench_runs(corpus, tmp_path):
    """dss counts every position at once; sat runs out of 0.1 s on the denser lattice (a
    timeout at 0.1 s says nothing of 60 s: not measured); brute refuses every position of
    more than its few cells (a cap: failed at every limit)."""
    runs = []
    for backend, limit in (("sat", "0.1"), ("brute", "1")):
        bench = tmp_path / f"bench-{backend}"
        args = ["bench", "--corpus", str(corpus), "--backend", backend, "--time-limit", limit]
        result = CliRunner().invoke(main, [*args, "--out", str(bench), "--no-progress"])
        assert result.exit_code == 0, result.output
        runs += ["--grades", str(bench / "runs.jsonl")]
    lines = [json.loads(line) for line in (tmp_path / "bench-sat/runs.jsonl").open()][1:]
    outcome = {(r["backend"], r["instance"]): r["status"] for r in lines}
    assert outcome[("sat", 0)] == "ok" and outcome[("sat", 2)] in ("timeout", "limit")
    archive = tmp_path / "graded.tar.xz"
    summary = _package(corpus, tmp_path / "out", archive, "--check-with", "mdd", *runs)
    index = {r["position"]: r for r in _records(_members(archive)["graded/index.jsonl"])}
    # Position 0: dss and sat count it (fast), brute refuses it: solved by some, not all.
    assert index[0]["grades"]["60"] == {
        "grade": "hard",
        "solved_by": ["dss", "sat"],
        "not_measured": [],
    }
    assert index[0]["grades"]["1800"]["grade"] == "hard"
    # Position 2: sat's timeout at 0.1 s leaves 60 s and 1,800 s unknown: never guessed.
    assert index[2]["grades"]["60"] == {
        "grade": "not measured",
        "solved_by": ["dss"],
        "not_measured": ["sat"],
    }
    assert summary["package"]["grades"]["60"]["not measured"] >= 1
    readme = _members(archive)["graded/README.md"].decode()
    assert "`brute` 1 s; `dss` 0.1 s, 1 s; `sat` 0.1 s" in readme
    # Runs of another corpus cannot grade this one.
    other = tmp_path / "other.jsonl"
    other.write_text(corpus.read_text().splitlines()[0] + "\n")
    result = CliRunner().invoke(
        main,
        ["export", "--corpus", str(other), "--out", str(tmp_path / "o")]
        + ["--package", str(tmp_path / "o.tar.gz"), *runs[:2]],
    )
    assert result.exit_code == 2 and "another corpus" in result.output


def test_what_a_package_refuses(corpus, tmp_path):
    entries = load_entries(corpus)[:1]
    export(entries, tmp_path / "wmc", kind="wmc")
    with pytest.raises(InvalidInputError, match="pmc instances"):
        package(entries, tmp_path / "wmc", tmp_path / "w.tar.gz", origin="test")
    with pytest.raises(InvalidInputError, match="NAME.tar.gz"):
        package(entries, tmp_path / "wmc", tmp_path / "w.zip", origin="test")
    for args, message in (
        (["--check-with", "mdd"], "go with --package"),
        (["--package", str(tmp_path / "x.tar.gz"), "--kind", "wmc"], "pmc instances"),
    ):
        result = CliRunner().invoke(
            main, ["export", "--corpus", str(corpus), "--out", str(tmp_path / "cli"), *args]
        )
        assert result.exit_code == 2 and message in result.output, result.output


def test_peak_keeps_the_mine_number_with_the_most_layouts(corpus, tmp_path):
    entries = load_entries(corpus)[:2]
    export(entries, tmp_path / "all")
    export(entries, tmp_path / "peak", mine_numbers="peak")
    every, peak = read_index(tmp_path / "all"), read_index(tmp_path / "peak")
    assert len(peak) == 2 < len(every)
    for record in peak:
        same = [r for r in every if r["position"] == record["position"]]
        assert int(record["count"]) == max(int(r["count"]) for r in same)
    with pytest.raises(InvalidInputError, match="no 'peak'"):
        export(entries, tmp_path / "w", kind="wmc", mine_numbers="peak")


def test_names_are_inert_in_the_readme_and_claim_no_generator(corpus, tmp_path):
    entry = load_entries(corpus)[0]
    assert setting_of(entry) is not None
    # The same board under another seed's name: no command is claimed for it.
    liar = CorpusEntry(entry.board, 1, "lattice", "lattice 8x8 d0.2 s7")
    hostile = CorpusEntry(entry.board, 2, "lattice", "x | <b>[a](http://e)\n# y")
    assert setting_of(liar) is None and setting_of(hostile) is None
    out = tmp_path / "out"
    export([liar, hostile], out, mine_numbers="peak")
    archive = tmp_path / "names.tar.gz"
    package([liar, hostile], out, archive, origin="test", routes=("mdd",))
    readme = _members(archive)["names/README.md"].decode()
    row = next(line for line in readme.splitlines() if line.startswith("| 1 |"))
    assert "<b>" not in readme and "\n# y" not in readme
    assert "x \\| \\<b\\>\\[a\\](http://e)\\\\x0a# y" in row  # every mark escaped
    assert row.count(" | ") == 7  # the name's bar is escaped: the row keeps its 8 cells
    assert "(not regenerated)" in row
    index = _records(_members(archive)["names/index.jsonl"])
    assert index[1]["source"] == f"corpus line 2 ({hostile.name})"  # JSON keeps it exact
