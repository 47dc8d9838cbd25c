"""The Flax networks: JAX/Flax models trained on exact CSP mine probabilities.

:mod:`.data` (labelled positions), :mod:`.channels` (extra inputs), :mod:`.models` (named
configs), :mod:`.train`, :mod:`.onpolicy` (DAgger-style rounds), :mod:`.sweep`,
:mod:`.ablation`, :mod:`.evaluate` and :mod:`.player` (``learner:PATH``); :mod:`.alexnet` is
seed 002's network, one config of :mod:`.models` trained and played by the same code. The
``ml`` extra provides JAX, Flax and optax.
"""
