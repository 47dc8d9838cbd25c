"""Gymnasium environment for Minesweeper (needs the ``rl`` extra: ``pip install 'mscsp[rl]'``).

Importing this package registers ``mscsp/Minesweeper-v0``::

    import gymnasium as gym
    import mscsp.env  # noqa: F401  (registers the id; the entry point does it too)

    env = gym.make("mscsp/Minesweeper-v0", rows=9, cols=9, mines=10)
    vec = gym.make_vec("mscsp/Minesweeper-v0", num_envs=8, vectorization_mode="sync")

``import mscsp`` never imports this package (gymnasium stays optional).
"""

from __future__ import annotations

from ..errors import BackendUnavailableError

try:
    import gymnasium
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise BackendUnavailableError(
        f"mscsp.env needs the 'rl' extra: pip install 'mscsp[rl]' ({exc})"
    ) from None

from .minesweeper import ENV_ID, MinesweeperEnv, make_vec


def register_envs() -> None:
    """Registers ``mscsp/Minesweeper-v0`` with gymnasium (idempotent; also the plugin hook)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="mscsp.env.minesweeper:MinesweeperEnv")


register_envs()

__all__ = ["ENV_ID", "MinesweeperEnv", "make_vec", "register_envs"]
