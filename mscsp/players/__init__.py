"""Players: every strategy by name, and the registry the harness and the CLI use.

A new strategy is a :class:`Player` subclass with a ``name`` plus one line in
:data:`PLAYERS`. ``learner:PATH`` (or ``learner:default``) specs load a learned model through
``learners.nets.player.make_player(PATH)``, imported only when asked for.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import BackendUnavailableError, InvalidInputError
from .base import Player
from .best import BestPlayer
from .csp import CspEdgePlayer, CspMinProbPlayer, CspRandomPlayer
from .limited import CspLimitedPlayer
from .probability import ProbabilityPlayer
from .rules import RulesPlayer
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
        BestPlayer,
    )
}

LEARNER_PREFIX = "learner:"


def get_player(spec: str, **options: Any) -> Player:
    """A player from a registry name or ``learner:PATH``.

    Args:
        spec: A name from :data:`PLAYERS`, or ``learner:PATH`` / ``learner:default``.
        **options: Keyword arguments of the player class.

    Raises:
        InvalidInputError: Unknown name or bad options.
        BackendUnavailableError: ``learner:`` asked for without the learners package.
    """
    if spec.startswith(LEARNER_PREFIX):
        # The learners package imports JAX and Flax only when a model is loaded.
        try:
            module = importlib.import_module("learners.nets.player")
            return module.make_player(spec[len(LEARNER_PREFIX) :], **options)
        except ImportError as exc:
            raise BackendUnavailableError(
                f"{spec!r} needs the learners package and its extra: pip install 'mscsp[ml]' "
                f"({exc})"
            ) from None
    cls = PLAYERS.get(spec)
    if cls is None:
        learned = _learned_systems()
        if spec in learned:
            return importlib.import_module("learners.registry").get_learned(spec, **options)
        raise InvalidInputError(
            f"unknown strategy {spec!r}; choose from {', '.join([*PLAYERS, *learned])} "
            "or learner:PATH"
        )
    try:
        return cls(**options)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"strategy {spec!r}: {exc}") from None


def _learned_systems() -> list[str]:
    """Names of the seed papers' learned players (``learners.registry``), if installed."""
    try:
        return list(importlib.import_module("learners.registry").SYSTEMS)
    except ImportError:
        return []


__all__ = ["LEARNER_PREFIX", "PLAYERS", "Player", "ProbabilityPlayer", "get_player"]
