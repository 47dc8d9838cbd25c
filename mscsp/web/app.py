"""The Starlette application behind ``mscsp serve``: the page, its assets and the JSON API.

Solves run in a small thread pool, off the event loop, each under the request's time limit
(:class:`~mscsp.web.service.DeadlineBackend`); the server also stops waiting for a solve at
a hard deadline, so a slow board answers with the solver-limit error instead of holding the
connection. Requests are bounded in size, must be JSON (which keeps other sites' forms out),
and nothing they carry is executed or written anywhere.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import MscspError, SolverLimitError
from .replay_api import Upload, replay_request
from .service import (
    ApiError,
    Limits,
    error_body,
    meta,
    play_request,
    solve_request,
    suggest_request,
)

STATIC = Path(__file__).parent / "static"
#: Seconds a running request may take past its time limit before the server stops waiting.
GRACE = 1.0

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
    """Runs request handlers in a bounded thread pool with a hard deadline.

    Args:
        limits: The server's limits (``workers`` threads; ``time_limit`` per request).
    """

    def __init__(self, limits: Limits):
        self.limits = limits
        self.executor = ThreadPoolExecutor(limits.workers, thread_name_prefix="mscsp-solve")

    async def run(self, handler: Callable[[Any, Limits], dict[str, Any]], body: Any) -> Any:
        """``handler(body, limits)`` in the pool.

        A request waits at most ``time_limit`` for a free worker (then it is told the server
        is busy), and once running at most ``time_limit`` plus :data:`GRACE` seconds for its
        answer: then it gets the solver-limit error, and the worker finishes on its own (the
        backend stops counting at the limit; building and combining a large board cannot be
        interrupted, which the board size limit bounds).
        """
        loop = asyncio.get_running_loop()
        started = asyncio.Event()

        def job() -> dict[str, Any]:
            loop.call_soon_threadsafe(started.set)
            return handler(body, self.limits)

        future = self.executor.submit(job)
        limit = self.limits.time_limit
        try:
            await asyncio.wait_for(started.wait(), timeout=limit)
        except TimeoutError:
            if future.cancel():  # still queued: no worker was free in time
                raise ApiError(
                    503, "busy", "the server is busy with other boards; try again"
                ) from None
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), timeout=limit + GRACE)
        except TimeoutError:
            raise SolverLimitError(
                f"the analyser's time limit of {limit:g} s per request was hit"
            ) from None


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

    def endpoint(handler: Callable[[Any, Limits], dict[str, Any]]) -> Callable:
        async def answer(request: Request) -> Response:
            try:
                body = await read_json(request, limits.max_body)
                return JSONResponse(await runner.run(handler, body))
            except (ApiError, MscspError) as exc:
                return _error_response(exc)

        return answer

    async def post_replay(request: Request) -> Response:
        try:
            data = await read_body(request, limits.max_body, "application/octet-stream")
            upload = Upload(request.query_params.get("name", ""), data)
            return JSONResponse(await runner.run(replay_request, upload))
        except (ApiError, MscspError) as exc:
            return _error_response(exc)

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
        body = {"error": {"kind": "internal", "message": f"internal error: {type(exc).__name__}"}}
        return JSONResponse(body, status_code=500)

    middleware = [Middleware(SecurityHeaders)]
    if allowed_hosts is not None:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)))
    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/meta", get_meta),
            Route("/api/solve", endpoint(solve_request), methods=["POST"]),
            Route("/api/play", endpoint(play_request), methods=["POST"]),
            Route("/api/suggest", endpoint(suggest_request), methods=["POST"]),
            Route("/api/replay", post_replay, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=middleware,
        exception_handlers={Exception: internal_error},
    )
    app.state.limits = limits
    app.state.runner = runner
    return app
