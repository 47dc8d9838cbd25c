"""ms_toollib's optical board recognition (``obr_board``), run apart from this process.

``obr_board`` loads its model from ``params.onnx`` in the current directory, wants the
pixels as B, G, R, A values, and on some images aborts the whole process (a Rust panic) or
answers ``[[200]]`` for "no board". So it runs in a forked child (:func:`run_function`:
its own process group, a time limit, a memory ceiling) that changes into a private
temporary directory holding a link to the model: the caller's directory never changes, and
a crash is one line of error here. Its answer is a guess for :mod:`mscsp.screen.checks`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from ..errors import BackendUnavailableError, InvalidInputError
from ..runtime.child import OK, RAISED
from ..runtime.isolated import run_function

#: The environment variable naming the model file when ``--obr-model`` does not.
MODEL_ENV = "MSCSP_OBR_MODEL"
#: The name ``obr_board`` opens in its current directory.
MODEL_NAME = "params.onnx"
#: Where the model comes from, for messages.
WHERE = (
    "the model is base/params.onnx in ms_toollib's repository, github.com/eee555/ms_toollib, MIT"
)
#: The recogniser's answer for "no board in this image".
NO_BOARD = [[200]]
#: Its code for a covered cell, and for a flag (it tells them apart no more than that).
COVERED_OR_FLAG = 10
#: Seconds and MiB it may take on one image (a 5K screenshot takes a few seconds).
SECONDS, MEMORY_MB = 120.0, 4096


def require(given: str | os.PathLike[str] | None) -> Path:
    """The model file (``given``, else :data:`MODEL_ENV`'s), once ms_toollib is found
    installed and the file readable.

    Raises:
        BackendUnavailableError: ms_toollib is not installed, no model is named, or the file
            named is not there.
    """
    try:
        import ms_toollib  # noqa: F401  (loaded here, so the recogniser's child has it)
    except ImportError:
        raise BackendUnavailableError(
            f"reading a screenshot needs ms_toollib: pip install 'mscsp[replay]' ({WHERE})"
        ) from None
    named = given if given is not None else os.environ.get(MODEL_ENV)
    if not named:
        raise BackendUnavailableError(
            f"reading a screenshot needs the recogniser's model: pass --obr-model PATH or set "
            f"{MODEL_ENV} ({WHERE})"
        )
    path = Path(named).expanduser().resolve()
    if not path.is_file() or not os.access(path, os.R_OK):
        raise BackendUnavailableError(f"no readable model file at {str(path)!r} ({WHERE})")
    return path


def recognise(pixels: np.ndarray, model: Path) -> list[list[int]] | None:
    """``obr_board``'s reading of ``pixels`` (rows x columns x R, G, B), ``None``: no board.

    ``model`` is what :func:`require` gave.

    Raises:
        InvalidInputError: The recogniser crashed, ran past its limit, or raised.
    """
    with tempfile.TemporaryDirectory(prefix="mscsp-obr-") as place:
        os.symlink(model, os.path.join(place, MODEL_NAME))
        outcome = run_function(_obr, pixels, place, timeout=SECONDS, memory_mb=MEMORY_MB)
    if outcome.status == RAISED:
        raise InvalidInputError(f"no board recognised: the recogniser failed ({outcome.value})")
    if outcome.status != OK:
        how = outcome.detail or outcome.status
        raise InvalidInputError(f"no board recognised: the recogniser stopped ({how})")
    board = outcome.value
    return None if board == NO_BOARD or not board or not board[0] else board


def _obr(pixels: np.ndarray, place: str) -> list[list[int]]:
    """In the child: the recogniser, run in ``place`` (where its model lies)."""
    import ms_toollib

    os.chdir(place)  # the child's own directory: the parent's never changes
    height, width = pixels.shape[:2]
    bgra = np.empty((height, width, 4), dtype=np.uint64)
    bgra[..., :3] = pixels[..., ::-1]  # it reads B, G, R, A (R, G, B, A loses cells)
    bgra[..., 3] = 255
    board = ms_toollib.obr_board(bgra.reshape(-1), height, width)
    return [[int(v) for v in row] for row in board]
