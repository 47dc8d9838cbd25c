"""Reads one replay file with ms_toollib and prints what :mod:`mscsp.replay` needs as JSON.

Run as a child process (``python _reader.py EXT`` with the file's bytes on standard input)
by :func:`mscsp.replay.read_replay`: ms_toollib aborts the whole process on some corrupt
files (a Rust abort, not a Python exception), which must not take the caller down. This
file imports nothing from mscsp, so the child starts the same wherever mscsp is installed.

Output: one JSON object, ``{"missing": true}`` when ms_toollib cannot be imported,
``{"error": message}`` when it refused the file, else the
header (``rows``, ``cols``, ``mines``, ``mode``, ``software``, ``player``),
``board`` (rows of cell codes, -1 for a mine) and ``actions``: every mouse event that
changed the board by uncovering cells, as ``{"at": [row, col], "covered": bool,
"opened": [[row, col], ...]}`` (``covered``: the cell under the mouse was covered before).
"""

import json
import sys

#: ms_toollib's codes of a covered cell on the board the player sees (plain, question mark).
COVERED = (10, 12)
#: Codes of a cell still unopened after an event (covered, flag, question mark).
UNOPENED = (10, 11, 12)
#: ms_toollib's useful levels of events that uncover cells (click, chord, the losing one).
OPENING_LEVELS = (2, 3, 4)


def read(ext: str, data: bytes) -> dict:
    """The replay's header, layout and opening actions (see the module docstring)."""
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
            actions.append({"at": [r, c], "covered": before[r][c] in COVERED, "opened": opened})
    return {
        "rows": rows,
        "cols": cols,
        "mines": int(video.mine_num),
        "mode": int(video.mode),
        "software": str(video.software),
        "player": str(video.player_identifier),
        "board": [list(row) for row in video.board],
        "actions": actions,
    }


def main() -> None:
    ext = sys.argv[1]
    data = sys.stdin.buffer.read()
    try:
        import ms_toollib  # noqa: F401 - only to tell a missing package from a bad file
    except ImportError:
        sys.stdout.write(json.dumps({"missing": True}))
        return
    try:
        out = read(ext, data)
    except BaseException as exc:  # noqa: BLE001 - pyo3 panics derive from BaseException
        out = {"error": f"{type(exc).__name__}: {exc}".strip()}
    sys.stdout.write(json.dumps(out))


if __name__ == "__main__":
    main()
