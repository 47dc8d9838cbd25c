"""``mscsp play --no-guess``: games on the boards the no-guess generator lays, a check of its
certificates (a player that never guesses wrongly wins them all), recorded in the log so
that a resume cannot mix the two kinds of run (issue 50)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from game_results import game_rows

from mscsp.cli import main
from mscsp.errors import InvalidInputError
from mscsp.evaluation.harness import (
    LAYOUT,
    RunConfig,
    RunLog,
    game_seed,
    no_guess_game,
    no_guess_settings,
    play_batch,
    play_game,
    play_on_engine,
    run,
)
from mscsp.noguess.generate import Generator
from mscsp.players import get_player

BEGINNER = (9, 9, 10)


def invoke(*args: str):
    return CliRunner().invoke(main, ["play", *args])


@pytest.mark.parametrize("strategy", ["best", "csp-minprob"])
@pytest.mark.parametrize("first_click", ["safe", "opening"])
def test_players_that_guess_only_when_they_must_win_every_no_guess_game(strategy, first_click):
    config = RunConfig(strategy, *BEGINNER, first_click=first_click, seed=11, no_guess=True)
    summary = run(config, 30)
    assert (summary.games, summary.wins, summary.cleared) == (30, 30, 1.0)
    assert summary.guesses == 0  # a certain cell was always there to click


def test_game_i_is_the_board_the_generator_lays_from_its_seed() -> None:
    config = RunConfig("csp-minprob", *BEGINNER, first_click="opening", seed=5, no_guess=True)
    for index in (0, 7):
        settings = no_guess_settings(config)
        board = Generator(settings, game_seed(5, index, LAYOUT)).next_board()
        result = play_game(get_player("csp-minprob"), config, index)
        assert result.won and result.cleared == 1.0
        game, first = no_guess_game(config, index)
        assert first == board.start == (0, 0)  # the corner, the certificate's first click
        assert np.flatnonzero(game.mine).tolist() == list(board.layout)


def test_no_guess_games_are_played_one_by_one_with_the_same_results() -> None:
    config = RunConfig("best", *BEGINNER, seed=2, no_guess=True)
    assert get_player("best").plays_batches(9, 9, 8)  # (else this proves little)
    batch = play_batch(config, list(range(8)))
    alone = [play_game(get_player("best"), config, i) for i in range(8)]
    assert game_rows(batch) == game_rows(alone)
    with pytest.raises(InvalidInputError, match="one by one"):
        play_on_engine(config, [0, 1])


def test_a_run_is_resumable_with_the_flag_in_its_log(tmp_path: Path) -> None:
    log, whole = tmp_path / "run.jsonl", tmp_path / "whole.jsonl"
    args = ["-s", "best", "--no-guess", "--seed", "3", "--json"]
    first = invoke(*args, "-n", "12", "--out", str(log))
    assert first.exit_code == 0, first.output
    header = json.loads(log.read_text().splitlines()[0])
    assert header["config"]["no_guess"] is True
    # Resumed for more games: the flag (not given again) comes from the log.
    resumed = invoke("--out", str(log), "--resume", "-n", "30", "--json")
    assert resumed.exit_code == 0, resumed.output
    config, done = RunLog(log).read()
    assert config.no_guess and sorted(done) == list(range(30))
    straight = invoke(*args, "-n", "30", "--out", str(whole))
    assert straight.exit_code == 0, straight.output
    out, again = json.loads(resumed.output), json.loads(straight.output)
    assert out["wins"] == out["games"] == 30 and out["guesses"] == 0
    keys = ("games", "wins", "cleared", "moves", "guesses")
    assert {k: out[k] for k in keys} == {k: again[k] for k in keys}
    assert out["config"]["no_guess"] is True


def test_resume_refuses_a_log_of_the_other_kind(tmp_path: Path) -> None:
    plain, no_guess = tmp_path / "plain.jsonl", tmp_path / "ng.jsonl"
    assert invoke("-s", "csp-minprob", "-n", "3", "--out", str(plain)).exit_code == 0
    # An ordinary run's header is as it always was: no no_guess key.
    assert "no_guess" not in json.loads(plain.read_text().splitlines()[0])["config"]
    result = invoke("-s", "csp-minprob", "-n", "3", "--out", str(plain), "--resume", "--no-guess")
    assert result.exit_code == 2
    assert "no_guess: False in the log, True here" in result.output
    assert len(result.output.strip().splitlines()) == 1
    ok = invoke("-s", "csp-minprob", "-n", "3", "--no-guess", "--out", str(no_guess))
    assert ok.exit_code == 0, ok.output
    config, _ = RunLog(no_guess).read()
    with pytest.raises(InvalidInputError, match="no_guess: True in the log, False here"):
        run(RunConfig("csp-minprob", *BEGINNER), 3, log=no_guess, resume=True)


def test_the_table_names_the_boards_and_bad_settings_are_one_line() -> None:
    result = invoke("-s", "csp-minprob", "-n", "2", "--no-guess")
    assert result.exit_code == 0, result.output
    assert "9x9, 10 mines, no guess needed" in result.output
    assert "no guess" not in invoke("-s", "csp-minprob", "-n", "2").output
    result = invoke("-n", "2", "--no-guess", "--first-click", "any")
    assert result.exit_code == 2 and "needs a safe first click" in result.output
    assert len(result.output.strip().splitlines()) == 1
