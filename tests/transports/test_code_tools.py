"""The code tools through every door: MCP (the SDK's client, which checks each answer against
the tool's outputSchema; and the AAI schema with jsonschema), the HTTP API with an agent's
token, the JSON-RPC socket of a real daemon, and the CLI. Each door's call reaches a real git
repository, real ruff and mypy, and a real pytest run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import jsonschema
import pytest
from code_projects import make_lint_project, make_repo, make_test_project
from mcp.client import Client
from socket_daemon import Raw, running, short_home
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app as cli_app
from fruitctl.transports import aai
from fruitctl.transports.http.app import create_app
from fruitctl.transports.http.tokens import TokenStore, secrets_dir
from fruitctl.transports.mcp import build_server

pytestmark = [pytest.mark.process, pytest.mark.slow]


@pytest.fixture
def projects(home: Path) -> dict[str, Path]:
    workspace = home / "workspace"
    workspace.mkdir(parents=True)
    return {
        "repo": make_repo(workspace),
        "lint": make_lint_project(workspace),
        "tests": make_test_project(workspace),
    }


def calls(projects: dict[str, Path]) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("git_status", {"path": str(projects["repo"])}),
        ("run_linter", {"path": str(projects["lint"])}),
        ("run_tests", {"path": str(projects["tests"])}),
    ]


def check(name: str, output: dict[str, Any]) -> None:
    """What each tool must have found, whichever door asked."""
    if name == "git_status":
        assert (output["branch"], output["ahead"], output["behind"]) == ("main", 1, 1)
        assert [output[k]["count"] for k in ("staged", "unstaged", "untracked")] == [1, 1, 1]
    elif name == "run_linter":
        assert sorted(f["code"] for f in output["findings"]) == ["F401", "return-value"]
    else:
        assert (output["passed"], output["failed"]) == (1, 1)
        assert output["failures"][0]["node_id"] == "test_things.py::test_fails"


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def test_through_mcp_each_answer_fits_its_schema(
    app: bootstrap.App, projects: dict[str, Path]
) -> None:
    tools = {tool.name: tool for tool in app.gateway.registry}

    async def main() -> list[tuple[str, Any]]:
        answers = []
        async with Client(build_server(app.gateway)) as client:
            for name, args in calls(projects):
                result = await client.call_tool(name, args)  # checks structuredContent
                assert not result.is_error, (name, result.content[0].text)
                answers.append((name, json.loads(result.content[0].text)))
        return answers

    for name, output in anyio.run(main):
        jsonschema.validate(output, aai.returns_schema(tools[name]))
        check(name, output)


def test_through_the_http_api_with_an_agents_token(
    app: bootstrap.App, projects: dict[str, Path]
) -> None:
    tokens = TokenStore(secrets_dir(app))
    token = tokens.issue("agent", 3600, "claude")[0]
    api = create_app(app, tokens=tokens)

    async def post(name: str, args: dict[str, Any]) -> httpx.Response:
        transport = httpx.ASGITransport(app=api)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            headers = {"Authorization": f"Bearer {token}"}
            return await client.post(f"/tools/{name}", json=args, headers=headers, timeout=120)

    for name, args in calls(projects):
        response = anyio.run(post, name, args)
        assert response.status_code == 200, response.text
        check(name, response.json())
    refused = anyio.run(post, "git_status", {"path": "/etc"})
    assert refused.status_code == 403, refused.text


def test_through_the_socket_of_a_daemon() -> None:
    with short_home() as home:
        workspace = home / "workspace"
        workspace.mkdir(parents=True)
        made = {
            "repo": make_repo(workspace),
            "lint": make_lint_project(workspace),
            "tests": make_test_project(workspace),
        }
        with running(home) as daemon, Raw(daemon.socket) as rpc:
            for name, args in calls(made):
                check(name, rpc.result("tools.call", {"name": name, "arguments": args}))


def test_through_the_cli(projects: dict[str, Path]) -> None:
    runner = CliRunner()
    for name, args in calls(projects):
        done = runner.invoke(cli_app, ["tools", "call", name, "--args", json.dumps(args), "--json"])
        assert done.exit_code == 0, (name, done.stdout)
        check(name, json.loads(done.stdout))
    refused = runner.invoke(
        cli_app, ["tools", "call", "run_tests", "--args", json.dumps({"path": "relative"})]
    )
    assert refused.exit_code != 0
