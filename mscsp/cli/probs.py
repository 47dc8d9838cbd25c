"""``mscsp probs``: exact mine probabilities of a pasted position."""

from __future__ import annotations

import json
import sys
from importlib import resources

import click

from ..backends import get_backend
from ..board import parse_board
from ..contradiction import locate_contradiction
from ..errors import InconsistentBoardError, InvalidInputError, SolverLimitError
from ..heatmap import save_png
from ..render import format_probability, probability_map, solution_json
from ..solver import solve
from .options import (
    backend_option,
    json_option,
    mines_option,
    reports_errors,
    time_limit_option,
)


def read_board_text(path: str | None) -> bytes:
    """Reads board text from a file, ``-`` (stdin), or the built-in example when ``None``."""
    if path is None:
        return resources.files("mscsp.data").joinpath("example.txt").read_bytes()
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as handle:
        return handle.read()


@click.command()
@click.argument("file", required=False, type=click.Path(allow_dash=True, dir_okay=False))
@mines_option("Total mine count, if the board text has no header.")
@backend_option()
@time_limit_option(0.0)
@json_option
@click.option(
    "--exact",
    "show_exact",
    is_flag=True,
    help="Also give exact fractions (JSON key 'exact', or a list in text mode).",
)
@click.option(
    "--png",
    "png",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    metavar="FILE",
    help="Also write the heat map as a PNG image (needs the plot extra).",
)
@reports_errors
def probs(
    file: str | None,
    mines: int | None,
    backend: str,
    time_limit: float,
    as_json: bool,
    show_exact: bool,
    png: str | None,
) -> None:
    """Exact mine probability of every covered cell of FILE (- for stdin).

    Without FILE, solves a built-in expert position. Cells are (row, col) counted from 0;
    text positions in input errors are line and column counted from 1.
    Exit codes: 0 ok, 2 bad input, 3 inconsistent board, 4 backend missing, 5 solver limit.
    """
    try:
        text = read_board_text(file)
    except OSError as exc:
        raise InvalidInputError(f"cannot read {file}: {exc.strerror}") from None
    board = parse_board(text, mines=mines)
    counter = get_backend(backend, time_limit=time_limit or None)
    try:
        solution = solve(board, backend=counter)
    except InconsistentBoardError as exc:
        if exc.cell is not None:
            raise
        try:
            cell = locate_contradiction(board, counter)
        except SolverLimitError:
            raise exc from None  # no time left to name a cell; the verdict stands
        raise InconsistentBoardError(str(exc), cell) from None
    if png:
        try:
            save_png(solution, png)
        except OSError as exc:
            raise InvalidInputError(f"cannot write {png}: {exc.strerror}") from None
    if as_json:
        out = solution_json(solution, backend, exact=show_exact)
        click.echo(json.dumps(out))
        return
    if solution.approximate:
        click.echo(f"APPROXIMATE probabilities (backend {backend}): not exact counts")
    click.echo(probability_map(solution))
    click.echo()
    click.echo(f"safe cells ({len(solution.safe)}): " + _cells(solution.safe))
    click.echo(f"certain mines ({len(solution.mines)}): " + _cells(solution.mines))
    if solution.best_move is not None:
        r, c = solution.best_move
        click.echo(
            f"suggested move: ({r}, {c}), mine probability "
            f"{solution.exact[(r, c)]} = {format_probability(solution.probabilities[r, c])}"
        )
    if show_exact:
        for (r, c), f in sorted(solution.exact.items()):
            click.echo(f"({r}, {c}) {f}")


def _cells(cells: list[tuple[int, int]], limit: int = 20) -> str:
    shown = " ".join(f"({r},{c})" for r, c in cells[:limit])
    return shown + (f" ... and {len(cells) - limit} more" if len(cells) > limit else "") or "none"
