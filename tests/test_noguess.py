"""Boards that come with a proof: ``mscsp generate --no-guess`` and ``mscsp verify``.

The certificates are checked three ways: by the checker (:mod:`mscsp.noguess.verify`, which
shares no code with the generator), by the project's exact solver (every cell a step opens
is safe in every layout consistent with what is open at that moment), and by the game
engine (replaying the steps wins the game). Tampered certificates must be refused, and
hostile lines give one typed error, never a traceback.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import mscsp
from mscsp.board import COVERED, FLAG, Board
from mscsp.cli import main
from mscsp.errors import InvalidInputError, MscspError
from mscsp.game import Game, GameState
from mscsp.noguess.certificate import FORMAT, MAX_STEP_NUMBERS, VERSION
from mscsp.noguess.generate import Generator, Settings
from mscsp.noguess.verify import CertificateError, verify_file, verify_record


def boards(rows: int, cols: int, mines: int, count: int, seed: int, **options) -> list[dict]:
    generator = Generator(Settings(rows, cols, mines, **options), seed)
    return [board.to_record(k) for k, board in enumerate(generator.boards(count))]


@pytest.fixture(scope="module")
def beginner() -> list[dict]:
    return boards(9, 9, 10, 40, 11)


@pytest.fixture(scope="module")
def intermediate() -> list[dict]:
    return boards(16, 16, 40, 8, 5)


def check(record: dict) -> None:
    verify_record(record, "test line 2", 2)


def cell(record: dict, pair: list[int]) -> int:
    return pair[0] * record["cols"] + pair[1]


# What the generator lays: proved, won without a guess, repeatable.


def test_every_generated_certificate_verifies(beginner, intermediate):
    for record in beginner + intermediate:
        check(record)
    expert = boards(16, 30, 99, 2, 3)
    for record in expert:
        check(record)


def test_each_opened_cell_is_safe_in_every_layout_the_exact_solver_allows(beginner):
    """The exact solver, not the checker: at every step each cell opened has probability 0
    and each mine marked probability 1, given what is open and marked at that moment."""
    for record in beginner[:12]:
        rows, cols = record["rows"], record["cols"]
        mine = np.zeros(rows * cols, dtype=bool)
        mine[record["layout"]] = True
        game = Game(rows, cols, record["mines"], layout=mine.reshape(rows, cols))
        game.reveal(*record["first_click"])
        flags: set[tuple[int, int]] = set()
        for step in record["steps"]:
            cells = game.view.copy()
            for r, c in flags:
                cells[r, c] = FLAG
            solution = mscsp.solve(Board(cells, record["mines"]))
            for r, c in step["safe"]:
                assert (r, c) in solution.safe
            for r, c in step["mines"]:
                assert (r, c) in solution.mines
                flags.add((r, c))
            for r, c in step["safe"]:
                assert game.reveal(r, c) >= 0
        assert game.state == GameState.WON


def test_replaying_the_certificate_wins_the_game(intermediate):
    for record in intermediate:
        rows, cols = record["rows"], record["cols"]
        mine = np.zeros(rows * cols, dtype=bool)
        mine[record["layout"]] = True
        game = Game(
            rows, cols, record["mines"], first_click="opening", layout=mine.reshape(rows, cols)
        )
        game.reveal(*record["first_click"])
        for step in record["steps"]:
            for r, c in step["safe"]:
                game.reveal(r, c)
        assert game.state == GameState.WON
        assert not (game.view[mine.reshape(rows, cols)] != COVERED).any()


def test_the_same_seed_gives_the_same_boards():
    assert boards(9, 9, 10, 5, 42) == boards(9, 9, 10, 5, 42)
    assert [b["layout"] for b in boards(9, 9, 10, 5, 43)] != [
        b["layout"] for b in boards(9, 9, 10, 5, 42)
    ]


def test_the_compiled_rules_lay_the_boards_python_lays():
    """The rules run compiled (numba); the same source run by Python must lay the same
    boards with the same certificates (an expert board needs the pair rules and, for some,
    the exact stage between their calls)."""
    script = (
        "import json; from mscsp.noguess.generate import Generator, Settings; "
        "g = Generator(Settings(16, 30, 99), 3); "
        "print(json.dumps([b.to_record(k) for k, b in enumerate(g.boards(3))]))"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    found = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600
    )
    assert found.returncode == 0, found.stderr[-2000:]
    by_python = json.loads(found.stdout)
    compiled = boards(16, 30, 99, 3, 3)
    assert by_python == compiled
    steps = [step for b in compiled for step in b["steps"]]
    assert any(len(step["numbers"]) == 2 for step in steps)
    assert any(len(step["numbers"]) > 2 or step["total"] for step in steps)  # (exact)


def test_the_knobs_bound_3bv_total_steps_and_step_size():
    found = boards(9, 9, 10, 10, 1, min_3bv=20, max_3bv=30, max_total_steps=0, max_step_numbers=1)
    for record in found:
        check(record)
        assert 20 <= record["3bv"] <= 30
        assert not any(step["total"] for step in record["steps"])
        assert all(len(step["numbers"]) <= 1 for step in record["steps"])


def test_a_safe_first_click_and_a_centre_start_also_verify():
    for record in boards(9, 9, 10, 5, 2, first_click="safe", first_move="center"):
        check(record)
        assert record["first_click"] == [4, 4] and record["first_click_rule"] == "safe"


# Tampered certificates are refused.


def first_step(record: dict, test) -> int:
    return next(k for k, step in enumerate(record["steps"]) if test(step))


def test_a_step_without_one_of_its_numbers_is_refused(beginner):
    record = next(r for r in beginner if any(len(s["numbers"]) == 2 for s in r["steps"]))
    k = first_step(record, lambda s: len(s["numbers"]) == 2)
    for drop in (0, 1):
        bad = copy.deepcopy(record)
        del bad["steps"][k]["numbers"][drop]
        with pytest.raises(CertificateError, match=f"step {k + 1}.*not forced"):
            check(bad)
    bad = copy.deepcopy(record)
    bad["steps"][0]["numbers"] = []
    with pytest.raises(CertificateError, match="cites no number"):
        check(bad)


def test_a_step_that_needs_a_guess_is_refused(beginner):
    record = beginner[0]
    opened_late = record["steps"][-1]["safe"] or record["steps"][-1]["mines"]
    bad = copy.deepcopy(record)
    # Claim the last step's cell at the first step: the first step's numbers do not force it.
    bad["steps"][0]["safe" if record["steps"][-1]["safe"] else "mines"].append(opened_late[0])
    with pytest.raises(CertificateError, match="step 1"):
        check(bad)
    short = copy.deepcopy(record)
    del short["steps"][-1]
    with pytest.raises(CertificateError, match="a guess would be needed"):
        check(short)


def test_a_wrong_mine_layout_is_refused(beginner):
    record = beginner[1]
    n = record["rows"] * record["cols"]
    free = [i for i in range(n) if i not in record["layout"]]
    for moved in range(3):
        bad = copy.deepcopy(record)
        bad["layout"][moved] = free[-1 - moved]
        with pytest.raises(CertificateError):
            check(bad)


def test_the_total_mark_must_be_right_both_ways():
    record = next(r for r in boards(9, 9, 10, 60, 3) if any(s["total"] for s in r["steps"]))
    check(record)
    k = first_step(record, lambda s: s["total"])
    bad = copy.deepcopy(record)
    bad["steps"][k]["total"] = False
    with pytest.raises(CertificateError, match=f"step {k + 1}"):
        check(bad)
    k = first_step(record, lambda s: not s["total"])
    bad = copy.deepcopy(record)
    bad["steps"][k]["total"] = True
    with pytest.raises(CertificateError, match="alone force it"):
        check(bad)


def test_a_step_too_large_is_refused_not_searched(beginner):
    record = copy.deepcopy(beginner[0])
    opened = [[r, c] for r in range(9) for c in range(9)][: MAX_STEP_NUMBERS + 1]
    record["steps"][0]["numbers"] = opened
    with pytest.raises(CertificateError, match="too large to verify"):
        check(record)


# Hostile lines: one typed error each.


def test_malformed_fields_are_one_line_errors_naming_the_line(beginner):
    cases = {
        "rows": "x",
        "mines": True,
        "layout": [1, 1],
        "first_click": [0, 99],
        "first_click_rule": "any",
        "3bv": -1,
        "steps": [{"numbers": [], "safe": [[0, "a"]], "mines": [], "total": False}],
    }
    for key, value in cases.items():
        bad = copy.deepcopy(beginner[0])
        bad[key] = value
        with pytest.raises(InvalidInputError, match="test line 2") as error:
            check(bad)
        assert "\n" not in str(error.value)
    bad = copy.deepcopy(beginner[0])
    bad["\x1b[31mevil"] = 1
    with pytest.raises(InvalidInputError) as error:
        check(bad)
    assert "\x1b" not in str(error.value)


def write(path: Path, records: list, head: dict | None = None) -> Path:
    head = head or {"format": FORMAT, "version": VERSION, "seed": 0, "settings": {}}
    lines = [json.dumps(head)] + [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


hostile = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    st.integers(min_value=1, max_value=5000).map(lambda n: "[" * n),
    st.integers(min_value=1, max_value=4000).map(lambda n: '{"rows": ' + "9" * n + "}"),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
        ),
        max_leaves=20,
    ).map(json.dumps),
    st.fixed_dictionaries(
        {
            "board": st.integers(),
            "rows": st.integers(-2, 12),
            "cols": st.integers(-2, 12),
            "mines": st.integers(-1, 40),
            "layout": st.lists(st.integers(-3, 150), max_size=12),
            "first_click": st.lists(st.integers(-1, 12), max_size=3),
            "first_click_rule": st.sampled_from(["safe", "opening", "any", "\x00"]),
            "3bv": st.integers(-1, 100),
            "steps": st.lists(
                st.fixed_dictionaries(
                    {
                        "numbers": st.lists(st.lists(st.integers(-1, 12), max_size=3), max_size=14),
                        "safe": st.lists(st.lists(st.integers(-1, 12), max_size=3), max_size=4),
                        "mines": st.lists(st.lists(st.integers(-1, 12), max_size=3), max_size=4),
                        "total": st.one_of(st.booleans(), st.integers(0, 1)),
                    }
                ),
                max_size=5,
            ),
        }
    ).map(json.dumps),
)


@settings(derandomize=True, max_examples=50, deadline=None)
@given(line=hostile)
def test_hostile_lines_give_only_typed_errors(tmp_path_factory, line):
    path = write(tmp_path_factory.mktemp("hostile") / "boards.jsonl", [line.replace("\n", " ")])
    try:
        verdicts = list(verify_file(path))
    except InvalidInputError as exc:  # (a line too long, or an unreadable one)
        assert "\n" not in str(exc)
        return
    for verdict in verdicts:
        assert not verdict.ok and "\n" not in verdict.text


@settings(derandomize=True, max_examples=50, deadline=None)
@given(line=hostile)
def test_hostile_records_raise_only_mscsp_errors(line):
    from mscsp.trust.jsonl import loads_bounded

    try:
        verify_record(loads_bounded(line, "x line 2"), "x line 2")
    except MscspError as exc:
        assert "\n" not in str(exc)


def test_a_file_without_its_header_is_refused(tmp_path, beginner):
    path = tmp_path / "boards.jsonl"
    path.write_text(json.dumps(beginner[0]) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="not a boards file"):
        list(verify_file(path))
    path.write_text("", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="empty"):
        list(verify_file(path))
    path.write_text(json.dumps({"format": FORMAT, "version": 99}) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="version"):
        list(verify_file(path))


# The commands.


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_generate_then_verify_on_the_command_line(tmp_path):
    out = tmp_path / "boards.jsonl"
    made = run(
        "generate",
        "--no-guess",
        "--preset",
        "beginner",
        "--count",
        "6",
        "--seed",
        "9",
        "--out",
        str(out),
        "--json",
    )
    assert made.exit_code == 0, made.output
    summary = json.loads(made.stdout)
    assert summary["boards"] == 6 and summary["seed"] == 9
    lines = out.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    assert (head["format"], head["version"], head["seed"]) == (FORMAT, VERSION, 9)
    assert len(lines) == 7
    checked = run("verify", str(out))
    assert checked.exit_code == 0, checked.output
    assert checked.stdout.count("ok    ") == 6
    as_json = json.loads(run("verify", str(out), "--json").stdout)
    assert as_json["passed"] == 6 and as_json["failed"] == 0
    # Tamper with the third board: its line fails, the others still pass, exit 1.
    record = json.loads(lines[3])
    record["steps"] = record["steps"][:-1]
    lines[3] = json.dumps(record)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    checked = run("verify", str(out))
    assert checked.exit_code == 1
    assert checked.stdout.count("FAIL  ") == 1 and checked.stdout.count("ok    ") == 5
    assert "line 4" in checked.stdout and "1 of 6 certificates fail" in checked.stderr


def test_generate_refuses_to_overwrite_or_follow_a_link(tmp_path):
    out = tmp_path / "boards.jsonl"
    out.write_text("keep\n", encoding="utf-8")
    refused = run("generate", "--no-guess", "-n", "1", "--out", str(out))
    assert refused.exit_code == 2 and "--overwrite" in refused.stderr
    assert out.read_text(encoding="utf-8") == "keep\n"
    assert run("generate", "--no-guess", "-n", "1", "--out", str(out), "--overwrite").exit_code == 0
    target = tmp_path / "target"
    target.write_text("precious\n", encoding="utf-8")
    link = tmp_path / "link.jsonl"
    os.symlink(target, link)
    followed = run("generate", "--no-guess", "-n", "1", "--out", str(link), "--overwrite")
    assert followed.exit_code == 2 and "symbolic link" in followed.stderr
    assert target.read_text(encoding="utf-8") == "precious\n"


def test_generate_usage_errors_are_one_line(tmp_path):
    for args in (
        ["generate", "-n", "1"],
        ["generate", "--no-guess", "--first-click", "any"],
        ["generate", "--no-guess", "--min-3bv", "9", "--max-3bv", "3"],
        ["generate", "--no-guess", "--max-step-numbers", "13"],
    ):
        result = run(*args)
        assert result.exit_code == 2, args
        assert result.stderr.strip().count("\n") == 0, result.stderr
    assert run("verify", str(tmp_path / "missing.jsonl")).exit_code == 2
