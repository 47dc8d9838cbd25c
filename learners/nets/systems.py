"""The Flax seed systems' shared trainer: data on the paper's board, one named config, artefact.

``alexnet`` (:mod:`.alexnet`), ``thesis-mlp`` and ``blog-mlp`` (:mod:`.seed_mlps`) are each a
:class:`Recipe`: a model config of :mod:`.models` (named like the system), the paper's board
and training defaults. :func:`train_recipe` generates CSP games on that board
(:func:`learners.nets.data.generate`), trains (:func:`learners.nets.train.train`), then,
where the recipe asks for them, runs on-policy rounds (:func:`learners.nets.onpolicy.run_rounds`:
the system plays, the exact solver labels what it reaches, it trains on), copies the model to
``OUT/NAME.msgpack`` and writes ``OUT/NAME.json`` (settings, positions, wall time, load). Every
stage resumes: finished shards and rounds are kept, and with ``resume`` the training goes on
from its last checkpoint.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mscsp.errors import InvalidInputError
from mscsp.runtime.outlock import output_lock

from ..artefacts import environment, write_json

#: The recipe settings of the on-policy rounds (each may be overridden per run too).
ROUND_KEYS = ("rounds", "round_games", "round_steps", "round_lr")


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
        first_click: The data's first-click rule (:class:`mscsp.FirstClick`).
        rounds: On-policy rounds after the training (0: none), each of ``round_games``
            games played by the system itself and ``round_steps`` steps at ``round_lr``
            (see :mod:`learners.nets.onpolicy`; the exact player's share of turns halves
            from 0.5 each round).
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
    first_click: str = "safe"
    rounds: int = 0
    round_games: int = 5000
    round_steps: int = 10_000
    round_lr: float = 1e-3

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

    Data, the run directory and the rounds go to ``OUT/NAME-work`` (``data/``, ``run/``,
    ``rounds/``).

    Args:
        recipe: The system's defaults.
        out: Output directory.
        seed: Seed of the games and of the training.
        games: Games of data (default: the recipe's).
        board: ``(rows, cols, mines)`` (default: the paper's).
        resume: Continue the run's last checkpoint and the rounds done (without it, training
            and rounds start over; the data's finished shards are kept either way).
        log: Progress lines.
        workers: Processes generating the data (and playing the rounds' games).
        **overrides: ``steps``, ``batch``, ``lr``, ``labels``, ``cells``, ``eval_every``, and
            the rounds' :data:`ROUND_KEYS` (``rounds=0``: the paper's training alone).

    Raises:
        InvalidInputError: An unknown override, or a board the model cannot take.
        OutputLockedError: Another process is training ``recipe`` into ``out``
            (:mod:`mscsp.runtime.outlock`).
    """
    from .data import GenSpec, directory_totals, generate
    from .models import CONFIGS
    from .train import TrainConfig
    from .train import train as run_training

    keys = ("steps", "batch", "lr", "labels", "cells", "eval_every")
    unknown = set(overrides) - set(keys) - set(ROUND_KEYS)
    if unknown:
        raise InvalidInputError(f"{recipe.name}: unknown option(s) {', '.join(sorted(unknown))}")
    settings = {k: overrides.get(k, getattr(recipe, k)) for k in keys}
    try:
        # Each as the recipe's own type: "-o rounds=x" is refused, not compared as text.
        rounds = {
            k: type(getattr(recipe, k))(overrides.get(k, getattr(recipe, k))) for k in ROUND_KEYS
        }
    except (TypeError, ValueError):
        rounds = {}
    if not rounds or rounds["rounds"] < 0 or min(rounds["round_games"], rounds["round_steps"]) < 1:
        raise InvalidInputError(
            f"{recipe.name}: rounds must be 0 or more, round_games and round_steps 1 or more"
        )
    rows, cols, mines = tuple(board) if board else recipe.board
    config = CONFIGS[recipe.name]
    if config.get("rows", rows) != rows or config.get("cols", cols) != cols:
        raise InvalidInputError(
            f"{recipe.name} is built for {config['rows']}x{config['cols']} boards, "
            f"not {rows}x{cols}"
        )
    games = games or recipe.games
    work = Path(out) / f"{recipe.name}-work"
    # One run per system and OUT (its data, run, rounds and artefact), taken before the data:
    # other systems may train into the same OUT beside it.
    with output_lock(work, f"{recipe.name} work directory"):
        start = time.perf_counter()
        spec = GenSpec(
            rows, cols, mines, first_click=recipe.first_click, first_move=recipe.first_move
        )
        generate(work / "data", spec, games, seed=seed, workers=workers)
        cfg = TrainConfig(
            model=recipe.name,
            data=[str(work / "data")],
            out=str(work / "run"),
            seed=seed,
            **settings,
        )
        model = run_training(cfg, resume=resume, log=log) / "model.msgpack"
        seen = settings["steps"] * settings["batch"]
        played = 0
        if rounds["rounds"]:
            if not resume:
                shutil.rmtree(work / "rounds", ignore_errors=True)
            model, played = _run_rounds(spec, work, model, rounds, settings, seed, workers, log)
            seen += rounds["rounds"] * rounds["round_steps"] * settings["batch"]
        target = Path(out) / recipe.file
        shutil.copyfile(model, target)
        meta = {
            "system": recipe.name,
            "board": [rows, cols, mines],
            "games": games,
            "first_click": recipe.first_click,
            "first_move": recipe.first_move,
            "positions": directory_totals(work / "data")["positions"],
            "positions_seen": seen,
            **settings,
            **rounds,
            "round_positions": played,
            "seed": seed,
            # A resumed run's seconds are this run's only, not those of the work it resumed.
            "resumed": resume,
            "seconds": round(time.perf_counter() - start, 1),
            "load": [round(v, 2) for v in os.getloadavg()],
            # The weights repeat bit for bit only where these do (docs/seeds.md).
            "environment": environment(),
        }
        write_json(target.with_suffix(".json"), meta)
        return meta


def _run_rounds(
    spec: Any,
    work: Path,
    model: Path,
    rounds: dict[str, Any],
    settings: dict[str, Any],
    seed: int,
    workers: int,
    log,
) -> tuple[Path, int]:
    """On-policy rounds from ``model`` (in ``WORK/rounds``, resumable).

    Returns:
        The last round's model file, and the positions the rounds' games reached.
    """
    from .onpolicy import DaggerConfig, run_rounds
    from .train import MODEL_FILE

    cfg = DaggerConfig(
        out=str(work / "rounds"),
        spec=spec,
        base=[str(work / "data")],
        init=str(model),
        rounds=rounds["rounds"],
        games=rounds["round_games"],
        games_per_shard=250,
        steps=rounds["round_steps"],
        batch=settings["batch"],
        lr=rounds["round_lr"],
        eval_every=settings["eval_every"],
        seed=seed,
    )
    rows = run_rounds(cfg, workers=workers, progress=False, log=log)
    played = sum(row["positions"] for row in rows)
    return cfg.round_dir(cfg.rounds) / "model" / MODEL_FILE, played
