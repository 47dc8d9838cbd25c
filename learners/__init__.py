"""Learners for mscsp: JAX/Flax models trained on exact CSP mine probabilities.

The Flax networks live in :mod:`.nets` (data, models, training, on-policy rounds, sweeps,
evaluation, ``learner:PATH`` for ``mscsp play``). Nothing here is
imported by ``import mscsp``; the ``ml`` extra provides JAX, Flax and optax.

The seed papers' other learning systems are registered by name in :mod:`.registry`:
:mod:`.classic` (seed 001, scikit-learn), :mod:`.qlearning` (seeds 001 and 002, tabular, on
the ``mscsp/Minesweeper-v0`` environment), :mod:`.nets.alexnet` (seed 002) and :mod:`.guess`
(seed 004's learned guess heuristics); see ``docs/seeds.md``.
"""
