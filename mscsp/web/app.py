"""The Starlette application behind ``mscsp serve``: the page, its assets and the JSON API.

Requests run off the event loop (:class:`Runner`): in the server's own threads only what is
bounded by construction (a game replayed from its moves, the compiled kernel on a small
board), everything else in worker processes, which are killed when they overrun, so one
player's hard board never stalls another's small one. Each request's time limit runs from
its arrival, and a slow board answers with the solver-limit error instead of holding the
connection. Requests are bounded in size, must be JSON (which keeps other sites' forms out),
and nothing they carry is executed or written anywhere.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.datastructures import Headers, QueryParams
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import MscspError
from ..trust.hosts import HostAllowList
from .image_api import image_request
from .pool import WorkerPool, prepare
from .replay_api import Upload, replay_request
from .service import (
    ApiError,
    Clock,
    Cost,
    Handler,
    Limits,
    answer,
    error_answer,
    error_body,
    explain_request,
    internal_error_body,
    marks_request,
    meta_request,
    naming_board,
    play_request,
    solve_request,
    suggest_request,
    warm_kernel,
)

T = TypeVar("T")

STATIC = Path(__file__).parent / "static"
#: Seconds a running request may take past its time limit before the server stops waiting
#: (and kills the worker process solving it).
GRACE = 1.0
#: Seconds a request waits for a free thread at least, however little time it has left: one
#: whose time is up when it gets one is answered so by its handler, which names its board.
START = 0.25
#: Seconds a ``TIMED`` request that the kernel does not answer first gets in a worker of the
#: quick lane. Boards met in play that the kernel hands back are answered within it; past
#: it, the request moves to the lane of long solves.
ATTEMPT = 0.1
#: Seconds a quick try may overrun :data:`ATTEMPT` (a backend that cannot stop early)
#: before its worker is killed and the request moves on.
ATTEMPT_GRACE = 0.25
#: Worker processes of the quick lane: short tries only, so a small request waits at most
#: for one of those, never behind a long solve.
QUICK = 1
#: Seconds ``/api/meta``'s one computation may take (importing every optional package to
#: ask whether it is installed): not a request's time limit, which a page must not need to
#: load its menus.
META_SECONDS = 300.0
#: Where a request may carry the server's token besides the query (``?token=``): a header,
#: and the cookie the page gets when it is opened with the token in its URL.
TOKEN_HEADER = "x-mscsp-token"

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


class Gate:
    """Refuses a request whose ``Host`` is not on the allow-list (421), or that lacks the
    server's token where it has one (403), before anything else reads it.

    The token is taken from the query (``?token=``, the URL ``mscsp serve`` prints), the
    ``X-Mscsp-Token`` header, ``Authorization: token ...``, or the cookie set when a request
    brought it in its query: the page, opened from the printed URL, keeps working. The
    cookie is ``HttpOnly`` and ``SameSite=Strict``, so another site's page never sends it.

    Args:
        app: The application.
        hosts: The ``Host`` allow-list (``None``: any host).
        token: The token (``None``: none needed).
    """

    def __init__(self, app: ASGIApp, hosts: HostAllowList | None, token: str | None):
        self.app = app
        self.hosts = hosts
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if self.hosts is not None and not self.hosts.allows(headers.get("host", "")):
            refused = ApiError(421, "host", "this server does not answer to that host name")
            await _error_response(refused)(scope, receive, send)
            return
        if self.token is None:
            await self.app(scope, receive, send)
            return
        cookie = f"mscsp-token-{(scope.get('server') or ('', 0))[1]}"
        query = QueryParams(scope.get("query_string", b"")).get("token")
        authorization = headers.get("authorization", "")
        offered = [
            query,
            headers.get(TOKEN_HEADER),
            authorization[6:] if authorization.lower().startswith("token ") else None,
            Request(scope).cookies.get(cookie),
        ]
        if not any(self._matches(given) for given in offered):
            refused = ApiError(403, "token", "this server needs its token: open the URL it printed")
            await _error_response(refused)(scope, receive, send)
            return
        if not self._matches(query):
            await self.app(scope, receive, send)
            return

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                value = f"{cookie}={self.token}; Path=/; HttpOnly; SameSite=Strict"
                message["headers"] = [*message.get("headers", []), (b"set-cookie", value.encode())]
            await send(message)

        await self.app(scope, receive, send_with_cookie)

    def _matches(self, given: str | None) -> bool:
        """Whether ``given`` is the token (compared in constant time)."""
        if given is None or self.token is None:
            return False
        return secrets.compare_digest(given.encode(), self.token.encode())


class Runner:
    """Runs request handlers where a long one cannot hold the others back.

    A :attr:`~mscsp.web.service.Cost.CHEAP` request runs in a few threads of the server. A
    ``TIMED`` one is tried there too, under :attr:`~mscsp.web.service.Limits.bounded`: only
    the compiled kernel may answer it, whose work is bounded by construction; else it is
    tried in the quick lane's worker process for :data:`ATTEMPT` seconds, then solved in the
    long lane's. A ``LONG`` request goes to the long lane at once. The lanes are
    :class:`~mscsp.web.pool.WorkerPool` processes, which hold no lock of the server's and
    are killed if they overrun, so a small board is answered at once whatever else is being
    solved.

    Each request's time limit runs from its arrival: waiting for a thread or a worker, and a
    worker's start-up, count. A request whose time runs out before a thread or worker is
    free is told the server is busy.

    Args:
        limits: The server's limits (``workers`` threads and long-lane processes,
            ``time_limit``, ``memory_mb``).
        attempt: Seconds a ``TIMED`` request gets in the quick lane.
        quick: Worker processes of the quick lane.
    """

    def __init__(self, limits: Limits, attempt: float = ATTEMPT, quick: int = QUICK):
        self.limits = limits
        self.attempt = attempt
        self.threads = ThreadPoolExecutor(limits.workers, thread_name_prefix="mscsp-try")
        # The server's own tries use the kernel, and the workers are forked from a process
        # that has imported the library: load both now, off the event loop.
        threading.Thread(target=_prepare, name="mscsp-prepare", daemon=True).start()
        # One thread per worker process waits on its pipe (without the interpreter lock).
        self.pool = WorkerPool(limits.workers, limits.memory_mb)
        self.waiters = ThreadPoolExecutor(limits.workers, thread_name_prefix="mscsp-wait")
        self.quick = WorkerPool(quick, limits.memory_mb, nice=0)
        self.quick_waiters = ThreadPoolExecutor(quick, thread_name_prefix="mscsp-quick")
        self.lone: set[WorkerPool] = set()  # (see alone())

    async def run(
        self, handler: Handler, body: Any, cost: Cost, arrived: float | None = None
    ) -> tuple[int, dict[str, Any]]:
        """:meth:`respond`, with the JSON body decoded."""
        status, out = await self.respond(handler, body, cost, arrived)
        return status, json.loads(out)

    async def respond(
        self, handler: Handler, body: Any, cost: Cost, arrived: float | None = None
    ) -> tuple[int, bytes]:
        """``handler(body, limits)`` where ``cost`` says: the HTTP status and JSON body.

        Args:
            handler: The request's handler.
            body: Its decoded body.
            cost: Where it may run.
            arrived: When the request arrived (``time.monotonic()``; ``None``: now).
        """
        limits = replace(self.limits, arrived=time.monotonic() if arrived is None else arrived)
        clock = Clock.of(body, limits)
        try:
            if cost is not Cost.LONG:
                here = limits if cost is Cost.CHEAP else replace(limits, bounded=True)
                found = await self._wait(self.threads, partial(answer, handler, body, here), clock)
                if found is not None:
                    return found
                tried = replace(limits, attempt=self.attempt)
                found = await self._in(self.quick, self.quick_waiters, handler, body, tried, clock)
                if found is not None:
                    return found
            found = await self._in(self.pool, self.waiters, handler, body, limits, clock)
            if found is None:  # its worker overran the request's time, and was killed
                raise clock.error()
            return found
        except (ApiError, MscspError) as exc:
            return error_answer(naming_board(exc, body, limits))

    async def _in(
        self,
        pool: WorkerPool,
        waiters: ThreadPoolExecutor,
        handler: Handler,
        body: Any,
        limits: Limits,
        clock: Clock,
    ) -> tuple[int, bytes] | None:
        """``answer(handler, body, limits)`` in a worker of ``pool`` (see
        :meth:`~mscsp.web.pool.WorkerPool.call`); ``None``: none in time."""
        grace = GRACE if limits.attempt is None else ATTEMPT_GRACE
        call = partial(self._call, pool, handler, body, limits, clock.end, grace)
        return await self._wait(waiters, call, clock, hard=False)

    def _call(self, pool: WorkerPool, *args: Any) -> tuple[int, bytes] | None:
        """``pool.call(*args)``, in a waiter thread (starting a worker waits for it). Every
        worker starts with the first request that needs one: the long lane is ready by the
        time a request moves there from the quick one."""
        self.pool.start()
        self.quick.start()
        return pool.call(*args)

    async def _wait(
        self, executor: ThreadPoolExecutor, call: Callable[[], T], clock: Clock, hard: bool = True
    ) -> T:
        """``call()`` in ``executor``.

        A request waits for a free thread until its time is up, or :data:`START` seconds
        (then it is told the server is busy; so too if the server stops meanwhile). With
        ``hard``, once running it waits until its time is up plus :data:`GRACE` seconds for
        its answer: then it gets the solver-limit error, and the thread finishes on its own.
        (The pool's calls kill their process at that limit.)
        """
        loop = asyncio.get_running_loop()
        started = asyncio.Event()

        def job() -> T:
            loop.call_soon_threadsafe(started.set)
            return call()

        try:
            future = executor.submit(job)
        except RuntimeError:  # shut down: the server is stopping
            raise ApiError(503, "busy", "the server is stopping") from None
        # (Cancelled by the executor's shutdown, it wakes us too.)
        future.add_done_callback(lambda _: loop.call_soon_threadsafe(started.set))
        with suppress(TimeoutError):
            left = clock.end - time.monotonic()
            await asyncio.wait_for(started.wait(), timeout=max(left, START))
        if future.cancelled() or (not started.is_set() and future.cancel()):
            raise ApiError(503, "busy", "the server is busy with other boards; try again")
        timeout = clock.end + GRACE - time.monotonic() if hard else None
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), timeout=timeout)
        except TimeoutError:
            raise clock.error() from None

    def alone(self, handler: Handler, body: Any, seconds: float | None = None) -> tuple[int, bytes]:
        """``handler(body, limits)`` in a worker process of its own, stopped after: for what
        imports much and is asked once, so that the server's process stays small, and
        quick to stop (a process that has imported JAX takes a second to exit). It blocks:
        call it in a thread.

        Args:
            handler: The handler.
            body: Its body.
            seconds: Its time limit (``None``: the request's own, :func:`Clock.of`); the
                handler's ``limits`` are the server's still.
        """
        pool = WorkerPool(1, self.limits.memory_mb, nice=0)
        self.lone.add(pool)
        limits = replace(self.limits, arrived=time.monotonic())
        clock = Clock.of(body, limits) if seconds is None else Clock.starting(seconds, limits)
        try:
            found = pool.call(handler, body, limits, clock.end, GRACE)
        finally:
            self.lone.discard(pool)
            pool.close()
        if found is None:
            return error_answer(naming_board(clock.error(), body, limits))
        return found

    def close(self) -> None:
        """Stops the worker processes and the threads' queues (at server shutdown)."""
        for pool in (self.pool, self.quick, *list(self.lone)):
            pool.close()
        for executor in (self.waiters, self.quick_waiters, self.threads):
            executor.shutdown(wait=False, cancel_futures=True)


def _prepare() -> None:
    """Loads the compiled kernel and starts the workers' ``forkserver`` (in a thread)."""
    warm_kernel()
    prepare()


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
    """The JSON error answer of ``exc`` (see :func:`~mscsp.web.service.error_body`)."""
    status, body = error_body(exc)
    return JSONResponse(body, status_code=status)


def create_app(
    limits: Limits | None = None,
    allowed_hosts: HostAllowList | Sequence[str] | None = None,
    token: str | None = None,
) -> Starlette:
    """The web analyser as an ASGI application.

    Args:
        limits: Request limits (defaults of :class:`~mscsp.web.service.Limits`).
        allowed_hosts: The ``Host`` names the server answers to (``None``: any): an
            allow-list (:func:`mscsp.trust.hosts.allow_list`, which ``mscsp serve`` derives
            from its bind), or names, with the loopback ones, as that list takes them.
            Others get 421: it keeps other sites from reaching the server through DNS
            rebinding.
        token: The token every request must carry (``None``: none; see :class:`Gate`).

    Returns:
        The Starlette application.
    """
    limits = limits or Limits()
    if allowed_hosts is not None and not isinstance(allowed_hosts, HostAllowList):
        allowed_hosts = HostAllowList(frozenset(name.lower() for name in allowed_hosts))
    runner = Runner(limits)

    def endpoint(
        handler: Handler,
        cost: Cost = Cost.LONG,
        read: Reader = read_json,
        max_body: int = limits.max_body,
    ) -> Callable:
        """The route of a ``POST`` handler; ``cost`` says where it runs (see :class:`Runner`),
        ``read`` how its body of at most ``max_body`` bytes is read (JSON, or an uploaded
        file)."""

        async def respond(request: Request) -> Response:
            arrived = time.monotonic()
            try:
                body = await read(request, max_body)
            except ApiError as exc:
                return _error_response(exc)
            # (Encoded where it was answered: a large answer costs the event loop nothing.)
            status, out = await runner.respond(handler, body, cost, arrived)
            return Response(out, status_code=status, media_type="application/json")

        return respond

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    cached_meta: list[bytes] = []
    meta_lock = threading.Lock()

    def fetch_meta() -> tuple[int, bytes]:
        # Asking each backend whether it is installed imports its package (JAX, OR-Tools:
        # seconds): done once, in a process of its own, under its own limit, not a
        # request's; requests meanwhile wait for it.
        with meta_lock:
            if not cached_meta:
                status, out = runner.alone(meta_request, None, META_SECONDS)
                if status != 200:
                    return status, out
                cached_meta.append(out)
        return 200, cached_meta[0]

    async def get_meta(request: Request) -> Response:
        status, out = await asyncio.to_thread(fetch_meta)
        return Response(out, status_code=status, media_type="application/json")

    async def internal_error(request: Request, exc: Exception) -> Response:
        return JSONResponse(internal_error_body(exc), status_code=500)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:  # no worker process outlives the server
            runner.close()

    middleware = [Middleware(SecurityHeaders), Middleware(Gate, hosts=allowed_hosts, token=token)]
    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/meta", get_meta),
            Route("/api/solve", endpoint(solve_request, Cost.TIMED), methods=["POST"]),
            Route("/api/play", endpoint(play_request, Cost.CHEAP), methods=["POST"]),
            Route("/api/suggest", endpoint(suggest_request, Cost.TIMED), methods=["POST"]),
            Route("/api/explain", endpoint(explain_request, Cost.TIMED), methods=["POST"]),
            Route("/api/marks", endpoint(marks_request, Cost.TIMED), methods=["POST"]),
            Route("/api/replay", endpoint(replay_request, read=read_upload), methods=["POST"]),
            Route(
                "/api/read-image",
                endpoint(image_request, read=read_upload, max_body=limits.max_image),
                methods=["POST"],
            ),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=middleware,
        exception_handlers={Exception: internal_error},
        lifespan=lifespan,
    )
    app.state.limits = limits
    app.state.runner = runner
    app.state.meta = fetch_meta  # (mscsp serve computes it at start, ahead of the page)
    return app
