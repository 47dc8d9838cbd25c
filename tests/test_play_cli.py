"""``mscsp play``: options, output formats, logs and errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from conftest import interrupt_when, repo_env

from mscsp.cli import main
from mscsp.evaluation.harness import RunLog


def invoke(*args):
    return CliRunner().invoke(main, ["play", *args])


def test_json_output_and_custom_board():
    result = invoke(
        "-s",
        "csp-minprob",
        "--size",
        "6x7",
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
        "--out",
        str(log),
        "--json",
    )
    assert first.exit_code == 0, first.output
    header = json.loads(log.read_text().splitlines()[0])
    assert header["config"]["options"] == {"max_solutions": 5, "heuristic": "edge"}
    resumed = invoke("--out", str(log), "--resume", "-n", "6", "--json")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.output)["games"] == 6
    # Without -n a resumed run plays the count it was last started with.
    again = invoke("--out", str(log), "--resume", "--json")
    assert json.loads(again.output)["games"] == 6


def play_log(log, *args):
    return invoke("-n", "4", "--seed", "1", "--out", str(log), "--json", *args)


def test_a_log_never_mixes_two_runs(tmp_path):
    log = tmp_path / "run.jsonl"
    assert play_log(log, "-s", "sps").exit_code == 0
    before = log.read_text()
    # Another run into the same log is refused, with or without --resume.
    other = play_log(log, "-s", "csp-minprob")
    assert other.exit_code == 2 and "already holds a run" in other.output
    mismatch = play_log(log, "-s", "csp-minprob", "--resume")
    assert mismatch.exit_code == 2
    assert "strategy: 'sps' in the log, 'csp-minprob' here" in mismatch.output
    assert len(mismatch.output.strip().splitlines()) == 1
    assert log.read_text() == before
    # Settings given with --resume must match; the log's own settings resume fine.
    assert play_log(log, "--resume", "--seed", "2").exit_code == 2
    assert play_log(log, "--resume", "-s", "sps").exit_code == 0
    # --overwrite starts a new log holding only the new run.
    fresh = play_log(log, "-s", "csp-minprob", "--overwrite")
    assert fresh.exit_code == 0, fresh.output
    config, done = RunLog(log).read()
    assert config.strategy == "csp-minprob" and sorted(done) == [0, 1, 2, 3]


def test_a_log_with_two_runs_is_refused_not_mixed(tmp_path):
    log = tmp_path / "mixed.jsonl"
    for strategy in ("sps", "csp-minprob"):
        part = tmp_path / f"{strategy}.jsonl"
        assert play_log(part, "-s", strategy).exit_code == 0
        with log.open("a") as handle:
            handle.write(part.read_text())
    result = play_log(log, "-s", "csp-minprob", "--resume")
    assert result.exit_code == 2 and "mixes two runs" in result.output


def test_resumed_summary_equals_an_uninterrupted_one(tmp_path):
    whole = json.loads(play_log(tmp_path / "a.jsonl", "-n", "8", "-s", "csp-minprob").output)
    log = tmp_path / "b.jsonl"
    assert play_log(log, "-n", "3", "-s", "csp-minprob").exit_code == 0
    resumed = json.loads(play_log(log, "-n", "8", "--resume").output)
    for key in ("games", "wins", "win_rate", "cleared", "moves", "guesses"):
        assert resumed[key] == whole[key], key


def test_bad_player_options_are_refused_before_the_run(tmp_path):
    for option in ("max_solutions=abc", "max_solutions=0", "max_solutions=-5", "nope=1"):
        result = invoke("-s", "csp-limited", "-o", option, "-n", "1", "--out", str(tmp_path / "x"))
        assert result.exit_code == 2, (option, result.output)
        assert "Traceback" not in result.output and "max_solutions" in result.output
        assert not (tmp_path / "x").exists()
    assert invoke("-s", "best", "-o", "tolerance=nan", "-n", "1").exit_code == 2
    for option in ("foo=1", "safe_below=-1", "safe_below=abc"):
        result = invoke("-s", "learner:default", "-o", option, "-n", "1")
        assert result.exit_code == 2 and "learner:default" in result.output, result.output
    assert invoke("-s", "csp-limited", "-o", "max_solutions=3", "-n", "1").exit_code == 0


def test_learner_without_the_ml_extra_exits_4():
    """A core-only install: JAX cannot be imported (a real import failure, in a subprocess)."""
    code = (
        "import sys; sys.modules['jax'] = None\n"
        "from mscsp.cli import main\n"
        "main(['play', '-s', 'learner:default', '-n', '1'])"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=repo_env(), timeout=120
    )
    assert proc.returncode == 4, proc.stderr
    assert "mscsp[ml]" in proc.stderr and "Traceback" not in proc.stderr


def test_errors_have_exit_codes():
    assert invoke("-s", "nope", "-n", "1").exit_code == 2
    assert invoke("--preset", "expert", "--size", "5x5", "-n", "1").exit_code == 2
    assert invoke("--size", "5x5", "-n", "1").exit_code == 2
    assert invoke("--size", "5by5", "--mines", "3", "-n", "1").exit_code == 2
    assert invoke("--first-move", "x", "-n", "1").exit_code == 2
    assert invoke("-o", "novalue", "-n", "1").exit_code == 2
    assert invoke("--resume", "-n", "1").exit_code == 2
    assert invoke("--resume", "--overwrite", "--out", "x.jsonl", "-n", "1").exit_code == 2
    assert "csp-minprob" in invoke("--help").output


def test_help_names_only_what_exists():
    text = invoke("--help").output
    assert "GAMES" not in text  # no such argument
    for line in text.splitlines():
        if line.strip().startswith("-"):
            assert len(line.split("  ")) > 1  # every option has help text


def test_deprecated_spellings_still_work(tmp_path):
    result = invoke("--rows", "6", "--cols", "7", "--mines", "5", "-n", "2", "--json")
    assert json.loads(result.output)["config"]["cols"] == 7
    assert invoke("-n", "2", "--log", str(tmp_path / "x.jsonl")).exit_code == 0


def _games(log: Path) -> list[list]:
    """Every logged game without its timing, by index."""
    _, done = RunLog(log).read()
    return [[r.index, r.won, r.cleared, r.moves, r.guesses] for _, r in sorted(done.items())]


def test_ctrl_c_then_resume_equals_an_uninterrupted_run(tmp_path):
    """The real path: a subprocess gets SIGINT mid-run, then --resume finishes it."""
    # Expert games are slow enough (batches of 60) that the run is still going when the
    # signal comes, even on a loaded machine; beginner runs could finish first.
    args = ["-s", "csp-minprob", "--preset", "expert", "-n", "600", "--seed", "4"]
    command = [sys.executable, "-m", "mscsp", "play", *args, "--no-progress", "--json"]
    log = tmp_path / "cut.jsonl"
    # Ctrl-C once the header and two batches are logged.
    code, err = interrupt_when(
        [*command, "--out", str(log)],
        lambda: log.exists() and len(log.read_text().splitlines()) >= 3,
    )
    assert code == 130, err
    assert "--resume" in err and "Traceback" not in err
    assert 0 < len(RunLog(log).read()[1]) < 600
    resumed = subprocess.run(
        [*command, "--out", str(log), "--resume"], env=repo_env(), capture_output=True, text=True
    )
    assert resumed.returncode == 0, resumed.stderr
    whole = tmp_path / "whole.jsonl"
    straight = subprocess.run(
        [*command, "--out", str(whole)], env=repo_env(), capture_output=True, text=True
    )
    assert straight.returncode == 0, straight.stderr
    assert _games(log) == _games(whole)
    summary = json.loads(resumed.stdout)
    timings = ("seconds_per_game", "games_per_s")
    assert {k: v for k, v in summary.items() if k not in timings} == {
        k: v for k, v in json.loads(straight.stdout).items() if k not in timings
    }


def test_a_command_imports_only_what_it_runs():
    """``mscsp play`` starts without importing the other commands or what they need (the
    web stack, the backends' table), and a listing of the commands imports none of them."""
    script = (
        "import json, sys\n"
        "from click.testing import CliRunner\n"
        "from mscsp.cli import main\n"
        "names = list(main.commands)\n"
        "listed = [m for m in sys.modules if m.startswith('mscsp.cli.')]\n"
        "result = CliRunner().invoke(main, ['play', '-s', 'csp-random', '-n', '2', '--json'])\n"
        "assert result.exit_code == 0, result.output\n"
        "loaded = [m for m in sys.modules if m.startswith('mscsp.cli.')]\n"
        "web = [m for m in sys.modules if m.split('.')[0] in ('starlette', 'uvicorn')]\n"
        "print(json.dumps([names, listed, loaded, web, 'mscsp.web' in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=repo_env(), capture_output=True, text=True, check=True
    )
    names, listed, loaded, web, ours = json.loads(done.stdout.strip().splitlines()[-1])
    commands = {f"mscsp.cli.{name}" for name in names}
    assert {"play", "serve", "probs", "learn", "bench"} <= set(names)
    assert listed and not commands & set(listed)
    assert "mscsp.cli.play" in loaded and not (commands - {"mscsp.cli.play"}) & set(loaded)
    assert not web and not ours
