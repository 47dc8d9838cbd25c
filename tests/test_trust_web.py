"""The web door's trust boundary (docs/security.md): a request names built-in backends,
estimators, models and players only; a program or a path only where the operator allowed
that exact name; errors never carry a child's output nor tell one path from another; the
server answers its own host names, and other machines only with its token; answers are
bounded by the request."""

from __future__ import annotations

import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette", reason="the web analyser needs pip install 'mscsp[web]'")
httpx = pytest.importorskip("httpx", reason="Starlette's test client needs httpx")

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2; httpx works the same here
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from click.testing import CliRunner  # noqa: E402

from mscsp.backends import BACKENDS  # noqa: E402
from mscsp.cli import main  # noqa: E402
from mscsp.errors import InvalidInputError  # noqa: E402
from mscsp.policy.names import (  # noqa: E402
    REQUEST_COUNTS,
    SHIPPED_MODELS,
    check_player_name,
    check_request_name,
)
from mscsp.trust.hosts import allow_list, host_name, is_loopback  # noqa: E402
from mscsp.web.app import create_app  # noqa: E402
from mscsp.web.service import Limits  # noqa: E402

BOARD = "5x5x6\n12???\n?????\n???21\n?????\n1????\n"
#: Error kinds the API answers with (mscsp.web.service.error_body).
KINDS = {"parse", "invalid", "inconsistent", "unavailable", "limit", "request", "too_large"}


@pytest.fixture(scope="module")
def client() -> TestClient:
    with TestClient(create_app(Limits(time_limit=10))) as test_client:
        yield test_client


# ---------------------------------------------------------------- the names a request may use


@pytest.mark.parametrize(
    "spec",
    ["dss", "sat:cadical195", "sdd:left", "approxmc", "sampler", "bp:30", "mcmc", "alexnet"]
    + [f"learner:{model}" for model in SHIPPED_MODELS],
)
def test_built_in_names_pass_as_they_are(spec):
    assert check_request_name(spec) == spec


def test_a_count_is_read_in_ascii_digits_within_its_bound():
    assert check_request_name("sampler:0100") == "sampler:100"
    for name, most in REQUEST_COUNTS.items():
        assert check_request_name(f"{name}:{most}") == f"{name}:{most}"
        with pytest.raises(InvalidInputError, match=f"at most {most}"):
            check_request_name(f"{name}:{most + 1}")
        for bad in ("0", "²", "١٢", "1" * 40, "-1", "1e3", " 5"):
            with pytest.raises(InvalidInputError):
                check_request_name(f"{name}:{bad}")


@pytest.mark.parametrize(
    "spec",
    [
        "external",
        "external:touch pwned",
        "external:sh -c 'id' x",
        "learner:/etc/shadow",
        "learner:./net",
        "learner:mynet",
        "learner:..",
        "sat:../../bin/sh",
        "cpmpy:os.system",
        "dss:x",
        "alexnet:x",
        "nosuch",
        "DSS",
        " dss",
        "dss\n",
        "bp:5\x00",
        "mscsp.backends.dss:DssBackend",
        "",
    ],
)
def test_programs_paths_imports_and_unknown_names_are_refused(spec):
    with pytest.raises(InvalidInputError) as caught:
        check_request_name(spec, what="fallback")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("the fallback")
    after = spec.partition(":")[2]  # (never repeated: it may be a path)
    assert len(after) < 3 or after not in message


def test_no_answer_tells_one_path_from_another():
    messages = set()
    for path in ("/etc/passwd", "/etc/shadow", "/no/such", "/tmp", "./x"):
        with pytest.raises(InvalidInputError) as caught:
            check_request_name(f"learner:{path}")
        messages.add(str(caught.value))
    assert len(messages) == 1


def test_the_operator_allows_exact_names_only():
    allowed = ("external:d4 --exact", "learner:/srv/net")
    for spec in allowed:
        assert check_request_name(spec, allowed_extra=allowed) == spec
    for near in ("external:d4 --exact ", "external:d4", "learner:/srv/net/", "learner:/srv"):
        with pytest.raises(InvalidInputError):
            check_request_name(near, allowed_extra=allowed)


def test_players_are_built_in_names_only():
    assert check_player_name("best") == "best"
    for spec in ("learner:/etc/passwd", "csp-xgb", "learner:default", "best\n"):
        with pytest.raises(InvalidInputError):
            check_player_name(spec)


# ---------------------------------------------------------------- the fields of each request


@settings(derandomize=True, max_examples=200, deadline=None)
@given(header=st.text(max_size=40))
def test_any_host_header_is_answered_or_refused(header):
    for bound in ("127.0.0.1", "0.0.0.0"):
        assert allow_list(bound, ["lab.example"]).allows(header) in (True, False)


def test_a_player_counts_with_a_counting_backend(client):
    reply = client.post("/api/suggest", json={"board": BOARD, "backend": "sampler"})
    assert reply.status_code == 400 and "counting backend" in reply.json()["error"]["message"]


def test_no_request_field_runs_a_program(client, tmp_path):
    marker = tmp_path / "pwned"
    command = f"external:touch {marker}"
    requests = [
        ("/api/solve", {"board": BOARD, "backend": command}),
        ("/api/solve", {"board": BOARD, "backend": "sampler", "fallback": command}),
        ("/api/solve", {"board": BOARD, "fallback": command}),
        ("/api/suggest", {"board": BOARD, "backend": command}),
        ("/api/suggest", {"board": BOARD, "player": command}),
    ]
    for path, body in requests:
        reply = client.post(path, json=body)
        assert reply.status_code == 400, reply.text
        assert reply.json()["error"]["kind"] == "invalid"
    assert not marker.exists()


def test_a_fallback_naming_a_path_is_refused_though_the_count_finishes_first(client):
    reply = client.post("/api/solve", json={"board": BOARD, "fallback": "learner:/etc/passwd"})
    assert reply.status_code == 400 and "fallback" in reply.json()["error"]["message"]
    for path in ("/etc/passwd", "/no/such"):
        asked = client.post("/api/solve", json={"board": BOARD, "backend": f"learner:{path}"})
        assert asked.status_code == 400
    assert (
        client.post("/api/solve", json={"board": BOARD, "backend": "learner:/etc/passwd"}).content
        == client.post("/api/solve", json={"board": BOARD, "backend": "learner:/no/such"}).content
    )


@pytest.mark.skipif(not BACKENDS["external"].supported(), reason="external needs python-sat")
def test_an_allowed_program_fails_without_its_output_in_the_answer(tmp_path):
    # The operator allowed a counter; what it prints (a file's content, say) stays put.
    script = "echo leaked-secret >&2; echo leaked-out; exit 1"
    spec = f"external:sh -c {shlex.quote(script)} counter"
    with TestClient(create_app(Limits(time_limit=10, allowed_names=(spec,)))) as client:
        reply = client.post("/api/solve", json={"board": BOARD, "backend": spec})
        meta = client.get("/api/meta").json()
    assert reply.status_code == 400, reply.text
    message = reply.json()["error"]["message"]
    assert "leaked" not in reply.text and "counter program" in message
    assert spec in [b["name"] for b in meta["backends"]]


# ---------------------------------------------------------------- bounded answers


def test_explain_answers_each_cell_once_and_at_most_the_boards_cells(client):
    once = client.post("/api/explain", json={"board": BOARD, "cells": [[1, 1]] * 25})
    assert once.status_code == 200
    assert [e["cell"] for e in once.json()["explanations"]] == [[1, 1]]
    many = client.post("/api/explain", json={"board": BOARD, "cells": [[1, 1]] * 25_000})
    assert many.status_code == 400 and "more than the board's 25" in many.text
    assert len(many.content) < 1000


def test_meta_answers_under_a_short_request_limit():
    # Its one computation imports every backend's package (seconds): not a request's time.
    with TestClient(create_app(Limits(time_limit=0.5))) as client:
        reply = client.get("/api/meta")
    assert reply.status_code == 200, reply.text
    assert reply.json()["limits"]["time_limit"] == 0.5


# ---------------------------------------------------------------- hosts and token


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1", True),
        ("127.0.0.2", True),
        ("0x7f.1", True),
        ("::1", True),
        ("[::1]", True),
        ("::ffff:127.0.0.1", True),
        ("localhost", True),
        ("LocalHost.", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.2", False),
        ("localhost.evil.example", False),
        ("127.0.0.1.evil.example", False),
        ("127.0.0.1 evil", False),
    ],
)
def test_one_loopback_test(host, loopback):
    assert is_loopback(host) is loopback


def test_the_host_allow_list_follows_the_bind():
    local = allow_list("127.0.0.1", ["localhost.localdomain"])
    for header in ("127.0.0.1:8765", "127.1:80", "127.0.0.2", "[::1]:1", "localhost:9"):
        assert local.allows(header), header
    assert local.allows("LOCALHOST.LOCALDOMAIN:8765")
    for header in ("evil.example", "evil.example:8765", "10.0.0.5", "", "[::1"):
        assert not local.allows(header), header
    wide = allow_list("0.0.0.0", ["0.0.0.0", "lab.example"])
    assert wide.allows("lab.example:8765") and wide.allows("10.1.2.3:8765")
    assert not wide.allows("evil.example:8765")
    assert host_name("[::1]:8765") == "[::1]" and host_name("Lab.Example:1") == "lab.example"


def test_other_host_names_are_refused_before_the_api():
    app = create_app(allowed_hosts=allow_list("127.0.0.2", ["127.0.0.2"]))
    client = TestClient(app, base_url="http://127.0.0.2:8765")
    assert client.get("/").status_code == 200
    refused = client.post("/api/solve", json={"board": BOARD}, headers={"host": "evil.example"})
    assert refused.status_code == 421 and refused.json()["error"]["kind"] == "host"


def test_the_token_opens_the_page_and_keeps_it_working():
    app = create_app(token="s3cret-token")
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        for path in ("/", "/api/meta", "/static/app.js"):
            refused = client.get(path)
            assert refused.status_code == 403 and refused.json()["error"]["kind"] == "token"
        assert client.get("/?token=wrong").status_code == 403
        page = client.get("/?token=s3cret-token")
        assert page.status_code == 200
        assert "HttpOnly" in page.headers["set-cookie"]
        assert "SameSite=Strict" in page.headers["set-cookie"]
        # The page's own requests carry the cookie, as the browser sends it.
        assert client.post("/api/solve", json={"board": BOARD}).status_code == 200
        client.cookies.clear()
        assert client.post("/api/solve", json={"board": BOARD}).status_code == 403
        by_header = {"x-mscsp-token": "s3cret-token"}
        assert (
            client.post("/api/solve", json={"board": BOARD}, headers=by_header).status_code == 200
        )
        by_auth = {"authorization": "token s3cret-token"}
        assert client.post("/api/solve", json={"board": BOARD}, headers=by_auth).status_code == 200


def start_server(*options: str) -> tuple[subprocess.Popen, str, str]:
    """``mscsp serve`` on a free port: the process, its printed URL and its warnings."""
    server = subprocess.Popen(
        [sys.executable, "-m", "mscsp", "serve", "--port", "0", "--time-limit", "5", *options],
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = []
    while not lines or " on http" not in lines[-1]:
        line = server.stderr.readline()
        if not line:
            server.kill()
            raise AssertionError(f"the server did not start: {''.join(lines)}")
        lines.append(line)
    url = lines[-1].split(" on ", 1)[1].split()[0]
    return server, url, "".join(lines[:-1])


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    server.communicate(timeout=30)


@pytest.mark.parametrize("host", ["127.1", "127.0.0.2"])
def test_a_loopback_host_answers_its_own_url_without_a_warning(host):
    server, url, warnings_ = start_server("--host", host)
    try:
        assert url.startswith(f"http://{host}:") and "token" not in url
        assert "warning" not in warnings_
        assert httpx.post(f"{url}api/solve", json={"board": BOARD}, timeout=20).status_code == 200
        rebound = httpx.get(f"{url}api/meta", headers={"host": "evil.example"}, timeout=20)
        assert rebound.status_code == 421
    finally:
        stop(server)


def test_other_machines_need_the_printed_token():
    server, url, warnings_ = start_server("--host", "0.0.0.0")
    try:
        assert "warning: serving on 0.0.0.0, reachable from other machines" in warnings_
        base, _, token = url.partition("?token=")
        assert len(token) >= 32
        local = base.replace("0.0.0.0", "127.0.0.1")
        assert httpx.get(f"{local}api/meta", timeout=20).status_code == 403
        assert httpx.get(f"{local}?token={token}", timeout=20).status_code == 200
        with_token = {"x-mscsp-token": token, "host": "evil.example"}
        assert httpx.get(f"{local}api/meta", headers=with_token, timeout=20).status_code == 421
    finally:
        stop(server)


def test_no_token_is_a_choice_with_a_warning():
    server, url, warnings_ = start_server("--host", "0.0.0.0", "--no-token")
    try:
        assert "token" not in url and "anyone who reaches the port" in warnings_
    finally:
        stop(server)


def test_allow_backend_takes_known_names_only():
    result = CliRunner().invoke(main, ["serve", "--allow-backend", "nosuch:x"])
    assert result.exit_code == 2 and "unknown backend" in result.output


# ---------------------------------------------------------------- fuzzing the door

NAMES = st.sampled_from(
    ["external", "learner", "sampler", "bp", "mcmc", "csp-limited", "sat", "cpmpy", "sdd"]
    + ["dss", "alexnet", "best", "nosuch", ""]
)


def hostile_args(marker: Path) -> st.SearchStrategy[str]:
    """What may follow a name's ``:``: paths, commands, huge and foreign numbers, controls."""
    return st.one_of(
        st.sampled_from(["/etc/passwd", "/no/such", "./x", "../../etc/shadow", "~/.ssh/id"]),
        st.sampled_from([f"touch {marker}", f"sh -c 'touch {marker}' x", "os:system"]),
        st.integers(min_value=0, max_value=10**40).map(str),
        st.text(alphabet="²³¹٣٤۵߁१०௧๑", min_size=1, max_size=6),
        st.text(alphabet=st.characters(max_codepoint=0x1F) | st.sampled_from("/.: x"), max_size=8),
        st.text(max_size=20),
    )


def hostile_specs(marker: Path) -> st.SearchStrategy[str]:
    args = hostile_args(marker)
    return st.one_of(st.tuples(NAMES, args).map(":".join), args, NAMES)


@pytest.fixture(scope="module")
def marker(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("door") / "pwned"


@settings(
    derandomize=True,
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_fuzzed_names_get_typed_errors_and_touch_nothing(client, marker, data):
    spec = data.draw(hostile_specs(marker))
    field = data.draw(st.sampled_from(["backend", "fallback", "player"]))
    path = "/api/suggest" if field == "player" else "/api/solve"
    reply = client.post(path, json={"board": BOARD, field: spec})
    assert reply.status_code in (200, 400, 413, 422), (spec, reply.text)
    if reply.status_code != 200:
        error = reply.json()["error"]
        assert error["kind"] in KINDS and "\n" not in error["message"]
        after = spec.partition(":")[2]
        assert len(after) < 3 or after not in error["message"], (spec, error)
    assert not marker.exists() and list(marker.parent.iterdir()) == []
