"""``/api/read-image``: the board in a pasted or dropped screenshot, read for the user to
check (:func:`mscsp.screen.read_screenshot`, as ``mscsp probs --image`` reads it).

The recogniser's model is the server's: the person who started it names the file
(``mscsp serve --obr-model PATH``, or ``MSCSP_OBR_MODEL``); a request sends only the image,
never a path. The answer is board text without a header (the page takes the mine count from
its Mines box), unreadable cells written ``#`` so that the text does not parse until the
user writes what the screen shows there: a reading is a guess to be checked, never a board
to be solved unseen.
"""

from __future__ import annotations

from typing import Any

from ..errors import BackendUnavailableError
from .replay_api import Upload
from .service import Limits, check_size


def image_request(upload: Upload, limits: Limits) -> dict[str, Any]:
    """Reads the board in an uploaded screenshot.

    Returns:
        ``board`` (text, ``#`` where unreadable), ``rows``, ``cols``, ``unreadable``
        (``[row, col]`` of each doubtful cell), ``caught`` (``[row, col]`` of each cell the
        checks took from the recogniser's answer) and ``note`` (what the recogniser cannot
        tell apart: flags from covered cells).

    Raises:
        BackendUnavailableError: The server reads no screenshots (no model named), or
            ms_toollib or Pillow is missing.
        InvalidInputError: Not an image, too large, or no board found or recognised.
        ApiError: The board is larger than ``limits.max_cells`` (413).
    """
    from ..screen import FLAGS_NOTE, UNREADABLE, read_screenshot

    if limits.obr_model is None:
        raise BackendUnavailableError(
            "this server reads no screenshots: start it with mscsp serve --obr-model PATH "
            "(ms_toollib's params.onnx)"
        )
    reading = read_screenshot(upload.data, limits.obr_model)  # (in a worker: killed at the limit)
    rows, cols = reading.cells.shape
    check_size(rows, cols, limits, "board in the image")
    caught = (reading.cells != reading.guess) & (reading.cells != UNREADABLE)
    return {
        "board": reading.text(),
        "rows": rows,
        "cols": cols,
        "unreadable": [list(cell) for cell in reading.unreadable],
        "caught": [[int(r), int(c)] for r, c in zip(*caught.nonzero(), strict=True)],
        "note": FLAGS_NOTE,
    }
