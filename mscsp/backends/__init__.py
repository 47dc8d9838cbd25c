"""Counting backends behind one interface, and their registry.

The first entry of :data:`BACKENDS` is the default. A new backend is one module here plus
one line in :data:`BACKENDS`; see ``docs/backends.md`` for the full checklist.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidInputError, InvalidTypeError
from ..trust.escape import shown
from ..validate import describe
from .approxmc import ApproxmcBackend
from .base import Backend
from .brute import BruteBackend
from .cpm import CpmpyBackend
from .cpsat import CpSatBackend
from .d4 import D4Backend
from .dss import DssBackend
from .external import ExternalBackend
from .ganak import GanakBackend
from .ilp import IlpBackend
from .mdd import MddBackend
from .sat import SatBackend
from .sdd import SddBackend

#: Every backend by name; the first is the default.
BACKENDS: dict[str, type[Backend]] = {
    "dss": DssBackend,
    "brute": BruteBackend,
    "sat": SatBackend,
    "ganak": GanakBackend,
    "cpsat": CpSatBackend,
    "sdd": SddBackend,
    "mdd": MddBackend,
    "ilp": IlpBackend,
    "d4": D4Backend,
    "cpmpy": CpmpyBackend,
    "external": ExternalBackend,
    "approxmc": ApproxmcBackend,
}

DEFAULT_BACKEND = next(iter(BACKENDS))


def get_backend(spec: str | Backend = DEFAULT_BACKEND, **kwargs: Any) -> Backend:
    """Instantiates a backend from a name such as ``"dss"`` or ``"sat:cadical195"``.

    The part after ``:`` is passed to the backend as its ``solver`` option.

    Raises:
        InvalidTypeError: ``spec`` is neither a name nor a :class:`Backend`.
        InvalidInputError: Unknown backend name (the message lists the valid ones).
        BackendUnavailableError: The backend's optional package is missing.
    """
    if isinstance(spec, Backend):
        return spec
    if not isinstance(spec, str):
        raise InvalidTypeError(
            f"backend must be a backend name or a mscsp.backends.Backend, got {describe(spec)}"
        )
    name, _, sub = spec.partition(":")
    cls = BACKENDS.get(name)
    if cls is None:
        raise InvalidInputError(f"unknown backend {shown(name)}; choose from {', '.join(BACKENDS)}")
    if sub:
        kwargs["solver"] = sub
    return cls(**kwargs)


__all__ = ["BACKENDS", "DEFAULT_BACKEND", "Backend", "get_backend"]
