"""``mscsp play``: win rate of a strategy over many seeded games."""

from __future__ import annotations

import json
import sys

import click

from ..errors import InvalidInputError
from ..game import PRESETS, FirstClick
from ..harness import EXECUTORS, RunConfig, RunLog, Summary, run
from ..players import PLAYERS
from .options import EXIT_INTERRUPTED, json_option, reports_errors, seed_option


def parse_options(pairs: tuple[str, ...]) -> dict[str, object]:
    """``KEY=VALUE`` player options; values are read as JSON when they parse, else strings."""
    options: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InvalidInputError(f"player option {pair!r}: expected KEY=VALUE")
        try:
            options[key.replace("-", "_")] = json.loads(value)
        except json.JSONDecodeError:
            options[key.replace("-", "_")] = value
    return options


def format_summary(config: RunConfig, summary: Summary) -> str:
    """A readable table of a run's results."""
    rows = [
        ("strategy", config.strategy),
        ("board", f"{config.rows}x{config.cols}, {config.mines} mines"),
        ("first click", f"{config.first_click}, first move {config.first_move}"),
        ("games", f"{summary.games}"),
        ("wins", f"{summary.wins}"),
        (
            "win rate",
            f"{100 * summary.win_rate:.2f} %  "
            f"(95 % CI {100 * summary.ci_low:.2f} - {100 * summary.ci_high:.2f})",
        ),
        ("safe cells cleared", f"{100 * summary.cleared:.1f} %"),
        ("moves / game", f"{summary.moves:.1f}"),
        ("guesses / game", f"{summary.guesses:.2f}"),
        ("time / game", f"{1000 * summary.seconds_per_game:.1f} ms"),
    ]
    return "\n".join(f"{name:<20} {value}" for name, value in rows)


@click.command()
@click.option(
    "--strategy",
    "-s",
    default="best",
    show_default=True,
    help=f"Player: {', '.join(PLAYERS)}, or learner:PATH.",
)
@click.option(
    "--preset",
    type=click.Choice(list(PRESETS)),
    default=None,
    help="Board preset (default beginner unless --rows/--cols/--mines).",
)
@click.option("--rows", type=click.IntRange(min=1), default=None, help="Custom board rows.")
@click.option("--cols", type=click.IntRange(min=1), default=None, help="Custom board columns.")
@click.option("--mines", type=click.IntRange(min=0), default=None, help="Custom mine count.")
@click.option(
    "--first-click",
    type=click.Choice([f.value for f in FirstClick]),
    default="safe",
    show_default=True,
    help="Guarantee of the first click: safe cell, an opening, or none.",
)
@click.option(
    "--first-move",
    default="corner",
    show_default=True,
    help="First click: corner, center, random or ROW,COL.",
)
@click.option(
    "--games",
    "-n",
    type=click.IntRange(min=0),
    default=None,
    help="Games to play [default: 1000, or the resumed run's count].",
)
@seed_option
@click.option(
    "--workers",
    "-w",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Parallel worker processes.",
)
@click.option(
    "--executor",
    type=click.Choice(EXECUTORS),
    default="process",
    show_default=True,
    help="Local processes, or Ray (pip install 'mscsp[ray]').",
)
@click.option(
    "--log",
    "log_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Append results to this JSONL log, batch by batch.",
)
@click.option(
    "--resume",
    "resume_path",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="Continue the interrupted run recorded in this log.",
)
@click.option(
    "--option",
    "-o",
    "player_options",
    multiple=True,
    metavar="KEY=VALUE",
    help="Player option, e.g. -o max_solutions=50 (repeatable).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Progress bar on stderr (default: when stderr is a terminal).",
)
@json_option
@reports_errors
def play(
    strategy: str,
    preset: str | None,
    rows: int | None,
    cols: int | None,
    mines: int | None,
    first_click: str,
    first_move: str,
    games: int,
    seed: int,
    workers: int,
    executor: str,
    log_path: str | None,
    resume_path: str | None,
    player_options: tuple[str, ...],
    progress: bool | None,
    as_json: bool,
) -> None:
    """Plays GAMES seeded games with a strategy and reports its win rate.

    The same --seed gives the same games and results whatever --workers. With --resume LOG
    the run recorded in LOG continues (its settings come from the log). Ctrl-C stops
    cleanly: finished batches are in the log.
    """
    if resume_path is not None:
        resumed = RunLog(resume_path)
        config, _ = resumed.read()
        if config is None:
            raise InvalidInputError(f"{resume_path} holds no run header")
        log_path = resume_path
        games = resumed.planned if games is None else games
    else:
        config = RunConfig(
            strategy,
            *_board(preset, rows, cols, mines),
            first_click=first_click,
            first_move=first_move,
            seed=seed,
            options=parse_options(player_options),
        )
    games = 1000 if games is None else games
    show = sys.stderr.isatty() if progress is None else progress
    bar = click.progressbar(length=games, label="playing", file=sys.stderr) if show else None

    def on_batch(batch, summary: Summary) -> None:
        if bar is not None:
            bar.label = f"win rate {100 * summary.win_rate:5.1f} %"
            bar.update(len(batch))

    try:
        if bar is not None:
            bar.__enter__()
        summary = run(
            config,
            games,
            workers=workers,
            executor=executor,
            log=log_path,
            resume=resume_path is not None,
            on_batch=on_batch,
        )
    except KeyboardInterrupt:
        if bar is not None:
            bar.__exit__(None, None, None)
        where = f"; finished games are in {log_path} (--resume it)" if log_path else ""
        click.echo(f"mscsp: interrupted{where}", err=True)
        sys.exit(EXIT_INTERRUPTED)
    if bar is not None:
        bar.__exit__(None, None, None)
    if as_json:
        click.echo(json.dumps({"config": config.__dict__, **summary.to_dict()}))
    else:
        click.echo(format_summary(config, summary))


def _board(
    preset: str | None, rows: int | None, cols: int | None, mines: int | None
) -> tuple[int, int, int]:
    custom = (rows, cols, mines)
    if preset is not None:
        if any(v is not None for v in custom):
            raise InvalidInputError("give either --preset or --rows/--cols/--mines, not both")
        return PRESETS[preset]
    if all(v is None for v in custom):
        return PRESETS["beginner"]
    if any(v is None for v in custom):
        raise InvalidInputError("a custom board needs all of --rows, --cols and --mines")
    return rows, cols, mines
