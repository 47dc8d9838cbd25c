"""What the compiled kernel (:mod:`mscsp._kernel`) returns to :mod:`mscsp.compiled`.

Apart from both, so that the kernel reads them without importing the module that loads it.
"""

#: The whole answer is written (probability map included);
DONE = 1
#: the components are counted, and Python integers must weigh them together;
COUNTED = 2
#: the pure path must answer (beyond the kernel's limits);
FALLBACK = 0
#: the numbers admit no layout (the pure path raises, with its own words);
INCONSISTENT = 5
#: asked to stop there, the reduction settled safe cells (the answer ends with the fixed
#: groups: nothing is counted).
REDUCED = 3
#: asked for estimates (rollouts), floating-point odds where the exact ones would need
#: Python integers: the probability map only, near-exact, for a player that need not be
#: exact.
APPROX = 4

# What the APPROX answer says is certain of a cell (``odds[n + i]``, see
# ``mscsp._kernel._float_odds``): bits (both only where no layout reaches the cell, never
# on a consistent board).
SURE_SAFE = 1
SURE_MINE = 2
