"""Small array helpers of ``mscsp.board``."""

from __future__ import annotations

import numpy as np
import pytest

from mscsp.board import bordered


def test_bordered_is_a_padded_copy():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    for value in (0, 7):
        out = bordered(a, value)
        np.testing.assert_array_equal(out, np.pad(a, 1, constant_values=value))
        assert out.dtype == a.dtype
    flags = a % 3 == 0
    np.testing.assert_array_equal(bordered(flags, True), np.pad(flags, 1, constant_values=True))


def test_bordered_refuses_what_is_not_a_grid():
    from mscsp.errors import InvalidInputError

    for bad in (np.zeros(3), np.zeros((2, 2, 2)), [[1, 2]]):
        with pytest.raises(InvalidInputError, match="2-D"):
            bordered(bad)
