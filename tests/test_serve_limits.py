"""The analyser's limits hold under hard requests: each request's own time limit (counted
from its arrival), a memory ceiling per worker, small boards answered while hard ones run,
a replay read cut short answered as a limit, and Ctrl-C stopping the server at once."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web analyser needs pip install 'mscsp[web]'")
httpx = pytest.importorskip("httpx", reason="Starlette's test client needs httpx")

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2; httpx works the same here
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

import mscsp  # noqa: E402
from mscsp.evaluation.families import lattice  # noqa: E402
from mscsp.evaluation.played_positions import game_positions  # noqa: E402
from mscsp.web.app import GRACE, create_app  # noqa: E402
from mscsp.web.service import Limits, answer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def hard_board(name: str = "lattice 20x20 d0.4 s0") -> str:
    """A board of the hard corpus (a 20x20 lattice: one wide component, seconds to count)."""
    for line in (ROOT / "bench" / "corpora" / "hard.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if entry["name"] == name:
            return entry["board"]
    raise LookupError(name)


def small_boards() -> list[str]:
    """Beginner and expert positions met in play."""
    boards = []
    for rows, cols, mines in ((9, 9, 10), (16, 30, 99)):
        game = mscsp.Game(rows, cols, mines, seed=[30, rows])
        boards += [b.to_text() for b in game_positions(game, first=(rows // 2, cols // 2))][:6]
    return boards


def test_a_request_is_stopped_at_its_own_time_limit_counted_from_arrival():
    # The server allows 30 s; the request asks for 2. Its time runs from its arrival: the
    # workers' start-up (this is the app's first request) counts too.
    with TestClient(create_app(Limits(time_limit=30.0, workers=1))) as client:
        start = time.monotonic()
        reply = client.post("/api/solve", json={"board": hard_board(), "time_limit": 2})
        elapsed = time.monotonic() - start
    error = reply.json()["error"]
    assert reply.status_code == 422 and error["kind"] == "limit"
    assert "time limit of 2 s" in error["message"]
    assert elapsed < 2 + GRACE + 0.5


def test_a_worker_past_its_memory_ceiling_answers_the_memory_limit():
    # A 100x100 lattice: counting its one component allocates far past 64 MB.
    limits = Limits(time_limit=20.0, workers=1, memory_mb=64)
    board = lattice(100, 100, 0.2).to_text()
    with TestClient(create_app(limits)) as client:
        reply = client.post("/api/solve", json={"board": board})
        error = reply.json()["error"]
        assert reply.status_code == 422 and error["kind"] == "limit"
        assert error["message"] == "memory limit of 64 MB per request was hit"
        assert error["board"] == board  # the page still draws it
        # The worker that failed was replaced: the next long request is answered.
        board = small_boards()[-1]
        again = client.post("/api/explain", json={"board": board})
        assert again.status_code == 200, again.text


def test_small_boards_are_answered_while_two_hard_ones_hold_the_workers():
    app = create_app(Limits(time_limit=6.0, workers=2))
    runner = app.state.runner

    async def scenario() -> tuple[list, list, bool]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            hard = [
                asyncio.create_task(http.post("/api/solve", json={"board": hard_board(name)}))
                for name in ("lattice 20x20 d0.4 s0", "lattice 20x20 d0.4 s1")
            ]
            for _ in range(3000):  # both past their quick try, in the long lane's workers
                if runner.pool.idle.qsize() == 0 or any(t.done() for t in hard):
                    break
                await asyncio.sleep(0.01)
            small = [await http.post("/api/solve", json={"board": b}) for b in small_boards()]
            # A player's suggestion is not the kernel's: the quick lane answers it.
            small.append(await http.post("/api/suggest", json={"board": small_boards()[-1]}))
            running = not any(t.done() for t in hard)
            return small, await asyncio.gather(*hard), running

    try:
        small, hard, running = asyncio.run(scenario())
    finally:
        runner.close()
    assert running  # every small one was answered while both hard ones were being solved
    assert [r.status_code for r in small] == [200] * len(small), [r.text for r in small]
    for reply in hard:
        assert reply.status_code == 422 and reply.json()["error"]["kind"] == "limit"


def test_a_replay_read_cut_short_is_a_limit_not_a_corrupt_file():
    pytest.importorskip("ms_toollib", reason="replays need pip install 'mscsp[replay]'")
    from replay_files import random_game, record

    from mscsp.web.replay_api import Upload, replay_request

    game, clicks = random_game(9, 9, 10, 3)
    upload = Upload("game.evf", record(game.mine, clicks))
    # The reader is a child Python that imports ms_toollib: about 50 ms on a fast machine
    # (a limit of 50 ms was once met there), far more than 2 ms.
    status, out = answer(replay_request, upload, Limits(time_limit=0.002))
    error = json.loads(out)["error"]
    assert status == 422 and error["kind"] == "limit", error
    assert "time limit of 0.002 s" in error["message"]
    # With the time it needs, the same file is rated.
    status, out = answer(replay_request, upload, Limits(time_limit=30.0))
    assert status == 200 and json.loads(out)["summary"]["clicks"] == len(clicks)


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (Linux ``/proc``): the workers are the forkserver's."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            continue
    found: set[int] = set()
    todo = [pid]
    while todo:
        above = todo.pop()
        below = {child for child, parent in parents.items() if parent == above}
        found |= below
        todo.extend(below)
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc (Linux)")
def test_ctrl_c_with_hard_requests_in_flight_stops_at_once():
    server = subprocess.Popen(
        [sys.executable, "-m", "mscsp", "serve", "--port", "0", "--time-limit", "30"],
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    replies: list = []
    try:
        url = server.stderr.readline().split(" on ", 1)[1].split()[0]

        def hard(name: str) -> None:
            try:
                replies.append(httpx.post(url + "api/solve", json={"board": hard_board(name)}))
            except httpx.HTTPError as exc:  # cut off: also an end
                replies.append(exc)

        clients = [
            threading.Thread(target=hard, args=(name,))
            for name in ("lattice 20x20 d0.4 s0", "lattice 20x20 d0.4 s1")
        ]
        for client in clients:
            client.start()
        for _ in range(3000):  # the forkserver and its three workers
            if len(descendants(server.pid)) >= 4:
                break
            time.sleep(0.01)
        time.sleep(1.0)  # both past their quick try, counting in the long lane
        workers = descendants(server.pid)
        assert len(workers) >= 4
        start = time.monotonic()
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=30)
        stopped = time.monotonic() - start
        for client in clients:
            client.join(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == 130 and "Traceback" not in err
    assert stopped < 2.0
    assert len(replies) == 2  # answered (the server is stopping) or cut off, not left hanging
    for _ in range(100):
        if not any(alive(pid) for pid in workers):
            break
        time.sleep(0.05)
    assert not any(alive(pid) for pid in workers)
