"""Per-game time of the shipped learner (v2), the one before it (v1) and csp-minprob.

The three play the same expert games in blocks of 100, alternating within one run, so a
change of load hits all three alike; prints each block and a JSON summary (median ms per
game over the blocks). v1 is read from ``runs/v1.msgpack``:
``git show 0cf2db9:learners/weights/default.msgpack > runs/v1.msgpack``.
Run from the repository root: ``PYTHONPATH=. python bench/learning/learn_timing.py``.
"""

from __future__ import annotations

import json

import numpy as np

from learners.nets.evaluate import play_games
from learners.nets.player import LearnerPlayer
from mscsp.players import get_player

BLOCKS, GAMES, SEED = 4, 100, 3_000_000


def main() -> None:
    players = {
        "v2": LearnerPlayer("default"),
        "v1": LearnerPlayer("runs/v1.msgpack"),
        "csp-minprob": get_player("csp-minprob"),
    }
    for player in players.values():
        play_games(player, "expert", 1, seed=SEED - 1)  # compile and warm up, untimed
    times: dict[str, list[float]] = {name: [] for name in players}
    wins = dict.fromkeys(players, 0)
    for block in range(BLOCKS):
        for name, player in players.items():
            result = play_games(player, "expert", GAMES, seed=SEED + GAMES * block)
            times[name].append(1000 * result["sec_per_game"])
            wins[name] += result["wins"]
        print(block, {name: round(t[-1], 1) for name, t in times.items()}, flush=True)
    summary = {
        name: {
            "ms_per_game_blocks": [round(x, 1) for x in t],
            "median_ms": round(float(np.median(t)), 1),
            "wins": wins[name],
            "games": BLOCKS * GAMES,
        }
        for name, t in times.items()
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
