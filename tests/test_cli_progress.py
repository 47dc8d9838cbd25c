"""Progress and rates on every long command: on standard error only, never in the results.

Under click's runner standard error is not a terminal, so the bar is off unless
``--progress`` forces it on; forced on a non-terminal it is a plain line (the last one at
the end). The terminal views (rich's bar, click's where rich is missing) are drawn onto a
stream that says it is a terminal.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mscsp.cli import main
from mscsp.cli.progress import Progress, clock, wanted

REPLAY = Path(__file__).parent / "data" / "replays" / "beginner-lost.evf"


class Terminal(io.StringIO):
    """A stream that is a terminal, as far as anyone asks."""

    def isatty(self) -> bool:
        return True


def draw(monkeypatch, enabled: bool = True) -> tuple[str, str]:
    """Five games on a bar drawn on a terminal; what it wrote there, and on stdout."""
    screen, out = Terminal(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", screen)
    monkeypatch.setattr(sys, "stdout", out)
    with Progress(5, "games", "playing", enabled) as bar:
        for won in range(5):
            bar.advance(note=f"win rate {won}")
        bar.echo("a result line")
    return screen.getvalue(), out.getvalue()


def test_rich_bar_in_a_terminal_shows_rate_and_time_left(monkeypatch):
    pytest.importorskip("rich")
    screen, out = draw(monkeypatch)
    assert "5/5 games" in screen and "games/s" in screen and "left" in screen
    assert "win rate 4" in screen
    assert out == "a result line\n"  # stdout is no terminal: the line goes there, whole


def test_click_bar_where_rich_is_missing(monkeypatch):
    for name in ("rich", "rich.console", "rich.progress"):
        monkeypatch.setitem(sys.modules, name, None)  # import rich now fails
    screen, out = draw(monkeypatch)
    assert "5/5" in screen and "games/s" in screen and "win rate 4" in screen
    assert "━" not in screen  # rich's bar is not there
    assert out == "a result line\n"


def test_a_bar_not_wanted_draws_nothing(monkeypatch):
    screen, out = draw(monkeypatch, enabled=False)
    assert screen == "" and out == "a result line\n"


def test_wanted_only_for_a_terminal_without_json(monkeypatch):
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert wanted(None) and not wanted(None, as_json=True)
    assert wanted(True, as_json=True) and not wanted(False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not wanted(None)


def test_time_left_and_rate_of_this_session_only():
    bar = Progress(10, "games", "playing", enabled=False)
    bar.skip(6)  # played by an earlier session of a resumed run
    assert bar.left() is None and bar.rate() is None
    bar.started -= 2.0  # two seconds ago
    bar.advance(2)
    assert bar.rate() == pytest.approx(1.0, rel=0.05)  # 2 games in 2 s, not 8
    assert bar.left() == pytest.approx(2.0, rel=0.05)  # 2 games left at that pace
    assert clock(3725) == "1:02:05"


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


#: Each long command with small work, and the rate its bar shows.
COMMANDS = {
    "play": (["play", "-n", "4", "--seed", "1"], "games/s"),
    "bench": (
        ["bench", "--preset", "beginner", "--positions", "2", "--backend", "dss", "--in-process"],
        "runs/s",
    ),
    "export": (
        ["export", "--preset", "beginner", "--positions", "2", "--out", "{tmp}/x"],
        "positions/s",
    ),
    "corpus": (
        ["corpus", "lattice", "--size", "6x6", "--count", "2", "--out", "{tmp}/c.jsonl"],
        "positions/s",
    ),
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_forced_progress_is_on_stderr_and_json_stays_clean(name, tmp_path):
    args, rate = COMMANDS[name]
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    forced = invoke(*args, "--progress", "--json")
    assert forced.exit_code == 0, forced.output
    assert rate in forced.stderr
    assert rate not in forced.stdout
    json.loads(forced.stdout)  # the whole of stdout is the JSON result
    if name in ("export", "corpus"):
        args = [a.replace(str(tmp_path), str(tmp_path / "again")) for a in args]
        (tmp_path / "again").mkdir()
    plain = invoke(*args, "--json")  # stderr is no terminal here: no bar by default
    assert plain.exit_code == 0, plain.output
    assert rate not in plain.stderr


def test_play_text_summary_has_games_per_second():
    result = invoke("play", "-n", "4", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "games / s" in result.stdout and "games/s" not in result.stderr
    out = json.loads(invoke("play", "-n", "4", "--seed", "1", "--json").stdout)
    assert out["games_per_s"] > 0


def test_replay_of_many_files_shows_replays_per_second(tmp_path):
    pytest.importorskip("ms_toollib", reason="replays need pip install 'mscsp[replay]'")
    second = tmp_path / "second.evf"
    second.write_bytes(REPLAY.read_bytes())
    missing = tmp_path / "missing.evf"
    result = invoke("replay", str(REPLAY), str(missing), str(second), "--json", "--progress")
    assert result.exit_code == 2  # the missing file's error, after the others were rated
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["file"] for line in lines] == [str(REPLAY), str(second)]
    errors = [line for line in result.stderr.splitlines() if line.startswith("mscsp: error:")]
    assert len(errors) == 1 and str(missing) in errors[0]
    assert "3/3 replays" in result.stderr and "replays/s" in result.stderr
    text = invoke("replay", str(REPLAY), str(second))
    assert text.exit_code == 0
    assert text.stdout.count("==> ") == 2 and "replays/s" not in text.stderr


def test_learn_data_shows_positions_per_second_and_prints_json(tmp_path):
    pytest.importorskip("flax", reason="mscsp learn needs pip install 'mscsp[ml]'")
    out = tmp_path / "data"
    args = ["learn", "data", "--out", str(out), "--preset", "beginner", "--games", "4"]
    result = invoke(*args, "--games-per-shard", "2", "--progress", "--json")
    assert result.exit_code == 0, result.output
    totals = json.loads(result.stdout)
    assert totals["games"] == 4 and totals["shards"] == 2 and totals["positions"] > 0
    assert "4/4 games" in result.stderr and "positions/s" in result.stderr


def test_learn_train_shows_steps_per_second_and_loss(tmp_path):
    pytest.importorskip("flax", reason="mscsp learn needs pip install 'mscsp[ml]'")
    data = tmp_path / "data"
    made = invoke("learn", "data", "--out", str(data), "--preset", "beginner", "--games", "20")
    assert made.exit_code == 0, made.output
    args = ["learn", "train", "--model", "logistic", "--data", str(data), "--out"]
    args += [str(tmp_path / "run"), "--steps", "3", "--eval-every", "3", "--batch", "8"]
    result = invoke(*args, "--progress", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)  # the log lines went to stderr
    assert out["steps"] == 3 and out["train"]["step"] == 3 and out["val"]["step"] == 3
    assert "3/3 steps" in result.stderr and "steps/s" in result.stderr
    assert "loss" in result.stderr.splitlines()[-1]
