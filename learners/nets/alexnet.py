"""``alexnet``: seed 002's AlexNet-like CNN player (section 2.2), trained on 8x8 with 10 mines.

Training follows the paper's recipe on this project's data: positions from games on 8x8/10
(:func:`learners.nets.data.generate`, every decision point of a CSP-played game rather than every
15th board of a won game), binary cross-entropy (:func:`learners.nets.train.train`, config
``alexnet`` of :mod:`learners.nets.models`). The paper's targets are the mines of the perimeter
(``-o labels=mines``: the true layout on covered cells); the default is this project's exact
probabilities (``labels=exact``). Play: the model's mine probabilities, and the perimeter tile
with the lowest one is clicked (every covered tile when the perimeter is empty).

It lives with the Flax networks rather than in a subpackage of its own: it is one named config
of :mod:`.models`, generated, trained and played by the same :mod:`.data`, :mod:`.train` and
:mod:`.player`; only its board size and perimeter rule are seed 002's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..artefacts import artefact
from .player import LowestCellPlayer
from .systems import Recipe, train_recipe

# Six on-policy rounds after the paper's training (docs/seeds.md): +2 points, safe first click.
RECIPE = Recipe(
    "alexnet",
    (8, 8, 10),
    games=20_000,
    steps=6000,
    batch=64,
    lr=2e-3,
    rounds=6,
    round_games=3000,
    round_steps=3000,
)


class AlexNetPlayer(LowestCellPlayer):
    """The paper's move rule on the CNN's probabilities (one perimeter tile per turn)."""

    name = "alexnet"


def train(out: str | Path, **options: Any) -> dict[str, Any]:
    """Generates 20,000 games of 8x8/10, trains 6,000 AdamW steps, then six on-policy rounds
    of 3,000 own games and 3,000 steps each (:data:`RECIPE`).

    Options (``games``, ``steps``, ``labels``: ``"exact"`` or the paper's ``"mines"``,
    ``batch``, ``lr``, ``workers``, ``rounds``, ...) as :func:`.systems.train_recipe`. Data
    shards, the run directory and the rounds go to ``OUT/alexnet-work`` (all resumable); the
    model is copied to ``OUT/alexnet.msgpack``.
    """
    return train_recipe(RECIPE, out, **options)


def make_player(weights: str | None = None, safe_below: float = 0.02) -> AlexNetPlayer:
    """``alexnet`` with the shipped model or the checkpoint at ``weights``."""
    return AlexNetPlayer(str(artefact(weights, RECIPE.file, RECIPE.name)), safe_below=safe_below)
