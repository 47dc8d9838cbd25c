"""``mscsp learn sweep``: several model configs trained and evaluated alike, one table."""

from __future__ import annotations

import json

import click

from .learn import require_ml
from .options import data_dirs_option, reports_errors, training_options
from .vocabulary import shared_options

shared = shared_options("learn sweep")


@click.command()
@click.option(
    "--model",
    "models",
    multiple=True,
    required=True,
    help="Model config to train (repeatable), e.g. resnet, resnet-plus, resnet-w32.",
)
@data_dirs_option("Shard directory (repeatable); its held-out games give the accuracy columns.")
@shared(
    "--out",
    type=click.Path(file_okay=False),
    required=True,
    help="Sweep directory: one run per config, sweep.md, sweep.json, curves.png.",
)
@training_options("Steps per run.", 3e-3, "Peak learning rate.")
@shared("--preset", "presets", help="Preset to play with each model (repeatable).")
@shared("--games", help="Games per preset (0: accuracy only).")
@shared("--seed")
@shared("--json")
@reports_errors
def sweep(
    models: tuple[str, ...],
    data_dirs: tuple[str, ...],
    out: str,
    steps: int,
    batch: int,
    lr: float,
    eval_every: int,
    presets: tuple[str, ...],
    games: int,
    seed: int,
    as_json: bool,
) -> None:
    """Train every --model on the same data with the same budget and tabulate them.

    Resumable: rerun the same command after an interruption; runs and evaluations already
    done are kept, and a rerun with more --model values only adds the new ones.
    """
    require_ml()
    from learners.nets.sweep import run_sweep

    log = (lambda line: click.echo(line, err=True)) if as_json else click.echo
    rows = run_sweep(
        models,
        data_dirs,
        out,
        steps=steps,
        batch=batch,
        lr=lr,
        eval_every=eval_every,
        seed=seed,
        presets=presets,
        games=games,
        log=log,
    )
    if as_json:
        click.echo(json.dumps(rows, indent=1))
    else:
        from learners.nets.sweep import table

        click.echo(table(rows))
