"""``mscsp learn``: generate labelled positions, train and evaluate learners.

Thin wrappers: the ``learners`` package (JAX, Flax) is imported inside each command, so
``import mscsp`` and ``mscsp --help`` never load JAX.
"""

from __future__ import annotations

import json

import click

from ..errors import BackendUnavailableError
from .options import backend_option, reports_errors, seed_option

PRESET_NAMES = ("beginner", "intermediate", "expert")


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
@click.argument("out_dir", type=click.Path(file_okay=False))
@click.option(
    "--preset",
    type=click.Choice(PRESET_NAMES),
    default=None,
    help="Board preset (or give --size and --mines).",
)
@click.option("--size", default=None, metavar="ROWSxCOLS", help="Custom board size, e.g. 12x20.")
@click.option("--mines", type=click.IntRange(min=0), default=None, help="Custom mine count.")
@click.option(
    "--rule",
    type=click.Choice(["safe", "opening", "any"]),
    default="safe",
    show_default=True,
    help="First-click rule.",
)
@click.option("--games", type=click.IntRange(min=1), default=1000, show_default=True)
@click.option("--games-per-shard", type=click.IntRange(min=1), default=100, show_default=True)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: CPU count).",
)
@seed_option
@backend_option()
@reports_errors
def data(
    out_dir: str,
    preset: str | None,
    size: str | None,
    mines: int | None,
    rule: str,
    games: int,
    games_per_shard: int,
    workers: int | None,
    seed: int,
    backend: str,
) -> None:
    """Play CSP games and write their positions with exact labels to OUT_DIR (resumable)."""
    require_ml()
    from learners.data import GenSpec, generate, read_meta

    if preset:
        spec = GenSpec.from_preset(preset, first_click=rule)
    elif size and mines is not None:
        rows, cols = (int(v) for v in size.lower().split("x"))
        spec = GenSpec(rows, cols, mines, first_click=rule)
    else:
        raise click.UsageError("give --preset, or --size and --mines")
    paths = generate(
        out_dir,
        spec,
        games,
        games_per_shard=games_per_shard,
        seed=seed,
        workers=workers,
        backend=backend,
    )
    positions = sum(read_meta(p)["positions"] for p in paths)
    click.echo(f"{len(paths)} shards, {games} games, {positions} positions in {out_dir}")


@learn.command()
@click.option(
    "--model",
    default="resnet",
    show_default=True,
    help="Model config: resnet, cnn-seed, mlp-window, mlp-board, logistic.",
)
@click.option(
    "--data",
    "data_dirs",
    multiple=True,
    required=True,
    type=click.Path(exists=True, file_okay=False),
    help="Shard directory (repeatable).",
)
@click.option("--out", default=None, help="Run directory (default runs/MODEL-LABELS).")
@click.option(
    "--labels",
    type=click.Choice(["exact", "mines"]),
    default="exact",
    show_default=True,
    help="Targets: exact CSP probabilities or the mine layout.",
)
@click.option("--steps", type=click.IntRange(min=1), default=2000, show_default=True)
@click.option("--batch", type=click.IntRange(min=1), default=64, show_default=True)
@click.option("--lr", type=float, default=3e-3, show_default=True)
@click.option("--eval-every", type=click.IntRange(min=1), default=250, show_default=True)
@click.option("--fresh", is_flag=True, help="Ignore a saved train state instead of resuming.")
@seed_option
@reports_errors
def train(
    model: str,
    data_dirs: tuple[str, ...],
    out: str | None,
    labels: str,
    steps: int,
    batch: int,
    lr: float,
    eval_every: int,
    fresh: bool,
    seed: int,
) -> None:
    """Train a model; resumes from the run directory's saved state unless --fresh."""
    require_ml()
    from learners.models import CONFIGS
    from learners.train import TrainConfig
    from learners.train import train as run

    if model not in CONFIGS:
        raise click.BadParameter(f"choose from {', '.join(CONFIGS)}", param_hint="--model")
    cfg = TrainConfig(
        model=model,
        data=list(data_dirs),
        out=out or f"runs/{model}-{labels}",
        labels=labels,
        steps=steps,
        batch=batch,
        lr=lr,
        eval_every=eval_every,
        seed=seed,
    )
    click.echo(f"run directory: {run(cfg, resume=not fresh, log=click.echo)}")


@learn.command("eval")
@click.argument("checkpoint")
@click.option(
    "--data",
    "data_dirs",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="Shard directory for accuracy vs the exact solver (held-out games).",
)
@click.option(
    "--preset",
    "presets",
    multiple=True,
    type=click.Choice(PRESET_NAMES),
    help="Preset to play (repeatable; default all three).",
)
@click.option("--games", type=click.IntRange(min=0), default=200, show_default=True)
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
    from learners.evaluate import evaluate_checkpoint

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
