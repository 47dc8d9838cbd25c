"""``q-simple``: seed 001's simplified Q-learning (section III.B, Algorithms 2 and 3).

The state is the whole visible board. Algorithm 2 (``initial``) probes random cells and
keeps ``Q(s, a) <- (1 - eta) Q(s, a) + eta r`` with ``r = +1`` for a safe cell and ``-1``
for a mine (no discounted future term). Algorithm 3 (``improved``, the one the paper plays
with) only ever makes correct moves and, at each state, adds one to ``P(s, a)`` for every
frontier cell that holds no mine, so ``P(s, a) / visits(s)`` estimates how often ``a`` is
safe in ``s``. Both begin by probing a corner.

Play: the frontier cell with the highest value; if every frontier value is zero in a state
seen in training, a random cell off the frontier; in an unseen state, a random frontier
cell. A table belongs to one board size and mine count (the paper: 4x4/3 and 5x5).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from mscsp import Board
from mscsp.board import COVERED
from mscsp.errors import InvalidInputError
from mscsp.players.base import Cell, Player
from mscsp.runtime.outlock import output_lock

from ..artefacts import Progress, artefact, episode_seed, shipped, write_json
from ..classic.data import perimeter
from .tables import load_table, save_table

#: The paper's boards: 4x4 with 3 mines and 5x5 (5 mines, the same density).
BOARDS = ((4, 4, 3), (5, 5, 5))
ALGORITHMS = ("improved", "initial")
#: Learning rate of Algorithm 2 (the paper gives none).
ETA = 0.1


class SimpleTable:
    """Values ``P(s, a)`` (Algorithm 3) or ``Q(s, a)`` (Algorithm 2) and visits per state."""

    def __init__(self, cells: int):
        self.cells = cells
        self.values: dict[bytes, np.ndarray] = {}
        self.visits: dict[bytes, int] = {}

    def row(self, state: bytes) -> np.ndarray:
        found = self.values.get(state)
        if found is None:
            found = self.values[state] = np.zeros(self.cells)
            self.visits[state] = 0
        return found

    def update_improved(self, state: bytes, safe_frontier: np.ndarray) -> None:
        """Algorithm 3, lines 3-7: one visit, ``P(s, a) += 1`` for each safe frontier cell."""
        self.row(state)[safe_frontier] += 1
        self.visits[state] += 1

    def update_initial(self, state: bytes, action: int, reward: float, eta: float = ETA) -> None:
        """Algorithm 2, line 10: ``Q(s, a) <- (1 - eta) Q(s, a) + eta r``."""
        row = self.row(state)
        row[action] = (1 - eta) * row[action] + eta * reward
        self.visits[state] += 1

    def save(self, path: Path, meta: dict) -> None:
        keys = list(self.values)
        states = np.frombuffer(b"".join(keys), dtype=np.int8).reshape(len(keys), self.cells)
        values = np.array([self.values[k] for k in keys]).reshape(len(keys), self.cells)
        visits = np.array([self.visits[k] for k in keys])
        save_table(path, states, np.column_stack([values, visits]).astype(np.float32), meta)

    @classmethod
    def load(cls, path: Path) -> tuple[SimpleTable, dict]:
        states, values, meta = load_table(path)
        table = cls(states.shape[1])
        for state, row in zip(states, values, strict=True):
            key = state.astype(np.int8).tobytes()
            table.values[key] = row[:-1].astype(np.float64)
            table.visits[key] = int(row[-1])
        return table, meta


def run_episode(env, table: SimpleTable, algorithm: str, seed: int) -> bool:
    """One training game on ``env`` (a ``MinesweeperEnv``); returns whether it was won."""
    rng = np.random.default_rng([seed, 1])
    obs, _ = env.reset(seed=seed)
    obs, _, done, truncated, info = env.step(0)  # probe a corner first
    while not (done or truncated):
        state = obs.tobytes()
        covered = (obs == COVERED).ravel()
        if algorithm == "improved":
            safe = covered & ~env.unwrapped.game.mine.ravel()
            array = np.flatnonzero(safe & perimeter(obs).ravel())
            table.update_improved(state, array)
            pool = array if len(array) else np.flatnonzero(safe)
            action = int(pool[rng.integers(len(pool))])
            obs, _, done, truncated, info = env.step(action)
        else:
            pool = np.flatnonzero(covered)
            action = int(pool[rng.integers(len(pool))])
            obs, reward, done, truncated, info = env.step(action)
            table.update_initial(state, action, 1.0 if reward > 0 else -1.0)
    return bool(info["won"])


def file_name(rows: int, cols: int, mines: int, algorithm: str = "improved") -> str:
    suffix = "" if algorithm == "improved" else f"-{algorithm}"
    return f"q-simple-{rows}x{cols}x{mines}{suffix}.npz"


def train(
    out: str | Path,
    *,
    seed: int = 0,
    games: int | None = None,
    board=None,
    resume: bool = False,
    log=print,
    algorithm: str = "improved",
    checkpoint_every: int = 10_000,
) -> dict:
    """Trains one table per board (default 4x4/3 and 5x5/5) for ``games`` episodes each.

    Episode ``i`` is seeded from ``(seed, i)``; the table is checkpointed every
    ``checkpoint_every`` episodes and ``resume`` continues from the last checkpoint, giving
    the same table as an uninterrupted run.
    """
    from mscsp.env import MinesweeperEnv

    if algorithm not in ALGORITHMS:
        raise InvalidInputError(f"algorithm must be one of {', '.join(ALGORITHMS)}")
    episodes = games or 60_000
    results = {}
    for rows, cols, mines in [tuple(board)] if board else BOARDS:
        path = Path(out) / file_name(rows, cols, mines, algorithm)
        with output_lock(path, "q-simple table"):
            table, done, wins = SimpleTable(rows * cols), 0, 0
            if resume and path.exists():
                table, meta = SimpleTable.load(path)
                done, wins = meta["episodes"], meta["training_wins"]
                log(f"resuming {path} at episode {done}")
            env = MinesweeperEnv(rows, cols, mines)
            progress = Progress(f"q-simple {rows}x{cols}/{mines}", episodes)
            start = time.perf_counter()
            meta = {}
            for i in range(done, episodes):
                wins += run_episode(env, table, algorithm, episode_seed(seed, i))
                progress.update(i + 1, f"{len(table.values)} states")
                if (i + 1) % checkpoint_every == 0 or i + 1 == episodes:
                    meta = {
                        "system": "q-simple",
                        "algorithm": algorithm,
                        "board": [rows, cols, mines],
                        "episodes": i + 1,
                        "training_wins": wins,
                        "states": len(table.values),
                        "seed": seed,
                    }
                    table.save(path, meta)
            meta["seconds_this_run"] = round(time.perf_counter() - start, 1)
            write_json(path.with_suffix(".json"), meta)
            results[path.name] = meta
    return results


class QSimplePlayer(Player):
    """Plays with a :class:`SimpleTable` per board (see the module docstring).

    Args:
        tables: Tables by ``(rows, cols, mines)``.
    """

    name = "q-simple"

    def __init__(self, tables: dict[tuple[int, int, int], SimpleTable]):
        self.tables = tables

    def next_moves(self, board: Board, rng: np.random.Generator) -> list[Cell]:
        table = self.tables.get((*board.shape, board.mines))
        if table is None:
            have = ", ".join("x".join(map(str, k)) for k in self.tables)
            raise InvalidInputError(
                f"q-simple has tables for {have} only; train one with 'mscsp learn system "
                f"q-simple --size {board.rows}x{board.cols} --mines {board.mines}'"
            )
        cells = board.cells
        covered = (cells == COVERED).ravel()
        front = perimeter(cells).ravel()
        state = cells.tobytes()
        values = table.values.get(state)
        self.turn_guesses = 1
        if values is not None and front.any() and not (values[front] > 0).any():
            off = np.flatnonzero(covered & ~front)
            pool = off if len(off) else np.flatnonzero(front)
        elif values is not None and front.any():
            best = np.where(front, values, -np.inf)
            pool = np.flatnonzero(best == best.max())
            self.turn_guesses = 0
        else:
            pool = np.flatnonzero(front if front.any() else covered)
        return [divmod(int(pool[rng.integers(len(pool))]), board.cols)]


def make_player(weights: str | None = None) -> QSimplePlayer:
    """``q-simple`` with every shipped table (``q-simple-RxCxM.npz``) or the one at ``weights``."""
    if weights:
        paths = [artefact(weights, "")]
    else:  # tables of Algorithm 2 ("-initial") are for study, not play by default
        paths = [p for p in shipped("q-simple-*.npz") if not p.stem.endswith("-initial")]
    tables = {}
    for path in paths:
        table, meta = SimpleTable.load(path)
        tables[tuple(meta["board"])] = table
    return QSimplePlayer(tables)
