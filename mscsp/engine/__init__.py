"""The compiled engine (numba): the small-board kernel behind :func:`mscsp.solve`,
whole games, and the checks of ``best``. :mod:`mscsp.engine.compiled` is its face; the
underscored modules are numba code loaded only through it."""
