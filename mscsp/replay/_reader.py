"""Reads one replay file with ms_toollib and prints what :mod:`mscsp.replay` needs as JSON.

Run as a child process (``python _reader.py EXT`` with the file's bytes on standard input,
or ``python _reader.py --serve`` for many files, see :func:`serve`) by
:func:`mscsp.replay.read_replay`: ms_toollib aborts the whole process on some corrupt
files (a Rust abort, not a Python exception), which must not take the caller down. This
file imports nothing from mscsp, so the child starts the same wherever mscsp is installed.

Output: one JSON object, ``{"missing": true}`` when ms_toollib cannot be imported,
``{"error": message}`` when it refused the file, else the
header (``rows``, ``cols``, ``mines``, ``mode``, ``software``, ``player``),
``board`` (rows of cell codes, -1 for a mine), ``actions``: every mouse event that
changed the board by uncovering cells, as ``{"at": [row, col], "covered": bool,
"opened": [[row, col], ...], "flags": [[row, col], ...]}`` (``covered``: the cell under the
mouse was covered before; ``flags``: the cells flagged before it, which its zeros' openings
leave covered),
``metrics``: the competitive statistics ms_toollib computes for the whole game (see
:data:`METRICS`; ``null`` where it has none or the value is not finite, as the pluck of a
lost game) and ``start_time``: when the game started, microseconds since 1970 as the file
says (``null`` when absent).
"""

import contextlib
import json
import sys

#: ms_toollib's codes of a covered cell on the board the player sees (plain, question mark).
COVERED = (10, 12)
#: ms_toollib's code of a flag.
FLAG = 11
#: Codes of a cell still unopened after an event (covered, flag, question mark).
UNOPENED = (10, FLAG, 12)
#: ms_toollib's useful levels of events that uncover cells (click, chord, the losing one).
OPENING_LEVELS = (2, 3, 4)
#: ms_toollib's per-game statistics copied into the output, by its attribute names: board
#: values (3BV, openings, islands, ZiNi and its human variant), what was done (time, clicks
#: of each kind, cursor path) and the ratios derived from them. They are read, never
#: recomputed: ms_toollib is the reference players compare against.
METRICS = (
    "bbbv",
    "bbbv_solved",
    "op",
    "isl",
    "zini",
    "hzini",
    "rtime",
    "bbbv_s",
    "cl",
    "cl_s",
    "ce",
    "ce_s",
    "left",
    "right",
    "double",
    "flag",
    "path",
    "ioe",
    "corr",
    "thrp",
    "rqp",
    "qg",
    "stnb",
    "pluck",
    "is_completed",
    "level",
)


def read(ext: str, data: bytes, pluck: bool = False) -> dict:
    """The replay's header, layout and opening actions (see the module docstring); ``pluck``:
    ask ms_toollib for its pluck too (it solves every position: most of the reading time)."""
    import ms_toollib

    kinds = {
        "avf": ms_toollib.AvfVideo,
        "evf": ms_toollib.EvfVideo,
        "rmv": ms_toollib.RmvVideo,
        "mvf": ms_toollib.MvfVideo,
    }
    video = kinds[ext](raw_data=list(data), file_name=f"replay.{ext}")
    video.parse()
    video.analyse()
    pix = int(video.pix_size) or 16
    rows, cols = int(video.row), int(video.column)
    actions = []
    for recorded in video.events:
        if not recorded.event.is_mouse() or recorded.useful_level not in OPENING_LEVELS:
            continue
        mouse = recorded.event.unwrap_mouse()
        before = recorded.prior_game_board.game_board
        after = recorded.next_game_board.game_board
        opened = [
            [r, c]
            for r in range(rows)
            for c in range(cols)
            if before[r][c] in COVERED and after[r][c] not in UNOPENED
        ]
        r, c = int(mouse.y) // pix, int(mouse.x) // pix
        if opened and 0 <= r < rows and 0 <= c < cols:
            flags = [[i, j] for i in range(rows) for j in range(cols) if before[i][j] == FLAG]
            actions.append(
                {"at": [r, c], "covered": before[r][c] in COVERED, "opened": opened, "flags": flags}
            )
    return {
        "metrics": metrics(video, pluck),
        "start_time": _number(getattr(video, "start_time", None)),
        "rows": rows,
        "cols": cols,
        "mines": int(video.mine_num),
        "mode": int(video.mode),
        "software": str(video.software),
        "player": str(video.player_identifier),
        "board": [list(row) for row in video.board],
        "actions": actions,
    }


def metrics(video: object, pluck: bool = False) -> dict:
    """ms_toollib's statistics of the whole game (see :data:`METRICS`; ``pluck`` is
    ``None`` unless asked for)."""
    if pluck:  # computed only on request (the luck, as -log10)
        with contextlib.suppress(BaseException):
            video.analyse_for_features(["pluck"])
    # The statistics are those of the replay's current time: move it past the end (a file
    # without times keeps the values it has).
    with contextlib.suppress(BaseException):
        video.current_time = float(video.rtime) + 1.0
    out = {}
    for name in METRICS:
        try:
            out[name] = _number(getattr(video, name))
        except BaseException:  # noqa: BLE001 - a statistic this format or version lacks
            out[name] = None
    return out


def _number(value: object) -> object:
    """A JSON-safe value: bools and finite numbers as they are, anything else ``None``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        # ms_toollib writes an infinite pluck (a lost game) as the largest float.
        return value if value == value and abs(value) < 1e300 else None
    return None


def answer(ext: str, data: bytes, pluck: bool = False) -> dict:
    """What the reader writes for one file (see the module docstring)."""
    try:
        import ms_toollib  # noqa: F401 - only to tell a missing package from a bad file
    except ImportError:
        return {"missing": True}
    try:
        return read(ext, data, pluck)
    except BaseException as exc:  # noqa: BLE001 - pyo3 panics derive from BaseException
        return {"error": f"{type(exc).__name__}: {exc}".strip()}


def serve() -> None:
    """Reads file after file: a line ``EXT LENGTH PLUCK`` (``PLUCK``: ``1`` to compute
    ms_toollib's pluck) then LENGTH bytes on standard input, one JSON line out for each,
    until standard input ends (saves a process start per file)."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        header = stdin.readline()
        if not header:
            _leave_scratch()
            return
        ext, length, pluck = header.decode().split()
        data = stdin.read(int(length))
        stdout.write(json.dumps(answer(ext, data, pluck == "1")).encode() + b"\n")
        stdout.flush()


def _leave_scratch() -> None:
    """Removes the scratch directory the parent started this child in (its parent may be
    stopped without a chance to: a worker pool's terminate), with the crash.log in it."""
    import os

    here = os.getcwd()
    if os.path.basename(here).startswith("mscsp-replay-"):
        with contextlib.suppress(OSError):
            for name in os.listdir(here):
                os.remove(os.path.join(here, name))
            os.rmdir(here)


def main() -> None:
    if sys.argv[1] == "--serve":
        serve()
        return
    sys.stdout.write(json.dumps(answer(sys.argv[1], sys.stdin.buffer.read())))


if __name__ == "__main__":
    main()
