"""``mscsp.runtime.interrupts``: a Ctrl-C that Python drops is remembered, and not reported."""

from __future__ import annotations

import gc
import sys

import pytest

from mscsp.runtime import interrupts


class _Pressed:
    """Raises ``KeyboardInterrupt`` when collected, as a Ctrl-C inside a finalizer does."""

    def __del__(self):
        interrupts._pressed.append(2)
        raise KeyboardInterrupt


class _Broken:
    def __del__(self):
        raise ValueError("kept in view")


def test_a_dropped_ctrl_c_is_kept_and_not_reported(monkeypatch):
    reported = []  # (what Python's hook would print as "Exception ignored")
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    with interrupts.kept():
        _Pressed()
        gc.collect()
        with pytest.raises(KeyboardInterrupt):
            interrupts.raise_if_pressed()
    assert reported == []


def test_other_errors_a_finalizer_drops_are_still_reported(monkeypatch):
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    with interrupts.kept():
        _Broken()
        gc.collect()
    assert [type(x.exc_value) for x in reported] == [ValueError]
    assert sys.unraisablehook == reported.append  # (given back after the block)
