"""``mscsp probs``: output formats and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner

from mscsp.cli import main


def run(args, stdin=None):
    return CliRunner().invoke(main, args, input=stdin)


def test_built_in_example_prints_a_map_and_a_suggestion():
    result = run(["probs"])
    assert result.exit_code == 0, result.output
    assert "suggested move" in result.output
    assert "\x1b[" not in result.output  # plain when not a terminal


def test_json_output_from_stdin():
    result = run(["probs", "-", "--json", "--exact"], stdin="3x3x2\n1??\n???\n???\n")
    assert result.exit_code == 0
    out = json.loads(result.output)
    assert (out["rows"], out["cols"], out["mines"]) == (3, 3, 2)
    assert out["probabilities"][0][0] is None
    assert abs(out["probabilities"][0][1] - 1 / 3) < 1e-12
    assert out["exact"]["2,2"] == "1/5"
    assert out["best_move"] in ([0, 2], [2, 0])
    assert out["safe"] == [] and out["mines_certain"] == []


def test_mines_option_and_certain_cells(tmp_path):
    path = tmp_path / "b.txt"
    path.write_text("???\n121\n")
    out = json.loads(run(["probs", str(path), "--mines", "2", "--json"]).output)
    assert out["safe"] == [[0, 1]]
    assert out["mines_certain"] == [[0, 0], [0, 2]]
    assert out["best_move"] == [0, 1]


def test_exit_codes_and_one_line_messages(tmp_path):
    bad = run(["probs", "-"], stdin="3x1x1\n?x?\n")
    assert bad.exit_code == 2
    assert "line 2, column 2" in bad.output
    assert "Traceback" not in bad.output
    inconsistent = run(["probs", "-", "--mines", "1"], stdin="2?\n??\n")
    assert inconsistent.exit_code == 3
    assert "no placement" in inconsistent.output
    missing = run(["probs", str(tmp_path / "nope.txt")])
    assert missing.exit_code == 2
    unknown = run(["probs", "--backend", "nope"])
    assert unknown.exit_code == 2
    assert "choose from dss" in unknown.output


def test_import_stays_light():
    code = (
        "import sys, mscsp, mscsp.cli; "
        "print([m for m in ('jax', 'flax', 'ortools', 'pysat', 'matplotlib', 'ray') "
        "if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_time_limit_exits_with_code_5():
    from mscsp import Game

    game = Game(16, 30, 99, seed=0, first_click="opening")
    game.reveal(8, 15)
    result = run(["probs", "-", "--time-limit", "0.0000001"], stdin=game.board().to_text())
    assert result.exit_code == 5
    assert "time limit" in result.output
