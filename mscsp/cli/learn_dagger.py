"""``mscsp learn dagger``: rounds of on-policy data labelled by the exact solver, then training."""

from __future__ import annotations

import json

import click

from ..game import Game
from ..game import first_move as pick_first_move
from .learn import require_ml
from .options import (
    board_size,
    data_dirs_option,
    exit_interrupted,
    games_per_shard_option,
    reports_errors,
    training_options,
)
from .progress import wanted
from .types import AsciiFloat, AsciiInt
from .vocabulary import shared_options

shared = shared_options("learn dagger")


@click.command()
@shared(
    "--out",
    type=click.Path(file_okay=False),
    required=True,
    help="Run directory (resumable: its dagger.json records the settings).",
)
@data_dirs_option(
    "CSP shard directory every round also trains on (repeatable).", required=False, dest="base"
)
@click.option(
    "--init",
    default="default",
    show_default=True,
    help="Checkpoint of round 1's policy and starting weights ('default': the shipped model).",
)
@shared("--preset", more=" (default beginner unless --size/--mines)")
@shared("--size")
@shared("--mines")
@shared("--first-click")
@shared("--first-move")
@click.option(
    "--rounds",
    type=AsciiInt(min=1),
    default=1,
    show_default=True,
    help="Rounds in all (a rerun may add more).",
)
@shared("--games", help="Games played per round.")
@games_per_shard_option(50)
@click.option(
    "--beta",
    type=AsciiFloat(0.0, 1.0),
    default=0.5,
    show_default=True,
    help="Share of turns played by the exact player in round 1 (0: the learner alone).",
)
@click.option(
    "--beta-decay",
    type=AsciiFloat(0.0, 1.0),
    default=0.5,
    show_default=True,
    help="Round k uses beta * decay^(k-1).",
)
@click.option(
    "--weight-boost",
    type=AsciiInt(0, 250),
    default=4,
    show_default=True,
    help="Extra loss weight of decisive cells (0: every covered cell weighs the same).",
)
@training_options("Training steps per round.", 1e-3, "Peak learning rate of each round.")
@click.option(
    "--eval-games",
    type=AsciiInt(min=0),
    default=0,
    show_default=True,
    help="Games to play with each round's model on the preset (0, or a custom board: none).",
)
@shared("--workers")
@shared("--executor")
@shared("--seed")
@shared("--backend")
@shared("--progress")
@shared("--json")
@reports_errors
def dagger(
    out: str,
    base: tuple[str, ...],
    init: str,
    preset: str | None,
    size: tuple[int, int] | None,
    mines: int | None,
    first_click: str,
    first_move: str,
    rounds: int,
    games: int,
    games_per_shard: int,
    beta: float,
    beta_decay: float,
    weight_boost: int,
    steps: int,
    batch: int,
    lr: float,
    eval_every: int,
    eval_games: int,
    workers: int,
    executor: str,
    seed: int,
    backend: str,
    progress: bool | None,
    as_json: bool,
) -> None:
    """On-policy rounds: the learner plays, mscsp.solve labels what it reaches, it trains on.

    Each round plays --games games with the latest model (the exact player takes a turn
    with probability beta), writes their positions with exact labels and cell weights, and
    trains the model further on --data plus every round so far. Rerun the same command to
    resume after an interruption, or with more --rounds to go on.
    """
    rows, cols, mines, preset = board_size(preset, size, mines)
    Game(rows, cols, mines, first_click=first_click)  # refuses a board that cannot be played
    pick_first_move(first_move, rows, cols)  # refuses a first move off the board
    require_ml()
    from learners.nets.data import GenSpec
    from learners.nets.onpolicy import DaggerConfig, run_rounds

    cfg = DaggerConfig(
        out=out,
        spec=GenSpec(
            rows, cols, mines, first_click=first_click, first_move=first_move, preset=preset
        ),
        base=list(base),
        init=init,
        rounds=rounds,
        games=games,
        games_per_shard=games_per_shard,
        beta=beta,
        beta_decay=beta_decay,
        weight_boost=weight_boost,
        steps=steps,
        batch=batch,
        lr=lr,
        eval_every=eval_every,
        eval_games=eval_games,
        seed=seed,
        backend=backend,
    )
    log = (lambda line: click.echo(line, err=True)) if as_json else click.echo
    try:
        table = run_rounds(
            cfg, workers=workers, executor=executor, progress=wanted(progress, as_json), log=log
        )
    except KeyboardInterrupt:
        exit_interrupted(f"{out} resumes where it stopped with the same command")
    if as_json:
        click.echo(json.dumps(table, indent=1))
        return
    for row in table:
        win = ""
        if "eval" in row:
            e = row["eval"]
            lo, hi = (100 * v for v in e["ci95"])
            win = f"  win {100 * e['win_rate']:.1f} % [{lo:.1f}, {hi:.1f}] (n={e['games']})"
        click.echo(
            f"round {row['round']}: beta {row['beta']:g}, {row['positions']} positions, "
            f"val log-loss {row['val']['logloss_exact']:.4f}, MAE {row['val']['mae']:.4f}{win}"
        )
    click.echo(f"rounds: {out}/rounds.json, {out}/rounds.png")
