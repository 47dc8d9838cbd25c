"""``mscsp export``: instance files whose counts, by real solvers reading them, equal ours."""

from __future__ import annotations

import json
import shutil
from math import prod
from pathlib import Path

import pytest
from click.testing import CliRunner

import mscsp
from mscsp.benchmark import CorpusEntry, load_entries
from mscsp.cli.export import export as export_command
from mscsp.errors import InvalidInputError
from mscsp.export import export
from mscsp.export.check import count_file
from mscsp.export.index import read_index
from mscsp.export.mcc import read_cnf
from mscsp.game import PRESETS
from mscsp.positions import sample_positions

HARD = Path(__file__).resolve().parent.parent / "bench" / "corpora" / "hard.jsonl"
#: One small position of each family of the hard corpus (corpus lines).
HARD_LINES = {10, 34, 44, 46, 51, 54}
#: Most cells of an instance counted in the tests (a few 0.1 s each with Ganak and D4; a
#: 60-cell band component takes seconds).
CELLS = 32
#: Largest count checked by enumerating solvers (SCIP, MiniZinc): one solution at a time.
ENUMERABLE = 3000

pytest.importorskip("pyganak")
pytest.importorskip("pysat")


@pytest.fixture(scope="module")
def entries() -> list[CorpusEntry]:
    """Real expert positions (seeded games) and a small position of every hard family."""
    boards = sample_positions(*PRESETS["expert"], 12, seed=3)
    games = [CorpusEntry(b, 0, "expert", f"expert #{i}") for i, b in enumerate(boards)]
    hard = [e for e in load_entries(HARD) if e.line in HARD_LINES]
    assert {e.family for e in hard} == {"lattice", "band", "toollib", "strip", "dense", "large"}
    return games + hard


def _agree(folder: Path, counters: tuple[str, ...], largest: int | None = None) -> int:
    """Counts every indexed file (up to ``largest`` and :data:`CELLS`) with each counter;
    returns how many."""
    checked = 0
    for record in read_index(folder):
        if largest is not None and int(record["count"]) > largest or record["cells"] > CELLS:
            continue
        for counter in counters:
            got = count_file(folder / record["file"], counter, time_limit=60)
            assert got == int(record["count"]), (record, counter, got)
        checked += 1
    return checked


def test_pmc_counts_of_ganak_and_d4_equal_ours(tmp_path, entries):
    counters = ("ganak", "d4") if _has("py_d4") else ("ganak",)
    summary = export(entries, tmp_path, time_limit=30)
    assert summary.skipped == []
    records = read_index(tmp_path)
    assert summary.instances == len(records) > 40
    assert {r["family"] for r in records} >= {"expert", "lattice", "band", "strip", "dense"}
    small = [r for r in records if r["cells"] <= CELLS]
    for record in small:
        for counter in counters:
            got = count_file(tmp_path / record["file"], counter, time_limit=60)
            assert got == int(record["count"]), (record, counter)
    assert len(small) > 30
    # Every file names its track and shows exactly the cell variables.
    cnf = read_cnf(tmp_path / records[0]["file"])
    assert cnf.kind == "pmc" and cnf.show == list(range(1, records[0]["cells"] + 1))


def test_whole_position_counts_are_products_of_the_components(tmp_path, entries):
    by_component = tmp_path / "c"
    by_position = tmp_path / "p"
    export(entries[:12], by_component)
    export(entries[:12], by_position, per="position")
    components: dict[int, dict[int, dict[int, int]]] = {}
    for r in read_index(by_component):
        components.setdefault(r["position"], {}).setdefault(r["component"], {})[r["mines"]] = int(
            r["count"]
        )
    totals = {}
    for r in read_index(by_position):
        assert r["component"] is None
        totals[r["position"]] = totals.get(r["position"], 0) + int(r["count"])
    for position, parts in components.items():
        assert totals[position] == prod(sum(c.values()) for c in parts.values())
    assert _agree(by_position, ("ganak",), largest=10**6) > 5


def test_wmc_is_the_weighted_sum(tmp_path, entries):
    export(entries[:12], tmp_path, kind="wmc", weight=3)
    records = read_index(tmp_path)
    assert {r["kind"] for r in records} == {"wmc"} and all(r["mines"] is None for r in records)
    # Ganak's weighted count is a float: exact up to 2**53.
    small = [r for r in records if r["cells"] <= CELLS]
    assert _agree(tmp_path, ("ganak",), largest=2**53) == len(small) > 5
    cnf = read_cnf(tmp_path / records[0]["file"])
    assert cnf.kind == "wmc" and cnf.weights[1] == "3" and cnf.weights[-1] == "1"


@pytest.mark.parametrize("fmt", ["opb", "lp"])
def test_scip_counts_opb_and_lp(tmp_path, entries, fmt):
    pytest.importorskip("pyscipopt")
    export(entries, tmp_path, fmt=fmt, time_limit=30)
    assert _agree(tmp_path, ("scip",), largest=ENUMERABLE) > 30


def test_minizinc_counts_the_model_with_each_data_file(tmp_path, entries):
    if shutil.which("minizinc") is None:
        pytest.skip("the minizinc command is not installed")
    export(entries[:12] + entries[-2:], tmp_path, fmt="mzn")
    assert (tmp_path / "model.mzn").is_file()
    assert _agree(tmp_path, ("minizinc",), largest=ENUMERABLE) > 10


def test_other_encodings_count_the_same(tmp_path, entries):
    export(entries[:12], tmp_path, encoding="totalizer")
    assert _agree(tmp_path, ("ganak",)) > 5


def test_damaged_files_are_refused_by_the_reader(tmp_path, entries):
    export(entries[:12], tmp_path)
    record = read_index(tmp_path)[0]
    path = tmp_path / record["file"]
    text = path.read_text()
    path.write_text(text[: len(text) - 3])  # the last clause loses its 0
    with pytest.raises(InvalidInputError, match="truncated"):
        count_file(path, "ganak")
    path.write_text("\n".join(text.splitlines()[:-2]) + "\n")  # whole clauses missing
    with pytest.raises(InvalidInputError, match="the header says"):
        read_cnf(path)
    path.write_text(text.replace("p cnf", "p wcnf"))
    with pytest.raises(InvalidInputError, match="header"):
        read_cnf(path)
    path.write_text(text.replace("c t pmc", "c t xmc"))
    with pytest.raises(InvalidInputError, match="track"):
        read_cnf(path)


def test_damaged_index_is_refused(tmp_path, entries):
    export(entries[:12], tmp_path)
    index = tmp_path / "index.jsonl"
    lines = index.read_text().splitlines()
    for bad, message in [
        (lines[0][:-5], "not JSON"),
        (lines[0].replace('"count": "', '"count": "x'), "not a decimal"),
        (lines[0].replace('"count": "', '"count": 1, "_": "'), "count"),
        (lines[0].replace('"kind": "pmc"', '"kind": "sat"'), "unknown kind"),
        (lines[0].replace('"file": "', '"file": "../'), "not in"),
    ]:
        index.write_text("\n".join([bad, *lines[1:]]) + "\n")
        with pytest.raises(InvalidInputError, match=message):
            read_index(tmp_path)


def test_options_and_folder_are_checked(tmp_path, entries):
    with pytest.raises(InvalidInputError, match="leaves auxiliary"):
        export(entries[:1], tmp_path, kind="wmc", encoding="totalizer")
    with pytest.raises(InvalidInputError, match="needs format mcc"):
        export(entries[:1], tmp_path, fmt="opb", kind="wmc")
    export(entries[:12], tmp_path)
    with pytest.raises(InvalidInputError, match="not empty"):
        export(entries[:12], tmp_path)
    (tmp_path / "notes.txt").write_text("kept")
    export(entries[:12], tmp_path, fmt="lp", overwrite=True)
    assert (tmp_path / "notes.txt").read_text() == "kept"
    assert not list(tmp_path.glob("*.cnf"))
    assert {r["kind"] for r in read_index(tmp_path)} == {"lp"}


def test_cli_exports_a_board_from_stdin_and_a_preset(tmp_path):
    board = (Path(mscsp.__file__).parent / "data" / "example.txt").read_text()
    out = tmp_path / "one"
    result = CliRunner().invoke(export_command, ["-", "--out", str(out), "--json"], input=board)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    records = read_index(out)
    assert summary["instances"] == len(records) > 0 and records[0]["source"] == "stdin"
    result = CliRunner().invoke(
        export_command,
        [
            "--preset",
            "beginner",
            "--positions",
            "3",
            "--out",
            str(tmp_path / "p"),
            "--format",
            "opb",
        ],
    )
    assert result.exit_code == 0 and "wrote" in result.output
    result = CliRunner().invoke(export_command, ["--out", str(tmp_path / "none")])
    assert result.exit_code == 2 and "one of FILE" in result.output
    result = CliRunner().invoke(export_command, ["-", "--out", str(out)], input=board)
    assert result.exit_code == 2 and "not empty" in result.output


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True
