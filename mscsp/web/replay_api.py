"""``POST /api/replay``: a replay file uploaded as raw bytes, rated click by click.

The page sends the file's bytes as ``application/octet-stream`` (a type other sites' forms
cannot send, as the JSON endpoints require JSON) with the file name in the query
(``/api/replay?name=game.evf``): the extension picks the format. The answer is
:func:`mscsp.replay.rating_json`; the page then asks ``/api/solve`` for each step's heat map.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..backends import get_backend
from ..replay import rate_replay, rating_json, read_replay
from .service import Clock, DeadlineBackend, Limits, check_size, solving


@dataclass(frozen=True)
class Upload:
    """An uploaded replay file.

    Attributes:
        name: The file name the page gave (its extension picks the format).
        data: The file's bytes.
    """

    name: str
    data: bytes


def replay_request(upload: Upload, limits: Limits) -> dict[str, Any]:
    """Reads and rates an uploaded replay under the request's time limit.

    The board must fit ``limits.max_cells`` (else 413 ``too_large``). Reading the file and
    every solve of the game share the request's time, from its arrival: a read cut short by
    it is the solver-limit error, not a verdict on the file.
    """
    clock = Clock.of(upload, limits)
    with solving(clock):
        replay = read_replay(upload.data, upload.name, timeout=clock.left())
        check_size(replay.rows, replay.cols, limits, "replay board")
        backend = DeadlineBackend(get_backend("dss", time_limit=clock.left()), clock)
        return rating_json(rate_replay(replay, backend))
