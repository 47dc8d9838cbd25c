"""Players: every strategy by name, and the registry the harness and the CLI use.

A new strategy is a :class:`Player` subclass with a ``name`` plus one line in
:data:`PLAYERS`. Learned players (``learner:PATH``, ``learner:default``, the seed papers'
systems) are the ones installed packages register under the ``mscsp.learners`` entry points
(:mod:`.plugins`), read only when a name is not built in; nothing here imports ``learners``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import BackendUnavailableError, InvalidInputError
from .base import Player
from .best import BestPlayer
from .csp import CspEdgePlayer, CspMinProbPlayer, CspRandomPlayer
from .limited import CspLimitedPlayer
from .lookahead import LookaheadPlayer
from .plugins import learned_system, learned_systems
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


def get_player(spec: str, **options: Any) -> Player:
    """A player from a registry name, a learned system's name or ``learner:PATH``.

    Args:
        spec: A name from :data:`PLAYERS`, or a registered learned system (:mod:`.plugins`):
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
    system = learned_system(spec.partition(":")[0])
    if system is not None:
        return system.build(spec, **options)
    if spec.startswith(LEARNER_PREFIX):
        raise BackendUnavailableError(
            f"{spec!r} needs the learners package and its extra: pip install 'mscsp[ml]'"
        )
    learned = list(learned_systems())
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
    system = learned_system(spec.partition(":")[0])
    if system is None:
        return None
    try:
        return system.load("player")
    except BackendUnavailableError:
        return None


__all__ = [
    "LEARNER_PREFIX",
    "PLAYERS",
    "Player",
    "ProbabilityPlayer",
    "get_player",
    "player_factory",
]
