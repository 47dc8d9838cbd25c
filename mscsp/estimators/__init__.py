"""Estimators: anything that maps a board to a mine probability per covered cell.

Three families share one interface (:class:`Estimator`) and one registry
(:func:`estimator_kinds`, ordered; its first entry, the default counting backend, is the
default): **exact** counting backends through :func:`mscsp.solve`; **approximate** ones
(``approxmc``, the uniform sampler ``sampler:N``, ``csp-limited``'s limited traversal,
loopy belief propagation ``bp:ITERS``, Markov chains ``mcmc:SWEEPS``);
and **learned** models (``learner:PATH``, the seed nets that predict per cell), found
through the ``mscsp.learners`` entry points on first use, so ``import mscsp`` never loads JAX.

A name is ``NAME`` or ``NAME:ARG`` (``sat:cadical195``, ``sampler:1000``,
``learner:default``). Every command's ``--backend`` takes any of them. See
``docs/estimators.md`` for the checklist to add one.
"""

from __future__ import annotations

import functools

from ..backends import BACKENDS, DEFAULT_BACKEND
from ..errors import InvalidInputError
from ..trust.escape import shown
from ..validate import check_text, check_time_limit
from . import bp, limited, mcmc, sampling
from .base import FAMILIES, Estimate, Estimator, EstimatorKind, on_board, run_report
from .counting import CountingEstimator, counting_kinds
from .learned import LearnedEstimator, learned_kinds

#: The default estimator: the default counting backend.
DEFAULT_ESTIMATOR = DEFAULT_BACKEND


#: The learned models, looked up in the registered tables once (on first use, not import).
_learned = functools.cache(learned_kinds)


def estimator_kinds() -> dict[str, EstimatorKind]:
    """Every estimator by name: exact and approximate counters, the sampler, the limited
    traversal, belief propagation, MCMC, then the learned models; the first is the default.

    The counters are read from :data:`mscsp.backends.BACKENDS` on each call, so a backend
    registered there is an estimator at once.
    """
    kinds = [*counting_kinds(), sampling.KIND, limited.KIND, bp.KIND, mcmc.KIND, *_learned()]
    return {kind.name: kind for kind in kinds}


def usage() -> str:
    """Every accepted name, with the argument a name takes (``sampler:N``)."""
    return ", ".join(
        f"{k.name}:{k.arg}" if k.arg and k.family != "exact" else k.name
        for k in estimator_kinds().values()
    )


def kind_of(spec: str) -> EstimatorKind:
    """The registry entry of ``NAME`` or ``NAME:ARG``.

    Raises:
        InvalidTypeError: ``spec`` is not a str.
        InvalidInputError: Unknown name (the message lists the valid ones).
    """
    check_text(spec, "backend")
    kind = estimator_kinds().get(spec.partition(":")[0].strip())
    if kind is None:
        raise InvalidInputError(f"unknown backend {shown(spec)}; choose from {usage()}")
    return kind


def get_estimator(spec: str = DEFAULT_ESTIMATOR, time_limit: float | None = None) -> Estimator:
    """Makes the estimator ``spec`` names.

    Args:
        spec: ``NAME`` or ``NAME:ARG`` (see :func:`usage`).
        time_limit: Seconds per board for estimators with a clock (counters, the sampler).

    Raises:
        InvalidTypeError: ``spec`` is not a str, or ``time_limit`` not a number.
        InvalidInputError: Unknown name, bad argument, a negative time limit or a missing
            checkpoint.
        BackendUnavailableError: Its optional packages are missing (names the extra).
    """
    kind = kind_of(spec)
    check_time_limit(time_limit)
    _, _, arg = spec.partition(":")
    return kind.make(arg.strip(), time_limit)


def is_counting(spec: str) -> bool:
    """Whether ``spec`` is a counting backend (it then has components, counts, decisions)."""
    return kind_of(spec).name in BACKENDS


__all__ = [
    "DEFAULT_ESTIMATOR",
    "FAMILIES",
    "CountingEstimator",
    "Estimate",
    "Estimator",
    "EstimatorKind",
    "LearnedEstimator",
    "estimator_kinds",
    "get_estimator",
    "is_counting",
    "kind_of",
    "on_board",
    "run_report",
    "usage",
]
