"""``mscsp serve``: the local web analyser (needs the ``web`` extra)."""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import sys
import threading
import webbrowser

import click

from ..errors import BackendUnavailableError, InvalidInputError
from ..policy.names import check_operator_name
from ..trust.hosts import allow_list, is_loopback
from .options import EXIT_INTERRUPTED, reports_errors
from .types import AsciiInt
from .vocabulary import MAX_TIME_LIMIT, shared_options

shared = shared_options("serve")


@click.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind. Any but loopback (127.0.0.0/8, ::1, localhost) is reachable from "
    "other machines: the server then needs the token it prints in its URL.",
)
@click.option(
    "--no-token",
    is_flag=True,
    help="Serve other machines without a token: anyone who reaches the port may use it.",
)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="NAME",
    help="Also answer requests sent to this host name (repeatable; the bind's own names "
    "are always answered, others refused against DNS rebinding).",
)
@click.option(
    "--allow-backend",
    "allow_backends",
    multiple=True,
    metavar="SPEC",
    help="Let requests use this exact backend name too (repeatable): a program "
    "('external:d4 --exact') or a checkpoint ('learner:PATH'), which requests cannot name.",
)
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
@shared(
    "--time-limit",
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
@shared(
    "--workers",
    help="Long solves run at once, each in a worker process; more wait, then get 'busy' "
    "(0: one per CPU); results do not depend on it.",
)
@shared(
    "--memory-limit",
    help="Megabytes a request may hold resident in its worker process (above the worker's "
    "idle size; 0: no limit); past it, the request gets the memory-limit error.",
)
@shared(
    "--obr-model",
    help="Read screenshots pasted or dropped on the page with this model of ms_toollib's "
    "recogniser (params.onnx; default: $MSCSP_OBR_MODEL; without either, none is read).",
)
@reports_errors
def serve(
    host: str,
    no_token: bool,
    allow_hosts: tuple[str, ...],
    allow_backends: tuple[str, ...],
    port: int,
    open_browser: bool,
    time_limit: float,
    max_cells: int,
    workers: int,
    memory_limit: int,
    obr_model: str | None,
) -> None:
    """Serve the web analyser: paste or draw a board, see the exact odds, play a game.

    Binds to 127.0.0.1 unless --host says otherwise; every asset comes from the package
    (no external network). Requests choose among built-in backends only; programs and
    checkpoints are allowed here, with --allow-backend. Stop with Ctrl-C.
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
    allowed = tuple(dict.fromkeys(check_operator_name(spec) for spec in allow_backends))
    model = _recogniser_model(obr_model)
    limits = Limits(
        # 0 is no limit, as everywhere: the longest limit any option takes.
        time_limit=time_limit or MAX_TIME_LIMIT,
        max_cells=max_cells,
        workers=workers,
        memory_mb=memory_limit or None,
        allowed_names=allowed,
        obr_model=model,
    )
    sock = _listen(host, port)
    port = sock.getsockname()[1]
    # Whether the socket is reachable from other machines is a property of what it is bound
    # to (localhost.localdomain may resolve to 127.0.0.1), told by the one loopback test.
    bound = sock.getsockname()[0]
    local = is_loopback(bound)
    token = None if local or no_token else secrets.token_urlsafe(24)
    app = create_app(
        limits, allowed_hosts=allow_list(bound, (host, bound, *allow_hosts)), token=token
    )
    threading.Thread(target=app.state.meta, name="mscsp-meta", daemon=True).start()
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
    if not local:
        click.echo(
            f"mscsp: warning: serving on {host}, reachable from other machines"
            + (": anyone who reaches the port may use it (--no-token)" if no_token else ""),
            err=True,
        )
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


def _recogniser_model(given: str | None) -> str | None:
    """The screenshot recogniser's model the server reads with: ``--obr-model``'s, else
    ``$MSCSP_OBR_MODEL``'s (``None``: neither names one, and no screenshot is read).

    Raises:
        BackendUnavailableError: A model is named but ms_toollib is missing, or the file is
            not there: said at start, not at the first screenshot.
    """
    from ..screen import MODEL_ENV
    from ..screen.obr import require

    if given is None and not os.environ.get(MODEL_ENV):
        return None
    return str(require(given))
