"""Request bodies read by one strict parser, over real HTTP: a nesting bomb, JSON nested past the
limit and NaN/Infinity are a 400 in the API's error object on every route that takes a body -
never a bare 500, never a float that equals nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fruitctl import bootstrap
from fruitctl.domain.errors import ParseError
from fruitctl.transports import strict_json
from fruitctl.transports.http.server import HttpServer
from fruitctl.transports.http.tokens import TokenStore, secrets_dir

BOMB = b"[" * 200_000 + b"]" * 200_000  # 400 KB: under the body limit, past any recursion
JUST_TOO_DEEP = b'{"title": "x", "tags": ' + b"[" * 64 + b"]" * 64 + b"}"
NOT_NUMBERS = [b'{"title": NaN}', b'{"title": "x", "priority": Infinity}', b"[-Infinity]"]


@pytest.fixture
def served(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, dict[str, str]]]:
    """A real server on loopback, and an admin's headers (every body route is open to it)."""
    monkeypatch.setenv("FRUITCTL_HTTP__NOTIFICATIONS", "false")
    app = bootstrap.build()
    try:
        tokens = TokenStore(secrets_dir(app))
        token = tokens.issue("admin", 600, "alice")[0]
        with HttpServer(app, "127.0.0.1", 0, tokens=tokens).running() as url:
            yield url, {"Authorization": f"Bearer {token}"}
    finally:
        app.close()


def _body_routes(client: httpx.Client) -> list[tuple[str, str]]:
    """Every operation of the OpenAPI document that takes a body, its path parameters filled."""
    document = client.get("/openapi.json").json()
    routes = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if "requestBody" in operation:
                filled = path.replace("{", "").replace("}", "")  # /proposals/proposal_id/reject
                routes.append((method.upper(), filled))
    return routes


def _refused(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 400, (response.request.url, response.text)
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == "PARSE_ERROR" and error["retryable"] is False
    return error


def test_every_body_route_refuses_bombs_and_nan_with_the_error_object(
    served: tuple[str, dict[str, str]],
) -> None:
    url, admin = served
    with httpx.Client(base_url=url, timeout=60, headers=admin) as client:
        routes = _body_routes(client)
        assert ("POST", "/reminders") in routes and ("PUT", "/config/key") in routes
        assert ("POST", "/proposals/proposal_id/reject") in routes
        for method, path in routes:
            sent = {"headers": {"Content-Type": "application/json"}}
            bomb = _refused(client.request(method, path, content=BOMB, **sent))
            deep = _refused(client.request(method, path, content=JUST_TOO_DEEP, **sent))
            assert f"deeper than {strict_json.MAX_DEPTH} levels" in bomb["message"]
            assert f"deeper than {strict_json.MAX_DEPTH} levels" in deep["message"]
            for body in NOT_NUMBERS:
                error = _refused(client.request(method, path, content=body, **sent))
                assert "is not a JSON number" in error["message"]
        # Still serving, and a body just within the limit is read as before.
        nested = b'{"title": "x", "tags": ' + b"[" * 10 + b"]" * 10 + b"}"
        answered = client.post("/reminders", content=nested)
    assert answered.status_code == 422  # read, then refused by the tool's schema, not the parser
    assert answered.json()["error"]["code"] == "VALIDATION_ERROR"


def test_a_stranger_s_bomb_is_refused_before_it_is_read(
    served: tuple[str, dict[str, str]],
) -> None:
    url, _ = served
    refused = httpx.post(f"{url}/reminders", content=BOMB, timeout=60)
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "UNAUTHORIZED"


def test_the_parser_itself() -> None:
    assert strict_json.loads(b'{"a": [1, 2.5, "x", null]}') == {"a": [1, 2.5, "x", None]}
    at_limit = b"[" * strict_json.MAX_DEPTH + b"]" * strict_json.MAX_DEPTH
    assert strict_json.loads(at_limit) is not None
    for bad in (b"[" * 65 + b"]" * 65, BOMB, b"NaN", b"{nope", b"\xff", b"1" * 5000):
        with pytest.raises(ParseError):
            strict_json.loads(bad)
