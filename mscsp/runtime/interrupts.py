"""Ctrl-C that a long run never loses.

Python raises ``KeyboardInterrupt`` wherever the main thread happens to be when Ctrl-C
arrives, and drops it (printing "Exception ignored") when that is inside a garbage
collector's callback or a finalizer: JAX has such a callback, so a run could swallow the
interrupt and go on for hours. While :func:`kept` is in force, Ctrl-C still raises
``KeyboardInterrupt`` at once, and is also remembered, so that a run checking
:func:`raise_if_pressed` between its items stops there all the same (and the one Python
drops is not reported as an error).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_pressed: list[int] = []


def _on_ctrl_c(signum: int, frame: Any) -> None:
    _pressed.append(signum)
    raise KeyboardInterrupt


@contextmanager
def kept() -> Iterator[None]:
    """Remembers Ctrl-C within the block (see the module's docstring).

    Only in the main thread and where Ctrl-C raises ``KeyboardInterrupt`` (where it is
    ignored or handled otherwise, nothing changes); nested blocks share the outer one's.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    _pressed.clear()
    signal.signal(signal.SIGINT, _on_ctrl_c)
    before = sys.unraisablehook

    def quiet(unraisable: Any) -> None:
        # A Ctrl-C that Python drops is remembered above: no "Exception ignored" traceback.
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            before(unraisable)

    sys.unraisablehook = quiet
    try:
        yield
    finally:
        sys.unraisablehook = before
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _pressed.clear()


def raise_if_pressed() -> None:
    """Raises ``KeyboardInterrupt`` where Ctrl-C was pressed within :func:`kept` (whether or
    not Python dropped the first one)."""
    if _pressed:
        raise KeyboardInterrupt
