"""``mscsp probs``: exact mine probabilities of a pasted position."""

from __future__ import annotations

import json
import sys
from importlib import resources

import click
import numpy as np

from ..board import parse_board
from ..errors import InvalidInputError
from ..render import probability_map
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
@mines_option
@backend_option()
@time_limit_option(0.0)
@json_option
@click.option(
    "--exact",
    "show_exact",
    is_flag=True,
    help="Also give exact fractions (JSON key 'exact', or a list in text mode).",
)
@reports_errors
def probs(
    file: str | None,
    mines: int | None,
    backend: str,
    time_limit: float,
    as_json: bool,
    show_exact: bool,
) -> None:
    """Exact mine probability of every covered cell of FILE (- for stdin).

    Without FILE, solves a built-in expert position. Cells are (row, col) from 0.
    Exit codes: 0 ok, 2 bad input, 3 inconsistent board, 4 backend missing, 5 solver limit.
    """
    try:
        text = read_board_text(file)
    except OSError as exc:
        raise InvalidInputError(f"cannot read {file}: {exc.strerror}") from None
    board = parse_board(text, mines=mines)
    solution = solve(board, backend=backend, time_limit=time_limit or None)
    approximate = not all(count.exact for _, count in solution.components)
    if as_json:
        grid = np.where(np.isnan(solution.probabilities), None, solution.probabilities)
        out = {
            "rows": board.rows,
            "cols": board.cols,
            "mines": board.mines,
            "backend": backend,
            "approximate": approximate,
            "probabilities": grid.tolist(),
            "safe": [list(c) for c in solution.safe],
            "mines_certain": [list(c) for c in solution.mines],
            "best_move": list(solution.best_move) if solution.best_move else None,
        }
        if show_exact:
            out["exact"] = {f"{r},{c}": str(f) for (r, c), f in sorted(solution.exact.items())}
        click.echo(json.dumps(out))
        return
    if approximate:
        click.echo(f"APPROXIMATE probabilities (backend {backend}): not exact counts")
    click.echo(probability_map(solution))
    click.echo()
    click.echo(f"safe cells ({len(solution.safe)}): " + _cells(solution.safe))
    click.echo(f"certain mines ({len(solution.mines)}): " + _cells(solution.mines))
    if solution.best_move is not None:
        r, c = solution.best_move
        click.echo(
            f"suggested move: ({r}, {c}), mine probability "
            f"{solution.exact[(r, c)]} = {solution.probabilities[r, c]:.4f}"
        )
    if show_exact:
        for (r, c), f in sorted(solution.exact.items()):
            click.echo(f"({r}, {c}) {f}")


def _cells(cells: list[tuple[int, int]], limit: int = 20) -> str:
    shown = " ".join(f"({r},{c})" for r, c in cells[:limit])
    return shown + (f" ... and {len(cells) - limit} more" if len(cells) > limit else "") or "none"
