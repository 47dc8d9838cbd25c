"""Extra input channels: cheap, exact facts about a position that a convolution cannot see.

A model config may name extra inputs (``"inputs": ["counts", "certain"]``, see
:data:`learners.nets.models.CONFIGS`); :func:`learners.nets.data.encode` appends them after
the 13 base channels, in the order named. None of them calls the solver's counting step:

* ``counts`` (2 channels, broadcast over the board): the unflagged mines still to find and
  the covered cells touching no revealed number, each divided by :data:`COUNT_SCALE`.
  Together with the density channel they tell the net how many mines the cells away from
  the frontier can hold, which decides end games; a 3x3 convolution cannot count them.
* ``certain`` (2 channels): cells the deterministic reductions prove safe, and cells they
  prove to be mines: single-point (DSS) propagation plus the subset rule
  (:func:`mscsp.reduce.reduce_system`), without the total mine count and without counting
  solutions. Cells they cannot settle are 0 in both.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Cell code for padding outside the board (the game uses -2 for flags, -1 for covered);
#: here, below :func:`learners.nets.data.encode`, so that both read it without a circle.
OFF_BOARD = -3
#: Extra inputs by name, with the number of channels each adds.
INPUTS: dict[str, int] = {"counts": 2, "certain": 2}
#: Counts are divided by this, so an expert board's counts stay in a few units.
COUNT_SCALE = 100.0


def input_channels(inputs: Sequence[str]) -> int:
    """Number of channels the extra ``inputs`` add.

    Raises:
        ValueError: An unknown input name.
    """
    unknown = [name for name in inputs if name not in INPUTS]
    if unknown:
        raise ValueError(f"unknown inputs {unknown}; choose from {', '.join(INPUTS)}")
    return sum(INPUTS[name] for name in inputs)


def counts(cells: np.ndarray, mines: np.ndarray) -> np.ndarray:
    """The ``counts`` channels of a batch ``(batch, rows, cols)``: ``(batch, rows, cols, 2)``.

    Off-board cells (:data:`OFF_BOARD`) are 0 in both channels.
    """
    from mscsp.board import neighbour_sum

    covered = cells == -1
    revealed = cells >= 0
    left = mines - (cells == -2).sum(axis=(1, 2))
    near_number = neighbour_sum(revealed) > 0
    interior = (covered & ~near_number).sum(axis=(1, 2))
    values = np.stack([left, interior], axis=-1).astype(np.float32) / COUNT_SCALE
    on_board = (cells != OFF_BOARD)[..., None]
    return np.where(on_board, values[:, None, None, :], 0.0).astype(np.float32)


def certain(cells: np.ndarray, mines: np.ndarray) -> np.ndarray:
    """The ``certain`` channels (safe, mine) of a batch: ``(batch, rows, cols, 2)``.

    Each position is reduced on its on-board rectangle (padding, if any, on the right and
    bottom). A position the reductions find contradictory gets zeros: it cannot arise in
    play, and an input channel must not crash the player.
    """
    from mscsp.board import Board
    from mscsp.constraints import build_system
    from mscsp.errors import InconsistentBoardError
    from mscsp.reduce import reduce_system

    out = np.zeros((*cells.shape, 2), np.float32)
    for i, (position, total) in enumerate(zip(cells, mines, strict=True)):
        rows = int((position != OFF_BOARD).any(axis=1).sum())
        cols = int((position != OFF_BOARD).any(axis=0).sum())
        board = Board(np.ascontiguousarray(position[:rows, :cols]), int(total))
        try:
            system = build_system(board)
            fixed = reduce_system(system).fixed
        except InconsistentBoardError:
            continue
        for group, held in fixed:
            if held in (0, system.sizes[group]):
                r, c = np.array(system.cells[group]).T
                out[i, r, c, int(held > 0)] = 1.0
    return out


_BUILDERS = {"counts": counts, "certain": certain}


def extra_inputs(cells: np.ndarray, mines: np.ndarray, inputs: Sequence[str]) -> np.ndarray:
    """The channels of ``inputs`` for a batch, concatenated: ``(batch, rows, cols, k)``."""
    input_channels(inputs)  # refuses unknown names
    parts = [_BUILDERS[name](cells, mines) for name in inputs]
    return np.concatenate(parts, axis=-1) if parts else np.zeros((*cells.shape, 0), np.float32)
