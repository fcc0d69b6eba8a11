"""One token cannot hold every MCP session (issue 25, item 5): each token opens at most its share,
the rest are refused 429 while other tokens still open theirs, an ended or idle session frees its
place, and a flood of opening requests leaves this process's memory bounded."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import psutil
import pytest
from test_mcp_http import BASE, INITIALIZE, MCP_HEADERS, PORT, TOKEN

from fruitctl import bootstrap
from fruitctl.transports.http.tokens import TokenStore, secrets_dir
from fruitctl.transports.mcp_http import GuardedMcpApp, http_app

PER_TOKEN = 4
FLOOD = 500  # opening requests from one token; unbounded, each would hold a session
RSS_GROWTH_BOUND = 200 * 1024 * 1024  # generous: PER_TOKEN sessions and the refusals' garbage
DEADLINE_S = 60.0


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def guarded(app: bootstrap.App, tokens: TokenStore, idle: float = 300.0) -> GuardedMcpApp:
    return http_app(
        app.gateway,
        token=TOKEN,
        host="127.0.0.1",
        port=PORT,
        tokens=tokens,
        sessions_per_token=PER_TOKEN,
        session_idle_seconds=idle,
    )


def headers(token: str, session: str | None = None) -> dict[str, str]:
    found = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
    return {**found, "Mcp-Session-Id": session} if session else found


async def open_session(client: httpx.AsyncClient, token: str) -> tuple[int, str | None]:
    response = await client.post("/mcp", json=INITIALIZE, headers=headers(token))
    return response.status_code, response.headers.get("mcp-session-id")


def test_a_token_holds_only_its_share_of_sessions(app: bootstrap.App) -> None:
    tokens = TokenStore(secrets_dir(app))
    flooder, _ = tokens.issue("agent", 3600, "flood")
    other, _ = tokens.issue("agent", 3600, "other")
    asgi = guarded(app, tokens)

    async def main() -> dict[str, object]:
        async with (
            asgi.running(),
            httpx.AsyncClient(transport=httpx.ASGITransport(app=asgi), base_url=BASE) as client,
        ):
            rss_before = psutil.Process().memory_info().rss
            flood = [await open_session(client, flooder) for _ in range(FLOOD)]
            growth = psutil.Process().memory_info().rss - rss_before
            theirs = await open_session(client, other)
            own_server_token = await open_session(client, TOKEN)
            first = next(session for status, session in flood if session)
            await client.delete("/mcp", headers=headers(flooder, first))
            again = await open_session(client, flooder)
            return {
                "flood": flood,
                "growth": growth,
                "theirs": theirs,
                "own": own_server_token,
                "again": again,
            }

    seen = anyio.run(main)
    statuses = [status for status, _ in seen["flood"]]  # type: ignore[attr-defined]
    assert statuses[:PER_TOKEN] == [200] * PER_TOKEN
    assert set(statuses[PER_TOKEN:]) == {429}
    assert seen["theirs"][0] == 200  # type: ignore[index]  # another token is not starved
    assert seen["own"][0] == 200  # type: ignore[index]
    assert seen["again"][0] == 200  # type: ignore[index]  # an ended session frees its place
    assert seen["growth"] < RSS_GROWTH_BOUND  # type: ignore[operator]


def test_an_idle_session_ends_and_frees_its_place(app: bootstrap.App) -> None:
    tokens = TokenStore(secrets_dir(app))
    asgi = guarded(app, tokens, idle=0.5)

    async def main() -> list[int]:
        async with (
            asgi.running(),
            httpx.AsyncClient(transport=httpx.ASGITransport(app=asgi), base_url=BASE) as client,
        ):
            full = [(await open_session(client, TOKEN))[0] for _ in range(PER_TOKEN + 1)]
            deadline = time.monotonic() + DEADLINE_S  # far past the configured idle time
            while time.monotonic() < deadline:
                status, _ = await open_session(client, TOKEN)
                if status == 200:
                    return [*full, status]
                await anyio.sleep(0.2)
            return full

    seen = anyio.run(main)
    assert seen[: PER_TOKEN + 1] == [200] * PER_TOKEN + [429]
    assert seen[-1] == 200 and len(seen) == PER_TOKEN + 2  # reopened once the others went idle
