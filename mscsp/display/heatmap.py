"""The heat map colours of the web analyser, and the same picture as a PNG (matplotlib).

The page gets :func:`palette` from the server, so the browser and :func:`save_png` colour a
cell from the same stops. matplotlib is imported only when a picture is drawn.

The PNG names rows down the left and columns across the top, counted from 0 as the CLI and
the page name a cell ``(row, col)``, and has a key for every mark on it. A caller may frame
cells of its own (:class:`Mark`: a replay's clicked cell, the safest cell), each named in the
key.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from ..board import COVERED, FLAG
from ..errors import BackendUnavailableError, InvalidInputError
from ..probabilities import Solution
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
MINE_COLOUR = "#862e2e"  # certain mine
#: A flag: the page's covered tile with a red flag on it, never the certain-mine colour (a
#: flag is the player's claim, a certain mine the solver's proof).
FLAG_COLOUR = "#ced4da"
FLAG_GLYPH_COLOUR = "#e03131"
REVEALED_COLOUR = "#e9ecef"
BEST_COLOUR = "#1c7ed6"  # outline of the suggested move
#: Outline of a clicked cell (:class:`Mark`), apart from every heat colour and the blue frame.
CLICK_COLOUR = "#7048e8"
#: Heat cells below this probability get dark text, the rest white (legibility).
DARK_TEXT_BELOW = 0.45
DARK_TEXT = "#212529"
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
        "flag": FLAG_COLOUR,
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
        return tuple(int(v) for v in _rgb(FLAG_COLOUR))
    if value != COVERED:
        return tuple(int(v) for v in _rgb(REVEALED_COLOUR))
    if prob == 0.0:
        return tuple(int(v) for v in _rgb(SAFE_COLOUR))
    if prob == 1.0:
        return tuple(int(v) for v in _rgb(MINE_COLOUR))
    return heat_rgb(prob)


def board_rgb(cells: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Every cell's :func:`cell_rgb` as a ``rows x cols x 3`` image, computed once per
    distinct probability (a large board has few): a million cells take well under a second."""
    image = np.empty((*cells.shape, 3), dtype=np.uint8)
    image[cells >= 0] = cell_rgb(0, 0.0)
    image[cells == FLAG] = cell_rgb(FLAG, 1.0)
    covered = cells == COVERED
    if covered.any():
        values, inverse = np.unique(probs[covered], return_inverse=True)
        colours = np.array([cell_rgb(COVERED, float(p)) for p in values], dtype=np.uint8)
        image[covered] = colours[inverse.ravel()]
    return image


def cell_label(value: int, prob: float) -> str:
    """The text drawn on a cell: its number, ``✓``/``✗`` when certain, else the percentage
    (always with ``%``, so that it never reads as a revealed number). A flag has no text:
    it is drawn as a flag."""
    if value == FLAG:
        return ""
    if value != COVERED:
        return "" if value == 0 else str(value)
    if prob == 0.0:
        return "✓"
    if prob == 1.0:
        return "✗"
    pct = prob * 100
    return "<1%" if pct < 1 else ">99%" if pct > 99 else f"{int(np.floor(pct + 0.5))}%"


def text_colour(value: int, prob: float) -> str:
    """The colour of a cell's text: the classic colour of a number, dark on the light end
    of the heat scale, white elsewhere."""
    if value > 0:
        return NUMBER_COLOURS[value - 1]
    if value == COVERED and 0 < prob < DARK_TEXT_BELOW:
        return DARK_TEXT
    return "white"


@dataclass(frozen=True)
class Mark:
    """A frame around one cell of the drawn board, named in the key.

    Attributes:
        cell: ``(row, col)``, from 0.
        label: Its name in the key (drawn as plain text, never a formula).
        colour: The frame's colour (``#rrggbb``).
    """

    cell: tuple[int, int]
    label: str
    colour: str = CLICK_COLOUR


#: Inches of key one entry takes (its swatch and name); the key wraps onto more rows when the
#: board is narrower than its entries.
KEY_ENTRY_INCHES = 8.2 / 6
#: Inset of each further frame on a cell already framed (a fraction of the cell), so that
#: two marks on one cell both show.
FRAME_INSET = 0.14
#: Largest side of the drawn board, in inches; beyond it cells shrink (110 dpi).
MAX_BOARD_INCHES = 24.0
#: Side of a cell in inches at full size, and the figure's resolution.
CELL_INCHES = 0.42
DPI = 110
#: Cells smaller than this (inches) carry no text, glyph or grid lines: nothing would read.
MIN_TEXT_CELL = 0.16
#: The marks the key explains, in order: (value, probability, label). The heat colours are
#: explained by the colour bar under the key.
KEY: tuple[tuple[int, float, str], ...] = (
    (COVERED, 0.0, "certain safe"),
    (COVERED, 1.0, "certain mine"),
    (FLAG, 1.0, "flag"),
    (3, float("nan"), "revealed number"),
    (COVERED, 0.13, "mine probability"),
)


def cell_inches(rows: int, cols: int) -> float:
    """The side of one cell in the PNG: full size up to :data:`MAX_BOARD_INCHES` a side,
    smaller for larger boards, never below one pixel."""
    return max(min(CELL_INCHES, MAX_BOARD_INCHES / cols, MAX_BOARD_INCHES / rows), 1 / DPI)


def label_step(n: int, room: float, extent: float) -> int:
    """Every how many rows (or columns) a label is written so that labels never overlap:
    1, 2, 5, 10, 20, 50, ... (``room``: inches per row or column; ``extent``: inches a
    label takes along the axis)."""
    for step in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000):
        if step * room >= extent or step >= n:
            return step
    return 10_000


#: The flag glyph on a cell of side 1 centred at (0, 0), y up: a pennant, then its pole and
#: base, as the page draws a flag.
_PENNANT = ((-0.14, 0.34), (-0.14, -0.02), (0.26, 0.16))
_POLE = (
    ((-0.17, 0.34), (-0.12, 0.34), (-0.12, -0.24), (-0.17, -0.24)),
    ((-0.3, -0.24), (0.16, -0.24), (0.16, -0.32), (-0.3, -0.32)),
)


def _flag_paths(pixels: float) -> list[tuple[Any, str]]:
    """The flag glyph for a cell ``pixels`` wide: ``(path in pixels, colour)`` pairs."""
    from matplotlib.path import Path as MplPath

    def polygons(*shapes: tuple[tuple[float, float], ...]) -> Any:
        return MplPath.make_compound_path(
            *(MplPath(np.array(shape) * pixels, closed=False) for shape in shapes)
        )

    return [(polygons(_PENNANT), FLAG_GLYPH_COLOUR), (polygons(*_POLE), DARK_TEXT)]


def _text_path(text: str, points: float) -> Any:
    """``text`` in bold as a path in pixels, centred on (0, 0)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath
    from matplotlib.transforms import Affine2D

    path = TextPath((0, 0), text, size=points, prop=FontProperties(weight="bold"))
    box = path.get_extents()
    centre = Affine2D().translate(-(box.x0 + box.x1) / 2, -(box.y0 + box.y1) / 2)
    return path.transformed(centre.scale(DPI / 72))


def _stamp(ax: Any, path: Any, colour: str, where: list[tuple[float, float]]) -> None:
    """Draws ``path`` (in pixels) centred on each point of ``where`` (data units): one
    artist for every cell with the same label, so that a large board draws in seconds."""
    from matplotlib.collections import PathCollection
    from matplotlib.transforms import IdentityTransform

    stamps = PathCollection(
        [path],
        offsets=np.array(where, dtype=float),
        offset_transform=ax.transData,
        facecolors=[colour],
        edgecolors="none",
        zorder=4,
    )
    stamps.set_transform(IdentityTransform())
    ax.add_collection(stamps, autolim=False)


def _draw_texts(ax: Any, cells: list[tuple[float, float, int, float]], points: float) -> None:
    """The text of each ``(x, y, value, prob)`` cell (number, mark or percentage), grouped
    by text and colour so that each group is one artist."""
    groups: dict[tuple[str, str, float], list[tuple[float, float]]] = {}
    for x, y, value, prob in cells:
        text = cell_label(value, prob)
        if text:
            size = points * (1.5 if text in ("✓", "✗") else 1.2 if value > 0 else 1.0)
            groups.setdefault((text, text_colour(value, prob), size), []).append((x, y))
    for (text, colour, size), where in groups.items():
        _stamp(ax, _text_path(text, size), colour, where)


def _draw_flags(ax: Any, where: list[tuple[float, float]], pixels: float) -> None:
    """A flag glyph on each cell of ``where`` (data units), cells ``pixels`` wide."""
    if where:
        for path, colour in _flag_paths(pixels):
            _stamp(ax, path, colour, where)


def save_png(
    solution: Solution,
    path: str | Path | BinaryIO,
    title: str | None = None,
    marks: Sequence[Mark] = (),
    suggest: bool = True,
) -> None:
    """Writes the heat map of ``solution`` as a PNG image (see :func:`heatmap_figure`).

    Args:
        solution: The solved position.
        path: Output file (or a binary file object).
        title: Text above the board (default: the board size and mine count).
        marks: Cells to frame, each named in the key.
        suggest: Frame the suggested move (``solution.best_move``).

    Raises:
        BackendUnavailableError: matplotlib is missing (``pip install 'mscsp[plot]'``).
        InvalidInputError: A mark's cell is not on the board.
    """
    fig = heatmap_figure(solution, title, marks, suggest)
    import matplotlib.pyplot as plt  # (heatmap_figure has checked that it is there)

    try:
        # The layout leaves room for every label: no "tight" box, whose extra drawing pass
        # doubles the time on a large board.
        fig.savefig(path, dpi=DPI, format="png")
    finally:
        plt.close(fig)


def heatmap_figure(
    solution: Solution,
    title: str | None = None,
    marks: Sequence[Mark] = (),
    suggest: bool = True,
) -> Any:
    """The heat map of ``solution`` as a matplotlib figure (the caller closes it).

    The board has its row numbers down the left and its column numbers across the top
    (from 0, as the CLI names a cell ``(row, col)``), and a key under it names every mark:
    certain safe, certain mine, flag, revealed number, mine probability, the suggested
    move's frame (unless ``suggest`` is false) and each of ``marks``; under the key, the
    colour scale of the mine probability. Its axes are labelled ``board``, ``key`` and
    ``scale`` (``Axes.get_label``), and each swatch of the key carries the name of its mark.

    Raises:
        BackendUnavailableError: matplotlib is missing (``pip install 'mscsp[plot]'``).
        InvalidInputError: A mark's cell is not on the board.
    """
    rows, cols = solution.board.shape
    for mark in marks:
        r, c = mark.cell
        if not (0 <= r < rows and 0 <= c < cols):
            raise InvalidInputError(
                f"the marked cell {mark.cell} is not on the {cols}x{rows} board"
            )
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise BackendUnavailableError("--png needs matplotlib: pip install 'mscsp[plot]'") from None
    board = solution.board
    cell = cell_inches(rows, cols)
    board_w, board_h = cols * cell, rows * cell
    width = max(board_w, 6.8)  # the key's room
    entries = len(KEY) + suggest + len(marks)
    key_rows = max(1, math.ceil(entries * KEY_ENTRY_INCHES / width - 1e-9))
    # Inches from the top: title and column labels, board, key, colour bar and its label.
    left, top, gap, key_h, bar_h, bottom = 0.7, 0.75, 0.2, 0.4 * key_rows, 0.14, 0.55
    fig_w = left + width + 0.3
    fig_h = top + board_h + gap + key_h + gap + bar_h + bottom
    fig = plt.figure(figsize=(fig_w, fig_h), dpi=DPI)

    def axes(label: str, x: float, y: float, w: float, h: float) -> Any:
        """Axes at ``x`` inches from the left, ``y`` from the top."""
        box = (x / fig_w, 1 - (y + h) / fig_h, w / fig_w, h / fig_h)
        return fig.add_axes(box, label=label)

    ax = axes("board", left + (width - board_w) / 2, top, board_w, board_h)
    _draw_board(ax, solution, cell, marks, suggest)
    kind = "estimated" if solution.approximate else "exact"
    ax.set_title(
        title or f"{cols}x{rows}, {board.mines} mines: {kind} mine probability",
        fontsize=9,
        pad=22,
        parse_math=False,  # a caller's title is text, not a formula
    )
    y = top + board_h + gap + 0.1  # (room for the board's frame)
    _draw_key(axes("key", left, y, width, key_h), width, key_rows, marks, suggest)
    y += key_h + gap
    bar_w = min(width, 6.8)
    _draw_scale(fig, axes("scale", left + (width - bar_w) / 2, y, bar_w, bar_h))
    return fig


def _draw_board(
    ax: Any, solution: Solution, cell: float, marks: Sequence[Mark], suggest: bool
) -> None:
    """The cells, their texts and flags, the grid, the suggested move, the marks and the
    labels."""
    board = solution.board
    rows, cols = board.shape
    probs = shown_probabilities(solution)  # a cell that is not certain never looks certain
    ax.imshow(
        board_rgb(board.cells, probs),
        interpolation="nearest",
        extent=(-0.5, cols - 0.5, rows - 0.5, -0.5),
    )
    ax.set_xlim(-0.5, cols - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)
    ax.set_aspect("auto")
    readable = cell >= MIN_TEXT_CELL
    if readable:
        ax.hlines(np.arange(rows + 1) - 0.5, -0.5, cols - 0.5, colors="white", linewidth=0.8)
        ax.vlines(np.arange(cols + 1) - 0.5, -0.5, rows - 0.5, colors="white", linewidth=0.8)
        marked = np.argwhere(board.cells != 0).tolist()
        texts = [(c, r, int(board.cells[r, c]), float(probs[r, c])) for r, c in marked]
        _draw_texts(ax, [t for t in texts if t[2] != FLAG], 8 * min(cell / CELL_INCHES, 1.0))
        _draw_flags(ax, [(x, y) for x, y, v, _ in texts if v == FLAG], cell * DPI)
    frames = (
        [] if not suggest or solution.best_move is None else [(solution.best_move, BEST_COLOUR)]
    )
    frames += [(tuple(m.cell), m.colour) for m in marks]
    framed: dict[tuple[int, int], int] = {}
    for (r, c), colour in frames:
        inset = FRAME_INSET * framed.get((r, c), 0)
        framed[(r, c)] = framed.get((r, c), 0) + 1
        _frame(ax, c, r, 1 - 2 * inset, colour, 2.6 if readable else 1.2)
    _label_axes(ax, rows, cols, cell)


def _frame(ax: Any, x: float, y: float, size: float, colour: str, width: float) -> None:
    """An unfilled square of side ``size`` centred on ``(x, y)`` (data units)."""
    from matplotlib.patches import Rectangle

    ax.add_patch(
        Rectangle(
            (x - size / 2, y - size / 2),
            size,
            size,
            fill=False,
            edgecolor=colour,
            linewidth=width,
            clip_on=False,
            zorder=5,
        )
    )


def _label_axes(ax: Any, rows: int, cols: int, cell: float) -> None:
    """Row numbers down the left and column numbers across the top, from 0, spaced so
    that no two labels touch."""
    points = 7 if cell >= 0.2 else 6
    digit = points * 0.6 / 72  # inches: a digit's width
    ax.xaxis.tick_top()
    ax.set_xticks(range(0, cols, label_step(cols, cell, len(str(cols - 1)) * digit + 0.05)))
    ax.set_yticks(range(0, rows, label_step(rows, cell, points * 1.3 / 72)))
    ax.tick_params(length=2, width=0.6, pad=1.5, labelsize=points, colors="#495057")
    ax.set_xlabel("col", fontsize=7, color="#495057", labelpad=3)
    ax.xaxis.set_label_position("top")
    ax.set_ylabel("row", fontsize=7, color="#495057", labelpad=3)
    for spine in ax.spines.values():
        spine.set_visible(False)


def _draw_key(
    ax: Any, width: float, key_rows: int, marks: Sequence[Mark] = (), suggest: bool = True
) -> None:
    """A sample of every mark with its name, drawn as on the board (data units: inches)."""
    from matplotlib.patches import Rectangle

    ax.set_xlim(0, width)
    ax.set_ylim(0.4 * key_rows, 0)  # y down, as on the board
    ax.axis("off")
    # (value, probability, label, frame colour): a frame is drawn on a heat cell.
    entries: list[tuple[int | None, float, str, str | None]] = [
        (value, prob, label, None) for value, prob, label in KEY
    ]
    if suggest:
        entries.append((None, 0.13, "suggested move", BEST_COLOUR))
    entries += [(None, 0.13, m.label, m.colour) for m in marks]
    per_row = -(-len(entries) // key_rows)
    size = 0.3
    for i, (value, prob, label, frame) in enumerate(entries):
        row, col = divmod(i, per_row)
        x = 0.15 + col * (width - 0.15) / per_row
        y = 0.2 + 0.4 * row
        shown = COVERED if value is None else value
        colour = np.array(cell_rgb(shown, prob)) / 255
        swatch = Rectangle((x - size / 2, y - size / 2), size, size, color=colour, label=label)
        ax.add_patch(swatch)
        if frame is not None:
            _frame(ax, x, y, size, frame, 2.2)
        elif value == FLAG:
            _draw_flags(ax, [(x, y)], size * DPI)
        else:
            _draw_texts(ax, [(x, y, value, prob)], 7.0)
        ax.text(
            x + size / 2 + 0.07,
            y,
            label,
            ha="left",
            va="center",
            fontsize=8,
            color=DARK_TEXT,
            parse_math=False,  # a caller's mark is named in text, not a formula
        )


def _draw_scale(fig: Any, cax: Any) -> None:
    """The colour bar of the heat scale, ticked at its stops."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import LinearSegmentedColormap, Normalize

    scale_map = LinearSegmentedColormap.from_list("mscsp", [(p, c) for p, c in COLOUR_STOPS])
    bar = fig.colorbar(
        ScalarMappable(Normalize(0, 100), scale_map), cax=cax, orientation="horizontal"
    )
    bar.set_ticks([round(p * 100) for p, _ in COLOUR_STOPS])
    bar.ax.tick_params(labelsize=7)
    bar.set_label("mine probability of a covered cell (%), the colour of its cell", fontsize=8)
