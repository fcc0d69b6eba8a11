"""A token's tool set at the HTTP API (``fruitctl auth token --tools``): the routes and
``/tools/{name}`` of the tools in it answer; any other is refused (404 ``METHOD_NOT_FOUND``,
naming the tool and the token's tools) and never runs; ``/tools`` and ``/skills`` list only its
tools; a tool the governance turns off in every mode is listed to nobody."""

from __future__ import annotations

from pathlib import Path

from conftest import Client
from fastapi import FastAPI

from fruitctl import bootstrap
from fruitctl.capabilities import all_tools, toolsets
from fruitctl.tools.model import MODES
from fruitctl.transports.http.app import create_app
from fruitctl.transports.http.tokens import TokenStore

CONTRACT = {"query_reminders", "get_lists", "create_reminders", "update_reminders"}
CONTRACT |= {"delete_reminders"}
EVENT = {"title": "outside the set", "startAt": "2026-03-02T10:00:00+01:00"}


def reminders_only(api: FastAPI, tokens: TokenStore) -> Client:
    token, claims = tokens.issue("agent", 3600, "phone", toolsets.resolve(["reminders"]))
    assert claims.tools == CONTRACT
    return Client(api, token)


def test_the_tools_of_its_set_answer(api: FastAPI, tokens: TokenStore) -> None:
    client = reminders_only(api, tokens)
    assert client.get("/reminders/lists").status_code == 200
    assert client.post("/tools/get_lists", json={}).status_code == 200
    created = client.post("/reminders", json={"title": "Milk"})
    assert created.status_code == 202  # proposed, as any agent's write


def test_a_tool_outside_its_set_is_refused_and_never_runs(
    api: FastAPI, tokens: TokenStore, app: bootstrap.App
) -> None:
    client = reminders_only(api, tokens)
    for response in (
        client.post("/calendar/events", json=EVENT),
        client.post("/tools/create_event", json=EVENT),
        client.get("/calendar/calendars"),
        client.get("/tools/create_event"),
    ):
        assert response.status_code == 404, response.text
        error = response.json()["error"]
        assert error["code"] == "METHOD_NOT_FOUND"
        assert (
            "is not among this client's tools (create_reminders, delete_reminders"
            in (error["message"])
        )
    assert app.approvals.recent() == []  # neither call was proposed
    # A reminder tool outside the contract's five, too.
    one = client.get("/reminders/any-id").json()["error"]
    assert (one["code"], one["details"]["tool"]) == ("METHOD_NOT_FOUND", "get_reminder")


def test_listings_show_only_its_tools(api: FastAPI, tokens: TokenStore, agent: Client) -> None:
    client = reminders_only(api, tokens)
    assert {tool["name"] for tool in client.get("/tools").json()} == CONTRACT
    skills = client.get("/skills").json()
    listed = {c["tool"] for a in skills["adapters"] for c in a["capabilities"]}
    assert listed == CONTRACT
    # A token without a set sees every tool.
    everything = {tool.name for tool in all_tools()}
    assert {tool["name"] for tool in agent.get("/tools").json()} == everything


def test_a_tool_off_in_every_mode_is_listed_to_nobody(home: Path, tokens: TokenStore) -> None:
    home.mkdir(parents=True, exist_ok=True)
    modes = ", ".join(MODES)
    (home / "governance.yaml").write_text(
        f"tools:\n  write_file: {{forbidden_in_modes: [{modes}]}}\n"
    )
    built = bootstrap.build()
    try:
        admin = Client(create_app(built, tokens=tokens), tokens.issue("admin", 3600, "al")[0])
        names = {tool["name"] for tool in admin.get("/tools").json()}
        assert "read_file" in names and "write_file" not in names
        skills = admin.get("/skills").json()
        listed = {c["tool"] for a in skills["adapters"] for c in a["capabilities"]}
        assert "read_file" in listed and "write_file" not in listed
    finally:
        built.close()
