"""Human-readable probability maps (colour in a terminal, plain text when piped)."""

from __future__ import annotations

import math
from typing import Any

import click
import numpy as np

from .board import FLAG
from .probabilities import Solution


def _cell_text(value: int, prob: float) -> tuple[str, str | None]:
    if value == FLAG:
        return "F", "red"
    if value >= 0:
        return ("." if value == 0 else str(value)), None
    if prob == 0.0:
        return "s", "green"
    if prob == 1.0:
        return "M", "red"
    pct = prob * 100
    if pct < 1:
        return "<1", "green"
    if pct > 99:
        return ">99", "red"
    colour = "green" if pct < 15 else "yellow" if pct < 40 else "magenta"
    return str(math.floor(pct + 0.5)), colour


def probability_map(solution: Solution) -> str:
    """The board with each covered cell as its mine probability in percent.

    ``s`` marks certain-safe cells, ``M`` certain mines, ``F`` flags; revealed cells show
    their number (``.`` for zero). Rows and columns are labelled from 0.
    """
    board = solution.board
    probs = solution.probabilities
    width = 3
    label = len(str(board.rows - 1))
    lines = [" " * (label + 1) + "".join(f"{c:>{width}}" for c in range(board.cols))]
    best = solution.best_move
    for r in range(board.rows):
        parts = [f"{r:>{label}} "]
        for c in range(board.cols):
            text, colour = _cell_text(int(board.cells[r, c]), float(probs[r, c]))
            cell = f"{text:>{width}}"
            bold = (r, c) == best
            parts.append(click.style(cell, fg=colour, bold=bold) if colour or bold else cell)
        lines.append("".join(parts))
    return "\n".join(lines)


def solution_json(solution: Solution, backend: str, exact: bool = False) -> dict[str, Any]:
    """The JSON object of ``mscsp probs --json`` (and of the web analyser's ``/api/solve``).

    Args:
        solution: The solved position.
        backend: Name of the backend that counted it.
        exact: Also give ``exact``: ``"row,col"`` to the exact fraction as a string.

    Returns:
        ``rows``, ``cols``, ``mines``, ``backend``, ``probabilities`` (``None`` on revealed
        cells, 1.0 on flags), ``safe``, ``mines_certain``, ``best_move`` and maybe ``exact``.
    """
    board = solution.board
    grid = np.where(np.isnan(solution.probabilities), None, solution.probabilities)
    out: dict[str, Any] = {
        "rows": board.rows,
        "cols": board.cols,
        "mines": board.mines,
        "backend": backend,
        "probabilities": grid.tolist(),
        "safe": [list(c) for c in solution.safe],
        "mines_certain": [list(c) for c in solution.mines],
        "best_move": list(solution.best_move) if solution.best_move else None,
    }
    if exact:
        out["exact"] = {f"{r},{c}": str(f) for (r, c), f in sorted(solution.exact.items())}
    return out
