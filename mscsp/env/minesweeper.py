"""``mscsp/Minesweeper-v0``: one game of the :class:`mscsp.Game` engine as a Gymnasium env.

* Observation: the visible board, an ``int8`` grid (rows x cols) of the engine's codes:
  ``-1`` covered, ``-2`` flag (never set by the env itself), ``0``-``8`` revealed numbers.
* Action: a cell index ``row * cols + col`` (``Discrete(rows * cols)``); it reveals the cell.
* Reward: the newly revealed cells over the board's safe cells (so a whole won game sums to
  1), ``-1`` for a mine, ``invalid_reward`` for a cell already revealed.
* Termination at a win or a loss; truncation after ``max_steps`` steps.
* ``info``: ``won``, ``lost``, ``opened`` (cells this step), ``revealed`` (cells so far),
  ``action_mask`` (covered cells, ``int8``) and, with ``probabilities=True``, the exact mine
  probability of every cell (float64) from :func:`mscsp.solve`: ``0.0`` on revealed cells
  (they are safe) and, once the game is over, the layout itself (``1.0`` on every mine).
  Every value is finite, so equal steps give equal ``info`` (NaN != NaN would not) and
  ``info`` converts to strict JSON with ``.tolist()``.

The first step is the first click: mines are placed then, honouring ``first_click``. All
randomness comes from ``reset(seed=...)`` through the env's ``np_random``.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from ..backends import DEFAULT_BACKEND, get_backend
from ..board import COVERED, FLAG
from ..errors import InvalidInputError, InvalidTypeError
from ..game import FirstClick, Game
from ..probabilities import Solution
from ..solver import solve
from ..validate import check_int, describe

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

    # render_fps: the rate a recorder plays "ansi" frames back at (gymnasium asks every env that
    # renders to declare one); 4 as gymnasium's own text envs.
    metadata = {"render_modes": ["ansi"], "render_fps": 4}

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
        if not isinstance(probabilities, bool | np.bool_):
            raise InvalidTypeError(
                f"probabilities must be True or False, got {describe(probabilities)}"
            )
        self.rows, self.cols, self.mines = rows, cols, mines
        self.first_click = first_click
        self.with_probabilities = bool(probabilities)
        self.backend = get_backend(backend) if probabilities else None
        self.invalid_reward = _check_reward(invalid_reward)
        self.max_steps = (
            2 * rows * cols if max_steps is None else check_int(max_steps, "max_steps", minimum=1)
        )
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
            info["probabilities"] = self._probabilities()
        return info

    def _probabilities(self) -> np.ndarray:
        """Every cell's mine probability, finite everywhere (see the module's docstring)."""
        game = self.game
        if game.over:
            # The position is decided: a won board's covered cells are all mines, and a lost
            # game shows its layout, as every Minesweeper does at the end.
            return game.mine.astype(np.float64)
        probs = self.solution().probabilities
        # solve() leaves revealed cells NaN ("not asked"); a revealed cell is certainly safe.
        return np.where(game.view == COVERED, probs, 0.0)

    def render(self) -> str | None:
        """The board as text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi" or self.game is None:
            return None
        return self.game.board().to_text()


def _check_reward(value: Any) -> float:
    """``invalid_reward`` as a finite ``float`` (a NaN reward would poison every return)."""
    if not isinstance(value, int | float | np.integer | np.floating) or isinstance(value, bool):
        raise InvalidTypeError(f"invalid_reward must be a number, got {describe(value)}")
    if not math.isfinite(float(value)):
        raise InvalidInputError(f"invalid_reward must be finite, got {describe(value)}")
    return float(value)


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
