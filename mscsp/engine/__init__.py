"""The compiled engine (numba): the small-board kernel behind :func:`mscsp.solve`,
whole games, and the checks of ``best``. :mod:`mscsp.engine.compiled` is its face; the
underscored modules are numba code loaded only through it, compiled or run by Python
(:func:`mscsp.engine.compiled.uncompiled`, which loads them from a second package: so they
import the rest of mscsp by absolute names, and numba's names through ``_jit``)."""
