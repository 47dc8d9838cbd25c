"""``mscsp sample``: uniform whole-board mine layouts, and the probabilities they estimate."""

from __future__ import annotations

import json

import click
import numpy as np

from ..board import FLAG, parse_board
from ..errors import InvalidInputError
from ..sampling import sample_layouts
from .options import (
    AsciiInt,
    json_option,
    mines_option,
    reports_errors,
    seed_option,
    time_limit_option,
)
from .probs import read_board_text

#: Confidence of the half-width printed with the estimates.
DELTA = 0.05


@click.command()
@click.argument("file", required=False, type=click.Path(allow_dash=True, dir_okay=False))
@mines_option("Total mine count, if the board text has no header.")
@click.option(
    "--samples",
    type=AsciiInt(min=1),
    default=1000,
    show_default=True,
    help="Layouts to draw.",
)
@seed_option
@time_limit_option(0.0)
@json_option
@click.option(
    "--out",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    metavar="FILE",
    help="Also save the layouts as a NumPy .npy file (samples x rows x cols booleans).",
)
@reports_errors
def sample(
    file: str | None,
    mines: int | None,
    samples: int,
    seed: int,
    time_limit: float,
    as_json: bool,
    out: str | None,
) -> None:
    """Mine layouts drawn uniformly from all those consistent with FILE (- for stdin).

    Without FILE, samples the built-in expert position. The probabilities printed are
    APPROXIMATE: frequencies over the samples, each within the printed half-width of the
    exact value with 95 % confidence (use mscsp probs for exact ones).
    Exit codes: 0 ok, 2 bad input, 3 inconsistent board, 5 time limit.
    """
    text = read_board_text(file)
    board = parse_board(text, mines=mines)
    result = sample_layouts(board, samples, seed=seed, time_limit=time_limit or None)
    if out:
        try:
            np.save(out, result.layouts)
        except OSError as exc:
            raise InvalidInputError(f"cannot write {out}: {exc.strerror}") from None
    half_width = result.bound(DELTA)
    probs = result.probabilities
    if as_json:
        grid = [[None if np.isnan(p) else round(float(p), 6) for p in row] for row in probs]
        summary = {"approximate": True, "samples": samples, "seed": seed}
        summary |= {"half_width_95": round(half_width, 6), "probabilities": grid}
        click.echo(json.dumps(summary))
        return
    click.echo(
        f"APPROXIMATE probabilities from {samples} uniform layouts (seed {seed}): each within "
        f"{100 * half_width:.1f} points of the exact value with 95 % confidence"
    )
    for r in range(board.rows):
        cells = []
        for c in range(board.cols):
            value = int(board.cells[r, c])
            if value == FLAG:
                cells.append("F")
            elif value >= 0:
                cells.append(str(value) if value else ".")
            else:
                cells.append(f"{100 * probs[r, c]:.0f}")
        click.echo(" ".join(f"{cell:>3}" for cell in cells))
