"""Fixtures of the HTTP API tests: a real app on a real store in this test's FRUITCTL_HOME, its
token store, and a client that calls the FastAPI app through ``httpx.ASGITransport``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from fastapi import FastAPI

from fruitctl import bootstrap
from fruitctl.transports.http.app import create_app
from fruitctl.transports.http.tokens import TokenStore, secrets_dir

BASE = "http://testserver"


class Client:
    """Synchronous calls into the ASGI app (each one a fresh ``httpx.AsyncClient``)."""

    def __init__(self, api: FastAPI, token: str | None = None) -> None:
        self.api = api
        self.token = token

    def as_(self, token: str | None) -> Client:
        return Client(self.api, token)

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}) or {})
        if self.token is not None:
            headers.setdefault("Authorization", f"Bearer {self.token}")

        async def send() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.api)
            async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
                return await client.request(method, url, headers=headers, **kwargs)

        return anyio.run(send)

    def get(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", url, **kwargs)

    def patch(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("PATCH", url, **kwargs)

    def put(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("PUT", url, **kwargs)

    def delete(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", url, **kwargs)


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


@pytest.fixture
def tokens(app: bootstrap.App) -> TokenStore:
    return TokenStore(secrets_dir(app))


@pytest.fixture
def agent_token(tokens: TokenStore) -> str:
    return tokens.issue("agent", 3600, "claude")[0]


@pytest.fixture
def admin_token(tokens: TokenStore) -> str:
    return tokens.issue("admin", 3600, "alice")[0]


@pytest.fixture
def api(app: bootstrap.App, tokens: TokenStore) -> FastAPI:
    return create_app(app, tokens=tokens)


@pytest.fixture
def agent(api: FastAPI, agent_token: str) -> Client:
    return Client(api, agent_token)


@pytest.fixture
def admin(api: FastAPI, admin_token: str) -> Client:
    return Client(api, admin_token)


@pytest.fixture
def anonymous(api: FastAPI) -> Client:
    return Client(api)
