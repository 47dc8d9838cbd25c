"""The Flax seed systems' shared trainer: data on the paper's board, one named config, artefact.

``alexnet`` (:mod:`.alexnet`), ``thesis-mlp`` and ``blog-mlp`` (:mod:`.seed_mlps`) are each a
:class:`Recipe`: a model config of :mod:`.models` (named like the system), the paper's board
and training defaults. :func:`train_recipe` generates CSP games on that board
(:func:`learners.nets.data.generate`), trains (:func:`learners.nets.train.train`), copies the
model to ``OUT/NAME.msgpack`` and writes ``OUT/NAME.json`` (settings, positions, wall time,
load). Both stages resume: finished shards are kept, and with ``resume`` the run goes on from
its last checkpoint.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mscsp.errors import InvalidInputError

from ..artefacts import write_json


@dataclass(frozen=True)
class Recipe:
    """A seed system's model and training defaults (every one may be overridden per run).

    Attributes:
        name: System name, model config (:data:`learners.nets.models.CONFIGS`) and artefact
            stem (``NAME.msgpack``).
        board: The paper's ``(rows, cols, mines)``.
        games: Games of training data.
        steps: AdamW steps.
        batch: Positions per step.
        lr: Peak learning rate.
        labels: ``"exact"`` (the solver's probabilities) or ``"mines"`` (the layout).
        cells: Loss on ``"all"`` covered cells or the ``"frontier"`` only.
        eval_every: Steps between validation and checkpoint.
        first_move: Where the data's games click first (:func:`mscsp.game.first_move`): the
            paper's rule, so that training sees the openings play will meet.
    """

    name: str
    board: tuple[int, int, int]
    games: int
    steps: int
    batch: int
    lr: float
    labels: str = "exact"
    cells: str = "all"
    eval_every: int = 500
    first_move: str = "corner"

    @property
    def file(self) -> str:
        """The artefact's file name in ``learners/weights``."""
        return f"{self.name}.msgpack"


def train_recipe(
    recipe: Recipe,
    out: str | Path,
    *,
    seed: int = 0,
    games: int | None = None,
    board: tuple[int, int, int] | None = None,
    resume: bool = False,
    log=print,
    workers: int = 1,
    **overrides: Any,
) -> dict[str, Any]:
    """Generates data and trains ``recipe``'s model into ``OUT/NAME.msgpack``; returns its JSON.

    Data and the run directory go to ``OUT/NAME-work`` (``data/`` and ``run/``).

    Args:
        recipe: The system's defaults.
        out: Output directory.
        seed: Seed of the games and of the training.
        games: Games of data (default: the recipe's).
        board: ``(rows, cols, mines)`` (default: the paper's).
        resume: Continue the run's last checkpoint (without it, training starts over; the
            data's finished shards are kept either way).
        log: Progress lines.
        workers: Processes generating the data.
        **overrides: ``steps``, ``batch``, ``lr``, ``labels``, ``cells``, ``eval_every``.

    Raises:
        InvalidInputError: An unknown override, or a board the model cannot take.
    """
    from .data import GenSpec, directory_totals, generate
    from .models import CONFIGS
    from .train import TrainConfig
    from .train import train as run_training

    unknown = set(overrides) - {"steps", "batch", "lr", "labels", "cells", "eval_every"}
    if unknown:
        raise InvalidInputError(f"{recipe.name}: unknown option(s) {', '.join(sorted(unknown))}")
    settings = {
        k: overrides.get(k, getattr(recipe, k))
        for k in ("steps", "batch", "lr", "labels", "cells", "eval_every")
    }
    rows, cols, mines = tuple(board) if board else recipe.board
    config = CONFIGS[recipe.name]
    if config.get("rows", rows) != rows or config.get("cols", cols) != cols:
        raise InvalidInputError(
            f"{recipe.name} is built for {config['rows']}x{config['cols']} boards, "
            f"not {rows}x{cols}"
        )
    games = games or recipe.games
    work = Path(out) / f"{recipe.name}-work"
    start = time.perf_counter()
    spec = GenSpec(rows, cols, mines, first_move=recipe.first_move)
    generate(work / "data", spec, games, seed=seed, workers=workers)
    cfg = TrainConfig(
        model=recipe.name, data=[str(work / "data")], out=str(work / "run"), seed=seed, **settings
    )
    run = run_training(cfg, resume=resume, log=log)
    target = Path(out) / recipe.file
    shutil.copyfile(run / "model.msgpack", target)
    meta = {
        "system": recipe.name,
        "board": [rows, cols, mines],
        "games": games,
        "first_move": recipe.first_move,
        "positions": directory_totals(work / "data")["positions"],
        "positions_seen": settings["steps"] * settings["batch"],
        **settings,
        "seed": seed,
        "seconds": round(time.perf_counter() - start, 1),
        "load": [round(v, 2) for v in os.getloadavg()],
    }
    write_json(target.with_suffix(".json"), meta)
    return meta
