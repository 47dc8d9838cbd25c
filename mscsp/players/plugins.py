"""Learned systems that installed packages register under the ``mscsp.learners`` entry points.

``mscsp`` never imports ``learners``: the way in runs through package metadata, as pytest finds
its plugins and Gymnasium its environments. A distribution declares, in its
``pyproject.toml``::

    [project.entry-points."mscsp.learners"]
    learners = "learners.registry:SYSTEMS"

and each entry names a table ``{name: system}`` whose systems answer :class:`LearnedSystem`.
The tables load on the first name that is not built in (loading one imports its registry,
which imports nothing heavy) and once only; a system is looked up in them on each call, so
the table's own entry is the one that answers. Without any such distribution installed, no
name is learned and the callers say which package is missing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from typing import Any, Protocol

#: The entry-point group learned systems register under.
GROUP = "mscsp.learners"


class LearnedSystem(Protocol):
    """What ``mscsp`` asks of a registered learned system (``learners.registry`` has them)."""

    # Properties: read-only, as the registry's entries are frozen dataclasses.
    @property
    def name(self) -> str:
        """Its strategy and estimator name."""
        ...

    @property
    def extra(self) -> str:
        """The pip extra its packages come from."""
        ...

    @property
    def summary(self) -> str:
        """One line on what it is."""
        ...

    @property
    def argument(self) -> str | None:
        """The player parameter ``NAME:VALUE`` sets (``None``: the name takes no value)."""
        ...

    @property
    def estimates(self) -> bool:
        """Whether its player predicts a mine probability per cell (it is an estimator too)."""
        ...

    def supported(self) -> bool:
        """Whether the system's packages can be imported here."""
        ...

    def load(self, which: str) -> Callable[..., Any]:
        """The player factory (``"player"``), imported now."""
        ...

    def build(self, spec: str, **options: Any) -> Any:
        """The player of ``spec`` (``NAME`` or ``NAME:VALUE``) with ``options``."""
        ...


@functools.cache
def _tables() -> tuple[Mapping[str, LearnedSystem], ...]:
    tables = []
    for entry in entry_points(group=GROUP):
        try:
            tables.append(entry.load())
        except ImportError:  # metadata left behind by a package that is gone: not installed
            continue
    return tuple(tables)


def learned_systems() -> dict[str, LearnedSystem]:
    """Every registered learned system by name, in the order its table gives (empty when no
    package registers any); the first table to name a system wins."""
    systems: dict[str, LearnedSystem] = {}
    for table in _tables():
        for name, system in table.items():
            systems.setdefault(name, system)
    return systems


def learned_system(name: str) -> LearnedSystem | None:
    """The registered learned system called ``name`` (no ``:VALUE``), or ``None``."""
    for table in _tables():
        system = table.get(name)
        if system is not None:
            return system
    return None
