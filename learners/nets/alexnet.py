"""``alexnet``: seed 002's AlexNet-like CNN player (section 2.2), trained on 8x8 with 10 mines.

Training follows the paper's recipe on this project's data: positions from games on 8x8/10
(:func:`learners.nets.data.generate`, every decision point of a CSP-played game rather than every
15th board of a won game), targets the true mine layout on covered cells (the paper marks
the mines in the perimeter), binary cross-entropy (:func:`learners.nets.train.train`, config
``alexnet`` of :mod:`learners.nets.models`). Play: the model's mine probabilities, and the
perimeter tile with the lowest one is clicked (a random-free fallback to every covered
tile when the perimeter is empty).

It lives with the Flax networks rather than in a subpackage of its own: it is one named config
of :mod:`.models`, generated, trained and played by the same :mod:`.data`, :mod:`.train` and
:mod:`.player`; only its board size and perimeter rule are seed 002's.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from mscsp.board import COVERED
from mscsp.players.base import Cell

from ..artefacts import artefact, write_json
from ..classic.data import perimeter
from .player import LearnerPlayer

BOARD = (8, 8, 10)
FILE = "alexnet.msgpack"


class AlexNetPlayer(LearnerPlayer):
    """The paper's move rule on the CNN's probabilities (one tile per turn)."""

    name = "alexnet"

    def next_moves(self, board: Any, rng: np.random.Generator | None = None) -> list[Cell]:
        probs = self.probabilities(board)
        edge = perimeter(board.cells)
        pool = edge if edge.any() else board.cells == COVERED
        index = int(np.argmin(np.where(pool, probs, np.inf)))
        self.turn_guesses = int(probs.flat[index] >= self.safe_below)
        return [divmod(index, board.cols)]


def train(
    out: str | Path,
    *,
    seed: int = 0,
    games: int | None = None,
    board=None,
    resume: bool = False,
    log=print,
    steps: int = 1500,
) -> dict[str, Any]:
    """Generates ``games`` 8x8/10 games (default 1,500) and trains ``steps`` AdamW steps.

    Data shards and the run directory go to ``OUT/alexnet-work`` (both resumable); the
    model is copied to ``OUT/alexnet.msgpack``.
    """
    from .data import GenSpec, generate
    from .train import TrainConfig
    from .train import train as run_training

    rows, cols, mines = tuple(board) if board else BOARD
    work = Path(out) / "alexnet-work"
    start = time.perf_counter()
    spec = GenSpec(rows, cols, mines)
    generate(work / "data", spec, games or 1500, seed=seed, workers=1)
    cfg = TrainConfig(
        model="alexnet",
        data=[str(work / "data")],
        out=str(work / "run"),
        labels="mines",
        steps=steps,
        batch=64,
        lr=2e-3,
        eval_every=500,
        seed=seed,
    )
    run = run_training(cfg, resume=resume, log=log)
    target = Path(out) / FILE
    shutil.copyfile(run / "model.msgpack", target)
    meta = {
        "system": "alexnet",
        "board": [rows, cols, mines],
        "games": games or 1500,
        "steps": steps,
        "seed": seed,
        "seconds": round(time.perf_counter() - start, 1),
    }
    write_json(target.with_suffix(".json"), meta)
    return meta


def make_player(weights: str | None = None, safe_below: float = 0.02) -> AlexNetPlayer:
    """``alexnet`` with the shipped model or the checkpoint at ``weights``."""
    return AlexNetPlayer(str(artefact(weights, FILE)), safe_below=safe_below)
