"""``mscsp learn``: generate labelled positions, train and evaluate learners.

Thin wrappers: the ``learners`` package (JAX, Flax) is imported inside each command, so
``import mscsp`` and ``mscsp --help`` never load JAX.
"""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any

import click

from ..display.table import format_table, plural
from ..errors import BackendUnavailableError, InvalidInputError
from ..game import PRESETS, Game
from ..game import first_move as pick_first_move
from .options import (
    board_size,
    data_dirs_option,
    exit_interrupted,
    games_per_shard_option,
    reports_errors,
    training_options,
)
from .progress import Progress, wanted
from .vocabulary import shared_options

PRESET_NAMES = tuple(PRESETS)

#: Steps the loss shown on ``learn train``'s bar is averaged over (its log lines' too).
LOSS_WINDOW = 50


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


data_shared = shared_options("learn data")


@learn.command()
@click.argument("out_dir", required=False, type=click.Path(file_okay=False))
@data_shared(
    "--out",
    type=click.Path(file_okay=False),
    help="Shard directory (resumable: its data.json records the settings).",
)
@data_shared("--preset", more=" (or give --size and --mines)")
@data_shared("--size")
@data_shared("--mines")
@data_shared("--first-click")
@data_shared("--first-move")
@click.option("--rule", type=click.Choice(["safe", "opening", "any"]), hidden=True)
@data_shared(
    "--games",
    help="Games to play (game i uses seed SEED+i); a rerun with more extends the directory.",
)
@games_per_shard_option(100)
@data_shared("--workers")
@data_shared("--executor")
@data_shared("--seed")
@data_shared("--backend")
@data_shared("--progress")
@data_shared("--json")
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
    progress: bool | None,
    as_json: bool,
) -> None:
    """Play CSP games and write their positions with exact labels to --out DIR.

    Resumable: rerun the same command after an interruption and only missing shards are
    played. A directory holding shards of other settings is refused. The bar counts games
    and shows positions/s.
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
    bar = Progress(games, "games", "playing", wanted(progress, as_json), rate_unit="positions")

    def on_plan(done: int, todo: int) -> None:
        bar.set_total(done + todo)
        bar.skip(done)

    try:
        with bar:
            generate(
                out,
                spec,
                games,
                games_per_shard=games_per_shard,
                seed=seed,
                workers=workers,
                backend=backend,
                progress=False,
                executor=executor,
                on_plan=on_plan,
                on_shard=lambda played, positions: bar.advance(played, count=positions),
            )
    except KeyboardInterrupt:
        exit_interrupted(f"finished shards are in {out} (run the same command to resume)")
    totals = directory_totals(out)
    if as_json:
        click.echo(json.dumps({"out": out, **totals}))
        return
    click.echo(
        f"{out} holds {plural(totals['shards'], 'shard')}, {plural(totals['games'], 'game')}, "
        f"{plural(totals['positions'], 'position')}"
    )


train_shared = shared_options("learn train")


@learn.command()
@click.option(
    "--model",
    default="resnet",
    show_default=True,
    help="Model config: resnet, cnn-seed, mlp-window, mlp-board, logistic, and the seed "
    "systems' thesis-mlp, blog-mlp, alexnet (all: learners/nets/models.py).",
)
@data_dirs_option("Shard directory (repeatable).")
@train_shared(
    "--out", type=click.Path(file_okay=False), help="Run directory [default: runs/MODEL-LABELS]."
)
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
    "--fresh",
    is_flag=True,
    default=False,
    help="Start the run directory over instead of resuming its state.",
)
@train_shared(
    "--workers",
    help="Processes computing the model's extra inputs once (0: one per CPU); results do not "
    "depend on it.",
)
@train_shared("--seed")
@train_shared("--progress")
@train_shared("--json")
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
    progress: bool | None,
    as_json: bool,
) -> None:
    """Train a model; resumes from the run directory's saved state unless --fresh.

    A run directory saved with another model or other settings is refused before anything
    is written. The bar shows steps/s and the loss; a line every 50 steps records them
    (on stderr with --json, which prints the run's last metrics).
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
    bar = Progress(steps, "steps", "training", wanted(progress, as_json))
    losses: deque[float] = deque(maxlen=LOSS_WINDOW)

    def on_step(step: int, loss: float) -> None:
        if not bar.counted and not bar.done:
            bar.skip(step - 1)  # a resumed run starts where it stopped
        losses.append(loss)
        bar.advance(note=f"loss {sum(losses) / len(losses):.4g}")

    def log(line: str) -> None:
        if as_json:
            click.echo(line, err=True)
        else:
            bar.echo(line)

    try:
        with bar:
            out_dir = run(cfg, resume=not fresh, log=log, on_step=on_step)
    except KeyboardInterrupt:
        exit_interrupted(
            f"{cfg.out} resumes from its last checkpoint with the same command (without --fresh)"
        )
    if as_json:
        click.echo(json.dumps({"run": str(out_dir), "steps": steps, **last_metrics(out_dir)}))
    else:
        click.echo(f"run directory: {out_dir}")
        click.echo(
            f"play it: mscsp play -s learner:{out_dir}; measure it: mscsp learn eval {out_dir}"
        )


def last_metrics(run_dir: str | Path) -> dict[str, Any]:
    """The last ``train`` and ``val`` rows of a run's ``metrics.jsonl`` (``None`` if none)."""
    last: dict[str, Any] = {"train": None, "val": None}
    path = Path(run_dir) / "metrics.jsonl"
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by an interruption
            if isinstance(row, dict) and row.get("split") in last:
                last[row["split"]] = row
    return last


eval_shared = shared_options("learn eval")


@learn.command("eval")
@click.argument("checkpoint")
@data_dirs_option(
    "Shard directory for accuracy vs the exact solver (held-out games).", required=False
)
@eval_shared("--preset", "presets", help="Preset to play (repeatable; default all three).")
@eval_shared("--games", help="Games to play per preset (0: accuracy only).")
@click.option("--csp", is_flag=True, default=False, help="Also play csp-minprob on the same games.")
@click.option(
    "--lockstep", is_flag=True, default=False, help="Also time all games played in lockstep."
)
@eval_shared(
    "--out",
    "out_json",
    type=click.Path(dir_okay=False),
    help="Also write the JSON report to this file.",
)
@click.option(
    "--plots",
    default=None,
    type=click.Path(file_okay=False),
    help="Directory for the reliability diagram PNG.",
)
@eval_shared("--seed", help="Seed of the first game of each preset (held out from training).")
@eval_shared("--json")
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
    seed: int,
    as_json: bool,
) -> None:
    """Evaluate CHECKPOINT (model file, run directory or 'default'): accuracy against the
    exact probabilities on --data's held-out games, and win rates; a summary, or --json."""
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
        seed=seed,
    )
    text = json.dumps(report, indent=2)
    if out_json:
        try:
            Path(out_json).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InvalidInputError(f"cannot write {out_json}: {exc.strerror}") from None
    click.echo(text if as_json else eval_summary(report))


def _pct(value: Any) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _num(value: Any, form: str = ".4f") -> str:
    return "-" if value is None else format(value, form)


def eval_summary(report: dict[str, Any]) -> str:
    """``learn eval``'s report for people: accuracy per board size, then win rates."""
    lines = [f"checkpoint: {report['checkpoint']}"]
    accuracy = report.get("accuracy") or {}
    if accuracy:
        header = ("size", "positions", "mean |dp|", "brier", "log loss", "chose safest %")
        rows = [
            (
                size,
                row["positions"],
                _num(row.get("mean_abs_diff")),
                _num(row.get("brier")),
                _num(row.get("log_loss")),
                _pct(row.get("chosen_safest")),
            )
            for size, row in accuracy.items()
        ]
        lines += ["", "accuracy on held-out positions, against the exact probabilities", ""]
        lines.append(format_table(header, rows))
    games = report.get("games") or {}
    if games:
        header = ("preset", "player", "games", "win %", "95 % CI", "ms / game")
        rows = [
            (
                preset,
                player,
                result["games"],
                _pct(result["win_rate"]),
                f"{_pct(result['ci95'][0])}-{_pct(result['ci95'][1])}",
                _num(1000 * result["sec_per_game"], ".1f"),
            )
            for preset, players in games.items()
            for player, result in players.items()
        ]
        lines += ["", "win rates", "", format_table(header, rows)]
    if not accuracy and not games:
        lines.append("nothing measured: give --data for accuracy, or --games > 0")
    return "\n".join(lines)
