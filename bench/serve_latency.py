"""Small-board latency of ``mscsp serve`` while hard boards are being solved.

Starts ``python -m mscsp serve`` on 127.0.0.1 (a free port), sends ``--hard`` requests for
20x20 lattice boards from ``bench/hard.jsonl`` (each runs to the server's time limit and
answers 422), and while they are in flight, ``--small`` requests for beginner positions, one
after another every ``--gap`` seconds, as a player clicking through a game would. Reports
the small requests' latency (p50/p95/p99/max), the hard requests' status and time, the load
average, and whether the server left any process behind after Ctrl-C (SIGINT).

Loopback only; the request count and every wait are bounded, so it stops by itself.

    python bench/serve_latency.py --small 200
    python bench/serve_latency.py --json          # one JSON line, for tables
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import mscsp  # noqa: E402
from mscsp.positions import game_positions  # noqa: E402

#: The hard boards: the widest lattices of the hard corpus (one component of ~100 numbers).
HARD_NAMES = ("lattice 20x20 d0.4 s0", "lattice 20x20 d0.4 s1")


def hard_boards(count: int) -> list[str]:
    """The board texts of ``count`` 20x20 lattice positions from ``bench/hard.jsonl``."""
    found = {}
    for line in (ROOT / "bench" / "hard.jsonl").read_text().splitlines():
        entry = json.loads(line)
        found[entry["name"]] = entry["board"]
    names = [n for n in found if n.startswith("lattice 20x20")]
    names = list(HARD_NAMES) + [n for n in names if n not in HARD_NAMES]
    return [found[name] for name in names[:count]]


def small_boards() -> list[str]:
    """Beginner positions from a few seeded games (each solves in well under a millisecond)."""
    boards = []
    for g in range(10):
        game = mscsp.Game(9, 9, 10, seed=[2026, g])
        boards.extend(b.to_text() for b in game_positions(game, first=(0, 0)))
    return boards


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (Linux ``/proc``; empty elsewhere)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        children = {child for child, ppid in parents.items() if ppid == parent}
        found |= children
        todo.extend(children)
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers kill(0): only a process that runs counts.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


async def load(url: str, args: argparse.Namespace) -> dict:
    hard = hard_boards(args.hard)
    small = small_boards()
    timeout = httpx.Timeout(args.time_limit + 30)
    async with httpx.AsyncClient(base_url=url, timeout=timeout) as http:
        for board in small[:20]:  # warm the server's imports and caches
            (await http.post("/api/solve", json={"board": board})).raise_for_status()

        async def hard_request(board: str) -> dict:
            start = time.perf_counter()
            answer = await http.post("/api/solve", json={"board": board})
            error = answer.json().get("error", {})
            return {
                "status": answer.status_code,
                "seconds": round(time.perf_counter() - start, 2),
                "message": error.get("message"),
            }

        hard_tasks = [asyncio.create_task(hard_request(b)) for b in hard]
        await asyncio.sleep(0.5)  # let the hard solves start
        latencies: list[float] = []
        statuses: dict[int, int] = {}
        during = 0
        deadline = time.perf_counter() + args.time_limit * 3 + 30
        for i in range(args.small):
            if time.perf_counter() > deadline:
                break
            in_flight = not all(t.done() for t in hard_tasks)
            start = time.perf_counter()
            answer = await http.post("/api/solve", json={"board": small[i % len(small)]})
            latencies.append(time.perf_counter() - start)
            statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
            during += in_flight
            await asyncio.sleep(args.gap)
        hard_results = await asyncio.gather(*hard_tasks)
    ms = [1000 * x for x in latencies]
    return {
        "small": len(ms),
        "small_during_hard": during,
        "small_status": statuses,
        "p50_ms": round(percentile(ms, 50), 2),
        "p95_ms": round(percentile(ms, 95), 2),
        "p99_ms": round(percentile(ms, 99), 2),
        "max_ms": round(max(ms), 2) if ms else None,
        "slowest": sorted(((round(v, 1), i) for i, v in enumerate(ms)), reverse=True)[:5],
        "hard": hard_results,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=200, help="small requests (at most)")
    parser.add_argument("--hard", type=int, default=2, help="hard requests in flight")
    parser.add_argument("--gap", type=float, default=0.03, help="seconds between small ones")
    parser.add_argument("--time-limit", type=float, default=10.0, help="the server's limit")
    parser.add_argument("--json", action="store_true", help="one JSON line")
    parser.add_argument(
        "--serve-option",
        action="append",
        default=[],
        metavar="OPT",
        help="passed on to mscsp serve (repeat; e.g. --serve-option=--workers=4)",
    )
    args = parser.parse_args()
    if not 1 <= args.small <= 5000 or not 0 <= args.hard <= 8 or not 0 <= args.gap <= 1:
        parser.error("--small 1..5000, --hard 0..8, --gap 0..1")
    port = free_port()
    command = [sys.executable, "-m", "mscsp", "serve", "--port", str(port)]
    command += ["--time-limit", f"{args.time_limit:g}", *args.serve_option]
    server = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        started = time.perf_counter()
        for _ in range(300):
            try:
                httpx.get(url + "/api/meta", timeout=2).raise_for_status()
                break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            raise SystemExit("the server did not start")
        startup = time.perf_counter() - started
        result = asyncio.run(load(url, args))
        children = descendants(server.pid)
        result["server_processes"] = 1 + len(children)
    finally:
        stop = time.perf_counter()
        server.send_signal(signal.SIGINT)  # what Ctrl-C sends
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    result["startup_s"] = round(startup, 2)
    result["shutdown_s"] = round(time.perf_counter() - stop, 2)
    time.sleep(0.5)
    result["left_behind"] = sorted(pid for pid in children if alive(pid))
    result["load"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        print(json.dumps(result))
        return
    print(f"server up in {result['startup_s']} s; load average {result['load']}")
    print(
        f"{result['small']} small requests ({result['small_during_hard']} while hard ones ran), "
        f"status {result['small_status']}"
    )
    print(
        f"latency ms: p50 {result['p50_ms']}  p95 {result['p95_ms']}  "
        f"p99 {result['p99_ms']}  max {result['max_ms']}"
    )
    print(f"slowest (ms, request index): {result['slowest']}")
    for i, hard in enumerate(result["hard"]):
        print(f"hard {i}: status {hard['status']} after {hard['seconds']} s: {hard['message']}")
    print(
        f"server processes {result['server_processes']}; stopped in {result['shutdown_s']} s; "
        f"left behind: {result['left_behind'] or 'none'}"
    )


if __name__ == "__main__":
    main()
