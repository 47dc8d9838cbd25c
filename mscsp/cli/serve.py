"""``mscsp serve``: the local web analyser (needs the ``web`` extra)."""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import sys
import threading
import webbrowser

import click

from ..errors import BackendUnavailableError, InvalidInputError
from .options import (
    EXIT_INTERRUPTED,
    AsciiInt,
    memory_limit_option,
    reports_errors,
    time_limit_option,
    workers_option,
)
from .vocabulary import MAX_SERVE_WORKERS, MAX_TIME_LIMIT

#: Host names a loopback-bound server answers to (others are refused: DNS rebinding).
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option(
    "--port",
    type=AsciiInt(0, 65535),
    default=8765,
    show_default=True,
    help="TCP port (0: any free port, shown at start).",
)
@click.option(
    "--open", "open_browser", is_flag=True, default=False, help="Open the page in a web browser."
)
@time_limit_option(
    10.0,
    help="Seconds per request, from its arrival (0: no limit); slower boards get the "
    "solver-limit error.",
)
@click.option(
    "--max-cells",
    type=AsciiInt(min=1, max=1_000_000),
    default=10_000,
    show_default=True,
    help="Largest board (rows x cols) the server solves.",
)
@workers_option(
    "Long solves run at once, each in a worker process; more wait, then get 'busy'",
    default=2,
    most=MAX_SERVE_WORKERS,
)
@memory_limit_option(
    1024,
    help="Megabytes a request may allocate in its worker process (above the worker's idle "
    "size; 0: no limit); past it, the request gets the memory-limit error.",
)
@reports_errors
def serve(
    host: str,
    port: int,
    open_browser: bool,
    time_limit: float,
    max_cells: int,
    workers: int,
    memory_limit: int,
) -> None:
    """Serve the web analyser: paste or draw a board, see the exact odds, play a game.

    Binds to 127.0.0.1 unless --host says otherwise; every asset comes from the package
    (no external network). Stop with Ctrl-C.
    """
    try:
        import uvicorn

        from ..web.app import create_app
        from ..web.service import Limits
    except ImportError as exc:
        raise BackendUnavailableError(
            f"mscsp serve needs the web extra: pip install 'mscsp[web]' ({exc.name} is missing)"
        ) from None
    if not host:
        raise InvalidInputError("--host must not be empty")
    local = _is_loopback(host)
    limits = Limits(
        # 0 is no limit, as everywhere: the longest limit any option takes.
        time_limit=time_limit or MAX_TIME_LIMIT,
        max_cells=max_cells,
        workers=workers,
        memory_mb=memory_limit or None,
    )
    app = create_app(
        limits,
        allowed_hosts=LOOPBACK_NAMES if local else None,
    )
    sock = _listen(host, port)
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    if not local:
        click.echo(f"mscsp: warning: serving on {host}, reachable from other machines", err=True)
    click.echo(f"mscsp analyser on {url} (Ctrl-C to stop)", err=True)
    if open_browser:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    runner = app.state.runner

    class Server(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            # Ctrl-C: stop the worker processes first, so the requests they were solving
            # are answered at once and the server need not wait out their time limits.
            runner.close()
            await super().shutdown(sockets)

    # uvicorn returns (or re-raises Ctrl-C) only once a signal has stopped it: every worker
    # is stopped and every request answered. Leave without the interpreter's teardown
    # (numba's alone takes half a second), so that Ctrl-C stops the server within a second.
    with contextlib.suppress(KeyboardInterrupt):
        Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    click.echo("mscsp: interrupted", err=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (port 0: any free one), or a one-line error."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        # Listening before the address is printed: a client that connects at once (a test,
        # a script reading the line) queues instead of being refused while uvicorn starts.
        sock.listen(socket.SOMAXCONN)
    except OSError as exc:
        raise InvalidInputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock
