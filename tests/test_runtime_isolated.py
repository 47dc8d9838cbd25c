"""One isolated run (:mod:`mscsp.runtime.isolated`) and the persistent worker
(:mod:`mscsp.runtime.worker`): answers, errors, limits, memory ceilings and crashes come
back as one outcome with the child's costs, and nothing the child started outlives it."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import sys
import time
from pathlib import Path

import pytest

from mscsp.errors import MscspError
from mscsp.runtime.child import CRASH, LIMIT, MEMORY, OK, RAISED
from mscsp.runtime.isolated import run_function, run_program
from mscsp.runtime.worker import Worker

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="isolated runs are POSIX's")


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie waiting for init counts: it runs no more)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def ends(pid: int) -> bool:
    """Whether ``pid`` ends within a few seconds (init collects an orphan in its own time)."""
    for _ in range(100):
        if gone(pid):
            return True
        time.sleep(0.05)
    return False


def add(a: int, b: int) -> int:
    return a + b


class Picky(Exception):
    """An exception whose class cannot be rebuilt from its arguments (it will not unpickle)."""

    def __init__(self, a: int, b: int):
        super().__init__(f"picky {a + b}")


def picky() -> None:
    raise Picky(3, 4)


def with_grandchild(pid_file: str) -> None:
    """Starts a sleeping grandchild, writes its id, then sleeps itself."""
    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    Path(pid_file).write_text(str(pid))
    time.sleep(60)


def segfault() -> None:
    ctypes.string_at(0)


def hold(megabytes: int) -> int:
    """Allocates and touches ``megabytes`` MiB."""
    return len(bytearray(megabytes * 2**20))


def burn() -> int:
    return sum(range(3 * 10**6))


def test_a_function_s_answer_comes_back_with_its_costs() -> None:
    outcome = run_function(add, 2, 3, timeout=30)
    assert (outcome.status, outcome.value, outcome.exit_code) == (OK, 5, None)
    assert outcome.cpu_seconds is not None and outcome.peak_mb is not None
    held = run_function(hold, 300, timeout=30)
    assert held.status == OK and held.peak_mb >= 250  # (the child's own peak)
    busy = run_function(burn, timeout=60)
    assert busy.cpu_seconds > run_function(add, 1, 1, timeout=30).cpu_seconds


def test_a_function_s_exception_comes_back_and_one_that_does_not_unpickle_as_text() -> None:
    outcome = run_function(int, "seven", timeout=30)
    assert outcome.status == RAISED and isinstance(outcome.value, ValueError)
    outcome = run_function(picky, timeout=30)
    assert outcome.status == RAISED and type(outcome.value) is MscspError
    assert str(outcome.value) == "Picky: picky 7"


def test_a_function_past_its_limit_is_killed_with_its_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild"
    outcome = run_function(with_grandchild, str(pid_file), timeout=1.0)
    assert outcome.status == LIMIT and outcome.cpu_seconds is not None
    assert ends(int(pid_file.read_text()))


def test_a_function_that_dies_or_passes_its_ceiling_says_how() -> None:
    # A native allocation that fails ends in SIGSEGV or SIGABRT: read as out of memory.
    crash = run_function(segfault, timeout=30)
    assert (crash.status, crash.exit_code, crash.detail) == (MEMORY, -11, "killed by SIGSEGV")
    assert run_function(os._exit, 3, timeout=30).status == CRASH
    over = run_function(hold, 2048, timeout=30, memory_mb=100)
    assert over.status == RAISED and isinstance(over.value, MemoryError)


def test_a_program_s_output_exit_code_and_last_error_line() -> None:
    script = "cat; echo first >&2; echo last >&2; exit 3"
    outcome = run_program(["sh", "-c", script], stdin=b"input\n", timeout=30)
    assert (outcome.status, outcome.value, outcome.exit_code) == (OK, b"input\n", 3)
    assert outcome.stderr == "last" and outcome.cpu_seconds is not None
    killed = run_program(["sh", "-c", "echo partial; kill -TERM $$"], timeout=30)
    assert (killed.status, killed.value, killed.detail) == (
        CRASH,
        b"partial\n",
        "killed by SIGTERM",
    )


def test_a_program_past_its_limit_is_killed_with_what_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "child"
    outcome = run_program(["sh", "-c", f"sleep 60 & echo $! > {pid_file}; wait"], timeout=1.0)
    assert outcome.status == LIMIT
    assert ends(int(pid_file.read_text()))
    # Ended by itself, what it left running in the background goes with it too.
    run_program(["sh", "-c", f"sleep 60 & echo $! > {pid_file}"], timeout=30)
    assert ends(int(pid_file.read_text()))


def test_a_program_s_data_segment_is_capped() -> None:
    greedy = [sys.executable, "-c", "bytearray(2**31)"]
    outcome = run_program(greedy, timeout=60, memory_mb=200)
    assert outcome.status == OK and outcome.exit_code == 1 and "MemoryError" in outcome.stderr


def jobs() -> object:
    """A worker's setup: a counter kept between calls, and a few ways to fail."""
    state = {"calls": 0}

    def handle(job: tuple[str, object]) -> object:
        kind, arg = job
        state["calls"] += 1
        if kind == "calls":
            return state["calls"]
        if kind == "pid":
            return os.getpid()
        if kind == "sleep":
            time.sleep(arg)
        if kind == "raise":
            raise ValueError(arg)
        if kind == "hold":
            return hold(arg)
        if kind == "exit":
            os._exit(arg)
        if kind == "litter":  # temporary files of its own and of a program it starts
            import subprocess
            import tempfile

            folder = tempfile.mkdtemp()
            code = f"import tempfile, time; tempfile.mkstemp(); time.sleep({arg})"
            subprocess.run([sys.executable, "-c", code], timeout=arg + 60)
            return folder
        return arg

    return handle


def no_setup() -> object:
    raise ValueError("cannot set up")


def test_a_worker_keeps_its_state_and_is_replaced_past_a_limit() -> None:
    worker = Worker(jobs)
    try:
        first = worker.call(("pid", None)).value
        assert worker.call(("calls", None)).value == 2  # the same process, its state kept
        raised = worker.call(("raise", "bad 7"))
        assert raised.status == RAISED and str(raised.value) == "bad 7"
        assert worker.call(("pid", None)).value == first  # an exception does not end it
        limit = worker.call(("sleep", 60), timeout=0.5)
        assert limit.status == LIMIT and limit.cpu_seconds is not None
        assert ends(first)
        assert worker.call(("calls", None), timeout=60).value == 1  # a fresh one
    finally:
        worker.close()


def test_a_worker_killed_at_its_limit_leaves_no_temporary_files() -> None:
    worker = Worker(jobs)
    try:
        folder = Path(worker.call(("litter", 0.0)).value)
        scratch = folder.parent
        assert folder.is_dir() and scratch.name.startswith("worker-")
        assert len(list(scratch.iterdir())) == 2  # its folder and its program's file
        assert worker.call(("litter", 60), timeout=3).status == LIMIT
        assert not scratch.exists()
        second = Path(worker.call(("litter", 0.0)).value).parent
        assert second != scratch and second.is_dir()
    finally:
        worker.close()
    assert not second.exists()


def test_a_worker_out_of_memory_or_dead_is_replaced() -> None:
    worker = Worker(jobs, memory_mb=100)
    try:
        first = worker.call(("pid", None)).value
        assert worker.call(("hold", 2048)).status == MEMORY
        assert ends(first)
        second = worker.call(("pid", None)).value
        died = worker.call(("exit", 3))
        assert (died.status, died.exit_code, died.detail) == (CRASH, 3, "exit code 3")
        assert ends(second)
        assert worker.call(("hold", 10)).value == 10 * 2**20
    finally:
        worker.close()


def test_a_worker_that_cannot_set_up_says_why_and_one_not_ready_is_left_to_start() -> None:
    outcome = Worker(no_setup).call(("echo", 1))
    assert outcome.status == RAISED and str(outcome.value) == "cannot set up"
    worker = Worker(jobs)
    try:
        assert worker.call(("echo", 1), start_by=time.monotonic()) is None  # not sent
        assert worker.pid is not None  # still starting
        assert worker.call(("calls", None)).value == 1
    finally:
        pid = worker.pid
        worker.close()
    assert worker.pid is None and ends(pid)


def in_a_daemon() -> tuple[str, object]:
    """A worker's answer, asked from a pool's (daemonic) process."""
    worker = Worker(jobs)
    try:
        outcome = worker.call(("echo", "from a daemon"), timeout=60)
        return outcome.status, outcome.value
    finally:
        worker.close()


def test_a_worker_starts_from_a_daemonic_process() -> None:
    # multiprocessing forbids a daemonic process (a pool's worker) children of its own: a
    # bench spread over processes starts its isolated workers there.
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.apply(in_a_daemon) == (OK, "from a daemon")


def test_a_program_does_not_outlive_the_process_that_runs_it(tmp_path: Path) -> None:
    """The program leads a session of its own (out of reach of Ctrl-C on ours), so it must
    die with the process running it, or a killed run would leave a counter running."""
    import signal
    import subprocess

    pid_file = tmp_path / "pid"
    program_code = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid()))"
    runner = (
        "import sys\n"
        "from mscsp.runtime.isolated import run_program\n"
        "run_program([sys.executable, '-c', sys.argv[1] + '; time.sleep(60)', sys.argv[2]])\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", runner, program_code, str(pid_file)])
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    program = int(pid_file.read_text())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while _alive(program) and time.monotonic() < deadline:
        time.sleep(0.05)
    outlived = _alive(program)
    if outlived:
        os.kill(program, signal.SIGKILL)
    assert not outlived, "the program outlived the process that ran it"


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie waiting for init to collect it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.split(") ")[-1][:1] != "Z"
