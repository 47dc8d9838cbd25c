"""``mscsp export``: instance files whose counts, by real solvers reading them, equal ours."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from math import prod
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import mscsp
from mscsp.cli.export import export as export_command
from mscsp.errors import InvalidInputError
from mscsp.evaluation.benchmark import CorpusEntry, load_entries
from mscsp.evaluation.played_positions import sample_positions
from mscsp.export import export
from mscsp.export.check import count_file
from mscsp.export.index import read_index
from mscsp.formats.dimacs import read_cnf
from mscsp.game import PRESETS

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
    # Weights above 1 are the 2024-2025 rules: the file says so before its header.
    head = (tmp_path / records[0]["file"]).read_text().split("\np cnf")[0]
    assert "c format: Model Counting Competition 2024-2025" in head


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


#: A position small enough to export in a few milliseconds (the issue's example).
SMALL = "5x5x6\n12???\n?????\n???21\n?????\n1????\n"
#: A name that would end a comment line and state a clause, a header and more.
HOSTILE = "x\n-1 0\nc \r\x0b\x0c\x1c\x85\u2028p cnf 1 1\x00\x1b[2J\ud7ff"
#: What starts each format's comment line, and the line its title is written on.
COMMENTS = {"mcc": ("c ", 0), "opb": ("* ", 1), "lp": ("\\ ", 0), "mzn": ("% ", 0)}


def _printable(text: str) -> bool:
    """Printable ASCII lines, nothing else."""
    return all(" " <= char <= "~" for line in text.split("\n") for char in line)


@pytest.mark.parametrize("fmt", ["mcc", "opb", "lp", "mzn"])
def test_a_hostile_name_stays_in_its_comment_and_the_counts_are_unchanged(tmp_path, fmt):
    board = mscsp.parse_board(SMALL)
    plain, hostile = tmp_path / "plain", tmp_path / "hostile"
    export([CorpusEntry(board, 1, "f", "plain")], plain, fmt=fmt)
    export([CorpusEntry(board, 1, "=f\n1 0", HOSTILE)], hostile, fmt=fmt)
    ours, theirs = read_index(plain), read_index(hostile)
    assert [r["count"] for r in ours] == [r["count"] for r in theirs] and len(ours) == 2
    assert theirs[0]["source"] == f"corpus line 1 ({HOSTILE})"  # JSON keeps it exact
    marker, title = COMMENTS[fmt]
    for record in theirs:
        text = (hostile / record["file"]).read_text()
        lines, expected = text.splitlines(), (plain / record["file"]).read_text().splitlines()
        assert _printable(text) and len(lines) == len(expected)
        assert lines[title].startswith(marker) and "\\x0a-1 0\\x0a" in lines[title]
        assert [x for i, x in enumerate(lines) if i != title] == expected[:title] + expected[
            title + 1 :
        ]
        if fmt == "mcc":
            cnf = read_cnf(hostile / record["file"])  # the clauses the header says, no more
            assert len(cnf.clauses) == record["constraints"]
            got = count_file(hostile / record["file"], "ganak", time_limit=60)
            assert got == int(record["count"])


def _snapshot(root: Path) -> dict[str, tuple[str, bytes]]:
    """Every entry under ``root``: what it is and its bytes (a link: its target)."""
    seen = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            seen[key] = ("link", os.readlink(path).encode())
        elif path.is_dir():
            seen[key] = ("dir", b"")
        else:
            seen[key] = ("file", path.read_bytes())
    return seen


def test_overwrite_removes_only_what_the_earlier_export_listed(tmp_path):
    entries = [CorpusEntry(mscsp.parse_board(SMALL), 1, "", "one")]
    out = tmp_path / "ex"
    export(entries, out)
    first = {r["file"] for r in read_index(out)}
    for name, text in (("puzzle.lp", "mine"), ("plan.cnf", "p cnf 1 1\n1 0\n"), ("n.txt", "x")):
        (out / name).write_text(text)
    export(entries, out, fmt="lp", overwrite=True)
    assert (out / "puzzle.lp").read_text() == "mine" and (out / "n.txt").read_text() == "x"
    assert (out / "plan.cnf").read_text() == "p cnf 1 1\n1 0\n"
    assert not any((out / name).exists() for name in first)
    assert {r["kind"] for r in read_index(out)} == {"lp"}


@pytest.mark.parametrize(
    "plant",
    [
        lambda out, victim: (out / "p00000-c000-k001.cnf").mkdir(),  # a folder named as ours
        lambda out, victim: (out / "p00000-c000-k001.cnf").symlink_to(victim),
        lambda out, victim: (out / "p00007-c000-k001.lp").write_text("a file of the user's"),
        lambda out, victim: (out / "model.mzn").write_text("% the user's own model\n"),
        lambda out, victim: (out / "index.jsonl").write_text('{"file": "../victim.txt"}\n'),
        lambda out, victim: (out / "index.jsonl").write_text('{"file": "puzzle.lp"}\n'),
        lambda out, victim: (out / "index.jsonl").write_text("[" * 100_000 + "\n"),
    ],
    ids=["folder", "link", "user-file", "user-model", "index-escape", "index-other", "index-deep"],
)
def test_overwrite_refuses_what_is_not_ours_before_touching_anything(tmp_path, plant):
    entries = [CorpusEntry(mscsp.parse_board(SMALL), 1, "", "one")]
    out, victim = tmp_path / "ex", tmp_path / "victim.txt"
    victim.write_text("keep me")
    export(entries, out, fmt="lp")
    (out / "index.jsonl").unlink()
    (out / "puzzle.lp").write_text("mine")
    plant(out, victim)
    before = _snapshot(tmp_path)
    with pytest.raises(InvalidInputError) as error:
        export(entries, out, fmt="mcc", overwrite=True)
    assert "\n" not in str(error.value)
    assert _snapshot(tmp_path) == before


def test_cli_overwrite_over_a_folder_named_as_an_instance_is_one_line(tmp_path):
    out = tmp_path / "ex"
    board = tmp_path / "b.txt"
    board.write_text(SMALL)
    assert CliRunner().invoke(export_command, [str(board), "--out", str(out)]).exit_code == 0
    (out / "index.jsonl").unlink()
    (out / "p00000-c000-k001.cnf").unlink()
    (out / "p00000-c000-k001.cnf").mkdir()
    result = CliRunner().invoke(export_command, [str(board), "--out", str(out), "--overwrite"])
    assert result.exit_code == 2 and "a directory" in result.output
    assert len(result.output.strip().splitlines()) == 1 and (out / "p00000-c000-k001.cnf").is_dir()


#: Text a hostile corpus line may hold: every control character, line separators, markers
#: of every format's comments and clauses, and ordinary letters.
_HOSTILE_TEXT = st.lists(
    st.one_of(
        st.characters(max_codepoint=0x9F),
        st.sampled_from(["\u2028", "\u2029", "\ufeff", "\U0001f4a3", "p cnf 9 9", " 0", "%"]),
    ),
    max_size=20,
).map("".join)
_LINE_VALUE = st.one_of(
    _HOSTILE_TEXT,
    st.integers(min_value=-(10**30), max_value=10**30),
    st.none(),
    st.lists(st.integers(), max_size=3),
)


@settings(derandomize=True, max_examples=50, deadline=None)
@given(
    name=_HOSTILE_TEXT,
    family=_LINE_VALUE,
    mines=st.one_of(st.none(), st.just(6), st.integers(), st.text(max_size=5)),
    board=st.one_of(st.just(SMALL), _HOSTILE_TEXT),
    formats=st.tuples(*[st.sampled_from(["mcc", "opb", "lp", "mzn"])] * 2),
)
def test_fuzz_corpus_lines_through_export(name, family, mines, board, formats):
    with tempfile.TemporaryDirectory() as root:
        root = Path(root)
        corpus, out = root / "corpus.jsonl", root / "out"
        line = {"board": board, "name": name, "family": family}
        if mines is not None:
            line["mines"] = mines
        corpus.write_text(json.dumps(line) + "\n" + json.dumps({"board": SMALL}) + "\n")
        (root / "victim.txt").write_text("keep me")
        outside = {k: v for k, v in _snapshot(root).items()}
        for i, fmt in enumerate(formats):
            args = ["--corpus", str(corpus), "--out", str(out), "--format", fmt]
            result = CliRunner().invoke(
                export_command, args + ["--overwrite"] * i, catch_exceptions=False
            )
            assert result.exit_code in (0, 2), result.output
            assert {k: v for k, v in _snapshot(root).items() if not k.startswith("out")} == outside
            if result.exit_code:
                assert len(result.output.strip().splitlines()) == 1
                continue
            for record in read_index(out):
                _check_instance(out / record["file"], fmt)


def _check_instance(path: Path, fmt: str) -> None:
    """One file of ``fmt``: printable ASCII, its title on its comment line, its header
    once and nothing but statements after the comments."""
    text = path.read_text()
    lines = text.splitlines()
    assert _printable(text) and text.endswith("\n")
    marker, title = COMMENTS[fmt]
    assert lines[title].startswith(marker + "mscsp export: ")
    if fmt == "mcc":
        headers = [i for i, x in enumerate(lines) if x.startswith("p ")]
        assert len(headers) == 1 and all(x.startswith("c ") for x in lines[: headers[0]])
        read_cnf(path)
    elif fmt == "opb":
        assert lines[0].startswith("* #variable= ")
        assert all(x.endswith(" ;") for x in lines[2:])
    elif fmt == "lp":
        assert lines[1:4] == ["Minimize", " obj: 0 x1", "Subject To"]
        assert not any(x.startswith("\\") for x in lines[1:]) and lines[-1] == "End"
    else:
        assert all(x.endswith(";") and " = " in x for x in lines[1:])
