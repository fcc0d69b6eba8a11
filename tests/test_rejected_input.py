"""Mistakes are not history: input refused before anything ran is answered with its error, but
leaves no proposal, no audit entry and no mark on the error rate - through the person's own CLI,
an agent's proposal and the gateway itself. A call that really failed still counts."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gateways import gateway_with
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app as cli_app
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import BackendUnavailable, InvalidParams
from fruitctl.tools.context import ToolContext
from fruitctl.tools.inputs import Input
from fruitctl.tools.model import tool

AGENT = Actor("agent", "a1")
runner = CliRunner()


def cli(*args: str) -> Any:
    return runner.invoke(cli_app, list(args))


def stats() -> dict[str, dict[str, Any]]:
    return {r["tool"]: r for r in json.loads(cli("stats", "--json").stdout)}


def audit() -> list[dict[str, Any]]:
    found = cli("audit", "--json")
    assert found.exit_code == 0, found.output
    return list(json.loads(found.stdout))


def test_the_persons_mistyped_writes_are_errors_not_history(home: Path) -> None:
    cli("lists")  # the store exists, so what follows is judged on input alone
    for args, status, words in (
        (("--title", ""), 2, "'title' must not be empty"),
        (("--title", "x", "--due", "garbage"), 2, "Invalid date format: 'garbage'"),
        (("--title", "x", "--list", "Nope"), 3, "No list found with name: 'Nope'"),
    ):
        refused = cli("reminders", "add", *args)
        assert refused.exit_code == status and words in refused.stderr, refused.output
    missing = cli("reminders", "update", "r-none", "--title", "y")
    assert missing.exit_code == 3, missing.output
    assert audit() == []
    assert json.loads(cli("proposals", "list", "--status", "all", "--json").stdout) == []
    counted = stats()
    assert counted["create_reminders"]["rejected"] == 3
    assert counted["update_reminders"]["rejected"] == 1
    assert all(row["failed"] == row["errorRate"] == 0 for row in counted.values())


def test_a_batch_with_one_good_item_runs_and_is_history(home: Path) -> None:
    built = bootstrap.build()
    try:
        result = built.gateway.invoke(
            "create_reminders",
            {"reminders": [{"title": "kept"}, {"title": "lost", "list": {"name": "Nope"}}]},
            Actor("human", "me"),
        )
    finally:
        built.close()
    assert result.success and [c["title"] for c in result.output["created"]] == ["kept"]
    assert [entry["event"] for entry in reversed(audit())] == ["direct_write", "executed"]


@pytest.fixture
def built(home: Path) -> Iterator[bootstrap.App]:
    app = bootstrap.build()
    yield app
    app.close()


def test_an_agents_proposal_that_cannot_work_files_nothing(built: bootstrap.App) -> None:
    result = built.gateway.invoke(
        "create_reminders", {"reminders": [{"title": "x", "list": {"name": "Nope"}}]}, AGENT
    )
    assert not result.success and result.error_code == "not_found"
    assert built.approvals is not None and built.approvals.recent(limit=10) == []
    built.gateway.flush()
    row = {r["tool"]: r for r in built.stats(0)}["create_reminders"]
    assert (row["rejected"], row["proposed"], row["failed"]) == (1, 0, 0)


class Nothing(Input):
    pass


@tool(category="read_only", risk="low", title="Down")
def down(args: Nothing, ctx: ToolContext) -> None:
    """Always finds its backend down."""
    raise BackendUnavailable("The server is down.")


@tool(category="read_only", risk="low", title="Picky")
def picky(args: Nothing, ctx: ToolContext) -> None:
    """Always refuses what it was asked."""
    raise InvalidParams("Not like that.")


def test_a_real_failure_counts_and_a_refused_read_does_not(home: Path) -> None:
    with gateway_with([down, picky], io.StringIO()) as gateway:
        for name in ("down", "picky", "down", "no_such_tool"):
            gateway.invoke(name, {}, AGENT)
        gateway.flush()
        app = bootstrap.build()
        try:
            rows = {r["tool"]: r for r in app.stats(0)}
        finally:
            app.close()
    assert (rows["down"]["failed"], rows["down"]["errorRate"]) == (2, 1.0)
    assert (rows["picky"]["rejected"], rows["picky"]["errorRate"]) == (1, 0.0)
    assert rows["no_such_tool"]["rejected"] == 1


def test_refused_input_still_counts_toward_a_rate_limit_on_later_calls(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "governance.yaml").write_text(
        "tools:\n  query_reminders:\n    rate_limit_per_hour: 2\n"
    )
    app = bootstrap.build()
    try:
        calls = [{"limit": 0}, {"limit": 0}, {"limit": 5}]
        answers = [app.gateway.invoke("query_reminders", args, AGENT) for args in calls]
    finally:
        app.close()
    assert [a.error_code for a in answers] == ["invalid_params", "invalid_params", "rate_limited"]
