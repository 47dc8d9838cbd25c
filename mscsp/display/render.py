"""Human-readable probability maps (colour in a terminal, plain text when piped).

What is shown never claims more certainty than the exact counts give: ``s`` and ``M`` (and
probabilities 0 and 1 in JSON) are only for cells that are safe or mines in every layout; a
probability that rounds to 0 or 1 but is not certain shows as ``<1`` / ``>99`` on the map
and as the nearest float above 0 / below 1 in JSON.
"""

from __future__ import annotations

import math
from typing import Any

import click
import numpy as np

from ..bigint import fraction_text
from ..board import COVERED, FLAG
from ..probabilities import Solution

LEGEND = (
    "covered: mine probability in percent (4%, 45; '<1' and '>99' are not certain), "
    "s certain safe, M certain mine, F flag\n"
    "revealed: . (zero) and 1-8; rows and columns counted from 0"
)


def shown_probabilities(solution: Solution) -> np.ndarray:
    """The float map, except that a cell that is not certain never shows as exactly 0 or 1.

    Float division rounds ``166653667004497075/166653667004497077`` to 1.0; such cells get
    the nearest float below 1 (or above 0) so every reader can tell certain from likely.
    """
    probs = solution.probabilities.copy()
    certain = np.zeros(probs.shape, dtype=bool)
    for r, c in (*solution.safe, *solution.mines):
        certain[r, c] = True
    covered = solution.board.cells == COVERED
    probs[covered & ~certain & (probs >= 1.0)] = math.nextafter(1.0, 0.0)
    probs[covered & ~certain & (probs <= 0.0)] = math.nextafter(0.0, 1.0)
    return probs


def format_probability(prob: float, digits: int = 4) -> str:
    """``prob`` to ``digits`` decimals, but ``<0.0001`` / ``>0.9999`` rather than 0 or 1
    for a probability strictly between them."""
    text = f"{prob:.{digits}f}"
    if prob > 0.0 and float(text) == 0.0:
        return "<" + f"{10.0**-digits:.{digits}f}"
    if prob < 1.0 and float(text) == 1.0:
        return ">" + f"{1 - 10.0**-digits:.{digits}f}"
    return text


def _cell_text(value: int, prob: float, certain: bool) -> tuple[str, str | None]:
    if value == FLAG:
        return "F", "red"
    if value >= 0:
        return ("." if value == 0 else str(value)), None
    if certain:
        return ("s", "green") if prob == 0.0 else ("M", "red")
    pct = prob * 100
    if pct < 1:
        return "<1", "green"
    if pct > 99:
        return ">99", "red"
    colour = "green" if pct < 15 else "yellow" if pct < 40 else "magenta"
    shown = math.floor(pct + 0.5)
    # A one-digit percentage carries '%' so that it never reads as a revealed number.
    return (f"{shown}%" if shown < 10 else str(shown)), colour


def probability_map(solution: Solution, legend: bool = True) -> str:
    """The board with each covered cell as its mine probability in percent.

    ``s`` marks certain-safe cells, ``M`` certain mines, ``F`` flags; revealed cells show
    their number (``.`` for zero); one-digit percentages carry a ``%`` sign. Rows and
    columns are labelled from 0. The suggested move is bold in a terminal.
    """
    board = solution.board
    probs = solution.probabilities
    certain = {*solution.safe, *solution.mines}
    texts = [
        [
            _cell_text(int(board.cells[r, c]), float(probs[r, c]), (r, c) in certain)
            for c in range(board.cols)
        ]
        for r in range(board.rows)
    ]
    # One space at least between cells, whatever their text ('>99' is three characters).
    width = max(len(str(board.cols - 1)), *(len(t) for row in texts for t, _ in row)) + 1
    label = len(str(board.rows - 1))
    lines = [" " * (label + 1) + "".join(f"{c:>{width}}" for c in range(board.cols))]
    best = solution.best_move
    for r, row in enumerate(texts):
        parts = [f"{r:>{label}} "]
        for c, (text, colour) in enumerate(row):
            cell = f"{text:>{width}}"
            bold = (r, c) == best
            parts.append(click.style(cell, fg=colour, bold=bold) if colour or bold else cell)
        lines.append("".join(parts))
    if legend:
        lines += ["", LEGEND]
    return "\n".join(lines)


def solution_json(solution: Solution, backend: str, exact: bool = False) -> dict[str, Any]:
    """The JSON object of ``mscsp probs --json`` (and of the web analyser's ``/api/solve``).

    Args:
        solution: The solved position.
        backend: Name of the backend that counted it.
        exact: Also give ``exact``: ``"row,col"`` to the exact fraction as a string.

    Returns:
        ``rows``, ``cols``, ``mines``, ``backend``, ``approximate``, ``probabilities``
        (``None`` on revealed cells, 1.0 on flags), ``safe``, ``mines_certain``, ``best_move``
        and maybe ``exact``.
    """
    board = solution.board
    shown = shown_probabilities(solution)
    grid = np.where(np.isnan(shown), None, shown)
    out: dict[str, Any] = {
        "rows": board.rows,
        "cols": board.cols,
        "mines": board.mines,
        "backend": backend,
        "approximate": solution.approximate,
        "probabilities": grid.tolist(),
        "safe": [list(c) for c in solution.safe],
        "mines_certain": [list(c) for c in solution.mines],
        "best_move": list(solution.best_move) if solution.best_move else None,
    }
    if exact:
        out["exact"] = {
            f"{r},{c}": fraction_text(f) for (r, c), f in sorted(solution.exact.items())
        }
    return out
