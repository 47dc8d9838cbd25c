"""Learned players for mscsp, one subpackage per family, and their registry.

* :mod:`.nets`: this project's JAX/Flax networks trained on exact CSP mine probabilities
  (data, input channels, models, training, on-policy rounds, sweeps, ablation, evaluation,
  the ``learner:PATH`` player) and seed 002's AlexNet (:mod:`.nets.alexnet`); extra ``ml``.
* :mod:`.classic`: seed 001's scikit-learn players (``local-logistic``, ``local-svm``,
  ``global-ridge``); extra ``classic``.
* :mod:`.qlearning`: tabular Q-learning of seeds 001 and 002 (``q-simple``, ``q-cluster``) on
  the ``mscsp/Minesweeper-v0`` environment; extra ``rl``.
* :mod:`.guess`: seed 004's learned guess heuristics over the exact probabilities: the
  XGBoost one (``csp-xgb``) is trained and played in :mod:`.guess.xgb`, the networks in
  :mod:`.guess.nn_iter` and :mod:`.guess.dqn`.

:mod:`.registry` holds every learned system by name (``learner`` first, then the seed papers'
in paper order) with its family, player, trainer and extra; ``mscsp`` finds it through the
``mscsp.learners`` entry points (``pyproject.toml``) when a name is not built in.
:mod:`.artefacts` and ``weights/`` are the shipped artefacts. Nothing here is imported by
``import mscsp``; see ``docs/learners.md`` and ``docs/seeds.md``.
"""
