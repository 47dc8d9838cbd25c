"""Divergence mode of bench/players/best_paired.py against two full runs of the same games."""

from __future__ import annotations

import json

from bench.players.best_paired import divergence_summary, play_paired
from mscsp.evaluation.harness import RunConfig, play_game
from mscsp.players.best import BestPlayer


def test_divergence_mode_matches_two_full_runs(tmp_path):
    config = RunConfig("best", 9, 9, 10, seed=11)
    old = {"tolerance": 0.0, "progress_weight": 0.0}  # a cruder look-ahead: choices differ
    out = tmp_path / "paired.jsonl"
    result = play_paired(config, old, {"lookahead", "dominated", "dead"}, 40, str(out))
    rows = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert [row[0] for row in rows] == list(range(40))
    player = BestPlayer(**old)
    full = [play_game(player, config, i).won for i in range(40)]
    assert [bool(row[2]) for row in rows] == full
    new = BestPlayer()
    assert [bool(row[1]) for row in rows] == [play_game(new, config, i).won for i in range(40)]
    assert result["diverged"] > 0
    assert result["old"]["wins"] == sum(full)
    # Resuming plays nothing again and summarises the same games.
    assert play_paired(config, old, {"lookahead", "dominated", "dead"}, 40, str(out)) == result
    assert divergence_summary(str(out)) == result
