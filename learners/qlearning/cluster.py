"""``q-cluster``: seed 002's Q-learning on 3x3 clusters (section 2.3).

A state is the 3x3 cluster around a covered tile (cell codes, out-of-bounds past the edge);
the two actions are *click* and *ignore*, rewarded by the paper's Table 2 (click a safe tile
+1, click a mine -1, ignore a safe tile -1, ignore a mine +1). The update is the paper's
equation (2), ``Q(s, a) <- Q(s, a) + alpha r`` (the discounted term and, as printed, the
``-Q(s, a)`` term are both dropped), with ``alpha = 0.1`` and epsilon-greedy exploration
from 0.9 down to 0.1 by a factor 0.99 per episode, on 8x8 boards with 10 mines.

Training turn: the covered tiles in random order each take an epsilon-greedy action; an
*ignore* is rewarded at once from the hidden layout (the environment's truth), the first
*click* is played through the environment and ends the turn (if every tile is ignored, a
random one is clicked). Play: the tile whose cluster has the largest ``Q(click) -
Q(ignore)`` among those whose greedy action is *click*; clusters never seen in training are
ignored, as in the paper; if no tile qualifies, a random covered tile.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from mscsp import Board
from mscsp.board import COVERED
from mscsp.players.base import Cell, Player
from mscsp.runtime.outlock import output_lock

from ..artefacts import Progress, artefact, episode_seed, write_json
from ..classic.data import OUT_OF_BOUNDS
from .tables import epsilon, load_table, save_table

CLICK, IGNORE = 0, 1
ALPHA = 0.1
BOARD = (8, 8, 10)
FILE = "q-cluster.npz"
#: Table 2: reward by (action, tile is a mine).
REWARD = {(CLICK, False): 1.0, (CLICK, True): -1.0, (IGNORE, False): -1.0, (IGNORE, True): 1.0}


def cluster_keys(cells: np.ndarray) -> np.ndarray:
    """An integer key per cell for its 3x3 cluster (base-12 digits of the cell codes)."""
    padded = np.pad(cells.astype(np.int64), 1, constant_values=OUT_OF_BOUNDS) - OUT_OF_BOUNDS
    view = np.lib.stride_tricks.sliding_window_view(padded, (3, 3)).reshape(cells.size, 9)
    return view @ (12 ** np.arange(9, dtype=np.int64))


class ClusterTable:
    """``Q(cluster, action)`` for the two actions."""

    def __init__(self) -> None:
        self.q: dict[int, np.ndarray] = {}

    def update(self, key: int, action: int, reward: float, alpha: float = ALPHA) -> None:
        """Equation (2): ``Q(s, a) <- Q(s, a) + alpha r``."""
        row = self.q.get(key)
        if row is None:
            row = self.q[key] = np.zeros(2)
        row[action] += alpha * reward

    def act(self, key: int, eps: float, rng: np.random.Generator) -> int:
        """Epsilon-greedy action (ties and unseen clusters: random)."""
        row = self.q.get(key)
        if rng.random() < eps or row is None or row[CLICK] == row[IGNORE]:
            return int(rng.integers(2))
        return int(np.argmax(row))

    def save(self, path: Path, meta: dict) -> None:
        keys = np.fromiter(self.q, dtype=np.int64, count=len(self.q))
        values = np.array([self.q[k] for k in keys.tolist()]).reshape(len(keys), 2)
        save_table(path, keys, values, meta)

    @classmethod
    def load(cls, path: Path) -> tuple[ClusterTable, dict]:
        keys, values, meta = load_table(path)
        table = cls()
        table.q = {int(k): v.astype(np.float64) for k, v in zip(keys, values, strict=True)}
        return table, meta


def run_episode(env, table: ClusterTable, eps: float, seed: int) -> bool:
    """One training game on ``env`` (a ``MinesweeperEnv``); returns whether it was won."""
    rng = np.random.default_rng([seed, 1])
    obs, _ = env.reset(seed=seed)
    obs, _, done, truncated, info = env.step(0)
    while not (done or truncated):
        mine = env.unwrapped.game.mine.ravel()
        keys = cluster_keys(obs)
        order = rng.permutation(np.flatnonzero(obs.ravel() == COVERED))
        clicked = None
        for cell in order.tolist():
            if table.act(int(keys[cell]), eps, rng) == CLICK:
                clicked = cell
                break
            table.update(int(keys[cell]), IGNORE, REWARD[IGNORE, bool(mine[cell])])
        if clicked is None:
            clicked = int(order[rng.integers(len(order))])
        obs, _, done, truncated, info = env.step(clicked)
        table.update(int(keys[clicked]), CLICK, REWARD[CLICK, bool(mine[clicked])])
    return bool(info["won"])


def train(
    out: str | Path,
    *,
    seed: int = 0,
    games: int | None = None,
    board=None,
    resume: bool = False,
    log=print,
    checkpoint_every: int = 5_000,
) -> dict:
    """Trains the cluster table for ``games`` episodes (default 20,000; the paper 1,000,000).

    Resumable from the last checkpoint with the same result as an uninterrupted run.
    """
    from mscsp.env import MinesweeperEnv

    rows, cols, mines = tuple(board) if board else BOARD
    episodes = games or 20_000
    path = Path(out) / FILE
    with output_lock(path, "q-cluster table"):
        table, done, wins = ClusterTable(), 0, 0
        if resume and path.exists():
            table, meta = ClusterTable.load(path)
            done, wins = meta["episodes"], meta["training_wins"]
            log(f"resuming {path} at episode {done}")
        env = MinesweeperEnv(rows, cols, mines)
        progress = Progress("q-cluster", episodes)
        start = time.perf_counter()
        meta = {}
        for i in range(done, episodes):
            wins += run_episode(env, table, epsilon(i), episode_seed(seed, i))
            progress.update(i + 1, f"{len(table.q)} clusters, {wins} training wins")
            if (i + 1) % checkpoint_every == 0 or i + 1 == episodes:
                meta = {
                    "system": "q-cluster",
                    "board": [rows, cols, mines],
                    "episodes": i + 1,
                    "training_wins": wins,
                    "clusters": len(table.q),
                    "seed": seed,
                }
                table.save(path, meta)
        meta["seconds_this_run"] = round(time.perf_counter() - start, 1)
        write_json(path.with_suffix(".json"), meta)
        return meta


class QClusterPlayer(Player):
    """Greedy play with a cluster table (see the module docstring)."""

    name = "q-cluster"

    def __init__(self, table: ClusterTable):
        self.table = table

    def next_moves(self, board: Board, rng: np.random.Generator) -> list[Cell]:
        keys = cluster_keys(board.cells)
        covered = np.flatnonzero(board.cells.ravel() == COVERED)
        best, choice = 0.0, None
        for cell in covered.tolist():
            row = self.table.q.get(int(keys[cell]))
            if row is not None and row[CLICK] - row[IGNORE] > best:
                best, choice = row[CLICK] - row[IGNORE], cell
        self.turn_guesses = int(choice is None)
        if choice is None:
            choice = int(covered[rng.integers(len(covered))])
        return [divmod(choice, board.cols)]


def make_player(weights: str | None = None) -> QClusterPlayer:
    """``q-cluster`` with the shipped table or the one at ``weights``."""
    table, _ = ClusterTable.load(artefact(weights, FILE))
    return QClusterPlayer(table)
