"""The names of :mod:`mscsp.engine._jit` for the engine's modules run by Python (see
:func:`mscsp.engine.compiled.uncompiled`): numba's jit bypassed, numba not even imported.

Run this way the modules give the compiled code's answers bit for bit: the same operations in
the same order on the same 64-bit numbers, and :data:`lgamma` the C library's, which the
compiled code calls (Python's ``math.lgamma`` is its own).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any


def njit(*args: Any, **options: Any) -> Any:
    """The identity, as ``@njit`` and as ``@njit(cache=True)``: the function stays Python."""
    if args and callable(args[0]):
        return args[0]
    return lambda function: function


#: numba's typed dictionary, for ``Dict.empty(key_type=..., value_type=...)``: a plain one.
Dict = SimpleNamespace(empty=lambda key_type, value_type: {})
#: numba's types, named (at import) for that dictionary only: nothing to type here.
types = SimpleNamespace(int64=None, float64=None, UniTuple=lambda *a: None, Tuple=lambda *a: None)


def _c_lgamma() -> Callable[[float], float]:
    """The C library's ``lgamma`` (Python's own where it cannot be found: the answers may
    then differ from the compiled code's in the last bits)."""
    try:
        function = ctypes.CDLL(ctypes.util.find_library("m")).lgamma
    except (OSError, TypeError, AttributeError):
        return math.lgamma
    function.restype = ctypes.c_double
    function.argtypes = [ctypes.c_double]
    return lambda x: function(float(x))


lgamma = _c_lgamma()
