"""When an estimator may stand in for an exact count that stopped at a limit
(``mscsp probs --fallback``, ``/api/solve``'s ``fallback``), with how much of the time, and
the ``fallback`` record of its answer.

The rule, the same for both doors: only where the exact count was asked for (a backend
that counts), and only by an estimator that does not count (``bp``, ``mcmc``,
``sampler:N``, a learned model): a counter would stop where the first one did. The doors
differ in how they name things and in what their time limit bounds, which
:class:`Door` says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInputError
from ..estimators import Estimator, is_counting


@dataclass(frozen=True)
class Door:
    """How one door names the fallback in its messages, and what its time limit bounds.

    Attributes:
        fallback: The fallback's name in messages (``--fallback``, ``fallback``).
        backend: The backend's (``--backend``, ``backend``).
        learner: A learned estimator as this door may name it (a checkpoint path on the
            command line, a shipped model in a request).
        one_clock: Whether one limit bounds the whole answer (a request's), so that the
            count has the first half of the time and the estimate the rest; else the
            limit bounds each stage (a command's ``--time-limit``), and the answer comes
            within twice it.
    """

    fallback: str
    backend: str
    learner: str
    one_clock: bool

    def count_seconds(self, left: float) -> float:
        """The exact count's share of the ``left`` seconds."""
        return left / 2 if self.one_clock else left

    def estimate_seconds(self, limit: float) -> float:
        """The time limit of the estimate standing in, of a ``limit`` (0: none)."""
        return limit / 2 if self.one_clock else limit


#: ``mscsp probs --fallback``.
COMMAND = Door("--fallback", "--backend", "learner:PATH", one_clock=False)
#: ``/api/solve``'s ``fallback`` (names already checked by :mod:`mscsp.policy.names`).
REQUEST = Door("fallback", "backend", "learner:default", one_clock=True)


def check_fallback(spec: str | None, backend: str, door: Door) -> str | None:
    """``spec``, where it may stand in for ``backend``'s exact count (``None``: no fallback).

    Checked before any count, so that a fallback is refused even where the count would
    have finished first.

    Raises:
        InvalidInputError: ``backend`` estimates already (there is no count to stand in
            for), ``spec`` counts, or ``spec`` is no estimator's name.
    """
    if spec is None:
        return None
    if not is_counting(backend):
        raise InvalidInputError(
            f"{door.fallback} stands in for an exact count; {door.backend} {backend} estimates"
        )
    if is_counting(spec):
        raise InvalidInputError(
            f"{door.fallback} takes an estimator that does not count (bp, mcmc, sampler:N, "
            f"{door.learner}), got {spec!r}"
        )
    return spec


def fallback_record(spec: str, stopped: str, estimator: Estimator) -> dict[str, Any]:
    """The answer's ``fallback`` key: the estimator that answered, why the exact count
    stopped, and the estimator's measured mean |dp| by family of the hard corpus."""
    return {
        "estimator": spec,
        "exact_stopped": stopped,
        "measured_mean_abs_error": dict(estimator.measured),
    }
