"""What the engine's numba modules take from numba, in one place.

The modules import these names from here rather than from numba: the very same modules also
run uncompiled (:func:`mscsp.engine.compiled.uncompiled` loads them a second time with
:mod:`mscsp.engine._nojit` standing in for this module), so that each of the engine's checks
has one implementation, compiled or not.
"""

from __future__ import annotations

import math

from numba import njit, types
from numba.typed import Dict

#: ``lgamma`` as compiled code computes it: the C library's (numba calls it), which Python's
#: own ``math.lgamma`` differs from in the last bits; ``_nojit`` calls the C library's too.
lgamma = math.lgamma

__all__ = ["Dict", "lgamma", "njit", "types"]
