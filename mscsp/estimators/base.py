"""The interface every estimator implements, and what the registry knows of each kind."""

from __future__ import annotations

import dataclasses
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ..board import COVERED, FLAG, Board
from ..errors import BackendUnavailableError, InvalidInputError
from ..trust.escape import shown
from ..trust.numbers import parse_ascii_int

#: Families of estimators, in the order listings show them.
FAMILIES = ("exact", "approximate", "learned")


@dataclass(frozen=True)
class EstimatorKind:
    """One registry entry: a name and what it needs, without loading anything.

    Attributes:
        name: Registry name (``--backend NAME``); ``NAME:ARG`` passes ``ARG`` to it.
        family: ``exact``, ``approximate`` or ``learned``.
        exact: Whether its probabilities are the exact ones.
        extra: The pip extra that provides its packages (``None``: none needed).
        description: One line on what it is.
        arg: What ``NAME:ARG`` means (``""``: it takes none).
        batches: Whether it estimates many same-size positions in one call faster than
            one by one (:meth:`Estimator.estimate_batch`).
        available: Whether its packages (and artefact) are here; imports lazily.
        build: ``build(kind, arg, time_limit)`` makes the estimator.
        measured: Its mean |dp| against exact odds by family of the hard corpus, where
            measured (``docs/estimators.md``), with its defaults: what an answer of it is
            worth where no exact one is at hand (``mscsp probs --fallback``).
    """

    name: str
    family: str
    exact: bool
    extra: str | None
    description: str
    arg: str
    batches: bool
    available: Callable[[], bool]
    build: Callable[[EstimatorKind, str, float | None], Estimator]
    measured: tuple[tuple[str, float], ...] = ()

    def make(self, arg: str = "", time_limit: float | None = None) -> Estimator:
        """The estimator, after checking its packages.

        Raises:
            BackendUnavailableError: A package is missing (the message names the extra).
            InvalidInputError: An ``ARG`` it does not take or a bad one, or a missing
                checkpoint.
        """
        if arg and not self.arg:
            raise InvalidInputError(f"backend {self.name!r} takes no ':{arg}'")
        if not self.available():
            raise BackendUnavailableError(
                f"backend {self.name!r} needs its optional packages: "
                f"pip install 'mscsp[{self.extra}]'"
            )
        return self.build(self, arg, time_limit)


class Estimator(ABC):
    """Maps a board to a mine probability per covered cell.

    Every result is a float array of the board's shape: the estimate on covered cells,
    1.0 on flags, NaN on revealed cells (as :attr:`mscsp.Solution.probabilities`).

    Args:
        kind: The registry entry it was made from.
        spec: The full name it was asked for (``sampler:1000``).
    """

    def __init__(self, kind: EstimatorKind, spec: str):
        self.kind = kind
        self.spec = spec

    @property
    def exact(self) -> bool:
        """Whether the probabilities are the exact ones."""
        return self.kind.exact

    @property
    def measured(self) -> tuple[tuple[str, float], ...]:
        """Its mean |dp| by family of the hard corpus, where measured (``()``: not)."""
        return self.kind.measured

    @abstractmethod
    def estimate(self, board: Board) -> np.ndarray:
        """Mine probability of every covered cell of ``board``.

        Raises:
            InconsistentBoardError: The numbers admit no layout (estimators that check).
            SolverLimitError: The time limit was hit.
        """

    def estimate_batch(self, boards: Sequence[Board]) -> list[np.ndarray]:
        """:meth:`estimate` of each board; estimators that batch override it."""
        return [self.estimate(board) for board in boards]


def whole_arg(kind: EstimatorKind, arg: str, default: int, maximum: int) -> int:
    """The whole number 1..``maximum`` after ``NAME:`` (``default`` when absent).

    Written in ASCII digits only (:func:`mscsp.trust.numbers.parse_ascii_int`): ``str.isdigit``
    also takes ``"²"``, which ``int`` then refuses, and ``maximum`` keeps a name from asking
    for work or memory no run could give (``sampler:99999999999999999``).

    Raises:
        InvalidInputError: Anything else, in one line showing the form and the range.
    """
    if not arg:
        return default
    try:
        return parse_ascii_int(arg, f"{kind.name}:{kind.arg}", minimum=1, maximum=maximum)
    except InvalidInputError:
        raise InvalidInputError(
            f"{kind.name}:{kind.arg} needs a whole number from 1 to {maximum}, got {shown(arg)}"
        ) from None


def on_board(board: Board, probabilities: np.ndarray) -> np.ndarray:
    """``probabilities`` as every estimator returns them: in ``[0, 1]`` on covered cells,
    1.0 on flags, NaN on revealed cells."""
    out = np.clip(np.asarray(probabilities, dtype=float), 0.0, 1.0)
    out = np.where(board.cells == COVERED, out, np.nan)
    out[board.cells == FLAG] = 1.0
    return out


@dataclass(frozen=True)
class Estimate:
    """An inexact estimator's answer on one board, shown wherever a Solution is shown.

    It proves nothing: no cell is certain (:attr:`safe` and :attr:`mines` are empty), so
    maps and JSON never show an estimate as certain, and it is always :attr:`approximate`.

    Attributes:
        board: The position.
        probabilities: The estimate (as :meth:`Estimator.estimate` returns it).
    """

    board: Board
    probabilities: np.ndarray
    safe: list[tuple[int, int]] = field(default_factory=list)
    mines: list[tuple[int, int]] = field(default_factory=list)
    approximate: bool = True

    @cached_property
    def best_move(self) -> tuple[int, int] | None:
        """The covered cell with the lowest estimate (the first in row-major order on ties)."""
        covered = self.board.cells == COVERED
        if not covered.any():
            return None
        index = int(np.argmin(np.where(covered, self.probabilities, np.inf)))
        return divmod(index, self.board.cols)


def run_report(estimator: Estimator) -> dict[str, Any] | None:
    """How the estimator's last run ended (``bp``'s convergence, ``mcmc``'s chains and
    R-hat), where it says: what to read before trusting its map. Numbers JSON cannot hold
    (an infinite R-hat) are written as text, so that strict parsers read the answer."""
    report = getattr(estimator, "report", None)
    if report is None or not dataclasses.is_dataclass(report):
        return None
    return {
        key: value if not isinstance(value, float) or math.isfinite(value) else str(value)
        for key, value in dataclasses.asdict(report).items()
    }
