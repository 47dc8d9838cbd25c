"""``mscsp play``: options, output formats, logs and errors."""

from __future__ import annotations

import json
import sys

from click.testing import CliRunner

from mscsp.cli import main


def invoke(*args):
    return CliRunner().invoke(main, ["play", *args])


def test_json_output_and_custom_board():
    result = invoke(
        "-s",
        "csp-minprob",
        "--rows",
        "6",
        "--cols",
        "7",
        "--mines",
        "5",
        "-n",
        "5",
        "--seed",
        "2",
        "--json",
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["config"]["rows"] == 6 and out["config"]["cols"] == 7
    assert out["games"] == 5 and 0 <= out["ci_low"] <= out["win_rate"] <= out["ci_high"] <= 1
    for key in ("wins", "cleared", "moves", "guesses", "seconds_per_game"):
        assert key in out


def test_table_output_modern_rule():
    result = invoke(
        "-s",
        "csp-edge",
        "--preset",
        "beginner",
        "--first-click",
        "opening",
        "--first-move",
        "3,3",
        "-n",
        "4",
    )
    assert result.exit_code == 0, result.output
    assert "win rate" in result.output and "95 % CI" in result.output
    assert "opening, first move 3,3" in result.output


def test_player_options_and_log_resume(tmp_path):
    log = tmp_path / "run.jsonl"
    first = invoke(
        "-s",
        "csp-limited",
        "-o",
        "max_solutions=5",
        "-o",
        "heuristic=edge",
        "-n",
        "3",
        "--log",
        str(log),
        "--json",
    )
    assert first.exit_code == 0, first.output
    header = json.loads(log.read_text().splitlines()[0])
    assert header["config"]["options"] == {"max_solutions": 5, "heuristic": "edge"}
    resumed = invoke("--resume", str(log), "-n", "6", "--json")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.output)["games"] == 6
    # Without -n a resumed run plays the count it was started with.
    assert json.loads(invoke("--resume", str(log), "--json").output)["games"] == 3


def test_errors_have_exit_codes():
    assert invoke("-s", "nope", "-n", "1").exit_code == 2
    assert invoke("--preset", "expert", "--rows", "5", "-n", "1").exit_code == 2
    assert invoke("--rows", "5", "-n", "1").exit_code == 2
    assert invoke("--first-move", "x", "-n", "1").exit_code == 2
    assert invoke("-o", "novalue", "-n", "1").exit_code == 2
    assert "csp-minprob" in invoke("--help").output


def test_ctrl_c_exits_130_pointing_at_the_log(monkeypatch, tmp_path):
    play_module = sys.modules["mscsp.cli.play"]  # the package attribute is the command

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(play_module, "run", interrupted)
    result = invoke("-n", "5", "--log", str(tmp_path / "x.jsonl"))
    assert result.exit_code == 130
    assert "--resume" in result.output
