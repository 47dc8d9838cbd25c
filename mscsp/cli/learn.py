"""``mscsp learn``: generate labelled positions, train and evaluate learners.

Thin wrappers: the ``learners`` package (JAX, Flax) is imported inside each command, so
``import mscsp`` and ``mscsp --help`` never load JAX.
"""

from __future__ import annotations

import json
import sys

import click

from ..errors import BackendUnavailableError, InvalidInputError
from ..game import PRESETS, Game
from ..game import first_move as pick_first_move
from .options import (
    AsciiInt,
    backend_option,
    board_size,
    data_dirs_option,
    executor_option,
    exit_interrupted,
    first_click_option,
    first_move_option,
    games_per_shard_option,
    mines_option,
    preset_option,
    reports_errors,
    seed_option,
    size_option,
    training_options,
    workers_option,
)

PRESET_NAMES = tuple(PRESETS)


@click.group()
def learn() -> None:
    """Learners trained on exact CSP probabilities (needs the 'ml' extra)."""


def require_ml() -> None:
    """Fails with the extra to install when JAX or Flax is missing."""
    try:
        import flax  # noqa: F401
        import jax  # noqa: F401
    except ImportError as exc:
        raise BackendUnavailableError(
            f"mscsp learn needs the 'ml' extra: pip install 'mscsp[ml]' ({exc})"
        ) from None


@learn.command()
@click.argument("out_dir", required=False, type=click.Path(file_okay=False))
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Shard directory (resumable: its data.json records the settings).",
)
@preset_option(" (or give --size and --mines)")
@size_option
@mines_option()
@first_click_option()
@first_move_option
@click.option("--rule", type=click.Choice(["safe", "opening", "any"]), hidden=True)
@click.option(
    "--games",
    type=AsciiInt(min=1),
    default=1000,
    show_default=True,
    help="Games to play (game i uses seed SEED+i); a rerun with more extends the directory.",
)
@games_per_shard_option(100)
@workers_option()
@executor_option
@seed_option
@backend_option()
@reports_errors
def data(
    out_dir: str | None,
    out: str | None,
    preset: str | None,
    size: tuple[int, int] | None,
    mines: int | None,
    first_click: str,
    first_move: str,
    rule: str | None,
    games: int,
    games_per_shard: int,
    workers: int,
    executor: str,
    seed: int,
    backend: str,
) -> None:
    """Play CSP games and write their positions with exact labels to --out DIR.

    Resumable: rerun the same command after an interruption and only missing shards are
    played. A directory holding shards of other settings is refused.
    """
    if out_dir and out and out_dir != out:
        raise InvalidInputError("give the shard directory once: --out DIR")
    out = out or out_dir
    if out is None:
        raise click.UsageError("give the shard directory: --out DIR")
    first_click = rule or first_click
    rows, cols, mines, preset = board_size(preset, size, mines, default=None)
    require_ml()
    from learners.nets.data import GenSpec, directory_totals, generate

    spec = GenSpec(rows, cols, mines, first_click=first_click, first_move=first_move, preset=preset)
    Game(rows, cols, mines, first_click=first_click)  # refuses a board that cannot be played
    pick_first_move(first_move, rows, cols)  # refuses a first move off the board
    try:
        generate(
            out,
            spec,
            games,
            games_per_shard=games_per_shard,
            seed=seed,
            workers=workers,
            backend=backend,
            progress=sys.stderr.isatty(),
            executor=executor,
        )
    except KeyboardInterrupt:
        exit_interrupted(f"finished shards are in {out} (run the same command to resume)")
    totals = directory_totals(out)
    click.echo(
        f"{out} holds {totals['shards']} shards, {totals['games']} games, "
        f"{totals['positions']} positions"
    )


@learn.command()
@click.option(
    "--model",
    default="resnet",
    show_default=True,
    help="Model config: resnet, cnn-seed, mlp-window, mlp-board, logistic, and the seed "
    "systems' thesis-mlp, blog-mlp, alexnet (all: learners/nets/models.py).",
)
@data_dirs_option("Shard directory (repeatable).")
@click.option("--out", default=None, help="Run directory (default runs/MODEL-LABELS).")
@click.option(
    "--labels",
    type=click.Choice(["exact", "mines"]),
    default="exact",
    show_default=True,
    help="Targets: exact CSP probabilities or the mine layout.",
)
@click.option(
    "--cells",
    type=click.Choice(["all", "frontier"]),
    default="all",
    show_default=True,
    help="Loss on every covered cell, or on the frontier only (covered cells next to a "
    "revealed number, as seed 000 trained).",
)
@training_options(
    "Training steps in all (a resumed run may be given more).",
    3e-3,
    "Peak learning rate (warm-up, then cosine decay).",
)
@click.option(
    "--curriculum",
    "curriculum",
    multiple=True,
    metavar="STEP:ROWSxCOLS,...",
    help="A size curriculum stage (repeatable): from step STEP on, batches come from these "
    "board sizes of the data only, e.g. --curriculum 0:9x9 --curriculum 4000:9x9,16x16,16x30. "
    "Default: every size all along.",
)
@click.option(
    "--fresh", is_flag=True, help="Start the run directory over instead of resuming its state."
)
@workers_option("Processes computing the model's extra inputs once")
@seed_option
@reports_errors
def train(
    model: str,
    data_dirs: tuple[str, ...],
    out: str | None,
    labels: str,
    cells: str,
    steps: int,
    batch: int,
    lr: float,
    eval_every: int,
    curriculum: tuple[str, ...],
    fresh: bool,
    workers: int,
    seed: int,
) -> None:
    """Train a model; resumes from the run directory's saved state unless --fresh.

    A run directory saved with another model or other settings is refused before anything
    is written. Progress (loss, steps/s, ETA) is printed every 50 steps.
    """
    require_ml()
    from learners.nets.models import CONFIGS
    from learners.nets.train import TrainConfig
    from learners.nets.train import train as run

    if model not in CONFIGS:
        raise click.BadParameter(f"choose from {', '.join(CONFIGS)}", param_hint="--model")
    cfg = TrainConfig(
        model=model,
        data=list(data_dirs),
        out=out or f"runs/{model}-{labels}",
        labels=labels,
        cells=cells,
        steps=steps,
        batch=batch,
        lr=lr,
        eval_every=eval_every,
        curriculum=list(curriculum),
        workers=workers,
        seed=seed,
    )
    try:
        click.echo(f"run directory: {run(cfg, resume=not fresh, log=click.echo)}")
    except KeyboardInterrupt:
        exit_interrupted(
            f"{cfg.out} resumes from its last checkpoint with the same command (without --fresh)"
        )


@learn.command("eval")
@click.argument("checkpoint")
@data_dirs_option(
    "Shard directory for accuracy vs the exact solver (held-out games).", required=False
)
@click.option(
    "--preset",
    "presets",
    multiple=True,
    type=click.Choice(PRESET_NAMES),
    help="Preset to play (repeatable; default all three).",
)
@click.option(
    "--games",
    type=AsciiInt(min=0),
    default=200,
    show_default=True,
    help="Games to play per preset (0: accuracy only).",
)
@click.option("--csp", is_flag=True, help="Also play csp-minprob on the same games.")
@click.option("--lockstep", is_flag=True, help="Also time all games played in lockstep.")
@click.option(
    "--out",
    "out_json",
    default=None,
    type=click.Path(dir_okay=False),
    help="Also write the JSON report to this file.",
)
@click.option(
    "--plots",
    default=None,
    type=click.Path(file_okay=False),
    help="Directory for the reliability diagram PNG.",
)
@reports_errors
def evaluate(
    checkpoint: str,
    data_dirs: tuple[str, ...],
    presets: tuple[str, ...],
    games: int,
    csp: bool,
    lockstep: bool,
    out_json: str | None,
    plots: str | None,
) -> None:
    """Evaluate CHECKPOINT (model file, run directory or 'default'); prints JSON."""
    require_ml()
    from learners.nets.evaluate import evaluate_checkpoint

    report = evaluate_checkpoint(
        checkpoint,
        data_dirs=list(data_dirs),
        presets=list(presets or PRESET_NAMES),
        games=games,
        csp=csp,
        lockstep=lockstep,
        plots=plots,
    )
    text = json.dumps(report, indent=2)
    if out_json:
        with open(out_json, "w") as handle:
            handle.write(text)
    click.echo(text)
