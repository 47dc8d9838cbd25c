"""One set of accuracy metrics for every estimator, against the exact probabilities.

Every metric is taken over the covered cells (not flags) of one or more positions, with the
exact probability ``q`` of each cell as the truth and the estimate ``p``:

* ``max_abs_diff``: ``max |p - q|``.
* ``mean_abs_diff``: the mean of ``|p - q|``.
* ``brier``: the mean of ``(p - q)**2`` (the Brier score against the exact probabilities).
* ``log_loss``: the mean of ``-(q ln p + (1 - q) ln(1 - p))``, ``p`` clipped to
  ``[EPS, 1 - EPS]``: the cross-entropy with the exact probabilities as soft labels. The
  exact estimate reaches its floor (the entropy of ``q``, not 0); an estimate's excess over
  an exact backend's value on the same cells is its mean KL divergence.
* ``certain_safe_called_unsafe``: cells with ``q = 0`` but ``p >= SAFE_CALL``.
* ``called_safe_not_safe``: cells with ``p < SAFE_CALL`` but ``q > 0`` (each is a gamble a
  player relying on the estimate takes without knowing).

:class:`CellErrors` keeps sums, so positions add up (``+``) in any order, per estimator or
per family, before :meth:`CellErrors.summary` divides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..board import COVERED
from ..trust.escape import plain_label

#: Estimates at or above it call a cell unsafe; below it, safe.
SAFE_CALL = 0.01
#: Clipping of the estimate in the log loss (a confident wrong 0 or 1 is finite).
EPS = 1e-6
#: Bins of the estimated probability in the calibration table.
BINS = 10


@dataclass
class CellErrors:
    """Sums of per-cell errors over positions; :meth:`summary` gives the metrics."""

    cells: int = 0
    max_abs: float = 0.0
    abs_sum: float = 0.0
    sq_sum: float = 0.0
    log_sum: float = 0.0
    unsafe_calls: int = 0
    false_safe: int = 0
    #: Per bin of the estimate: cells, sum of estimates, sum of exact probabilities.
    bins: np.ndarray = field(default_factory=lambda: np.zeros((BINS, 3)))

    def __add__(self, other: CellErrors) -> CellErrors:
        return CellErrors(
            self.cells + other.cells,
            max(self.max_abs, other.max_abs),
            self.abs_sum + other.abs_sum,
            self.sq_sum + other.sq_sum,
            self.log_sum + other.log_sum,
            self.unsafe_calls + other.unsafe_calls,
            self.false_safe + other.false_safe,
            self.bins + other.bins,
        )

    def summary(self) -> dict[str, Any]:
        """The metrics (``None`` when no cell was compared)."""
        n = self.cells
        return {
            "cells": n,
            "max_abs_diff": self.max_abs if n else None,
            "mean_abs_diff": self.abs_sum / n if n else None,
            "brier": self.sq_sum / n if n else None,
            "log_loss": self.log_sum / n if n else None,
            "certain_safe_called_unsafe": self.unsafe_calls,
            "called_safe_not_safe": self.false_safe,
        }

    def calibration(self) -> list[dict[str, float]]:
        """Per non-empty bin of the estimate: mean estimate, mean exact probability, cells."""
        return [
            {"estimate": s / n, "exact": q / n, "cells": int(n)}
            for n, s, q in self.bins.tolist()
            if n
        ]


def cell_errors(estimate: np.ndarray, exact: np.ndarray, mask: np.ndarray) -> CellErrors:
    """The error sums of one estimate on the cells of ``mask``.

    Args:
        estimate: Estimated mine probabilities (any shape).
        exact: Exact probabilities, same shape.
        mask: Cells compared (usually the covered cells: ``board.cells == COVERED``).
    """
    p = np.asarray(estimate, dtype=float)[mask]
    q = np.asarray(exact, dtype=float)[mask]
    diff = np.abs(p - q)
    clipped = np.clip(p, EPS, 1 - EPS)
    logs = -(q * np.log(clipped) + (1 - q) * np.log1p(-clipped))
    which = np.minimum((np.clip(p, 0, 1) * BINS).astype(int), BINS - 1)
    bins = np.zeros((BINS, 3))
    np.add.at(bins, which, np.stack([np.ones_like(p), p, q], axis=1))
    return CellErrors(
        cells=int(p.size),
        max_abs=float(diff.max(initial=0.0)),
        abs_sum=float(diff.sum()),
        sq_sum=float((diff**2).sum()),
        log_sum=float(logs.sum()),
        unsafe_calls=int(((q == 0) & (p >= SAFE_CALL)).sum()),
        # Called safe where the exact odds call it unsafe: an exact answer scores 0 here
        # (its own tiny nonzero probabilities are the same call, not a mistake).
        false_safe=int(((p < SAFE_CALL) & (q >= SAFE_CALL)).sum()),
        bins=bins,
    )


def board_errors(estimate: np.ndarray, exact: np.ndarray, cells: np.ndarray) -> CellErrors:
    """:func:`cell_errors` on the covered cells of a board's (or a batch's) cell codes."""
    return cell_errors(estimate, exact, np.asarray(cells) == COVERED)


def plot_calibration(tables: dict[str, list[dict[str, float]]], path: Any) -> Any:
    """Reliability diagram: per estimator, mean exact probability against mean estimate per
    bin (the diagonal is perfect). Needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], "--", color="grey", lw=0.8, label="perfect")
    for name, rows in tables.items():
        if rows:
            xs, ys = [r["estimate"] for r in rows], [r["exact"] for r in rows]
            ax.plot(xs, ys, "o-", label=plain_label(name))
    ax.set_xlabel("estimated mine probability (bin mean)")
    ax.set_ylabel("exact mine probability (bin mean)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
