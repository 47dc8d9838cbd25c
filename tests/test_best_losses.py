"""bench/players/best_losses.py: every guess of a game logged, and the guess that lost it."""

from __future__ import annotations

import json

from bench.players.best_losses import KINDS, kind, kinds, play
from mscsp.evaluation.harness import RunConfig, play_game
from mscsp.game import PRESETS
from mscsp.players.best import BestPlayer


def test_log_holds_every_guess_and_the_losing_one(tmp_path):
    config = RunConfig("best", *PRESETS["beginner"], seed=1000)
    out = tmp_path / "losses.jsonl"
    play(config, 40, str(out))
    play(config, 40, str(out))  # resumed: nothing played twice
    games = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert [g["index"] for g in games] == list(range(40))
    player = BestPlayer()
    lost = 0
    for game in games:
        result = play_game(player, config, game["index"])
        assert result.won == game["won"]
        assert result.guesses == len(game["guesses"])
        for guess in game["guesses"]:
            assert 0.0 <= guess["p_min"] <= guess["p"] < 1.0
            assert 0.0 < guess["share"] < 1.0
        if not game["won"]:
            lost += 1
            assert game["guesses"] and game["guesses"][-1]["p"] > 0.0
    assert 0 < lost < 40
    table = kinds([str(out)])
    shares = [float(row.split("|")[2].strip(" %")) for row in table.splitlines()[2:]]
    assert len(shares) == len(KINDS) and abs(sum(shares) - 100.0) < 0.5


def test_kinds_of_guesses():
    off = {"reason": "lookahead", "frontier": False}
    assert kind(off, True) != kind(off, False)
    assert kind({"reason": "pair", "frontier": True}, True) == KINDS[0]
    assert kind({"reason": "looming", "frontier": True}, False) == KINDS[-1]
