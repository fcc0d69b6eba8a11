"""The MCP front door over streamable HTTP: fruitctl's own guard in front of the SDK, then a real
server and the SDK's client end to end.

The guard tests run the app through ``httpx.ASGITransport`` WITHOUT starting the SDK's session
manager: a request that reached the MCP layer would raise ("Task group is not initialized"), so a
refusal there proves the guard answered before the SDK saw anything. Requests meant to pass run
inside ``app.running()``, which starts the manager as uvicorn's lifespan would.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_wire import initialize
from starlette.types import Message, Scope

from fruitctl import bootstrap
from fruitctl.private import make_dirs
from fruitctl.startup import StartupError
from fruitctl.transports.http.tokens import RateLimiter, TokenStore, secrets_dir
from fruitctl.transports.mcp_access import ensure_token, token_path
from fruitctl.transports.mcp_http import ALLOW_REMOTE_ENV, GuardedMcpApp, http_app, serve_http

TOKEN = "test-token-not-a-secret-0123456789"
PORT = 8766
BASE = f"http://127.0.0.1:{PORT}"
INITIALIZE = initialize()
MCP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
}
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


@pytest.fixture
def asgi(app: bootstrap.App) -> GuardedMcpApp:
    return http_app(app.gateway, token=TOKEN, host="127.0.0.1", port=PORT, max_body_bytes=4096)


def post(
    asgi: GuardedMcpApp, headers: dict[str, Any], content: Any = None, *, running: bool = False
) -> httpx.Response:
    body = json.dumps(INITIALIZE).encode() if content is None else content

    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=asgi)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
            return await client.post("/mcp", content=body, headers=headers)

    async def main() -> httpx.Response:
        if not running:
            return await send()
        async with asgi.running():
            return await send()

    return anyio.run(main)


# --- the guard, before the MCP layer ------------------------------------------------------------


@pytest.mark.parametrize(
    "origin",
    ["http://evil.test", "http://127.0.0.1:9999", "https://localhost:8766", "null"],
)
def test_a_foreign_origin_is_forbidden(asgi: GuardedMcpApp, origin: str) -> None:
    response = post(asgi, {**MCP_HEADERS, **AUTH, "Origin": origin})
    assert response.status_code == 403
    assert "origin" in response.json()["error"]["message"]


@pytest.mark.parametrize("host", ["evil.test:8766", "127.0.0.1:9999", "localhost", "127.0.0.1"])
def test_a_rebinding_host_is_misdirected(asgi: GuardedMcpApp, host: str) -> None:
    response = post(asgi, {**MCP_HEADERS, **AUTH, "Host": host})
    assert response.status_code == 421
    assert "Host" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong", f"Bearer {TOKEN}x", f"Basic {TOKEN}", TOKEN, "Bearer", b"Bearer \xfc"],
)
def test_no_or_a_wrong_token_is_unauthorized(
    asgi: GuardedMcpApp, authorization: str | bytes | None
) -> None:
    headers = {**MCP_HEADERS, **({"Authorization": authorization} if authorization else {})}
    response = post(asgi, headers)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith('Bearer realm="fruitctl"')
    assert response.json()["error"]["code"] == "UNAUTHORIZED"  # the API's own error object
    assert TOKEN not in response.text


def test_a_declared_oversized_body_is_refused(asgi: GuardedMcpApp) -> None:
    response = post(asgi, {**MCP_HEADERS, **AUTH}, b"x" * 4097)
    assert response.status_code == 413


def test_a_streamed_oversized_body_is_refused(asgi: GuardedMcpApp) -> None:
    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it arrives
        for _ in range(5):
            yield b"x" * 1000

    response = post(asgi, {**MCP_HEADERS, **AUTH}, chunks())
    assert "content-length" not in response.request.headers
    assert response.status_code == 413


@pytest.mark.parametrize("declared", [b"-1", b"\xb2", b"12a"])  # \xb2 is '²': isdigit, no int
def test_a_bad_content_length_is_refused(asgi: GuardedMcpApp, declared: bytes) -> None:
    # httpx sets Content-Length itself, so talk ASGI directly.
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    headers = [
        (b"host", b"127.0.0.1:8766"),
        (b"authorization", f"Bearer {TOKEN}".encode()),
        (b"content-length", declared),
    ]
    scope: Scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
    anyio.run(asgi, scope, receive, send)
    assert sent[0]["status"] == 400


def test_a_request_past_the_guard_reaches_the_sdk(asgi: GuardedMcpApp) -> None:
    # What the refusals above rely on: without its session manager running, the SDK raises.
    with pytest.raises(RuntimeError, match="Task group is not initialized"):
        post(asgi, {**MCP_HEADERS, **AUTH})


@pytest.fixture
def tokens(app: bootstrap.App) -> TokenStore:
    return TokenStore(secrets_dir(app))


def guarded(app: bootstrap.App, tokens: TokenStore | None) -> GuardedMcpApp:
    return http_app(app.gateway, token=TOKEN, host="127.0.0.1", port=PORT, tokens=tokens)


def bearer(token: str) -> dict[str, str]:
    return {**MCP_HEADERS, "Authorization": f"Bearer {token}"}


def test_an_agent_token_of_the_http_api_passes_the_guard(
    app: bootstrap.App, tokens: TokenStore
) -> None:
    agent, _ = tokens.issue("agent", 3600, "claude")
    with pytest.raises(RuntimeError, match="Task group is not initialized"):  # reached the SDK
        post(guarded(app, tokens), bearer(agent))


def test_a_persons_revoked_or_foreign_token_is_refused(
    app: bootstrap.App, tokens: TokenStore
) -> None:
    admin, _ = tokens.issue("admin", 3600, "alice")
    revoked, claims = tokens.issue("agent", 3600, "gone")
    tokens.revoke(claims.token_id)
    other = TokenStore(secrets_dir(app).parent / "elsewhere").issue("agent", 3600, "x")[0]
    asgi = guarded(app, tokens)
    forbidden = post(asgi, bearer(admin))
    assert forbidden.status_code == 403
    assert "agent token" in forbidden.json()["error"]["message"]
    gone = post(asgi, bearer(revoked))
    assert (gone.status_code, gone.json()["error"]["message"]) == (
        401,
        "Unauthorized: the token has been revoked.",
    )
    assert post(asgi, bearer(other)).status_code == 401  # signed with another secret
    assert admin not in forbidden.text and revoked not in gone.text


def test_an_agent_token_over_its_rate_is_429_and_a_refused_one_is_not_counted(
    app: bootstrap.App, tokens: TokenStore
) -> None:
    agent, _ = tokens.issue("agent", 3600, "claude")
    admin, _ = tokens.issue("admin", 3600, "alice")
    asgi = guarded(app, TokenStore(secrets_dir(app), RateLimiter(1)))
    assert [post(asgi, bearer(admin)).status_code for _ in range(2)] == [403, 403]
    with pytest.raises(RuntimeError, match="Task group is not initialized"):  # reached the SDK
        post(asgi, bearer(agent))
    limited = post(asgi, bearer(agent))
    assert limited.status_code == 429
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    assert agent not in limited.text
    with pytest.raises(RuntimeError, match="Task group is not initialized"):  # not counted
        post(asgi, {**MCP_HEADERS, **AUTH})


def test_without_the_api_tokens_only_the_servers_own_token_passes(
    app: bootstrap.App, tokens: TokenStore
) -> None:
    agent, _ = tokens.issue("agent", 3600, "claude")
    assert post(guarded(app, None), bearer(agent)).status_code == 401


def test_no_secret_means_no_token_to_verify_and_none_is_made(
    app: bootstrap.App, tokens: TokenStore
) -> None:
    # A stranger's guess must not make the signing secret as a side effect.
    assert post(guarded(app, tokens), bearer("eyJhbGciOiJIUzI1NiJ9.e30.x")).status_code == 401
    assert not (secrets_dir(app) / "http_jwt_secret").exists()


@pytest.mark.slow
def test_a_secret_gone_bad_refuses_api_tokens_and_stops_a_new_server(
    app: bootstrap.App, tokens: TokenStore, home: Path
) -> None:
    agent, _ = tokens.issue("agent", 3600, "claude")
    (secrets_dir(app) / "http_jwt_secret").chmod(0o644)
    fresh = TokenStore(secrets_dir(app))  # reads the secret again, as a new server would
    refused = post(guarded(app, fresh), bearer(agent))
    assert (refused.status_code, refused.json()["error"]["message"]) == (
        401,
        "Unauthorized: the token cannot be checked.",
    )
    assert post(guarded(app, fresh), {**MCP_HEADERS, **AUTH}, running=True).status_code == 200
    env = {**os.environ, "FRUITCTL_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "fruitctl", "mcp", "--http", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 13  # the gateway could not start
    assert "readable by other users" in done.stderr


@pytest.mark.parametrize("origin", [None, "http://localhost:8766", "http://[::1]:8766"])
def test_a_correct_initialize_is_answered(asgi: GuardedMcpApp, origin: str | None) -> None:
    headers = {**MCP_HEADERS, **AUTH, **({"Origin": origin} if origin else {})}
    response = post(asgi, headers, running=True)
    assert response.status_code == 200
    assert response.headers["mcp-session-id"]
    data = next(line for line in response.text.splitlines() if line.startswith("data:"))
    assert json.loads(data[5:])["result"]["serverInfo"]["name"] == "fruitctl"


def test_the_bound_host_is_accepted_too(app: bootstrap.App) -> None:
    asgi = http_app(app.gateway, token=TOKEN, host="192.0.2.7", port=PORT)
    headers = {
        **MCP_HEADERS,
        **AUTH,
        "Host": f"192.0.2.7:{PORT}",
        "Origin": f"http://192.0.2.7:{PORT}",
    }
    assert post(asgi, headers, running=True).status_code == 200


def test_the_app_needs_a_token_and_the_bound_port(app: bootstrap.App) -> None:
    with pytest.raises(ValueError, match="token"):
        http_app(app.gateway, token="", host="127.0.0.1", port=PORT)
    with pytest.raises(ValueError, match="port"):
        http_app(app.gateway, token=TOKEN, host="127.0.0.1", port=0)


# --- the token file -----------------------------------------------------------------------------


def test_the_token_is_made_once_in_a_private_file(app: bootstrap.App, home: Path) -> None:
    token = ensure_token(app)
    path = token_path(app)
    assert path == home / "secrets" / "mcp_token"
    assert len(token) >= 43  # 32 random bytes, base64url
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert ensure_token(app) == token


def test_a_linked_or_exposed_token_file_is_refused(app: bootstrap.App, tmp_path: Path) -> None:
    path = token_path(app)
    make_dirs(path.parent)
    target = tmp_path / "elsewhere"
    target.write_text("stolen\n")
    path.symlink_to(target)
    with pytest.raises(StartupError, match="cannot read"):
        ensure_token(app)
    path.unlink()
    path.write_text("some-token\n")
    path.chmod(0o644)
    with pytest.raises(StartupError, match="chmod 600"):
        ensure_token(app)
    path.chmod(0o600)
    path.parent.chmod(0o755)  # a folder others may enter is refused, never changed behind one
    with pytest.raises(StartupError, match="chmod 700"):
        ensure_token(app)
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o755


def test_a_remote_address_needs_consent(
    app: bootstrap.App, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(ALLOW_REMOTE_ENV, raising=False)
    with pytest.raises(SystemExit) as exited:
        serve_http(app, host="0.0.0.0", port=0)
    assert exited.value.code == 5
    assert ALLOW_REMOTE_ENV in capsys.readouterr().err
    assert not token_path(app).exists()  # refused before anything was made


def test_an_address_that_cannot_be_bound_is_reported(
    app: bootstrap.App, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(ALLOW_REMOTE_ENV, "1")
    with pytest.raises(SystemExit) as exited:
        serve_http(app, host="192.0.2.7", port=0)  # TEST-NET-1: never a local address
    assert exited.value.code == 13  # the gateway could not start
    said = capsys.readouterr().err
    assert "cannot listen on 192.0.2.7:0" in said
    assert "reachable from the network" in said  # the warning both HTTP doors give
    assert not token_path(app).exists()  # no token made that nobody was shown


# --- end to end: `fruitctl mcp --http --port 0` and the SDK's client ----------------------------


class RunningServer:
    """`fruitctl mcp --http` in a child process; its stderr lines are collected as they come."""

    def __init__(self, home: Path) -> None:
        env = {**os.environ, "FRUITCTL_HOME": str(home)}
        env.pop(ALLOW_REMOTE_ENV, None)
        command = [sys.executable, "-m", "fruitctl", "mcp", "--http", "--port", "0"]
        self.process = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []
        assert self.process.stderr is not None
        self._reader = threading.Thread(target=self._read, args=(self.process.stderr,))
        self._reader.start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self.stderr.append(line)
            self.lines.put(line)

    def url(self) -> str:
        while True:
            line = self.lines.get(timeout=15)
            found = re.search(r"http://127\.0\.0\.1:\d+/mcp", line)
            if found:
                return found.group(0)

    def stop(self) -> tuple[int, str]:
        self.process.send_signal(signal.SIGINT)
        try:
            stdout, _ = self.process.communicate(timeout=10)
        finally:
            self.process.kill()
            self._reader.join(timeout=5)
        return self.process.returncode, stdout


async def propose(url: str, token: str, mode: str) -> Any:
    """A write over MCP with ``token``: the pending proposal it becomes."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        result = await client.call_tool("create_reminders", {"reminders": [{"title": mode}]})
        return result.structured_content


async def list_and_call(url: str, token: str, mode: str) -> tuple[str, list[str], Any]:
    """The SDK's client; the bearer token rides on the httpx2 client it is given."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        tools = await client.list_tools()
        result = await client.call_tool("get_lists", {})
        return client.protocol_version, [tool.name for tool in tools.tools], result


@pytest.mark.slow
def test_end_to_end_over_a_real_server(app: bootstrap.App, home: Path) -> None:
    token = ensure_token(app)  # made beforehand, so the server must not print it
    server = RunningServer(home)
    try:
        url = server.url()
        port = int(url.split(":")[2].split("/")[0])
        # "auto" probes server/discover (the 2026 per-request era); "legacy" is the initialize
        # handshake with a session id and its GET stream.
        sessions = {mode: anyio.run(list_and_call, url, token, mode) for mode in ("auto", "legacy")}
        # An agent token of the HTTP API: the calls are that agent's, in both eras.
        agent, claims = TokenStore(secrets_dir(app)).issue("agent", 3600, "claude")
        pending = {mode: anyio.run(propose, url, agent, mode) for mode in ("auto", "legacy")}
        own = anyio.run(propose, url, token, "legacy")
        refused = httpx.post(url, json=INITIALIZE, headers=MCP_HEADERS)
        rebound = httpx.post(url, json=INITIALIZE, headers={**AUTH, "Host": f"evil.test:{port}"})
    finally:
        code, stdout = server.stop()
    assert sessions["auto"][0] != sessions["legacy"][0]  # both eras were spoken
    for _, names, result in sessions.values():
        assert "get_lists" in names
        assert result.is_error is False
        assert isinstance(result.structured_content, dict)
    assert refused.status_code == 401
    assert rebound.status_code == 421
    for proposal in pending.values():
        assert proposal["status"] == "pending"
        # The token's identity; the client's own name only under it.
        shown = app.approvals.get(proposal["proposalId"])["actor"]
        assert shown.startswith(claims.actor.label + "/")
    assert app.approvals.get(own["proposalId"])["actor"].startswith("agent:mcp:http/")
    assert code == 0
    assert stdout == ""
    assert token not in "".join(server.stderr)
    assert str(token_path(app)) in "".join(server.stderr)


@pytest.mark.slow
def test_a_half_open_connection_to_mcp_over_http_is_cut_off(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `fruitctl mcp --http` keeps the API's connection bounds: a head that never ends is 408.
    monkeypatch.setenv("FRUITCTL_HTTP__HEADER_TIMEOUT_SECONDS", "1")
    server = RunningServer(home)
    try:
        port = int(server.url().split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=60) as slow:
            slow.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and no blank line
            answer = b""
            while chunk := slow.recv(4096):  # until the server closes it
                answer += chunk
    finally:
        server.stop()
    assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
