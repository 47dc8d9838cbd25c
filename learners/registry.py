"""Every learned player of the seed papers by name, shaped like the backends' registry.

:data:`SYSTEMS` is ordered (paper by paper); each entry names the module that builds its
player and the one that trains it (both imported only when asked for), the pip extra its
packages come from and the modules it needs (:meth:`LearnedSystem.supported` imports them
lazily). ``mscsp play --strategy NAME`` resolves these names through
:func:`mscsp.players.get_player`; ``mscsp learn system NAME`` trains them.

This module imports nothing heavy, so listing the names stays cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mscsp.errors import BackendUnavailableError, InvalidInputError


@dataclass(frozen=True)
class LearnedSystem:
    """One learning system of a seed paper.

    Attributes:
        name: Strategy name (``mscsp play --strategy NAME``).
        player: ``"module:callable"`` returning the player (keyword options pass through).
        trainer: ``"module:callable"`` training it (see :mod:`mscsp.cli.learn_seeds`).
        extra: The pip extra providing :attr:`requires`.
        requires: Modules the system imports.
        paper: Seed paper and section it reproduces.
        summary: One line on what it is.
        estimates: Whether its player predicts a mine probability per cell
            (``probabilities_batch``), so that it is also an estimator
            (:mod:`mscsp.estimators`: ``mscsp bench --backend NAME``).
    """

    name: str
    player: str
    trainer: str
    extra: str
    requires: tuple[str, ...]
    paper: str
    summary: str
    estimates: bool = False

    def supported(self) -> bool:
        """Whether the system's packages can be imported here."""
        try:
            for module in self.requires:
                importlib.import_module(module)
        except ImportError:
            return False
        return True

    def require(self) -> None:
        """Raises :class:`BackendUnavailableError` naming the extra when a package is missing."""
        if not self.supported():
            raise BackendUnavailableError(
                f"strategy {self.name!r} needs its optional packages: "
                f"pip install 'mscsp[{self.extra}]'"
            )

    def load(self, which: str) -> Callable[..., Any]:
        """The player factory (``"player"``) or the trainer (``"trainer"``), imported now."""
        self.require()
        module, _, attr = getattr(self, which).partition(":")
        return getattr(importlib.import_module(module), attr)


_CLASSIC = ("sklearn", "xgboost")
_JAX = ("jax", "flax", "optax")
_SYSTEMS = (
    LearnedSystem(
        "local-logistic",
        "learners.classic.local:make_player",
        "learners.classic.local:train_logistic",
        "classic",
        _CLASSIC,
        "001 III.A.1",
        "logistic regression on the 5x5 window, positive = certainly safe, Algorithm 1",
    ),
    LearnedSystem(
        "local-svm",
        "learners.classic.local:make_svm_player",
        "learners.classic.local:train_svm",
        "classic",
        _CLASSIC,
        "001 III.A.1",
        "class-weighted RBF SVM (Nystroem) on the 5x5 window, certainly-safe labels, Algorithm 1",
    ),
    LearnedSystem(
        "global-ridge",
        "learners.classic.ridge:make_player",
        "learners.classic.ridge:train",
        "classic",
        _CLASSIC,
        "001 III.A.2",
        "cross-validated kernel ridge regression of every cell's exact probability",
    ),
    LearnedSystem(
        "q-simple",
        "learners.qlearning.simple:make_player",
        "learners.qlearning.simple:train",
        "rl",
        ("gymnasium",),
        "001 III.B",
        "tabular immediate-reward Q-learning, Algorithms 2 and 3 (whole board as state)",
    ),
    LearnedSystem(
        "q-cluster",
        "learners.qlearning.cluster:make_player",
        "learners.qlearning.cluster:train",
        "rl",
        ("gymnasium",),
        "002 2.3",
        "tabular Q-learning on 3x3 clusters, click/ignore, Table 2 rewards",
    ),
    LearnedSystem(
        "alexnet",
        "learners.nets.alexnet:make_player",
        "learners.nets.alexnet:train",
        "ml",
        _JAX,
        "002 2.2",
        "AlexNet-like CNN (flax.nnx) predicting mines, lowest-risk perimeter cell",
        estimates=True,
    ),
    LearnedSystem(
        "csp-xgb",
        "learners.guess.xgb:make_player",
        "learners.guess.xgb:train",
        "classic",
        _CLASSIC,
        "004 v5.0",
        "exact probabilities + XGBoost safety classifier on state-action features",
    ),
    LearnedSystem(
        "csp-nn-iter",
        "learners.guess.nn_iter:make_player",
        "learners.guess.nn_iter:train",
        "ml",
        _JAX,
        "004 v5.5",
        "exact probabilities + iteratively trained neural classifier (Algorithm 4, Table 1)",
    ),
    LearnedSystem(
        "csp-dqn",
        "learners.guess.dqn:make_player",
        "learners.guess.dqn:train",
        "ml",
        _JAX,
        "004 v6.5",
        "exact probabilities + deep Q on 3x3 score sub-states, single-pass training",
    ),
    LearnedSystem(
        "csp-dqn-iter",
        "learners.guess.dqn:make_iter_player",
        "learners.guess.dqn:train_iter",
        "ml",
        _JAX,
        "004 v6.0",
        "exact probabilities + deep Q on 3x3 score sub-states, iterative training",
    ),
)

#: Every learned system by name, in paper order.
SYSTEMS: dict[str, LearnedSystem] = {s.name: s for s in _SYSTEMS}


def get_system(name: str) -> LearnedSystem:
    """The registry entry of ``name``.

    Raises:
        InvalidInputError: Unknown name (the message lists the valid ones).
    """
    system = SYSTEMS.get(name)
    if system is None:
        raise InvalidInputError(
            f"unknown learned system {name!r}; choose from {', '.join(SYSTEMS)}"
        )
    return system


def get_learned(name: str, **options: Any) -> Any:
    """The player of learned system ``name`` with its shipped (or ``weights=``) artefact.

    Raises:
        InvalidInputError: Unknown name, bad options or a missing/corrupt artefact.
        BackendUnavailableError: The system's extra is not installed.
    """
    factory = get_system(name).load("player")
    try:
        return factory(**options)
    except TypeError as exc:
        raise InvalidInputError(f"strategy {name!r}: {exc}") from None
