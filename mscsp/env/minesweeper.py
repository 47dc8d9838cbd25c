"""``mscsp/Minesweeper-v0``: one game of the :class:`mscsp.Game` engine as a Gymnasium env.

* Observation: the visible board, an ``int8`` grid (rows x cols) of the engine's codes:
  ``-1`` covered, ``-2`` flag (never set by the env itself), ``0``-``8`` revealed numbers.
* Action: a cell index ``row * cols + col`` (``Discrete(rows * cols)``); it reveals the cell.
* Reward: the newly revealed cells over the board's safe cells (so a whole won game sums to
  1), ``-1`` for a mine, ``invalid_reward`` for a cell already revealed.
* Termination at a win or a loss; truncation after ``max_steps`` steps.
* ``info``: ``won``, ``lost``, ``opened`` (cells this step), ``revealed`` (cells so far),
  ``action_mask`` (covered cells, ``int8``) and, with ``probabilities=True``, the exact mine
  probability of every cell (float64, NaN on revealed cells) from :func:`mscsp.solve`.

The first step is the first click: mines are placed then, honouring ``first_click``. All
randomness comes from ``reset(seed=...)`` through the env's ``np_random``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from ..backends import DEFAULT_BACKEND, get_backend
from ..board import COVERED, FLAG
from ..errors import InvalidInputError
from ..game import FirstClick, Game
from ..probabilities import Solution
from ..solver import solve

ENV_ID = "mscsp/Minesweeper-v0"


class MinesweeperEnv(gymnasium.Env):
    """Minesweeper on any board, mine count and first-click rule.

    Args:
        rows: Board rows.
        cols: Board columns.
        mines: Number of mines.
        first_click: ``"safe"``, ``"opening"`` or ``"any"`` (see :class:`mscsp.FirstClick`).
        probabilities: Put the exact mine probabilities in ``info`` (costs one solve per step).
        backend: Counting backend for the probabilities.
        invalid_reward: Reward for clicking a cell that is already revealed.
        max_steps: Steps before truncation (default ``2 * rows * cols``).
        render_mode: ``None`` or ``"ansi"`` (the board in the project's text format).
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        rows: int = 9,
        cols: int = 9,
        mines: int = 10,
        first_click: str = FirstClick.SAFE.value,
        probabilities: bool = False,
        backend: str = DEFAULT_BACKEND,
        invalid_reward: float = -0.1,
        max_steps: int | None = None,
        render_mode: str | None = None,
    ):
        Game(rows, cols, mines, first_click=first_click)  # validates size, mines and rule
        if render_mode not in (None, "ansi"):
            raise InvalidInputError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.rows, self.cols, self.mines = rows, cols, mines
        self.first_click = first_click
        self.with_probabilities = probabilities
        self.backend = get_backend(backend) if probabilities else None
        self.invalid_reward = float(invalid_reward)
        self.max_steps = 2 * rows * cols if max_steps is None else int(max_steps)
        self.render_mode = render_mode
        self.observation_space = spaces.Box(FLAG, 8, shape=(rows, cols), dtype=np.int8)
        self.action_space = spaces.Discrete(rows * cols)
        self.game: Game | None = None
        self.steps = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new game; its mine layout is drawn from the env's seeded generator."""
        super().reset(seed=seed)
        self.game = Game(
            self.rows, self.cols, self.mines, seed=self.np_random, first_click=self.first_click
        )
        self.steps = 0
        return self.game.view.copy(), self._info(0)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Reveals cell ``action``; returns ``(obs, reward, terminated, truncated, info)``."""
        if self.game is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        if self.game.over:
            raise gymnasium.error.ResetNeeded("the game is over; call reset()")
        if not self.action_space.contains(action):
            raise InvalidInputError(f"action {action!r} is not a cell index of the board")
        r, c = divmod(int(action), self.cols)
        self.steps += 1
        if self.game.view[r, c] != COVERED:
            opened, reward = 0, self.invalid_reward
        else:
            opened = self.game.reveal(r, c)
            reward = -1.0 if opened < 0 else opened / self.game.safe_cells
        terminated = self.game.over
        truncated = not terminated and self.steps >= self.max_steps
        return self.game.view.copy(), float(reward), terminated, truncated, self._info(opened)

    def solution(self) -> Solution:
        """Exact probabilities of the current position (fractions in ``.exact``)."""
        return solve(self.game.board(), self.backend or DEFAULT_BACKEND)

    def _info(self, opened: int) -> dict[str, Any]:
        game = self.game
        info: dict[str, Any] = {
            "won": game.state == "won",
            "lost": game.state == "lost",
            "opened": max(opened, 0),
            "revealed": game.revealed,
            "action_mask": (game.view == COVERED).astype(np.int8).ravel(),
        }
        if self.with_probabilities:
            if game.over:
                info["probabilities"] = np.full((self.rows, self.cols), np.nan)
            else:
                info["probabilities"] = self.solution().probabilities
        return info

    def render(self) -> str | None:
        """The board as text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi" or self.game is None:
            return None
        return self.game.board().to_text()


def make_vec(
    num_envs: int, *, seed: int | None = None, **kwargs: Any
) -> gymnasium.vector.VectorEnv:
    """A synchronous vector of ``num_envs`` environments (``kwargs`` as for the env).

    With ``seed``, the vector is reset once with seeds ``seed, seed + 1, ...``.
    """
    from . import register_envs

    register_envs()
    vec = gymnasium.make_vec(ENV_ID, num_envs=num_envs, vectorization_mode="sync", **kwargs)
    if seed is not None:
        vec.reset(seed=seed)
    return vec
