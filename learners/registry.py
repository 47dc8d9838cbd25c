"""Every learned system by name, shaped like the backends' registry.

:data:`SYSTEMS` is ordered and its first entry is the default: ``learner``, the Flax networks
of :mod:`learners.nets` (``learner:PATH``, ``learner:default`` or plain ``learner``); then the
seed papers' systems, paper by paper; then this project's baselines (``rules-local``, the
learner's play without its net). Each entry names its family (the subpackage it lives
in), the callable that builds its player and the one that trains it (``"module:callable"``,
imported only when asked for), the pip extra its packages come from and the modules it needs
(:meth:`LearnedSystem.supported` imports them lazily).

``mscsp`` finds this table through the ``mscsp.learners`` entry-point group
(``pyproject.toml``: ``learners = "learners.registry:SYSTEMS"``), never by importing
``learners``: :mod:`mscsp.players.plugins` loads it on the first name that is not built in,
:func:`mscsp.players.get_player` builds a learned player with :meth:`LearnedSystem.build` and
the harness checks its options through :meth:`LearnedSystem.load`; ``mscsp learn system NAME``
trains the seed systems. The entries name their modules as data, so this module imports
nothing heavy and nothing of ``learners`` (listing the names stays cheap and no import circle
runs through it).
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
        family: The subpackage of ``learners`` it lives in (see :data:`FAMILIES`).
        player: ``"module:callable"`` returning the player (keyword options pass through);
            its keyword parameters are the player's options.
        trainer: ``"module:callable"`` training it (see :mod:`mscsp.cli.learn_seeds`), or
            ``None`` when it has its own commands (``mscsp learn data``/``train``/...).
        extra: The pip extra providing :attr:`requires`.
        requires: Modules the system imports.
        paper: Seed paper and section it reproduces (``""``: this project's own).
        summary: One line on what it is.
        argument: The player parameter that ``NAME:VALUE`` sets (``None``: takes no value).
        estimates: Whether its player predicts a mine probability per cell
            (``probabilities_batch``), so that it is also an estimator
            (:mod:`mscsp.estimators`: ``mscsp bench --backend NAME``).
    """

    name: str
    family: str
    player: str
    trainer: str | None
    extra: str
    requires: tuple[str, ...]
    paper: str
    summary: str
    argument: str | None = None
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
        """The player factory (``"player"``) or the trainer (``"trainer"``), imported now.

        Raises:
            InvalidInputError: ``"trainer"`` of a system trained by its own commands.
            BackendUnavailableError: The system's extra is not installed.
        """
        target = getattr(self, which)
        if target is None:
            raise InvalidInputError(
                f"{self.name!r} is not trained by 'mscsp learn system'; see docs/learners.md "
                "(mscsp learn data, mscsp learn train)"
            )
        self.require()
        module, _, attr = target.partition(":")
        return getattr(importlib.import_module(module), attr)

    def build(self, spec: str, **options: Any) -> Any:
        """The player of ``spec`` (this system's name, or ``NAME:VALUE`` where it takes one:
        ``learner:PATH``, ``learner:default``); ``options`` pass to the player's factory.

        Raises:
            InvalidInputError: A value the system does not take, bad options or a
                missing/corrupt artefact.
            BackendUnavailableError: The system's extra is not installed.
        """
        name, colon, value = spec.partition(":")
        if colon:
            if self.argument is None:
                raise InvalidInputError(
                    f"strategy {name!r} takes no ':VALUE'; give its options with -o KEY=VALUE"
                )
            options = {self.argument: value, **options}
        factory = self.load("player")
        try:
            return factory(**options)
        except TypeError as exc:
            raise InvalidInputError(f"strategy {spec!r}: {exc}") from None
        except ImportError as exc:  # a package the system loads late (its requires name the rest)
            raise BackendUnavailableError(
                f"strategy {spec!r} needs its optional packages: pip install 'mscsp[{self.extra}]' "
                f"({exc})"
            ) from None


#: The families, one subpackage of ``learners`` each, and what they hold.
FAMILIES: dict[str, str] = {
    "nets": "Flax networks: data, models, training, on-policy rounds, sweeps, evaluation",
    "classic": "scikit-learn models of seed 001 on local windows and whole boards",
    "qlearning": "tabular Q-learning of seeds 001 and 002 on the gymnasium environment",
    "guess": "seed 004's learned guess heuristics on top of the exact probabilities",
}

_CLASSIC = ("sklearn", "xgboost")
#: The scikit-learn systems read their model files with skops (a pickle only when trusted).
_SKLEARN = (*_CLASSIC, "skops")
_JAX = ("jax", "flax", "optax")
_SYSTEMS = (
    LearnedSystem(
        "learner",
        "nets",
        "learners.nets.learner:make_learner",
        None,
        "ml",
        (*_JAX, "orbax.checkpoint"),
        "",
        "this project's Flax networks (learner:PATH; learner:default is the shipped CNN, "
        "learner:graph the factor-graph net)",
        argument="path",
        estimates=True,
    ),
    LearnedSystem(
        "thesis-mlp",
        "nets",
        "learners.nets.seed_mlps:make_thesis_player",
        "learners.nets.seed_mlps:train_thesis",
        "ml",
        _JAX,
        "000 5.5",
        "MLP learner3: 5x5 window (24 cells) -> 70-80-60-35, ReLU; lowest bordering cell",
    ),
    LearnedSystem(
        "local-logistic",
        "classic",
        "learners.classic.local:make_player",
        "learners.classic.local:train_logistic",
        "classic",
        _SKLEARN,
        "001 III.A.1",
        "logistic regression on the 5x5 window, positive = certainly safe, Algorithm 1",
    ),
    LearnedSystem(
        "local-svm",
        "classic",
        "learners.classic.local:make_svm_player",
        "learners.classic.local:train_svm",
        "classic",
        _SKLEARN,
        "001 III.A.1",
        "class-weighted RBF SVM (Nystroem) on the 5x5 window, certainly-safe labels, Algorithm 1",
    ),
    LearnedSystem(
        "global-ridge",
        "classic",
        "learners.classic.ridge:make_player",
        "learners.classic.ridge:train",
        "classic",
        _SKLEARN,
        "001 III.A.2",
        "cross-validated kernel ridge regression of every cell's exact probability",
    ),
    LearnedSystem(
        "q-simple",
        "qlearning",
        "learners.qlearning.simple:make_player",
        "learners.qlearning.simple:train",
        "rl",
        ("gymnasium",),
        "001 III.B",
        "tabular immediate-reward Q-learning, Algorithms 2 and 3 (whole board as state)",
    ),
    LearnedSystem(
        "q-cluster",
        "qlearning",
        "learners.qlearning.cluster:make_player",
        "learners.qlearning.cluster:train",
        "rl",
        ("gymnasium",),
        "002 2.3",
        "tabular Q-learning on 3x3 clusters, click/ignore, Table 2 rewards",
    ),
    LearnedSystem(
        "alexnet",
        "nets",
        "learners.nets.alexnet:make_player",
        "learners.nets.alexnet:train",
        "ml",
        _JAX,
        "002 2.2",
        "AlexNet-like CNN without pooling (flax.nnx, 133,489 parameters) predicting mines, "
        "lowest-risk perimeter cell",
        estimates=True,
    ),
    LearnedSystem(
        "blog-mlp",
        "nets",
        "learners.nets.seed_mlps:make_blog_player",
        "learners.nets.seed_mlps:train_blog",
        "ml",
        _JAX,
        "003",
        "full-board MLP 10n-20n-10n-5n-n on the one-hot 9x9 board; lowest covered cell",
    ),
    LearnedSystem(
        "csp-xgb",
        "guess",
        "learners.guess.xgb:make_player",
        "learners.guess.xgb:train",
        "classic",
        _CLASSIC,
        "004 v5.0",
        "exact probabilities + XGBoost safety classifier on state-action features",
    ),
    LearnedSystem(
        "csp-nn-iter",
        "guess",
        "learners.guess.nn_iter:make_player",
        "learners.guess.nn_iter:train",
        "ml",
        _JAX,
        "004 v5.5",
        "exact probabilities + iteratively trained neural classifier (Algorithm 4, Table 1)",
    ),
    LearnedSystem(
        "csp-dqn",
        "guess",
        "learners.guess.dqn:make_player",
        "learners.guess.dqn:train",
        "ml",
        _JAX,
        "004 v6.5",
        "exact probabilities + a net fitted once to Monte-Carlo discounted returns of 3x3 score "
        "sub-states (the paper's deep Q; no TD, replay buffer or target network)",
    ),
    LearnedSystem(
        "csp-dqn-iter",
        "guess",
        "learners.guess.dqn:make_iter_player",
        "learners.guess.dqn:train_iter",
        "ml",
        _JAX,
        "004 v6.0",
        "exact probabilities + the csp-dqn net refitted on its own games, episode by episode, to "
        "Monte-Carlo returns (no TD, replay buffer or target network)",
    ),
    LearnedSystem(
        "rules-local",
        "nets",
        "learners.nets.player:RulesLocalPlayer",
        None,
        "ml",
        (),
        "",
        "baseline: learner's rules and check before a guess on a local estimate, no net "
        "(what the net's ranking of guesses earns)",
    ),
)

#: Every learned system by name: the default (``learner``) first, then in paper order.
SYSTEMS: dict[str, LearnedSystem] = {s.name: s for s in _SYSTEMS}

DEFAULT_SYSTEM = next(iter(SYSTEMS))


def get_system(spec: str) -> LearnedSystem:
    """The registry entry of ``spec``: a name, or ``NAME:VALUE`` (e.g. ``learner:PATH``).

    Raises:
        InvalidInputError: Unknown name (the message lists the valid ones).
    """
    name = spec.partition(":")[0]
    system = SYSTEMS.get(name)
    if system is None:
        raise InvalidInputError(
            f"unknown learned system {name!r}; choose from {', '.join(SYSTEMS)}"
        )
    return system


def player_factory(spec: str) -> Callable[..., Any]:
    """What builds the player of ``spec``; its keyword parameters are the player's options.

    Raises:
        InvalidInputError: Unknown name.
        BackendUnavailableError: The system's extra is not installed.
    """
    return get_system(spec).load("player")


def get_learned(spec: str, **options: Any) -> Any:
    """The player of learned system ``spec`` with its shipped (or given) artefact.

    ``spec`` is a name (``csp-xgb``, ``learner``) or ``NAME:VALUE`` for a system that takes
    one (``learner:PATH``, ``learner:default``); ``options`` pass to the player's factory.

    Raises:
        InvalidInputError: Unknown name, a value the system does not take, bad options or a
            missing/corrupt artefact.
        BackendUnavailableError: The system's extra is not installed.
    """
    return get_system(spec).build(spec, **options)
