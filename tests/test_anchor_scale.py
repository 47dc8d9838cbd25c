"""bench/players/anchor_scale.py against the play logs it reads."""

from __future__ import annotations

import json

import pytest

from bench.players.anchor_scale import main
from mscsp.evaluation.harness import RunConfig, RunLog, run


def _log(tmp_path, strategy: str, seed: int, games: int = 30):
    path = tmp_path / f"{strategy}-{seed}.jsonl"
    run(RunConfig(strategy, 9, 9, 10, seed=seed), games, log=str(path))
    return path


def test_rates_blocks_and_the_paired_test_come_from_the_logs(tmp_path, capsys):
    best, minprob = _log(tmp_path, "best", 5), _log(tmp_path, "csp-minprob", 5)
    assert main([str(best), str(minprob), "--block", "10", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    games = [RunLog(path).read()[1] for path in (best, minprob)]
    for summary, results in zip(report["logs"], games, strict=True):
        wins = sum(r.won for r in results.values())
        assert (summary["games"], summary["wins"]) == (30, wins)
        low, high = summary["jeffreys95"]
        assert low <= wins / 30 <= high
        assert [b["games"] for b in summary["blocks"]] == [10, 10, 10]
        assert sum(b["win_rate"] * 10 for b in summary["blocks"]) == pytest.approx(wins)
    only_best = sum(games[0][i].won and not games[1][i].won for i in range(30))
    only_minprob = sum(games[1][i].won and not games[0][i].won for i in range(30))
    assert (report["paired"]["only_first"], report["paired"]["only_second"]) == (
        only_best,
        only_minprob,
    )


def test_logs_of_other_games_are_not_paired(tmp_path):
    with pytest.raises(SystemExit) as stop:
        main([str(_log(tmp_path, "best", 5, 5)), str(_log(tmp_path, "best", 6, 5))])
    assert stop.value.code == 2
