"""``mscsp play``: win rate of a strategy over many seeded games."""

from __future__ import annotations

import dataclasses
import json
import time

import click
from click.core import ParameterSource

from ..errors import InvalidInputError
from ..evaluation.harness import RunConfig, RunLog, Summary, run
from ..players import PLAYERS
from ..runtime.outlock import output_lock
from .options import board_size, exit_interrupted, reports_errors
from .progress import Progress, wanted
from .types import AsciiInt
from .vocabulary import shared_options

shared = shared_options("play")

#: Player options that became options of their own: ``-o KEY=VALUE`` still sets them for one
#: release, with a warning.
PROMOTED = {"backend": "--backend", "max_solutions": "--max-solutions"}


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


def strategy_options(
    pairs: tuple[str, ...], backend: str | None, max_solutions: int | None
) -> dict[str, object]:
    """The player's options: ``-o KEY=VALUE`` pairs, then ``--backend`` and
    ``--max-solutions``. ``-o backend=`` and ``-o max_solutions=`` still work, with a one-line
    deprecation warning on stderr.

    Raises:
        InvalidInputError: A pair is not ``KEY=VALUE``, or an option is given both ways with
            two values.
    """
    options = parse_options(pairs)
    for key, option in PROMOTED.items():
        if key in options:
            click.echo(
                f"mscsp: warning: -o {key}=... is deprecated; use {option} "
                "(the -o spelling goes in the next release)",
                err=True,
            )
    for key, value in (("backend", backend), ("max_solutions", max_solutions)):
        if value is None:
            continue
        if key in options and options[key] != value:
            given = PROMOTED[key]
            raise InvalidInputError(
                f"{given} {value} and -o {key}={options[key]} disagree; give {given} only"
            )
        options[key] = value
    return options


def format_summary(config: RunConfig, summary: Summary, rate: float | None = None) -> str:
    """A readable table of a run's results (``rate``: games per second of this session)."""
    rows = [
        ("strategy", config.strategy),
        (
            "board",
            f"{config.rows}x{config.cols}, {config.mines} mines"
            + (", no guess needed" if config.no_guess else ""),
        ),
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
    if rate is not None:
        rows.append(("games / s", f"{rate:.3g} (wall clock, this session)"))
    return "\n".join(f"{name:<20} {value}" for name, value in rows)


@click.command()
@click.option(
    "--strategy",
    "-s",
    default="best",
    show_default=True,
    metavar="NAME",
    help=(
        f"Player: {', '.join(PLAYERS)}; a seed paper's learned system (mscsp learn system "
        "--list; csp-dqn and csp-dqn-iter are the paper's 'deep Q' guess: a small net fitted "
        "to Monte-Carlo discounted returns, with no TD target, replay buffer or target "
        "network); or learner:PATH (learner:default: the shipped model)."
    ),
)
@shared("--preset", more=" (default beginner unless --size/--mines)")
@shared("--size")
@shared("--mines")
@click.option("--rows", type=AsciiInt(min=1), hidden=True, help="Deprecated: use --size.")
@click.option("--cols", type=AsciiInt(min=1), hidden=True, help="Deprecated: use --size.")
@shared("--first-click")
@shared("--first-move")
@shared(
    "--no-guess",
    help=(
        "Play boards that need no guess from the first click: game i is the board "
        "'mscsp generate --no-guess' lays from game i's seed, opened at its certificate's "
        "first click (--first-click safe or opening). A player's win rate there checks the "
        "certificates: best wins 100 %. Games are played one by one, never on the compiled "
        "batch engine; their time leaves out laying the board. Recorded in --out; --resume "
        "refuses a log of the other kind."
    ),
)
@shared("--games", "-n", help="Games to play [default: 1000, or the resumed run's count].")
@shared("--seed")
@shared("--workers")
@shared("--executor")
@shared(
    "--out",
    type=click.Path(dir_okay=False),
    help="JSONL log of the run: its settings, then every finished batch of games.",
)
@click.option("--log", type=click.Path(dir_okay=False), hidden=True, help="Deprecated: --out.")
@shared("--resume")
@shared(
    "--overwrite",
    help="Start a new log at --out even if one is there (default: refuse to mix runs).",
)
@click.option(
    "--option",
    "-o",
    "player_options",
    multiple=True,
    metavar="KEY=VALUE",
    help="Player option, e.g. -o heuristic=edge (repeatable; checked before the run).",
)
@shared(
    "--backend",
    help="Counting backend of the strategies that count (best, csp-*, ...; 'mscsp backends' "
    "lists them) [default: the strategy's, dss].",
)
@shared(
    "--max-solutions",
    help="Solutions per component the csp-limited strategy samples [default: its own, 100].",
)
@shared("--progress")
@shared("--json")
@click.pass_context
@reports_errors
def play(
    ctx: click.Context,
    strategy: str,
    preset: str | None,
    size: tuple[int, int] | None,
    mines: int | None,
    rows: int | None,
    cols: int | None,
    first_click: str,
    first_move: str,
    no_guess: bool,
    games: int | None,
    seed: int,
    workers: int,
    executor: str,
    out: str | None,
    log: str | None,
    resume: bool,
    overwrite: bool,
    player_options: tuple[str, ...],
    backend: str | None,
    max_solutions: int | None,
    progress: bool | None,
    as_json: bool,
) -> None:
    """Play seeded games with a strategy and report its win rate.

    The same --seed gives the same games and results whatever --workers. With --out LOG
    every finished batch is logged; after Ctrl-C, the same command with --resume plays only
    the missing games (settings not given come from the log; settings given must match it).
    """
    out = out or log
    if rows is not None or cols is not None:
        if size is not None or rows is None or cols is None:
            raise InvalidInputError("give --size ROWSxCOLS (--rows/--cols are deprecated)")
        size = (rows, cols)
    board = board_size(preset, size, mines)[:3]
    options = strategy_options(player_options, backend, max_solutions)
    if resume and overwrite:
        raise InvalidInputError("give --resume (continue the log) or --overwrite, not both")
    # Held from before a resumed log is read to the end of the run: a second writer is
    # refused before it reads or writes anything (run() then holds it already).
    with output_lock(out, "play log"):
        if resume:
            if out is None:
                raise InvalidInputError("--resume needs the run's log: --out LOG")
            run_log = RunLog(out)
            if not run_log.exists():
                raise InvalidInputError(f"cannot resume: no log at {out}")
            logged, _ = run_log.read()
            if logged is None:
                raise InvalidInputError(f"cannot resume: {out} holds no run header")
            # Settings given on the command line must match the log (run() checks).
            given = {
                name
                for name in ctx.params
                if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE
            }
            overrides = {
                name: value
                for name, value in (
                    ("strategy", strategy),
                    ("first_click", first_click),
                    ("first_move", first_move),
                    ("seed", seed),
                    ("no_guess", no_guess),
                )
                if name in given
            }
            if given & {"preset", "size", "mines", "rows", "cols"}:
                overrides.update(zip(("rows", "cols", "mines"), board, strict=True))
            if options:
                # Options given are checked against the log's; those left out come from it.
                overrides["options"] = {**logged.options, **options}
            config = dataclasses.replace(logged, **overrides)
            games = run_log.planned if games is None else games
        else:
            config = RunConfig(
                strategy,
                *board,
                first_click=first_click,
                first_move=first_move,
                seed=seed,
                options=options,
                no_guess=no_guess,
            )
        games = 1000 if games is None else games
        bar = Progress(games, "games", "playing", wanted(progress, as_json))
        began = time.monotonic()
        played = 0

        def on_start(done: int, todo: int) -> None:
            bar.set_total(done + todo)
            bar.skip(done)

        def on_batch(batch, summary: Summary) -> None:
            nonlocal played
            played += len(batch)
            bar.advance(len(batch), note=f"win rate {100 * summary.win_rate:.1f} %")

        try:
            with bar:
                summary = run(
                    config,
                    games,
                    workers=workers,
                    executor=executor,
                    log=out,
                    resume=resume,
                    new_log=overwrite,
                    on_batch=on_batch,
                    on_start=on_start,
                    on_compile=lambda: click.echo(
                        "compiling the game engine, once per install (about a minute); "
                        "later runs start at once",
                        err=True,
                    ),
                )
        except KeyboardInterrupt:
            exit_interrupted(
                f"finished games are in {out} (add --resume to continue)" if out else ""
            )
        elapsed = time.monotonic() - began
        rate = played / elapsed if played and elapsed > 0 else None
        if as_json:
            click.echo(
                json.dumps({"config": config.__dict__, **summary.to_dict(), "games_per_s": rate})
            )
        else:
            click.echo(format_summary(config, summary, rate))
