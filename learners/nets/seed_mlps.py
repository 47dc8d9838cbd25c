"""``thesis-mlp`` (seed 000, section 5.5) and ``blog-mlp`` (seed 003): the seeds' MLP players.

``thesis-mlp`` is the thesis' "MLP learner3" (Tables 5.1-5.2): the 24 cells of the 5x5 window
around a cell -> 70 -> 80 -> 60 -> 35 -> 1, ReLU hidden layers (5.5.3.3), sigmoid output
(config ``thesis-mlp`` of :mod:`.models`). It plays as in 5.5.1: the window visits the
bordering cells (covered cells next to a revealed number) and the one with the lowest output is
uncovered, one per turn (every covered cell when none borders). It trains, as the thesis did,
on the bordering cells only (``cells="frontier"``).

``blog-mlp`` is the blog's full-board MLP on the one-hot board, 10n -> 20n -> 10n -> 5n -> n
(config ``blog-mlp``, fixed to 9x9): it clicks the covered cell of lowest predicted mine
probability over the whole board, one per turn, and refuses boards of another size.

Both train on this project's data (CSP-played games on the paper's board) with exact labels
by default (the papers used the mines: ``-o labels=mines``), through :mod:`.systems`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mscsp.errors import InvalidInputError
from mscsp.players.base import Cell

from ..artefacts import artefact
from .player import SAFE_BELOW, LowestCellPlayer
from .systems import Recipe, train_recipe

# The thesis trains with a first click that opens a zero (Figure 7.1); eight on-policy rounds
# then train it on the positions its own one-cell-a-turn play reaches (docs/seeds.md).
THESIS = Recipe(
    "thesis-mlp",
    (9, 9, 10),
    games=50_000,
    steps=30_000,
    batch=64,
    lr=3e-3,
    cells="frontier",
    first_click="opening",
    rounds=8,
)
# The blog plays from a random first click: its data's games start there too. Six on-policy
# rounds follow (docs/seeds.md: +2 points on the blog's rule).
BLOG = Recipe(
    "blog-mlp",
    (9, 9, 10),
    games=150_000,
    steps=40_000,
    batch=256,
    lr=1e-3,
    first_move="random",
    rounds=6,
    round_games=5000,
    round_steps=4000,
    round_lr=3e-4,
)


class ThesisMlpPlayer(LowestCellPlayer):
    """Seed 000's sliding-window play: the lowest-output bordering cell, one per turn."""

    name = "thesis-mlp"


class BlogMlpPlayer(LowestCellPlayer):
    """Seed 003's play: the lowest-probability covered cell of the whole board, one per turn."""

    name = "blog-mlp"
    perimeter_first = False

    def next_moves(self, board: Any, rng: np.random.Generator | None = None) -> list[Cell]:
        """Refuses a board of another size than the network's (it sees the whole board).

        Raises:
            InvalidInputError: The board is not the size the network was built for.
        """
        rows, cols = self.config["rows"], self.config["cols"]
        if (board.rows, board.cols) != (rows, cols):
            raise InvalidInputError(
                f"blog-mlp plays {rows}x{cols} boards only (its network sees the whole board), "
                f"not {board.rows}x{board.cols}"
            )
        return super().next_moves(board, rng)


def train_thesis(out: str | Path, **options: Any) -> dict[str, Any]:
    """Trains ``thesis-mlp`` into ``OUT/thesis-mlp.msgpack``: :data:`THESIS`'s defaults, and
    options (``games``, ``steps``, ``labels``, ``cells``, ...) as :func:`.systems.train_recipe`.
    """
    return train_recipe(THESIS, out, **options)


def train_blog(out: str | Path, **options: Any) -> dict[str, Any]:
    """Trains ``blog-mlp`` into ``OUT/blog-mlp.msgpack`` (9x9 only): :data:`BLOG`'s defaults,
    and options as :func:`.systems.train_recipe`.
    """
    return train_recipe(BLOG, out, **options)


def make_thesis_player(weights: str | None = None, safe_below: float = SAFE_BELOW):
    """``thesis-mlp`` with the shipped model or the checkpoint at ``weights``."""
    path = artefact(weights, THESIS.file, THESIS.name)
    return ThesisMlpPlayer(str(path), safe_below=safe_below)


def make_blog_player(weights: str | None = None, safe_below: float = SAFE_BELOW):
    """``blog-mlp`` with the shipped model or the checkpoint at ``weights``.

    Raises:
        InvalidInputError: The checkpoint is not a full-board MLP (it needs a fixed size).
    """
    player = BlogMlpPlayer(str(artefact(weights, BLOG.file, BLOG.name)), safe_below=safe_below)
    if player.config.get("model") != "mlp-board":
        raise InvalidInputError(f"blog-mlp needs a full-board MLP, not a {player.config} model")
    return player
