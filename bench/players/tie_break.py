"""How much ``csp-minprob``'s tie-break is worth: the exact player with other tie-breaks.

``csp-minprob`` gives exact ties to the cell with the fewest neighbours. This plays the same
seeded games (classic rule, first click in the corner) with ties to the first cell in
row-major order and with random ties, and prints paired sign tests against the original.
A net whose outputs are never exactly equal breaks ties at random in effect, which is why
``learner`` pools exchangeable cells before its tie-break (docs/learners.md)::

    PYTHONPATH=$PWD python bench/players/tie_break.py --preset beginner -n 3000 --seed 27000000
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from mscsp import PRESETS, Game
from mscsp.players.csp import CspMinProbPlayer, CspPlayer


class RowMajorTies(CspPlayer):
    """Lowest exact probability; ties to the first cell in row-major order."""

    name = "ties-row-major"

    def guess(self, board, solution, rng):
        p = np.where(self.memory.unknown(board), solution.probabilities, np.inf)
        return divmod(int(np.argmin(p)), board.cols)


class RandomTies(CspPlayer):
    """Lowest exact probability; ties to a random one of the tied cells."""

    name = "ties-random"

    def guess(self, board, solution, rng):
        p = np.where(self.memory.unknown(board), solution.probabilities, np.inf)
        tied = np.flatnonzero(p <= p.min())
        return divmod(int(tied[rng.integers(len(tied))]), board.cols)


def wins(player, preset: str, games: int, seed: int) -> np.ndarray:
    """Whether each of the games ``seed``, ``seed + 1``, ... was won."""
    rows, cols, mines = PRESETS[preset]
    rng = np.random.default_rng(seed)
    out = np.zeros(games, bool)
    for i in range(games):
        game = Game(rows, cols, mines, seed=seed + i, first_click="safe")
        game.reveal(0, 0)
        player.new_game()
        player.play(game, rng)
        out[i] = game.state == "won"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default="beginner")
    parser.add_argument("-n", "--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=27_000_000)
    args = parser.parse_args()
    base = wins(CspMinProbPlayer(), args.preset, args.games, args.seed)
    rows = [{"player": "csp-minprob", "win_rate": float(base.mean())}]
    for cls in (RowMajorTies, RandomTies):
        other = wins(cls(), args.preset, args.games, args.seed)
        only_base, only_other = int((base & ~other).sum()), int((other & ~base).sum())
        z = (only_other - only_base) / max(np.sqrt(only_base + only_other), 1.0)
        rows.append({"player": cls.name, "win_rate": float(other.mean()), "paired_z": round(z, 2)})
    print(json.dumps({"preset": args.preset, "games": args.games, "seed": args.seed, "rows": rows}))


if __name__ == "__main__":
    main()
