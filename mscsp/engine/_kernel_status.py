"""What the compiled kernel (:mod:`mscsp.engine._kernel`) returns to :mod:`mscsp.engine.compiled`.

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

# What the kernel makes of counts that would need Python integers (``solve_flat``'s
# ``approx``): it hands them back (COUNTED);
EXACT = 0
# the floating-point map (APPROX), each covered cell's class of exactly equal odds found
# among the safest (for players that break ties between cells);
FLOAT_TIED = 1
# the floating-point map and what is certain only (a look-ahead that reads no classes).
FLOAT_MAP = 2

# What the APPROX answer says is certain of a cell (``odds[n + i]``, see
# ``mscsp.engine._kernel._float_odds``): bits (both only where no layout reaches the cell, never
# on a consistent board).
SURE_SAFE = 1
SURE_MINE = 2
