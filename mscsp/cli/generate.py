"""``mscsp generate --no-guess``: boards that need no guess, each with its certificate, as a
boards file that ``mscsp verify`` checks (``mscsp play --no-guess`` plays such boards, laid
from each game's seed)."""

from __future__ import annotations

import json
import os
import time
from typing import IO, Any

import click

from ..errors import InvalidInputError
from ..noguess.certificate import MAX_STEP_NUMBERS
from ..noguess.generate import Generated, Generator, Settings, Tally, header
from ..runtime.outlock import output_lock
from ..trust.files import open_output
from .options import board_size, reports_errors
from .progress import Progress, wanted
from .types import AsciiInt
from .vocabulary import shared_options

shared = shared_options("generate")

#: Most boards one command lays: a typo must not start a day-long run.
MAX_BOARDS = 1_000_000


@click.command()
@shared(
    "--no-guess",
    help="Lay boards that need no guess from the first click (the only kind for now; required).",
)
@shared("--preset", more=" (default beginner, unless --size)")
@shared("--size")
@shared("--mines")
@shared("--first-click")
@shared("--first-move")
@click.option(
    "--count",
    "-n",
    type=AsciiInt(min=1, max=MAX_BOARDS),
    default=10,
    show_default=True,
    help="Boards to lay.",
)
@shared("--seed")
@click.option(
    "--min-3bv",
    type=AsciiInt(min=0),
    default=0,
    show_default=True,
    help="Fewest clicks a board may need (its 3BV).",
)
@click.option(
    "--max-3bv",
    type=AsciiInt(min=0),
    default=None,
    help="Most clicks a board may need (its 3BV); no bound by default.",
)
@click.option(
    "--max-total-steps",
    type=AsciiInt(min=0),
    default=None,
    help="Most steps of a certificate that may need the mine total (0: none); no bound by default.",
)
@click.option(
    "--max-step-numbers",
    type=AsciiInt(min=1, max=MAX_STEP_NUMBERS),
    default=MAX_STEP_NUMBERS,
    show_default=True,
    help="Most numbers one step may cite (the hardest step's size; 1: one number at a time).",
)
@click.option(
    "--max-tries",
    type=AsciiInt(min=1),
    default=200_000,
    show_default=True,
    help="Layouts drawn at most for one board before giving up (exit 5).",
)
@shared(
    "--out",
    type=click.Path(dir_okay=False, writable=True),
    help="Write the boards file here (JSONL) instead of to standard output.",
)
@shared("--overwrite")
@shared("--progress")
@shared("--json")
@reports_errors
def generate(
    no_guess: bool,
    preset: str | None,
    size: tuple[int, int] | None,
    mines: int | None,
    first_click: str,
    first_move: str,
    count: int,
    seed: int,
    min_3bv: int,
    max_3bv: int | None,
    max_total_steps: int | None,
    max_step_numbers: int,
    max_tries: int,
    out: str | None,
    overwrite: bool,
    progress: bool | None,
    as_json: bool,
) -> None:
    """Lay boards that need no guess, each with a certificate: the order of deductions, each
    step's cells and the numbers that force them, the steps that need the mine total marked.

    The first line of the file is a header (format, version, seed, settings); then one line
    per board: size, mines, the mine layout, first click, 3BV and the steps. `mscsp verify
    FILE` checks every certificate on its own. The same seed and settings give the same
    boards. Exit codes: 0 ok, 2 bad input, 5 --max-tries layouts without a fitting board,
    6 --out in use.
    """
    if not no_guess:
        raise InvalidInputError("give --no-guess (the only kind of board generate lays for now)")
    rows, cols, total, _ = board_size(preset, size, mines)
    settings = Settings(
        rows,
        cols,
        total,
        first_click,
        first_move,
        min_3bv,
        max_3bv,
        max_total_steps,
        max_step_numbers,
        max_tries,
    )
    generator = Generator(settings, seed)  # (checks the settings before any file is touched)
    if out is not None and os.path.lexists(out) and not overwrite:  # (a link counts)
        raise InvalidInputError(f"{out} exists; pass --overwrite to replace it")
    tally = Tally()
    start = time.perf_counter()
    with output_lock(out, "boards file"):
        sink: IO[str] = (
            click.get_text_stream("stdout") if out is None else open_output(out, "boards file")
        )
        try:
            sink.write(json.dumps(header(settings, seed)) + "\n")
            quiet = as_json or out is None
            with Progress(count, "boards", "generating", wanted(progress, quiet)) as bar:
                for index in range(count):
                    board = generator.next_board()
                    _write(sink, board, index)
                    tally.add(board)
                    bar.advance(note=f"{tally.tries / tally.boards:.1f} layouts/board")
        finally:
            if out is not None:
                sink.close()
            else:
                sink.flush()
    seconds = time.perf_counter() - start
    summary = _summary(settings, seed, tally, seconds, out)
    if as_json:
        click.echo(json.dumps(summary), err=out is None)
    else:
        click.echo(_text(summary), err=out is None)


def _write(sink: IO[str], board: Generated, index: int) -> None:
    """One board's line, flushed: an interrupted run leaves whole lines only."""
    sink.write(json.dumps(board.to_record(index), separators=(",", ":")) + "\n")
    sink.flush()


def _summary(
    settings: Settings, seed: int, tally: Tally, seconds: float, out: str | None
) -> dict[str, Any]:
    bv3 = tally.bv3
    return {
        "boards": tally.boards,
        "board": f"{settings.rows}x{settings.cols}/{settings.mines}",
        "first_click": settings.first_click,
        "first_move": settings.first_move,
        "seed": seed,
        "layouts_drawn": tally.tries,
        "layouts_per_board": round(tally.tries / tally.boards, 2) if tally.boards else None,
        "seconds": round(seconds, 3),
        "boards_per_second": round(tally.boards / seconds, 3) if seconds > 0 else None,
        "steps": tally.steps,
        "total_steps": tally.total_steps,
        "largest_step": tally.largest_step,
        "3bv": {"min": min(bv3), "mean": round(sum(bv3) / len(bv3), 2), "max": max(bv3)}
        if bv3
        else None,
        "out": out,
    }


def _text(summary: dict[str, Any]) -> str:
    bv3 = summary["3bv"]
    where = summary["out"] or "standard output"
    return (
        f"wrote {summary['boards']} no-guess {summary['board']} boards to {where} in "
        f"{summary['seconds']:.1f} s ({summary['boards_per_second']} boards/s, "
        f"{summary['layouts_per_board']} layouts drawn per board); 3BV "
        f"{bv3['min']}-{bv3['max']} (mean {bv3['mean']}); {summary['total_steps']} step(s) "
        f"need the mine total; the largest cites {summary['largest_step']} numbers"
    )
