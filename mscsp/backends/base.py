"""The interface every counting backend implements."""

from __future__ import annotations

import importlib
import time
from abc import ABC, abstractmethod
from importlib import metadata
from typing import Any, ClassVar

from ..constraints import Component, ComponentCount
from ..errors import BackendUnavailableError, InvalidInputError, SolverLimitError
from ..runtime.deadline import current
from ..validate import check_max_solutions, check_time_limit
from .decision import Decision, Finder, decide_by_search, decide_from_counts


class Backend(ABC):
    """Counts the solutions of one component exactly (or, when marked, approximately).

    Subclasses set :attr:`name`, :attr:`extra` (the pip extra that provides their package, or
    ``None``), implement :meth:`count`, and override :meth:`supported` / :meth:`version` when
    they depend on an optional package (imported lazily, inside those methods).

    Args:
        time_limit: Seconds allowed per component (``None``: no limit). Inside
            :func:`mscsp.solve` a component gets no more than what is left of the solve's
            own limit (:meth:`mscsp.runtime.deadline.Deadline.applied`).
        max_solutions: Cap on enumerated solutions per component, for enumerating backends.
        **options: Backend-specific options (for example a sub-solver name).
    """

    name: ClassVar[str]
    extra: ClassVar[str | None] = None
    exact: ClassVar[bool] = True
    description: ClassVar[str] = ""
    #: Modules the backend needs, imported only by :meth:`supported` and the backend itself.
    requires: ClassVar[tuple[str, ...]] = ()
    #: PyPI distribution whose version :meth:`version` reports (``None``: mscsp itself).
    distribution: ClassVar[str | None] = None
    #: Whether :meth:`decide` finds the certain cells with solver calls, without counting.
    decides: ClassVar[bool] = False
    #: Names of the keyword options the backend takes.
    options_allowed: ClassVar[tuple[str, ...]] = ()
    #: What the part after ``:`` of a ``NAME:ARG`` spec names (it arrives as the ``solver``
    #: option): ``"SOLVER"``, ``"COMMAND"``; empty where the spec takes none.
    spec_arg: ClassVar[str] = ""

    def __init__(
        self, time_limit: float | None = None, max_solutions: int | None = None, **options: Any
    ):
        if not self.supported():
            raise BackendUnavailableError(
                f"backend {self.name!r} needs its optional packages: "
                f"pip install 'mscsp[{self.extra}]'"
            )
        unknown = sorted(set(options) - set(self.options_allowed))
        if unknown:
            takes = ", ".join(self.options_allowed) or "none"
            raise InvalidInputError(
                f"backend {self.name!r} has no option {', '.join(unknown)} (it takes: {takes})"
            )
        _check_limits(time_limit, max_solutions)
        self.time_limit = time_limit
        self.max_solutions = max_solutions
        self.options = options

    @classmethod
    def supported(cls) -> bool:
        """Whether the backend's packages (:attr:`requires`) can be imported here."""
        try:
            for module in cls.requires:
                importlib.import_module(module)
        except ImportError:
            return False
        return True

    @classmethod
    def version(cls) -> str:
        """Version of the underlying solver package (:attr:`distribution`)."""
        if cls.distribution is None:
            from .. import __version__

            return __version__
        return metadata.version(cls.distribution)

    @abstractmethod
    def count(self, component: Component) -> ComponentCount:
        """Counts the component's solutions by mine total, overall and per group.

        Raises:
            SolverLimitError: The time limit or solution cap was hit (exact backends).
        """

    def decide(self, component: Component, lo: int = 0, hi: int | None = None) -> Decision:
        """Certain groups of the component when its mine total is within ``lo..hi``.

        Backends with :attr:`decides` search for solutions (:meth:`_finder`); the others
        count and read the answer off the counts.

        Raises:
            InconsistentBoardError: No solution has a total within ``lo..hi``.
            SolverLimitError: The time limit was hit.
        """
        if not self.decides:
            top = component.n_cells if hi is None else hi
            return decide_from_counts(component, self.count(component), range(lo, top + 1))
        return decide_by_search(component, self._finder(component, lo, hi))

    def _finder(self, component: Component, lo: int, hi: int | None) -> Finder:
        """A solution finder over the component (backends with :attr:`decides`)."""
        raise NotImplementedError(f"backend {self.name!r} does not search for solutions")

    def _deadline(self) -> float | None:
        """When the count starting now must stop (a :func:`time.perf_counter` time;
        ``None``: never): after :attr:`time_limit`, or at the applied deadline of the solve
        in progress if that comes sooner."""
        ends = [] if self.time_limit is None else [time.perf_counter() + self.time_limit]
        applied = current()
        if applied is not None and applied.end is not None:
            ends.append(applied.end)
        return min(ends, default=None)

    def _check_deadline(self, deadline: float | None) -> None:
        if deadline is not None and time.perf_counter() > deadline:
            raise self._limit_error()

    def _limit_error(self) -> SolverLimitError:
        """The error of a count stopped by :meth:`_deadline`, naming the backend and limit."""
        applied = current()
        seconds = self.time_limit
        if applied is not None and applied.seconds is not None:
            seconds = applied.seconds if seconds is None else min(seconds, applied.seconds)
        return SolverLimitError(f"backend {self.name!r} hit its time limit of {seconds:g} s")


def _check_limits(time_limit: Any, max_solutions: Any) -> None:
    # Checked when the backend is made, so a bad value fails before any work, not mid-run.
    check_time_limit(time_limit)
    check_max_solutions(max_solutions)
