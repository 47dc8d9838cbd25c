"""``mscsp learn ablation``: exact-probability labels against mine labels, learning curves."""

from __future__ import annotations

import json

import click

from .learn import require_ml
from .options import data_dirs_option, exit_interrupted, reports_errors, training_options
from .types import AsciiInt
from .vocabulary import shared_options

shared = shared_options("learn ablation")


@click.command()
@data_dirs_option("Shard directory (repeatable); both runs train on the same positions.")
@shared(
    "--out",
    type=click.Path(file_okay=False),
    required=True,
    help="Ablation directory: runs exact/ and mines/, ablation.json, ablation.png.",
)
@click.option("--model", default="resnet", show_default=True, help="Model config both runs train.")
@training_options("Steps per run (the last point of the curves).", 3e-3, "Peak learning rate.")
@click.option(
    "--points",
    type=AsciiInt(min=1),
    default=6,
    show_default=True,
    help="Points per curve: --steps, --steps/2, --steps/4, ... (log-spaced).",
)
@shared("--preset", more="; the points play its games (default beginner)")
@shared("--games", help="Games per point (the same seeded games for every point).")
@shared("--seed")
@shared("--json")
@reports_errors
def ablation(
    data_dirs: tuple[str, ...],
    out: str,
    model: str,
    steps: int,
    batch: int,
    lr: float,
    eval_every: int,
    points: int,
    preset: str | None,
    games: int,
    seed: int,
    as_json: bool,
) -> None:
    """Train --model on exact probabilities and on mine layouts alike; plot win rate curves.

    Resumable: rerun the same command after an interruption; training resumes from its
    checkpoints and points already played are kept.
    """
    require_ml()
    from learners.nets.ablation import AblationConfig, run_ablation, table

    cfg = AblationConfig(
        data=list(data_dirs),
        out=out,
        model=model,
        steps=steps,
        batch=batch,
        lr=lr,
        eval_every=eval_every,
        points=points,
        preset=preset or "beginner",
        games=games,
        seed=seed,
    )
    log = (lambda line: click.echo(line, err=True)) if as_json else click.echo
    try:
        rows = run_ablation(cfg, log=log)
    except KeyboardInterrupt:
        exit_interrupted(f"{out} resumes with the same command")
    click.echo(json.dumps(rows, indent=1) if as_json else table(rows))
