"""Checks of a recognised board against the image and the rules: which cells to trust.

The recogniser's answer is a guess, so every cell is checked four ways, none of which
reads a cell itself:

* **Looks.** Within one screenshot every cell of one kind is drawn from one tile, so cells
  that look alike (cut from our own :class:`~mscsp.screen.lattice.Lattice`, within
  :data:`ALIKE` of each other) must have been read alike, and the cells read as one number
  must look alike. A group of look-alikes read two ways keeps the reading of
  :data:`MAJORITY` of them and the rest are unreadable (all of them where no reading has
  that many, or where the many read a number and some read covered: a flag read as a
  number); a number read from
  two groups of looks is unreadable in both (which group is the number, the larger? A
  recogniser that reads every flag as a 3 reads more flags than 3s). Covered cells may look
  several ways (plain, flagged, pressed), so only numbers must look one way.
* **Rims.** Clients draw a number on the opened tile, so the rim of a cell read as a number
  must look like the rim of a cell read as 0, not like a covered cell's (a flag read as a
  number has the covered rim); with no 0 on the board, not like a covered cell's at all.
  A cell read as covered must have the covered rim, not the opened one (a 0's, else the
  numbers').
* **Neighbours.** A number larger than its covered (or unreadable) neighbours is unreadable.
  A client opens a 0's neighbours itself, so a 0 beside a covered cell is a misreading (or
  a flag stands wrongly beside a 0): every cell that looks like it and was read as 0 is
  unreadable (a recogniser that reads the covered tile as 0 reads it so everywhere).
* **Layouts.** If no placement of mines satisfies the numbers, the number the contradiction
  comes from (:func:`~mscsp.contradiction.diagnose`) and the numbers sharing a covered
  neighbour with it are unreadable, until the rest agree.

A cell marked unreadable is never given a value: the user reads it from the screen.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..board import COVERED, Board
from ..contradiction import diagnose, numbers_consistent
from ..errors import InconsistentBoardError
from .lattice import Lattice

#: A cell the checks do not trust (a code of this module, beside the board's).
UNREADABLE = -3
#: Most root-mean-square difference (pixel values 0-1) between two cuts of one tile: a
#: JPEG's noise stays well under it, while the closest tiles of the looks measured (a 3 and
#: an 8 of LibreMines' emoji look) differ by 0.07 (the looks of docs/screenshots.md).
ALIKE = 0.035
#: Share of a look's cells that must agree for their reading to stand over the others'.
MAJORITY = 0.9
#: Samples per side of the small image each cell is compared by (fewer for tiny cells).
SAMPLES = 12

Cell = tuple[int, int]


def checked(cells: np.ndarray, pixels: np.ndarray, lattice: Lattice) -> np.ndarray:
    """``cells`` (``COVERED`` or 0-8) with every cell the checks doubt set to
    :data:`UNREADABLE`."""
    out = cells.copy()
    images = cell_images(pixels, lattice)
    looks = _look_alikes(images.reshape(-1, images.shape[-1]))
    _odd_looks(out, looks)
    _rims(out, images)
    _too_high(out)
    _zeros_beside_covered(out, looks)
    _no_layout(out)
    return out


def cell_images(pixels: np.ndarray, lattice: Lattice) -> np.ndarray:
    """Each cell's pixels averaged down to a few samples a side, as values 0-1: an array
    of rows x columns x features, comparable between cells of different pixel sizes."""
    n = max(1, min(SAMPLES, *np.diff(lattice.xs), *np.diff(lattice.ys)))
    # Box means from the summed-area table: each sample is the mean of its block of pixels.
    table = np.zeros((pixels.shape[0] + 1, pixels.shape[1] + 1, pixels.shape[2]))
    table[1:, 1:] = pixels.astype(np.float64).cumsum(0).cumsum(1)
    ys = _cuts(lattice.ys, n)
    xs = _cuts(lattice.xs, n)
    top, bottom = ys[:, :-1], ys[:, 1:]
    left, right = xs[:, :-1], xs[:, 1:]
    # Indexed as [row, sample row, col, sample col, channel].
    t, b = top[:, :, None, None], bottom[:, :, None, None]
    l_, r = left[None, None], right[None, None]
    sums = table[b, r] - table[t, r] - table[b, l_] + table[t, l_]
    area = ((b - t) * (r - l_))[..., None]
    means = sums / area / 255.0
    rows, cols = lattice.rows, lattice.cols
    return means.transpose(0, 2, 1, 3, 4).reshape(rows, cols, -1)


def _cuts(bounds: tuple[int, ...], n: int) -> np.ndarray:
    """For each cell between ``bounds``, the ``n + 1`` pixel edges of its ``n`` samples."""
    starts = np.asarray(bounds[:-1])[:, None]
    sizes = np.diff(bounds)[:, None]
    return starts + (np.arange(n + 1)[None, :] * sizes) // n


def _odd_looks(cells: np.ndarray, looks: list[list[int]]) -> None:
    """Marks the cells whose reading disagrees with the cells that look like them."""
    flat = cells.reshape(-1)  # (a view: cells is contiguous)
    readings: dict[int, list[list[int]]] = {}
    for members in looks:
        counts = Counter(int(flat[i]) for i in members).most_common()
        if len(counts) > 1:  # one look read two ways: keep an overwhelming majority only,
            kept = counts[0][0] if counts[0][1] >= MAJORITY * len(members) else None
            if kept not in (COVERED, 0) and any(value == COVERED for value, _ in counts):
                kept = None  # and no number for a look also read as covered (a flag?)
            odd = [i for i in members if flat[i] != kept]
            flat[odd] = UNREADABLE
            members = [i for i in members if flat[i] == kept]
        if members:
            readings.setdefault(int(flat[members[0]]), []).append(members)
    for value, groups in readings.items():
        if value != COVERED and len(groups) > 1:  # one number, two looks: which is it?
            flat[[i for members in groups for i in members]] = UNREADABLE


def _rims(cells: np.ndarray, images: np.ndarray) -> None:
    """Marks the numbers whose tile's rim looks like a covered cell's rather than an opened
    one's, and the covered cells whose rim looks like an opened one's."""
    side = int(round((images.shape[-1] // 3) ** 0.5))
    tiles = images.reshape(*cells.shape, side, side, 3)
    rims = np.concatenate(
        [tiles[:, :, 0], tiles[:, :, -1], tiles[:, :, :, 0], tiles[:, :, :, -1]], axis=2
    ).reshape(*cells.shape, -1)
    covered = rims[cells == COVERED]
    if not len(covered):
        return
    to_covered = np.sqrt(((rims - np.median(covered, axis=0)) ** 2).mean(axis=-1))
    # The opened rim: a 0's where one was read, else the numbers' (drawn on opened tiles)
    # but for those on the covered rim (flags read as numbers, which on a board with few
    # numbers would be most of them).
    zeros = rims[cells == 0]
    opened = zeros if len(zeros) else rims[(cells > 0) & (to_covered > ALIKE)]
    if not len(opened):
        cells[cells > 0] = UNREADABLE  # (every number on the covered rim)
        return
    to_opened = np.sqrt(((rims - np.median(opened, axis=0)) ** 2).mean(-1))
    cells[(cells == COVERED) & (to_opened < to_covered)] = UNREADABLE  # opened, read covered
    if len(zeros):
        cells[(cells > 0) & (to_covered < to_opened)] = UNREADABLE
    else:  # the numbers are the reference: only a number on the covered rim itself is doubted
        cells[(cells > 0) & (to_covered <= ALIKE)] = UNREADABLE


def _look_alikes(images: np.ndarray) -> list[list[int]]:
    """Cells grouped by looks: each joins the first group whose first cell is within
    :data:`ALIKE` of it (a board has a few dozen looks, so this is linear in cells)."""
    leaders: list[np.ndarray] = []
    groups: list[list[int]] = []
    for i, image in enumerate(images):
        if leaders:
            gaps = np.sqrt(((np.asarray(leaders) - image) ** 2).mean(axis=1))
            nearest = int(np.argmin(gaps))
            if gaps[nearest] <= ALIKE:
                groups[nearest].append(i)
                continue
        leaders.append(image)
        groups.append([i])
    return groups


def _too_high(cells: np.ndarray) -> None:
    """Marks numbers above their covered or unreadable neighbours."""
    open_ = (cells == COVERED) | (cells == UNREADABLE)
    padded = np.pad(open_, 1).astype(np.int16)
    around = sum(
        padded[1 + dr : 1 + dr + cells.shape[0], 1 + dc : 1 + dc + cells.shape[1]]
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if dr or dc
    )
    cells[(cells > 0) & (cells > around)] = UNREADABLE


def _zeros_beside_covered(cells: np.ndarray, looks: list[list[int]]) -> None:
    """Marks every cell of a look read as 0 where one of them is beside a covered cell."""
    covered = np.pad(cells == COVERED, 1)
    rows, cols = cells.shape
    beside = np.zeros(cells.shape, dtype=bool)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            beside |= covered[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols]
    flat, near = cells.reshape(-1), beside.reshape(-1)
    for members in looks:
        zeros = [i for i in members if flat[i] == 0]
        if any(near[i] for i in zeros):
            flat[zeros] = UNREADABLE


def _no_layout(cells: np.ndarray) -> None:
    """Marks the numbers a contradiction comes from, and their neighbours in it, until the
    numbers left have a layout (unreadable cells counted as covered)."""
    while True:
        relaxed = np.where(cells == UNREADABLE, COVERED, cells).astype(np.int8)
        try:
            board = Board(relaxed, 0)  # the total is not in the picture: numbers only
            if numbers_consistent(board):
                return
            found = diagnose(board)
        except InconsistentBoardError as exc:
            found = exc
        if found is None or found.cell is None:  # (not met: the numbers contradict)
            cells[cells >= 0] = UNREADABLE
            return
        for cell in _sharing(relaxed, found.cell):
            cells[cell] = UNREADABLE


def _sharing(cells: np.ndarray, cell: Cell) -> list[Cell]:
    """``cell`` and the numbers that share a covered neighbour with it."""
    rows, cols = cells.shape
    r, c = cell
    out = [cell]
    for rr in range(max(r - 2, 0), min(r + 3, rows)):
        for cc in range(max(c - 2, 0), min(c + 3, cols)):
            if (rr, cc) == cell or cells[rr, cc] < 0:
                continue
            shared = (
                cells[y, x] == COVERED
                for y in range(max(r, rr) - 1, min(r, rr) + 2)
                for x in range(max(c, cc) - 1, min(c, cc) + 2)
                if 0 <= y < rows and 0 <= x < cols
            )
            if any(shared):
                out.append((rr, cc))
    return out
