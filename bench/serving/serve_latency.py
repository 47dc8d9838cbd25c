"""Small-board latency and memory of ``mscsp serve`` while hard boards are being solved.

Starts ``python -m mscsp serve`` on 127.0.0.1 (a free port), then, one scenario at a time,
sends ``--hard`` requests that run to the server's time limit (or its memory ceiling): 20x20
lattices of ``bench/corpora/hard.jsonl`` for the ``ganak``, ``sdd`` and ``approxmc`` backends, its
3x20 strip for ``brute``, and a 100x100 lattice for the default one. While they are in
flight it sends ``--small`` requests for beginner and expert positions, one after another
every ``--gap`` seconds, as a player clicking through a game would. Reports per scenario the small
requests' latency (p50/p95/p99/max) and statuses, and the hard requests' status and time;
the peak memory of the server and of every worker (``VmHWM``, ``VmData``, sampled from
``/proc``) against each worker's ceiling (its ``RLIMIT_DATA``); and at the end, with two
hard requests in flight, how long Ctrl-C (SIGINT) takes to stop the server, and whether it
left any process behind. Linux only (reads ``/proc``).

Loopback only; the request count and every wait are bounded, so it stops by itself.

    python bench/serving/serve_latency.py --small 200
    python bench/serving/serve_latency.py --scenarios ganak,100x100 --json   # one JSON line
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
import threading
import time
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import mscsp  # noqa: E402
from mscsp.evaluation.families import lattice  # noqa: E402
from mscsp.evaluation.played_positions import game_positions  # noqa: E402

#: The hard boards of the backend scenarios: the widest lattices of the hard corpus.
HARD_NAMES = ("lattice 20x20 d0.4 s0", "lattice 20x20 d0.4 s1")
#: Scenario name -> the backend its hard requests use (``100x100``: the default one).
SCENARIOS = {
    "ganak": "ganak",
    "brute": "brute",
    "sdd": "sdd",
    "approxmc": "approxmc",
    "100x100": "dss",
}


#: The hard board of the ``brute`` scenario: it counts components of at most 22 cells (and
#: refuses the lattices at once), and this one's 20 cells take it seconds.
BRUTE_HARD = "strip 3x20"


def corpus_boards(count: int) -> list[str]:
    """The board texts of ``count`` 20x20 lattice positions from ``bench/corpora/hard.jsonl``."""
    found = corpus()
    names = [n for n in found if n.startswith("lattice 20x20")]
    names = list(HARD_NAMES) + [n for n in names if n not in HARD_NAMES]
    return [found[name] for name in names[:count]]


def corpus() -> dict[str, str]:
    """The hard corpus's boards by name."""
    found = {}
    for line in (ROOT / "bench" / "corpora" / "hard.jsonl").read_text().splitlines():
        entry = json.loads(line)
        found[entry["name"]] = entry["board"]
    return found


def hard_requests(scenario: str, count: int) -> list[dict]:
    """The request bodies of a scenario's hard requests."""
    if scenario == "100x100":
        return [{"board": lattice(100, 100, 0.2, seed).to_text()} for seed in range(count)]
    if scenario == "brute":
        return [{"board": corpus()[BRUTE_HARD], "backend": "brute"}] * count
    return [{"board": b, "backend": SCENARIOS[scenario]} for b in corpus_boards(count)]


def small_boards() -> list[str]:
    """Beginner and expert positions from a few seeded games, interleaved."""
    found: dict[str, list[str]] = {}
    for preset, (rows, cols, mines) in {"beginner": (9, 9, 10), "expert": (16, 30, 99)}.items():
        found[preset] = []
        for g in range(6):
            game = mscsp.Game(rows, cols, mines, seed=[2026, g])
            first = (rows // 2, cols // 2)
            found[preset] += [b.to_text() for b in game_positions(game, first=first)]
    return [b for pair in zip(found["beginner"], found["expert"], strict=False) for b in pair]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (the workers are the forkserver's children)."""
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
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def status_mb(pid: int) -> dict[str, float]:
    """``VmRSS``, ``VmHWM`` and ``VmData`` of ``pid`` in MB (empty once it is gone)."""
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "VmData"):
                out[key] = int(value.split()[0]) / 1024
    except (OSError, ValueError):
        pass
    return out


def data_ceiling_mb(pid: int) -> float | None:
    """The soft ``RLIMIT_DATA`` of ``pid`` in MB (``None``: unlimited or unknown)."""
    try:
        for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
            if line.startswith("Max data size"):
                soft = line.split()[3]
                return None if soft == "unlimited" else int(soft) / 2**20
    except (OSError, ValueError, IndexError):
        pass
    return None


class MemoryWatch:
    """Samples the server's and its processes' memory every ``period`` seconds (a thread).

    Keeps, per process, the largest ``VmHWM`` (the kernel's own peak of resident memory)
    and ``VmData`` seen, its command line and its data ceiling.
    """

    def __init__(self, server: int, period: float = 0.05):
        self.server = server
        self.period = period
        self.peaks: dict[int, dict] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while not self.stop.wait(self.period):
            for pid in {self.server} | descendants(self.server):
                now = status_mb(pid)
                if not now:
                    continue
                seen = self.peaks.setdefault(pid, {"hwm": 0.0, "data": 0.0, "role": role(pid)})
                seen["hwm"] = max(seen["hwm"], now.get("VmHWM", 0.0))
                seen["data"] = max(seen["data"], now.get("VmData", 0.0))
                seen["ceiling"] = data_ceiling_mb(pid)

    def summary(self) -> dict:
        """Peaks by role: the server, the forkserver, the workers (each against its ceiling)."""
        workers = [p for pid, p in self.peaks.items() if pid != self.server and p["ceiling"]]
        others = [p for pid, p in self.peaks.items() if pid != self.server and not p["ceiling"]]
        server = self.peaks.get(self.server, {"hwm": 0.0})
        over = [w for w in workers if w["data"] > w["ceiling"] or w["hwm"] > w["ceiling"]]
        return {
            "server_peak_rss_mb": round(server["hwm"], 1),
            "other_peak_rss_mb": round(max((p["hwm"] for p in others), default=0.0), 1),
            "workers_seen": len(workers),
            "worker_peak_rss_mb": round(max((w["hwm"] for w in workers), default=0.0), 1),
            "worker_peak_data_mb": round(max((w["data"] for w in workers), default=0.0), 1),
            "worker_ceiling_mb": round(min((w["ceiling"] for w in workers), default=0.0), 1),
            "workers_over_ceiling": len(over),
        }


def role(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:80]
    except OSError:
        return "?"


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


async def scenario_run(
    http: httpx.AsyncClient, name: str, small: list[str], args: argparse.Namespace
) -> dict:
    """One scenario: ``--hard`` requests in flight, small ones sent meanwhile."""

    async def hard_request(body: dict) -> dict:
        start = time.perf_counter()
        answer = await http.post("/api/solve", json=body)
        error = answer.json().get("error", {})
        return {
            "status": answer.status_code,
            "seconds": round(time.perf_counter() - start, 2),
            "message": error.get("message"),
        }

    hard_tasks = [asyncio.create_task(hard_request(b)) for b in hard_requests(name, args.hard)]
    await asyncio.sleep(0.5)  # let the hard solves start
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    during = 0
    for i in range(args.small):
        if all(t.done() for t in hard_tasks):
            break
        start = time.perf_counter()
        answer = await http.post("/api/solve", json={"board": small[i % len(small)]})
        latencies.append(time.perf_counter() - start)
        statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
        during += not all(t.done() for t in hard_tasks)
        await asyncio.sleep(args.gap)
    hard_results = await asyncio.gather(*hard_tasks)
    ms = [1000 * x for x in latencies]
    return {
        "scenario": name,
        "small": len(ms),
        "small_during_hard": during,
        "small_status": statuses,
        "p50_ms": round(percentile(ms, 50), 2),
        "p95_ms": round(percentile(ms, 95), 2),
        "p99_ms": round(percentile(ms, 99), 2),
        "max_ms": round(max(ms), 2) if ms else None,
        "hard": hard_results,
    }


async def load(url: str, args: argparse.Namespace) -> list[dict]:
    small = small_boards()
    timeout = httpx.Timeout(args.time_limit + 30)
    async with httpx.AsyncClient(base_url=url, timeout=timeout) as http:
        for board in small[:40]:  # warm the server's imports and caches
            (await http.post("/api/solve", json={"board": board})).raise_for_status()
        return [await scenario_run(http, name, small, args) for name in args.scenarios]


def stop_with_hard_in_flight(server: subprocess.Popen, url: str, args: argparse.Namespace) -> dict:
    """Sends two hard requests, then Ctrl-C once they are being solved: the seconds to exit."""
    replies: list = []

    def hard(body: dict) -> None:
        try:
            replies.append(httpx.post(url + "/api/solve", json=body, timeout=60).status_code)
        except httpx.HTTPError as exc:
            replies.append(type(exc).__name__)

    clients = [threading.Thread(target=hard, args=(b,)) for b in hard_requests("ganak", 2)]
    for client in clients:
        client.start()
    time.sleep(1.5)  # past their quick try, counting in the long lane
    children = descendants(server.pid)
    start = time.perf_counter()
    server.send_signal(signal.SIGINT)  # what Ctrl-C sends
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    stopped = time.perf_counter() - start
    for client in clients:
        client.join(timeout=30)
    time.sleep(0.5)
    return {
        "shutdown_s": round(stopped, 2),
        "exit_code": server.returncode,
        "in_flight_replies": replies,
        "server_processes": 1 + len(children),
        "left_behind": sorted(pid for pid in children if alive(pid)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=300, help="small requests per scenario")
    parser.add_argument("--hard", type=int, default=2, help="hard requests in flight")
    parser.add_argument("--gap", type=float, default=0.02, help="seconds between small ones")
    parser.add_argument("--time-limit", type=float, default=10.0, help="the server's limit")
    parser.add_argument(
        "--scenarios",
        default=",".join(SCENARIOS),
        help=f"comma-separated, from {', '.join(SCENARIOS)}",
    )
    parser.add_argument("--json", action="store_true", help="one JSON line")
    parser.add_argument(
        "--serve-option",
        action="append",
        default=[],
        metavar="OPT",
        help="passed on to mscsp serve (repeat; e.g. --serve-option=--memory-limit=512)",
    )
    args = parser.parse_args()
    args.scenarios = [s for s in args.scenarios.split(",") if s]
    if not 1 <= args.small <= 5000 or not 0 <= args.hard <= 8 or not 0 <= args.gap <= 1:
        parser.error("--small 1..5000, --hard 0..8, --gap 0..1")
    if not set(args.scenarios) <= set(SCENARIOS):
        parser.error(f"--scenarios: choose from {', '.join(SCENARIOS)}")
    port = free_port()
    command = [sys.executable, "-m", "mscsp", "serve", "--port", str(port)]
    command += ["--time-limit", f"{args.time_limit:g}", *args.serve_option]
    server = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    watch = MemoryWatch(server.pid)
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
        watch.thread.start()
        scenarios = asyncio.run(load(url, args))
        stop = stop_with_hard_in_flight(server, url, args)
    finally:
        watch.stop.set()
        if server.poll() is None:
            server.kill()
            server.wait()
    result = {
        "startup_s": round(startup, 2),
        "time_limit": args.time_limit,
        "scenarios": scenarios,
        "memory": watch.summary(),
        **stop,
        "load": [round(x, 2) for x in os.getloadavg()],
    }
    if args.json:
        print(json.dumps(result))
        return
    report(result)


def report(result: dict) -> None:
    """The result as tables."""
    print(f"server up in {result['startup_s']} s; load average {result['load']}")
    print(
        f"{'scenario':<10} {'small':>5} {'during':>6} {'p50 ms':>7} {'p95 ms':>7} "
        f"{'p99 ms':>7} {'max ms':>7}  small status   hard (status, s)"
    )
    for s in result["scenarios"]:
        hard = ", ".join(f"{h['status']} {h['seconds']}" for h in s["hard"])
        cells = [s[k] for k in ("small", "small_during_hard", "p50_ms", "p95_ms", "p99_ms")]
        cells = [str(v) for v in (*cells, s["max_ms"])]  # (none: the hard ones ended at once)
        print(
            f"{s['scenario']:<10} {cells[0]:>5} {cells[1]:>6} {cells[2]:>7} {cells[3]:>7} "
            f"{cells[4]:>7} {cells[5]:>7}  {str(s['small_status']):<14} {hard}"
        )
    for s in result["scenarios"]:
        for h in s["hard"]:
            print(f"  {s['scenario']}: {h['status']} after {h['seconds']} s: {h['message']}")
    m = result["memory"]
    print(
        f"memory: server peak RSS {m['server_peak_rss_mb']} MB; forkserver "
        f"{m['other_peak_rss_mb']} MB; {m['workers_seen']} workers: peak RSS "
        f"{m['worker_peak_rss_mb']} MB, peak data {m['worker_peak_data_mb']} MB, ceiling "
        f"{m['worker_ceiling_mb']} MB, over it: {m['workers_over_ceiling']}"
    )
    print(
        f"Ctrl-C with 2 hard requests in flight: stopped in {result['shutdown_s']} s, exit "
        f"{result['exit_code']}, in-flight replies {result['in_flight_replies']}; "
        f"{result['server_processes']} processes, left behind: {result['left_behind'] or 'none'}"
    )


if __name__ == "__main__":
    main()
