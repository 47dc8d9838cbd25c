"""Bounded reads: files, standard input and replays are refused past their limit, unread.

Streams that never end (``/dev/zero``, a FIFO, a pipe) are tried in a child process under
a time-out, the honest test: a reader that waits or reads everything would hang or grow
there, not take the test runner down. The child's peak memory comes from
``RUSAGE_CHILDREN`` of a fresh Python parent, so other tests' children do not count.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mscsp.cli.probs import MAX_TEXT_BYTES
from mscsp.errors import InvalidInputError, SolverLimitError
from mscsp.replay import MAX_BYTES, read_replay
from mscsp.trust.inputs import read_bounded

MSCSP = f"{shlex.quote(sys.executable)} -m mscsp"
#: Peak memory bound for a refused input (KiB): the old reader took over 600 MB on the
#: 300 MB stream; this one holds at most the 32 MB limit and a chunk above the interpreter.
PEAK_KB = 300 * 1024
#: Seconds a refusal may take, start-up of the interpreter included (busy machine).
DEADLINE = 60
#: Runs a shell line, then prints its exit code and the peak RSS of every process it ran.
_MEASURE = (
    "import json, resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1], shell=True, stdout=subprocess.DEVNULL,"
    " stderr=subprocess.PIPE, text=True)\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(json.dumps([done.returncode, done.stderr, peak]))\n"
)


def measured(line: str) -> tuple[int, str, int]:
    """``(exit code, stderr, peak RSS in KiB)`` of a shell line run in a fresh parent."""
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, line],
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=True,
    )
    code, stderr, peak = json.loads(out.stdout)
    return code, stderr, peak


def assert_refused(code: int, stderr: str, *needles: str) -> None:
    """Exit 2 and one line naming what was wrong."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert code == 2, stderr
    assert len(lines) == 1 and lines[0].startswith("mscsp: error: "), stderr
    for needle in needles:
        assert needle in lines[0], stderr


# --- read_bounded itself -------------------------------------------------------------------


def test_a_regular_file_up_to_the_limit_is_read_whole(tmp_path: Path):
    path = tmp_path / "board.txt"
    data = bytes(range(256)) * 700  # several chunks
    path.write_bytes(data)
    assert read_bounded(path, len(data), "board text") == data
    with pytest.raises(InvalidInputError, match=rf"board.txt.* too large: {len(data)} bytes"):
        read_bounded(path, len(data) - 1, "board text")


def test_a_directory_a_missing_file_and_a_device_are_refused(tmp_path: Path):
    with pytest.raises(InvalidInputError, match="it is a directory"):
        read_bounded(tmp_path, 100, "board text")
    with pytest.raises(InvalidInputError, match="nope.txt.*No such file"):
        read_bounded(tmp_path / "nope.txt", 100, "board text")
    link = tmp_path / "zero.txt"
    link.symlink_to("/dev/zero")
    with pytest.raises(InvalidInputError, match="character device, not a regular file; to read"):
        read_bounded(link, 100, "board text")


def test_without_stdin_a_dash_is_a_path_and_no_pipe_is_suggested(tmp_path: Path):
    with pytest.raises(InvalidInputError, match=r"replay file '-': No such file"):
        read_bounded("-", 100, "replay file", allow_stdin=False)
    link = tmp_path / "zero.evf"
    link.symlink_to("/dev/zero")
    with pytest.raises(InvalidInputError) as caught:
        read_bounded(link, 100, "replay file", allow_stdin=False)
    assert "standard input" not in str(caught.value)


def test_a_growing_file_is_bounded_by_the_chunks_not_by_stat():
    # /proc files say size 0 in stat but hold more: the chunked read still stops them.
    status = read_bounded("/proc/self/status", 1 << 20, "board text")
    assert status.startswith(b"Name:")
    with pytest.raises(InvalidInputError, match="over the limit of 10 bytes"):
        read_bounded("/proc/self/status", 10, "board text")


# --- the command line, against streams that never end --------------------------------------


def test_probs_refuses_dev_zero_a_huge_sparse_file_and_a_fifo(tmp_path: Path):
    big = tmp_path / "big.txt"
    with open(big, "wb") as handle:
        handle.truncate(10 * 1024**3)  # 10 GB, sparse: costs no disk
    fifo = tmp_path / "fifo.txt"
    os.mkfifo(fifo)  # no writer: opening it to read would wait forever
    cases = [
        ("/dev/zero", "character device"),
        (str(big), f"10737418240 bytes, the limit is {MAX_TEXT_BYTES}"),
        (str(fifo), "FIFO"),
    ]
    for path, needle in cases:
        code, stderr, peak = measured(f"{MSCSP} probs {shlex.quote(path)}")
        assert_refused(code, stderr, path, needle)
        assert peak < PEAK_KB, (path, peak)


@pytest.mark.parametrize("source", ["cat /dev/zero", "head -c 300M /dev/zero"])
def test_probs_stops_an_endless_or_huge_stdin_at_the_limit(source: str):
    code, stderr, peak = measured(f"{source} | {MSCSP} probs -")
    assert_refused(code, stderr, "standard input", f"limit of {MAX_TEXT_BYTES} bytes")
    assert peak < PEAK_KB, peak


def test_sample_reads_through_the_same_bound():
    code, stderr, _ = measured(f"{MSCSP} sample /dev/zero")
    assert_refused(code, stderr, "/dev/zero", "character device")


def test_replay_refuses_a_link_to_dev_zero_and_a_large_file(tmp_path: Path):
    link = tmp_path / "game.evf"
    link.symlink_to("/dev/zero")
    large = tmp_path / "large.evf"
    large.write_bytes(b"\0" * (MAX_BYTES + 1))
    code, stderr, peak = measured(f"{MSCSP} replay {shlex.quote(str(link))}")
    assert_refused(code, stderr, "game.evf", "character device")
    assert peak < PEAK_KB, peak
    code, stderr, _ = measured(f"{MSCSP} replay {shlex.quote(str(large))}")
    assert_refused(code, stderr, "large.evf", f"{MAX_BYTES + 1} bytes, the limit is {MAX_BYTES}")


# --- a replay that takes too long is a limit, not a corrupt file ---------------------------


def test_a_replay_read_past_its_time_limit_is_a_limit_not_a_bad_file():
    data = (Path(__file__).parent / "data" / "replays" / "beginner-lost.evf").read_bytes()
    # 1 ms: the reading child cannot even start; a busy machine looks the same.
    with pytest.raises(SolverLimitError, match=r"took over 0\.001 s") as caught:
        read_replay(data, "beginner-lost.evf", timeout=0.001)
    assert not isinstance(caught.value, InvalidInputError)
    assert "corrupt" not in str(caught.value)
