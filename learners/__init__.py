"""Learners for mscsp: JAX/Flax models trained on exact CSP mine probabilities.

Modules: :mod:`.data` (labelled positions), :mod:`.models` (named configs), :mod:`.train`,
:mod:`.evaluate`, :mod:`.player` (``learner:PATH`` for ``mscsp play``). Nothing here is
imported by ``import mscsp``; the ``ml`` extra provides JAX, Flax and optax.
"""
