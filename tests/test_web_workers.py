"""Where the analyser runs its requests: a hard board in a worker process never holds back a
small one, a worker past its limit is replaced, and none outlives the server."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from importlib import resources
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web analyser needs pip install 'mscsp[web]'")
httpx = pytest.importorskip("httpx", reason="Starlette's test client needs httpx")

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2; httpx works the same here
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

import mscsp  # noqa: E402
from mscsp.display.render import solution_json  # noqa: E402
from mscsp.web.app import Runner, create_app  # noqa: E402
from mscsp.web.service import Cost, Limits, solve_request  # noqa: E402

EXAMPLE = resources.files("mscsp.data").joinpath("example.txt").read_text("utf-8")
BEGINNER = "9x9x10\n" + "..1?????.\n" * 3 + "?????????\n" * 6


def hard_board() -> str:
    """A 20x20 lattice of the hard corpus: one wide component, seconds to count."""
    corpus = Path(__file__).resolve().parents[1] / "bench" / "corpora" / "hard.jsonl"
    for line in corpus.read_text().splitlines():
        entry = json.loads(line)
        if entry["name"] == "lattice 20x20 d0.4 s0":
            return entry["board"]
    raise LookupError("the hard corpus has no 20x20 lattice")


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie, dead but not yet reaped, is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


def sleepy(body: float, limits: Limits) -> dict:
    """A handler that ignores its time limit (sent to a worker by name, so module-level)."""
    time.sleep(body)
    return {"slept": body}


def sleepy_solve(body: dict, limits: Limits) -> dict:
    """A board handler that ignores its time limit, so the server kills its worker."""
    time.sleep(600.0)
    return {}


def hungry_solve(body: dict, limits: Limits) -> dict:
    """A board handler that needs more memory than any worker's ceiling."""
    held = [bytearray(64 << 20) for _ in range(32)]  # 2 GB: past the ceiling of 256 MB
    return {"held": len(held)}


def ready(runner: Runner, tries: int = 20) -> bool:
    """Whether a quick job is answered in the long lane within ``tries`` tries."""
    for _ in range(tries):
        if asyncio.run(runner.run(sleepy, 0.0, Cost.LONG)) == (200, {"slept": 0.0}):
            return True
    return False


async def until(condition, seconds: float = 60.0) -> None:
    """Waits (bounded) until ``condition()`` holds."""
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


def test_small_boards_are_answered_while_a_hard_one_runs_in_a_worker():
    runner = Runner(Limits(time_limit=3.0, workers=1))

    async def scenario():
        hard = asyncio.create_task(runner.run(solve_request, {"board": hard_board()}, Cost.TIMED))
        await until(lambda: runner.pool.pids() or hard.done())  # its try ran out: moved
        small = [
            await runner.run(solve_request, {"board": board}, Cost.TIMED)
            for board in (BEGINNER, EXAMPLE)
        ]
        return small, hard.done(), await hard

    try:
        small, hard_was_done, (status, body) = asyncio.run(scenario())
        assert not hard_was_done  # the small ones were answered while the hard one ran
        for (code, answer), text in zip(small, (BEGINNER, EXAMPLE), strict=True):
            assert code == 200
            want = solution_json(mscsp.solve(mscsp.parse_board(text)), "dss")
            assert {key: answer[key] for key in want} == want
        assert status == 422 and body["error"]["kind"] == "limit"
        assert body["error"].get("board") == mscsp.parse_board(hard_board()).to_text(), body
        # The worker that answered 422 takes the next request.
        worker = runner.pool.pids()
        code, answer = asyncio.run(runner.run(solve_request, {"board": EXAMPLE}, Cost.LONG))
        assert code == 200
        assert answer["solutions"] == str(mscsp.solve(mscsp.parse_board(EXAMPLE)).weight)
        assert runner.pool.pids() == worker
    finally:
        runner.close()


def test_a_worker_past_its_limit_is_replaced():
    runner = Runner(Limits(time_limit=0.5, workers=1))
    try:
        # The worker's start counts against the first request's 0.5 s: on a loaded machine
        # (the worker is niced) it may need more tries; what is tested is the replacing.
        assert ready(runner)
        [first] = runner.pool.pids()
        status, body = asyncio.run(runner.run(sleepy, 600.0, Cost.LONG))
        assert status == 422 and body["error"]["kind"] == "limit"
        assert not running(first)  # killed, not left sleeping
        assert ready(runner)  # (its replacement starts under the same 0.5 s)
        assert runner.pool.pids() != [first]
    finally:
        runner.close()


def test_a_killed_worker_s_limit_error_names_its_board_as_the_handler_s_would():
    runner = Runner(Limits(time_limit=0.5, workers=1))
    try:
        status, body = asyncio.run(runner.run(sleepy_solve, {"board": EXAMPLE}, Cost.LONG))
        assert status == 422 and body["error"]["kind"] == "limit"
        assert body["error"]["board"] == mscsp.parse_board(EXAMPLE).to_text()
        # A board given its count in the request's field is named with that count.
        rows = [line for line in EXAMPLE.splitlines() if not line.startswith("#")][1:]
        text = "\n".join(rows) + "\n"  # (no header line)
        request = {"board": text, "mines": mscsp.parse_board(EXAMPLE).mines}
        status, body = asyncio.run(runner.run(sleepy_solve, request, Cost.LONG))
        assert body["error"]["board"] == mscsp.parse_board(EXAMPLE).to_text()
        # One that does not parse is not named (and the error is still the limit's).
        status, body = asyncio.run(runner.run(sleepy_solve, {"board": "not a board"}, Cost.LONG))
        assert status == 422 and body["error"]["kind"] == "limit"
        assert "board" not in body["error"]
    finally:
        runner.close()


def test_a_worker_s_memory_error_names_its_board():
    runner = Runner(Limits(time_limit=30.0, workers=1, memory_mb=256))
    try:
        status, body = asyncio.run(runner.run(hungry_solve, {"board": EXAMPLE}, Cost.LONG))
        assert status == 422 and body["error"]["kind"] == "limit"
        assert "memory" in body["error"]["message"]
        assert body["error"]["board"] == mscsp.parse_board(EXAMPLE).to_text()
    finally:
        runner.close()


def test_no_worker_outlives_the_app():
    app = create_app(Limits(time_limit=0.5, workers=2))
    with TestClient(app) as client:
        answer = client.post("/api/solve", json={"board": hard_board()})
        assert answer.status_code == 422 and answer.json()["error"]["kind"] == "limit"
        workers = app.state.runner.pool.pids()
        assert workers and all(running(pid) for pid in workers)
        assert client.post("/api/play", json={"preset": "beginner"}).status_code == 200
    assert not any(running(pid) for pid in workers)


def children(pid: int) -> set[int]:
    """The processes ``pid`` started, from any of its threads (Linux ``/proc``)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        found |= {int(p) for p in task.read_text().split()}
    return found


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc (Linux)")
def test_ctrl_c_stops_the_server_and_its_workers():
    server = subprocess.Popen(
        [sys.executable, "-m", "mscsp", "serve", "--port", "0", "--time-limit", "20"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = server.stderr.readline()  # "mscsp analyser on http://127.0.0.1:PORT/ ..."
        url = line.split(" on ", 1)[1].split()[0]
        answers: list = []

        def hard() -> None:  # still running in its worker when Ctrl-C comes
            try:
                answers.append(httpx.post(url + "api/solve", json={"board": hard_board()}))
            except httpx.HTTPError as exc:
                answers.append(exc)

        client = threading.Thread(target=hard)
        client.start()
        workers: set[int] = set()
        for _ in range(6000):
            workers = children(server.pid)
            if workers:
                break
            time.sleep(0.01)
        assert workers, "no worker process started"
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=30)
        client.join(timeout=30)
        assert answers  # answered or cut off, not left hanging
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == 130 and "Traceback" not in err  # the CLI's "interrupted"
    for _ in range(100):  # the dead server's children are reaped by init
        if not any(running(pid) for pid in workers):
            break
        time.sleep(0.05)
    assert not any(running(pid) for pid in workers)
