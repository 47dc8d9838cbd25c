"""The heat map colours of the web analyser, and the same picture as a PNG (matplotlib).

The page gets :func:`palette` from the server, so the browser and :func:`save_png` colour a
cell from the same stops. matplotlib is imported only when a picture is drawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .board import COVERED, FLAG
from .errors import BackendUnavailableError
from .probabilities import Solution
from .render import shown_probabilities

#: Mine probability -> colour, interpolated linearly in RGB between stops. Low odds get most
#: of the range because that is where a player chooses between guesses.
COLOUR_STOPS: tuple[tuple[float, str], ...] = (
    (0.0, "#40c057"),
    (0.1, "#a9e34b"),
    (0.2, "#ffe066"),
    (0.35, "#ffa94d"),
    (0.6, "#ff6b6b"),
    (1.0, "#e03131"),
)
SAFE_COLOUR = "#2b8a3e"  # certain safe
MINE_COLOUR = "#862e2e"  # certain mine, and flags
REVEALED_COLOUR = "#e9ecef"
BEST_COLOUR = "#1c7ed6"  # outline of the suggested move
#: Heat cells below this probability get dark text, the rest white (legibility).
DARK_TEXT_BELOW = 0.45
#: Colours of the revealed numbers 1-8, as in the classic game.
NUMBER_COLOURS = (
    "#1864ab",
    "#2b8a3e",
    "#c92a2a",
    "#5f3dc4",
    "#862e2e",
    "#0b7285",
    "#212529",
    "#868e96",
)


def palette() -> dict[str, Any]:
    """Every colour of the heat map, as the page receives it from ``/api/meta``."""
    return {
        "stops": [[p, c] for p, c in COLOUR_STOPS],
        "safe": SAFE_COLOUR,
        "mine": MINE_COLOUR,
        "revealed": REVEALED_COLOUR,
        "best": BEST_COLOUR,
        "dark_text_below": DARK_TEXT_BELOW,
        "numbers": list(NUMBER_COLOURS),
    }


def _rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)], dtype=float)


def heat_rgb(prob: float) -> tuple[int, int, int]:
    """The heat colour of a mine probability in 0..1, as 0-255 integers."""
    prob = min(max(prob, 0.0), 1.0)
    for (p0, c0), (p1, c1) in zip(COLOUR_STOPS, COLOUR_STOPS[1:], strict=False):
        if prob <= p1:
            t = (prob - p0) / (p1 - p0)
            mixed = _rgb(c0) + t * (_rgb(c1) - _rgb(c0))
            return tuple(int(v) for v in np.floor(mixed + 0.5))
    return tuple(int(v) for v in _rgb(COLOUR_STOPS[-1][1]))


def cell_rgb(value: int, prob: float) -> tuple[int, int, int]:
    """The colour of one cell: revealed, flag, certain safe, certain mine or heat."""
    if value == FLAG:
        return tuple(int(v) for v in _rgb(MINE_COLOUR))
    if value != COVERED:
        return tuple(int(v) for v in _rgb(REVEALED_COLOUR))
    if prob == 0.0:
        return tuple(int(v) for v in _rgb(SAFE_COLOUR))
    if prob == 1.0:
        return tuple(int(v) for v in _rgb(MINE_COLOUR))
    return heat_rgb(prob)


def cell_label(value: int, prob: float) -> str:
    """The text drawn on a cell: its number, ``F``, ``✓``/``✗`` when certain, else percent."""
    if value == FLAG:
        return "F"
    if value != COVERED:
        return "" if value == 0 else str(value)
    if prob == 0.0:
        return "✓"
    if prob == 1.0:
        return "✗"
    pct = prob * 100
    return "<1" if pct < 1 else ">99" if pct > 99 else str(int(np.floor(pct + 0.5)))


def save_png(solution: Solution, path: str | Path, title: str | None = None) -> None:
    """Writes the heat map of ``solution`` as a PNG image.

    Args:
        solution: The solved position.
        path: Output file.
        title: Text above the board (default: the board size and mine count).

    Raises:
        BackendUnavailableError: matplotlib is missing (``pip install 'mscsp[plot]'``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.cm import ScalarMappable
        from matplotlib.colors import LinearSegmentedColormap, Normalize
        from matplotlib.patches import Rectangle
    except ImportError:
        raise BackendUnavailableError("--png needs matplotlib: pip install 'mscsp[plot]'") from None
    board = solution.board
    rows, cols = board.shape
    probs = shown_probabilities(solution)  # a cell that is not certain never looks certain
    image = np.zeros((rows, cols, 3), dtype=np.uint8)
    for r in range(rows):
        for c in range(cols):
            image[r, c] = cell_rgb(int(board.cells[r, c]), float(probs[r, c]))
    scale = 0.42
    fig, ax = plt.subplots(figsize=(max(cols * scale, 4.0), rows * scale + 1.2), dpi=110)
    ax.imshow(image, interpolation="nearest", extent=(-0.5, cols - 0.5, rows - 0.5, -0.5))
    ax.hlines(np.arange(rows + 1) - 0.5, -0.5, cols - 0.5, colors="white", linewidth=0.8)
    ax.vlines(np.arange(cols + 1) - 0.5, -0.5, rows - 0.5, colors="white", linewidth=0.8)
    for r in range(rows):
        for c in range(cols):
            value = int(board.cells[r, c])
            text = cell_label(value, float(probs[r, c]))
            if not text:
                continue
            colour = "white"
            if value > 0:
                colour = NUMBER_COLOURS[value - 1]
            elif value == COVERED and 0 < probs[r, c] < DARK_TEXT_BELOW:
                colour = "#212529"  # dark text on the light end of the scale
            ax.text(c, r, text, ha="center", va="center", fontsize=8, color=colour, weight="bold")
    if solution.best_move is not None:
        r, c = solution.best_move
        ax.add_patch(
            Rectangle(
                (c - 0.5, r - 0.5),
                1,
                1,
                fill=False,
                edgecolor=BEST_COLOUR,
                linewidth=2.6,
                clip_on=False,
                zorder=3,
            )
        )
    scale_map = LinearSegmentedColormap.from_list("mscsp", [(p, c) for p, c in COLOUR_STOPS])
    bar = fig.colorbar(
        ScalarMappable(Normalize(0, 100), scale_map),
        ax=ax,
        orientation="horizontal",
        fraction=0.04,
        pad=0.03,
        aspect=50,
    )
    bar.set_ticks([round(p * 100) for p, _ in COLOUR_STOPS])
    bar.ax.tick_params(labelsize=7)
    bar.set_label(
        "mine probability (%); green ✓ certain safe, dark red ✗ certain mine, "
        "blue frame: suggested move",
        fontsize=7,
    )
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title or f"{cols}x{rows}, {board.mines} mines: exact mine probability", fontsize=9)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
