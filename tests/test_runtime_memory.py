"""A memory limit bounds what an isolated run and its children hold resident, as the model
counting competitions measure it (:mod:`mscsp.runtime.resident`): a run that touches more
is stopped with status memory and its peak; one that only reserves far more is not; and
what a worker wrote to standard error as it died comes back in its outcome, not on ours."""

from __future__ import annotations

import ctypes
import mmap
import subprocess
import sys

import pytest

from mscsp.runtime.child import MEMORY, OK
from mscsp.runtime.isolated import run_function, run_program
from mscsp.runtime.memlimit import BACKSTOP_SLACK_MB, backstop_mb, machine_mb
from mscsp.runtime.resident import resident_mb
from mscsp.runtime.worker import Worker

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="resident memory is sampled from Linux's /proc"
)

MiB = 2**20


def touch(megabytes: int) -> int:
    """Allocates ``megabytes`` MiB and writes every page (a bytearray is zero-filled)."""
    return len(bytearray(megabytes * MiB))


def reserve(megabytes: int, touched: int) -> int:
    """Maps ``megabytes`` MiB of private writable memory (it counts in the data segment, as
    a native library's reservation does) and writes only the first ``touched`` MiB."""
    area = mmap.mmap(-1, megabytes * MiB, flags=mmap.MAP_PRIVATE)
    area[: touched * MiB] = b"\1" * (touched * MiB)
    return len(area)


def with_hungry_child(megabytes: int) -> int:
    """Runs a program that touches ``megabytes`` MiB and then sleeps."""
    code = f"b = bytearray({megabytes} * 2**20); import time; time.sleep(60)"
    return subprocess.run([sys.executable, "-c", code]).returncode


def program(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_the_backstop_is_far_above_the_limit_and_below_a_runaway() -> None:
    machine = machine_mb()
    assert machine is not None and machine > 0
    assert backstop_mb(1024) == max(1024, min(4 * 1024, machine))  # D4's 2 GB fits
    assert backstop_mb(100) == max(100, min(100 + BACKSTOP_SLACK_MB, machine))
    assert backstop_mb(200) < 2048  # a 2 GiB allocation still fails at once under 200 MB
    assert backstop_mb(2 * machine) == 2 * machine  # never below the limit itself


def test_a_function_that_touches_more_than_its_limit_is_stopped_with_its_peak() -> None:
    outcome = run_function(touch, 600, timeout=60, memory_mb=200)
    assert (outcome.status, outcome.exit_code, outcome.detail) == (MEMORY, None, "")
    assert outcome.peak_mb > 200 and outcome.cpu_seconds is not None


def test_the_budget_is_on_what_the_child_holds_not_on_the_parent_s_file_pages(tmp_path) -> None:
    # This process reads 300 MiB of a file through a mapping: file pages in its resident
    # size, which a fork does not copy (as a loaded JAX's libraries). A budget on top of
    # what this process holds would let the child touch 300 MiB more under a 200 MiB limit.
    path = tmp_path / "pages"
    with path.open("wb") as out:
        for _ in range(300):
            out.write(b"\1" * MiB)
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as pages:
        assert (
            sum(pages[i] for i in range(0, len(pages), mmap.PAGESIZE))
            == len(pages) // mmap.PAGESIZE
        )
        outcome = run_function(touch, 300, timeout=60, memory_mb=200)
    assert (outcome.status, outcome.exit_code) == (MEMORY, None) and outcome.peak_mb > 200


def test_a_function_that_reserves_far_more_than_its_limit_but_uses_little_runs_on() -> None:
    held = resident_mb()
    outcome = run_function(reserve, 1000, 10, timeout=60, memory_mb=100)
    assert (outcome.status, outcome.value) == (OK, 1000 * MiB)
    assert outcome.peak_mb < held + 100


def test_a_child_s_children_count_and_go_with_it() -> None:
    outcome = run_function(with_hungry_child, 600, timeout=60, memory_mb=200)
    assert outcome.status == MEMORY and outcome.peak_mb > 200


def test_a_program_is_stopped_at_what_it_holds_not_what_it_reserves() -> None:
    over = run_program(program("b = bytearray(600 * 2**20); print(len(b))"), memory_mb=200)
    assert (over.status, over.exit_code) == (MEMORY, None) and over.peak_mb > 200
    reserving = f"import mmap; print(len(mmap.mmap(-1, 1000 * 2**20, flags={mmap.MAP_PRIVATE})))"
    fine = run_program(program(reserving), timeout=60, memory_mb=200)
    assert (fine.status, fine.exit_code, fine.value) == (OK, 0, f"{1000 * MiB}\n".encode())
    assert fine.peak_mb < 200


def jobs() -> object:
    """A worker's setup: ways to use, reserve, and die."""

    def handle(job: tuple) -> object:
        kind, *args = job
        if kind == "touch":
            return touch(*args)
        if kind == "reserve":
            return reserve(*args)
        if kind == "say":
            print("progress", file=sys.stderr)
            print(args[0], file=sys.stderr, flush=True)
            return None
        if kind == "double free":
            libc = ctypes.CDLL(None)
            libc.malloc.restype = ctypes.c_void_p
            libc.free.argtypes = [ctypes.c_void_p]
            block = libc.malloc(64)
            libc.free(block)
            libc.free(block)  # glibc aborts here, saying why on standard error
        return job

    return handle


def test_a_worker_past_its_resident_limit_is_replaced_and_reservations_are_left_alone() -> None:
    worker = Worker(jobs, memory_mb=200)
    try:
        assert worker.call(("reserve", 1000, 10), timeout=60).value == 1000 * MiB
        first = worker.pid
        over = worker.call(("touch", 600), timeout=60)
        assert (over.status, over.exit_code) == (MEMORY, None) and over.peak_mb > 200
        assert worker.call(("touch", 10), timeout=60).value == 10 * MiB
        assert worker.pid != first  # a fresh worker
    finally:
        worker.close()


def test_a_worker_s_last_error_line_comes_back_in_its_outcome(capfd: pytest.CaptureFixture) -> None:
    worker = Worker(jobs)
    try:
        said = worker.call(("say", "last words"), timeout=60)
        assert (said.status, said.stderr) == (OK, "last words")
        assert worker.call(("echo",), timeout=60).stderr == ""  # (each call its own)
        died = worker.call(("double free",), timeout=60)
    finally:
        worker.close()
    # A native abort: read as out of memory (as every SIGABRT is), its text kept.
    assert (died.status, died.exit_code) == (MEMORY, -6)
    assert died.crash.startswith("killed by SIGABRT: ") and "double free" in died.stderr
    assert capfd.readouterr().err == ""  # nothing the worker said reached our stderr
