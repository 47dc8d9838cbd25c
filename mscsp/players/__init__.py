"""Players: every strategy by name, and the registry the harness and the CLI use.

A new strategy is a :class:`Player` subclass with a ``name`` plus one line in
:data:`PLAYERS`. Learned players (``learner:PATH``, ``learner:default``, the seed papers'
systems) are found through the registry of learned systems, ``learners.registry``, imported
only when a name is not built in; nothing here imports the learners' modules themselves.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

from ..errors import BackendUnavailableError, InvalidInputError
from .base import Player
from .best import BestPlayer
from .csp import CspEdgePlayer, CspMinProbPlayer, CspRandomPlayer
from .limited import CspLimitedPlayer
from .lookahead import LookaheadPlayer
from .probability import ProbabilityPlayer
from .rules import RulesPlayer
from .search import SearchPlayer
from .sps import SpsPlayer

#: Every built-in strategy by name, weakest first.
PLAYERS: dict[str, type[Player]] = {
    cls.name: cls
    for cls in (
        SpsPlayer,
        RulesPlayer,
        CspRandomPlayer,
        CspMinProbPlayer,
        CspEdgePlayer,
        CspLimitedPlayer,
        LookaheadPlayer,
        BestPlayer,
        SearchPlayer,
    )
}

LEARNER_PREFIX = "learner:"
#: The registry of learned systems (``learner:PATH`` and the seed papers' names); the one
#: module of ``learners`` that ``mscsp`` names, imported only when a name is not built in.
LEARNED_REGISTRY = "learners.registry"


def get_player(spec: str, **options: Any) -> Player:
    """A player from a registry name, a learned system's name or ``learner:PATH``.

    Args:
        spec: A name from :data:`PLAYERS`, or a learned system of ``learners.registry``:
            ``learner:PATH`` / ``learner:default`` or a seed paper's name (``csp-xgb``, ...).
        **options: Keyword arguments of the player class.

    Raises:
        InvalidInputError: Unknown name or bad options.
        BackendUnavailableError: A learned system asked for without the learners package or
            its extra.
    """
    cls = PLAYERS.get(spec)
    if cls is not None:
        try:
            return cls(**options)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"strategy {spec!r}: {exc}") from None
    registry = _learned_registry()
    if registry is not None and spec.partition(":")[0] in registry.SYSTEMS:
        return registry.get_learned(spec, **options)
    if spec.startswith(LEARNER_PREFIX):
        raise BackendUnavailableError(
            f"{spec!r} needs the learners package and its extra: pip install 'mscsp[ml]'"
        )
    learned = [] if registry is None else list(registry.SYSTEMS)
    raise InvalidInputError(
        f"unknown strategy {spec!r}; choose from {', '.join([*PLAYERS, *learned])} or learner:PATH"
    )


def player_factory(spec: str) -> Callable[..., Any] | None:
    """The class or function that builds ``spec``'s player: its keyword parameters are the
    player's options. ``None`` when ``spec`` is unknown or its packages are missing (then
    :func:`get_player` raises the error that says so).
    """
    cls = PLAYERS.get(spec)
    if cls is not None:
        return cls
    registry = _learned_registry()
    if registry is None or spec.partition(":")[0] not in registry.SYSTEMS:
        return None
    try:
        return registry.player_factory(spec)
    except BackendUnavailableError:
        return None


def _learned_registry() -> ModuleType | None:
    """``learners.registry`` if the learners package is installed (it imports nothing heavy)."""
    try:
        return importlib.import_module(LEARNED_REGISTRY)
    except ImportError:
        return None


__all__ = [
    "LEARNER_PREFIX",
    "PLAYERS",
    "Player",
    "ProbabilityPlayer",
    "get_player",
    "player_factory",
]
