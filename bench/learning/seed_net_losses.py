"""Where a one-cell-a-turn seed net loses: its choices against the exact probabilities.

Plays games with a seed system (``thesis-mlp``, ``alexnet``, ``blog-mlp``), solves every
position it meets exactly, and counts the turns where a certainly safe candidate existed and
the net clicked another, and how its losses split: a *blunder* (a safe candidate was there),
a guess above the lowest exact probability, or a guess at the lowest (no better move).
The figures of docs/seeds.md on the thesis MLP::

    PYTHONPATH=$PWD python bench/learning/seed_net_losses.py thesis-mlp --first-click opening -n 300
    PYTHONPATH=$PWD python bench/learning/seed_net_losses.py thesis-mlp \
        --weights runs/old.msgpack ...
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from learners.classic.data import perimeter
from learners.registry import player_factory
from mscsp import Game, solve


def losses(player, rows: int, cols: int, mines: int, first_click: str, games: int, seed: int):
    """Turn and loss counts of ``games`` games (seeds ``seed``, ``seed + 1``, ...)."""
    out = dict.fromkeys(("games", "won", "turns", "safe_turns", "safe_missed"), 0)
    out |= dict.fromkeys(("lost_blunder", "lost_above_lowest", "lost_at_lowest"), 0)
    for i in range(games):
        game = Game(rows, cols, mines, seed=seed + i, first_click=first_click)
        game.reveal(0, 0)
        while not game.over:
            board = game.board()
            exact = solve(board).probabilities
            # The candidates of the system's own rule: bordering cells, else every covered one.
            pool = perimeter(board.cells) if player.perimeter_first else board.cells == -1
            if not pool.any():
                pool = board.cells == -1
            lowest = np.where(pool, exact, np.inf).min()
            (move,) = player.next_moves(board)
            chosen = exact[move]
            out["turns"] += 1
            out["safe_turns"] += bool(lowest == 0)
            out["safe_missed"] += bool(lowest == 0 and chosen > 0)
            if game.reveal(*move) < 0:
                kind = (
                    "blunder" if lowest == 0 else "above_lowest" if chosen > lowest else "at_lowest"
                )
                out[f"lost_{kind}"] += 1
        out["games"] += 1
        out["won"] += bool(game.state == "won")
    out["safe_missed_share"] = out["safe_missed"] / max(out["safe_turns"], 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("system", choices=["thesis-mlp", "alexnet", "blog-mlp"])
    parser.add_argument("--weights", default=None, help="checkpoint (default: the shipped one)")
    parser.add_argument("--size", default="9x9", help="ROWSxCOLS (default 9x9)")
    parser.add_argument("--mines", type=int, default=10)
    parser.add_argument("--first-click", default="opening", choices=["safe", "opening", "any"])
    parser.add_argument("-n", "--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=30_000_000)
    args = parser.parse_args()
    rows, cols = (int(v) for v in args.size.lower().split("x"))
    player = player_factory(args.system)(args.weights)
    result = losses(player, rows, cols, args.mines, args.first_click, args.games, args.seed)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
