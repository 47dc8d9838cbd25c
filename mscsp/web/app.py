"""The Starlette application behind ``mscsp serve``: the page, its assets and the JSON API.

Requests run off the event loop, each under the request's time limit
(:class:`~mscsp.web.service.DeadlineBackend`): a short try in a few threads of the server,
and what may run long in worker processes (:class:`Runner`), so one player's hard board
never stalls another's small one. The server stops waiting for an answer at a hard deadline
(and kills a worker process that overruns), so a slow board answers with the solver-limit
error instead of holding the connection. Requests are bounded in size, must be JSON (which
keeps other sites' forms out), and nothing they carry is executed or written anywhere.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import MscspError, SolverLimitError
from .pool import WorkerPool
from .replay_api import Upload, replay_request
from .service import (
    ApiError,
    Cost,
    Handler,
    Limits,
    error_body,
    explain_request,
    internal_error_body,
    meta,
    play_request,
    solve_request,
    suggest_request,
)

T = TypeVar("T")

STATIC = Path(__file__).parent / "static"
#: Seconds a running request may take past its time limit before the server stops waiting.
GRACE = 1.0
#: Seconds of solver time a ``TIMED`` request first gets in the server process. Every board
#: of the standard sizes met in play is answered within it (an expert position in a few
#: milliseconds); past it, the request moves to a worker process. While a try runs it
#: shares the interpreter with the event loop, so this also bounds what a hard request can
#: cost the small ones around it.
ATTEMPT = 0.05

#: Headers on every answer: the page loads only its own assets and cannot be framed.
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` (and ``no-store`` on the API) to every response."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope["path"].startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                extra = dict(SECURITY_HEADERS, **({"cache-control": "no-store"} if api else {}))
                headers.extend((k.encode(), v.encode()) for k, v in extra.items())
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


class Runner:
    """Runs request handlers where a long one cannot hold the others back.

    A :attr:`~mscsp.web.service.Cost.CHEAP` request, and the first try of a ``TIMED`` one
    (under :data:`ATTEMPT` seconds of solver time), run in a few threads of the server; a
    ``LONG`` request, and a ``TIMED`` one whose try ran out, run in a
    :class:`~mscsp.web.pool.WorkerPool` process, which holds no lock of the server's and is
    killed if it overruns. So a small board is answered at once whatever else is being
    solved, and what runs in the server's threads is short by construction.

    Args:
        limits: The server's limits (``workers`` threads and processes; ``time_limit``).
        attempt: Seconds of solver time a ``TIMED`` request gets in the server process.
    """

    def __init__(self, limits: Limits, attempt: float = ATTEMPT):
        self.limits = limits
        self.attempt = attempt
        self.threads = ThreadPoolExecutor(limits.workers, thread_name_prefix="mscsp-try")
        # One thread per worker process waits on its pipe (without the interpreter lock).
        self.waiters = ThreadPoolExecutor(limits.workers, thread_name_prefix="mscsp-wait")
        self.pool = WorkerPool(limits.workers)

    async def run(self, handler: Handler, body: Any, cost: Cost) -> tuple[int, dict[str, Any]]:
        """``handler(body, limits)`` where ``cost`` says: the HTTP status and JSON body."""
        try:
            if cost is not Cost.LONG:
                limits = self.limits
                if cost is Cost.TIMED:
                    limits = replace(limits, attempt=self.attempt)
                try:
                    call = partial(handler, body, limits)
                    return 200, await self._wait(self.threads, call, True)
                except SolverLimitError:
                    if cost is Cost.CHEAP:
                        raise
                    # The try ran out of its budget: solve it again where it can take long.
            call = partial(self.pool.call, handler, body, self.limits, GRACE)
            return await self._wait(self.waiters, call, False)
        except (ApiError, MscspError) as exc:
            return error_body(exc)

    async def _wait(self, executor: ThreadPoolExecutor, call: Callable[[], T], hard: bool) -> T:
        """``call()`` in ``executor``.

        A request waits at most ``time_limit`` for a free thread (then it is told the server
        is busy). With ``hard``, once running it waits at most ``time_limit`` plus
        :data:`GRACE` seconds for its answer: then it gets the solver-limit error, and the
        thread finishes on its own. (The pool's calls kill their process at that limit.)
        """
        loop = asyncio.get_running_loop()
        started = asyncio.Event()

        def job() -> T:
            loop.call_soon_threadsafe(started.set)
            return call()

        future = executor.submit(job)
        limit = self.limits.time_limit
        try:
            await asyncio.wait_for(started.wait(), timeout=limit)
        except TimeoutError:
            if future.cancel():  # still queued: no thread was free in time
                raise ApiError(
                    503, "busy", "the server is busy with other boards; try again"
                ) from None
        try:
            return await asyncio.wait_for(
                asyncio.wrap_future(future), timeout=limit + GRACE if hard else None
            )
        except TimeoutError:
            raise SolverLimitError(
                f"the analyser's time limit of {limit:g} s per request was hit"
            ) from None

    def close(self) -> None:
        """Stops the worker processes and the threads' queues (at server shutdown)."""
        self.pool.close()
        self.waiters.shutdown(wait=False, cancel_futures=True)
        self.threads.shutdown(wait=False, cancel_futures=True)


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


async def read_body(request: Request, max_body: int, content_type: str) -> bytes:
    """The request's body, refused past ``max_body`` bytes or if not of ``content_type``."""
    if request.headers.get("content-type", "").split(";")[0].strip() != content_type:
        raise ApiError(415, "request", f"send the request as {content_type}")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_body:
        raise ApiError(413, "too_large", f"request larger than {max_body} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_body:
            raise ApiError(413, "too_large", f"request larger than {max_body} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: Request, max_body: int) -> Any:
    """The request's JSON body, refused past ``max_body`` bytes or if not JSON."""
    data = await read_body(request, max_body, "application/json")
    try:
        return json.loads(data, parse_constant=_reject_constant)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(400, "request", f"the body is not valid JSON: {exc}") from None
    except RecursionError:
        raise ApiError(400, "request", "the body nests too deeply") from None


async def read_upload(request: Request, max_body: int) -> Upload:
    """An uploaded file: its bytes as the body, its name in the query (``?name=game.evf``)."""
    data = await read_body(request, max_body, "application/octet-stream")
    return Upload(request.query_params.get("name", ""), data)


#: Reads a request's body into what its handler takes (``read_json``, ``read_upload``).
Reader = Callable[[Request, int], Awaitable[Any]]


def _error_response(exc: Exception) -> JSONResponse:
    status, body = error_body(exc)
    return JSONResponse(body, status_code=status)


def create_app(
    limits: Limits | None = None, allowed_hosts: Sequence[str] | None = None
) -> Starlette:
    """The web analyser as an ASGI application.

    Args:
        limits: Request limits (defaults of :class:`~mscsp.web.service.Limits`).
        allowed_hosts: Host names the server answers to (``None``: any). ``mscsp serve``
            passes the loopback names when bound to localhost, which keeps other sites from
            reaching it through DNS rebinding.

    Returns:
        The Starlette application.
    """
    limits = limits or Limits()
    runner = Runner(limits)

    def endpoint(handler: Handler, cost: Cost = Cost.LONG, read: Reader = read_json) -> Callable:
        """The route of a ``POST`` handler; ``cost`` says where it runs (see :class:`Runner`),
        ``read`` how its body is read (JSON, or an uploaded file)."""

        async def answer(request: Request) -> Response:
            try:
                body = await read(request, limits.max_body)
            except ApiError as exc:
                return _error_response(exc)
            status, out = await runner.run(handler, body, cost)
            return JSONResponse(out, status_code=status)

        return answer

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    cached_meta: list[dict[str, Any]] = []

    async def get_meta(request: Request) -> Response:
        # Asking each backend whether it is installed imports its package (OR-Tools takes a
        # second): do it once, off the event loop.
        if not cached_meta:
            cached_meta.append(await asyncio.to_thread(meta, limits))
        return JSONResponse(cached_meta[0])

    async def internal_error(request: Request, exc: Exception) -> Response:
        return JSONResponse(internal_error_body(exc), status_code=500)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:  # no worker process outlives the server
            runner.close()

    middleware = [Middleware(SecurityHeaders)]
    if allowed_hosts is not None:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)))
    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/meta", get_meta),
            Route("/api/solve", endpoint(solve_request, Cost.TIMED), methods=["POST"]),
            Route("/api/play", endpoint(play_request, Cost.CHEAP), methods=["POST"]),
            Route("/api/suggest", endpoint(suggest_request, Cost.TIMED), methods=["POST"]),
            Route("/api/explain", endpoint(explain_request), methods=["POST"]),
            Route("/api/replay", endpoint(replay_request, read=read_upload), methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=middleware,
        exception_handlers={Exception: internal_error},
        lifespan=lifespan,
    )
    app.state.limits = limits
    app.state.runner = runner
    return app
