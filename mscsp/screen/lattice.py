"""The grid of cells in a screenshot, found by our own code: periodic edges along each axis.

A board is a lattice: along a row of pixels, the edges between cells come back every cell
width. So along each axis, the mean edge strength between neighbouring pixel columns (or
rows) is a profile whose autocorrelation peaks at the cell size; the phase of the strongest
comb of that period gives the cell boundaries, and the board is the longest run of
boundaries that carry edges, a gap of at most :data:`MAX_GAP` weak ones bridged (a column of
opened zeros draws no line in flat looks; a boundary's edge may show up to a pixel or two
off, as a line two pixels thick shows one edge where a frame of its colour hides the
other). Each boundary is snapped to the strongest edge within a pixel of where the period
puts it, so a fractional zoom does not drift, and then the boundaries are fitted with one
straight line (one period, fractional if need be). The rows
are found within the columns' span and the columns again within the rows', so a counter
panel above the board or a window around it weighs less; last, a row (or column) at the
board's edge that most of the columns' (rows') boundaries do not cross is not a row of
cells (a counter panel whose own edges happened to fall on the period).

This grid is what the recogniser's answer is checked against (its size, and the cells
whose pixels are compared): it never reads a cell itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Smallest and largest cell sizes looked for, in pixels (the recogniser's own range).
MIN_CELL, MAX_CELL = 8, 300
#: Weak boundaries bridged inside a board (columns of opened zeros in flat looks).
MAX_GAP = 2
#: A boundary carries an edge when its strength is this share of a typical boundary's.
SUPPORT = 0.15
#: Least edge (summed over R, G, B, 0-765) a cell boundary draws across a row of cells.
EDGE = 8.0
#: Share of the boundaries that must cross a row (or column) of cells at the board's edge.
CROSSED = 0.5
#: Least autocorrelation of a board's edge profile at its period (noise has about 0.05).
PERIODIC = 0.25
#: A smaller multiple of the best lag is the period when it correlates this well.
HARMONIC = 0.8


@dataclass(frozen=True)
class Lattice:
    """The cells of a board in an image.

    Attributes:
        xs: The first pixel column of each cell, and one past the last cell's.
        ys: The first pixel row of each cell, and one past the last cell's.
    """

    xs: tuple[int, ...]
    ys: tuple[int, ...]

    @property
    def rows(self) -> int:
        return len(self.ys) - 1

    @property
    def cols(self) -> int:
        return len(self.xs) - 1

    @property
    def cell_size(self) -> tuple[float, float]:
        """Mean cell height and width in pixels."""
        return (
            (self.ys[-1] - self.ys[0]) / self.rows,
            (self.xs[-1] - self.xs[0]) / self.cols,
        )


def find_lattice(pixels: np.ndarray) -> Lattice | None:
    """The board's grid in ``pixels`` (rows x columns x channels), or ``None`` if none.

    ``None`` when either axis shows no period between :data:`MIN_CELL` and
    :data:`MAX_CELL` pixels, or fewer than two cells along it.
    """
    image = pixels.astype(np.float32)
    xs = _boundaries(_edges(image, 1))
    if xs is None:
        return None
    ys = _boundaries(_edges(image[:, xs[0] : xs[-1]], 0))
    if ys is None:
        return None
    xs = _boundaries(_edges(image[ys[0] : ys[-1]], 1))
    if xs is None:
        return None
    while len(ys) > 2 and not _crossed(image[ys[0] : ys[1], xs[0] : xs[-1]], xs, 1):
        ys = ys[1:]  # a panel above the board: no cell boundaries run across it
    while len(ys) > 2 and not _crossed(image[ys[-2] : ys[-1], xs[0] : xs[-1]], xs, 1):
        ys = ys[:-1]
    while len(xs) > 2 and not _crossed(image[ys[0] : ys[-1], xs[0] : xs[1]], ys, 0):
        xs = xs[1:]
    while len(xs) > 2 and not _crossed(image[ys[0] : ys[-1], xs[-2] : xs[-1]], ys, 0):
        xs = xs[:-1]
    return Lattice(xs, ys)


def _crossed(band: np.ndarray, bounds: tuple[int, ...], axis: int) -> bool:
    """Whether most of the other axis' cell boundaries cross ``band`` (a row of cells, for
    ``axis`` 1: the columns' boundaries) as edges standing out of the band's own."""
    profile = _edges(band, axis)
    floor = max(2 * float(np.median(profile)), EDGE)
    start = bounds[0]
    seen = [
        profile[max(at - start - 2, 0) : at - start + 1].max(initial=0) > floor
        for at in bounds[1:-1]
    ]
    return bool(seen) and sum(seen) >= CROSSED * len(seen)


def _edges(image: np.ndarray, axis: int) -> np.ndarray:
    """Mean edge strength between neighbouring pixels along ``axis`` (1: columns)."""
    jumps = np.abs(np.diff(image, axis=axis)).sum(axis=2)
    return jumps.mean(axis=1 - axis)


def _period(profile: np.ndarray) -> int | None:
    """The cell size: the profile's autocorrelation peak, its fundamental."""
    n = len(profile)
    top = min(MAX_CELL, n // 2)
    centred = profile - profile.mean()
    if top < MIN_CELL or not centred.any():
        return None
    spectrum = np.fft.rfft(centred, 2 * n)
    corr = np.fft.irfft(spectrum * np.conj(spectrum))[:n]
    corr = corr / corr[0]
    best = MIN_CELL + int(np.argmax(corr[MIN_CELL : top + 1]))
    if corr[best] < PERIODIC:
        return None
    # A board's period also correlates at 2, 3, ... cells: keep the smallest that does.
    for parts in range(best // MIN_CELL, 1, -1):
        lag = round(best / parts)
        if lag >= MIN_CELL and corr[lag] >= HARMONIC * corr[best]:
            return lag
    return best


def _boundaries(profile: np.ndarray) -> tuple[int, ...] | None:
    """The cell boundaries along one axis, as first pixels, or ``None`` if no board."""
    period = _period(profile)
    if period is None:
        return None
    n = len(profile)
    combs = [profile[phase::period].sum() for phase in range(period)]
    comb = profile[int(np.argmax(combs)) :: period]
    typical = float(np.median(np.sort(comb)[len(comb) // 2 :]))
    if typical <= 0:
        return None
    strong = SUPPORT * typical
    # A line between cells is a pixel or two thick at zoom 1 and 2, so its two edges are
    # that far apart; where a frame the colour of the line hides one, only the other shows.
    # Such a boundary carries an edge within ``reach`` of where the period puts it, but only
    # the edges within a pixel place boundaries (the fit below).
    reach = max(1, round(period / 16))

    def carries(at: int) -> bool:
        return profile[max(at - reach, 0) : at + reach + 1].max() >= strong

    start = int(np.argmax(combs)) + period * int(np.argmax(comb))
    lines = [start]
    for step in (period, -period):
        walked, weak = [], 0
        at = start
        while 0 <= at + step < n and weak <= MAX_GAP:
            snapped = _snap(profile, at + step)
            # Only an edge moves a boundary: across a gap the period alone places it.
            at = snapped if profile[snapped] >= strong else at + step
            walked.append(at)
            weak = 0 if carries(at) else weak + 1
        while walked and not carries(walked[-1]):  # the board ends at its last edge
            walked.pop()
        lines = lines + walked if step > 0 else walked[::-1] + lines
    if len(lines) < 3:
        return None
    # One period for the whole board: a snap to a neighbouring edge must not make one cell
    # a pixel wider than the next (cells of one tile are compared pixel for pixel).
    # Fitted robustly (Theil-Sen: the median of the slopes between every two boundaries),
    # as a line one pixel thick has an edge on each side, about as strong, and a snap may
    # take either: a least-squares fit leaned towards the few that took the other side,
    # and cut every cell of a 16-pixel board a pixel off.
    steps = np.arange(len(lines))
    held = np.array([profile[line] >= strong for line in lines])
    at, placed = steps[held], np.array(lines)[held]
    if len(at) < 2:
        return None
    i, j = np.triu_indices(len(at), 1)
    slope = float(np.median((placed[j] - placed[i]) / (at[j] - at[i])))
    offset = float(np.median(placed - slope * at))
    fitted = np.rint(offset + slope * steps).astype(int)
    return tuple(int(line) + 1 for line in fitted)  # the edge after pixel i starts cell i + 1


def _snap(profile: np.ndarray, at: int) -> int:
    """The strongest edge within a pixel of ``at``."""
    low, high = max(at - 1, 0), min(at + 2, len(profile))
    return low + int(np.argmax(profile[low:high]))
