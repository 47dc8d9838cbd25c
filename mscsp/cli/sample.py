"""``mscsp sample``: uniform whole-board mine layouts, and the probabilities they estimate."""

from __future__ import annotations

import json

import click
import numpy as np

from ..backends import get_backend
from ..board import COVERED, FLAG, Board, parse_board
from ..contradiction import explained
from ..display.render import probability_map
from ..errors import InconsistentBoardError, InvalidInputError
from ..estimators import Estimate
from ..layouts import sample_layouts
from .options import reports_errors
from .probs import read_board_text
from .types import AsciiInt
from .vocabulary import shared_options

shared = shared_options("sample")

#: Confidence of the half-width printed with the estimates.
DELTA = 0.05

#: The backend whose compiled decision diagrams draw the layouts (the only one that can).
SAMPLER_BACKEND = "mdd"


@click.command()
@click.argument("file", required=False, type=click.Path(allow_dash=True, dir_okay=False))
@shared("--mines", help="Total mine count, if the board text has no header.")
@click.option(
    "--samples",
    type=AsciiInt(min=1),
    default=1000,
    show_default=True,
    help="Layouts to draw.",
)
@shared("--seed")
@shared(
    "--backend",
    help="Backend that draws the layouts: mdd, whose decision diagrams give exactly uniform "
    "draws (the only backend that samples; mscsp probs --backend gives any one's exact odds).",
)
@shared("--time-limit")
@shared("--json")
@shared(
    "--out",
    type=click.Path(dir_okay=False, writable=True),
    help="Also save the layouts as a NumPy .npy file (samples x rows x cols booleans).",
)
@reports_errors
def sample(
    file: str | None,
    mines: int | None,
    samples: int,
    seed: int,
    backend: str,
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
    if backend != SAMPLER_BACKEND:
        raise InvalidInputError(
            f"--backend {backend!r} cannot draw layouts: only {SAMPLER_BACKEND!r} samples "
            f"(mscsp probs --backend {backend} gives its exact odds)"
        )
    text = read_board_text(file)
    board = parse_board(text, mines=mines)
    try:
        result = sample_layouts(board, samples, seed=seed, time_limit=time_limit or None)
    except InconsistentBoardError as exc:
        counter = get_backend("dss", time_limit=time_limit or None)
        raise explained(board, exc, counter) from None  # the number that fails, as in probs
    if out:
        try:
            np.save(out, result.layouts)
        except OSError as exc:
            raise InvalidInputError(f"cannot write {out}: {exc.strerror}") from None
    half_width = result.bound(DELTA)
    if as_json:
        summary = {"approximate": True, "samples": samples, "seed": seed, "backend": backend}
        summary |= {
            "half_width_95": _grid(half_widths(board, half_width)),
            "probabilities": _grid(result.probabilities),
        }
        click.echo(json.dumps(summary))
        return
    click.echo(
        f"APPROXIMATE probabilities from {samples} uniform layouts (seed {seed}): each within "
        f"{100 * half_width:.1f} points of the exact value with 95 % confidence"
    )
    # The map of mscsp probs: percentages with '%' where one digit, rulers, the legend.
    # An estimate proves nothing, so no cell shows as certain ('<1', not 's').
    click.echo(probability_map(Estimate(board, result.probabilities)))


def half_widths(board: Board, half_width: float) -> np.ndarray:
    """The 95 % half-width of every cell's estimate: Hoeffding's, the same for every covered
    cell (it depends on the number of samples only); 0 on flags (a mine in every layout);
    NaN on revealed cells (no estimate)."""
    grid = np.full(board.cells.shape, np.nan)
    grid[board.cells == COVERED] = half_width
    grid[board.cells == FLAG] = 0.0
    return grid


def _grid(values: np.ndarray) -> list[list[float | None]]:
    """Rows of numbers rounded to 6 decimals, ``None`` for NaN (JSON has no NaN)."""
    return [[None if np.isnan(v) else round(float(v), 6) for v in row] for row in values]
