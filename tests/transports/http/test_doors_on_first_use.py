"""The daemon's HTTP port serves the API (and its page) and MCP at ``/mcp``, each loaded by the
first request for it: a daemon that only ever serves its socket pays for neither. A fresh
process tells what it had imported before and after each; a start that fails answers every
request for that door with the reason."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
from mcp_wire import initialize
from socket_daemon import python
from starlette.types import Receive, Scope, Send

from fruitctl.transports.http.server import OnFirstUse

SDK = "mcp.server.streamable_http_manager"
API = "fastapi"
SCRIPT = """
import json, sys
import httpx
from fruitctl import bootstrap
from fruitctl.transports.http.server import HttpServer
from fruitctl.transports.mcp_access import ensure_token

app = bootstrap.build()
token = ensure_token(app)
seen = {}
with HttpServer(app, port=0).running() as url:
    seen["first"] = [API in sys.modules, SDK in sys.modules]
    seen["api"] = httpx.get(url + "/ui/proposals", follow_redirects=False).status_code
    seen["before"] = [API in sys.modules, SDK in sys.modules]
    headers = {"Authorization": "Bearer " + token, "Accept": "application/json, text/event-stream"}
    answer = httpx.post(url + "/mcp", json=INITIALIZE, headers=headers, timeout=60)
    seen["initialize"] = answer.status_code
    seen["server"] = answer.text.count("fruitctl")
    seen["after"] = [API in sys.modules, SDK in sys.modules]
app.close()
print(json.dumps(seen))
"""
INITIALIZE = initialize()


@pytest.mark.process
@pytest.mark.slow
def test_each_door_is_loaded_by_the_first_request_for_it(tmp_path: Path) -> None:
    script = f"SDK = {SDK!r}\nAPI = {API!r}\nINITIALIZE = {INITIALIZE!r}\n{SCRIPT}"
    done = python(tmp_path, script)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["first"] == [False, False]
    assert seen["api"] in (200, 303)  # the page, or its sign-in
    assert seen["before"] == [True, False]
    assert seen["initialize"] == 200 and seen["server"] >= 1
    assert seen["after"] == [True, True]


def _broken() -> OnFirstUse:
    def build() -> OnFirstUse:
        raise RuntimeError("no SDK here")

    return OnFirstUse("MCP over HTTP", "json", build)


def test_a_start_that_fails_answers_each_request_with_why() -> None:
    async def scenario() -> list[httpx.Response]:
        door = _broken()
        task = asyncio.create_task(door.run())
        transport = httpx.ASGITransport(app=door)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            answers = [await http.post("/mcp", json=INITIALIZE) for _ in range(2)]
        await door.stop(task)
        assert task.done()
        return answers

    for answer in asyncio.run(scenario()):
        assert answer.status_code == 500
        error = answer.json()["error"]
        assert error["code"] == "INTERNAL_ERROR"
        assert error["message"] == (
            "MCP over HTTP could not start in this daemon (RuntimeError: no SDK here)."
        )


def test_a_server_that_never_served_mcp_stops_without_loading_it() -> None:
    built: list[str] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:  # pragma: no cover
        raise AssertionError("never called")

    def build() -> object:
        built.append("built")
        return app

    async def scenario() -> bool:
        door = OnFirstUse("The HTTP API", "json", build)
        task = asyncio.create_task(door.run())
        await asyncio.sleep(0)
        await asyncio.wait_for(door.stop(task), timeout=30)
        return task.cancelled()

    assert asyncio.run(scenario()) is True
    assert built == []
