"""``/things`` through ``httpx.ASGITransport``, on a Things-schema database with the recorder
playing Things: reads, a person's confirmed write, an agent's write as a 202 proposal."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Client
from things_fixture import build

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.transports.http.app import create_app
from fruitctl.transports.http.tokens import TokenStore, secrets_dir

RECORDER = str(Path(__file__).parents[2] / "things_recorder.py")


@pytest.fixture
def app(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[bootstrap.App]:
    things = build(tmp_path / "container")
    command = [sys.executable, RECORDER, str(things.path), str(tmp_path / "urls.log"), "apply"]
    monkeypatch.setenv("FRUITCTL_THINGS__DATABASE", str(things.path))
    monkeypatch.setenv("FRUITCTL_THINGS__OPEN_COMMAND", json.dumps(command))
    built = bootstrap.build()
    yield built
    built.close()


def test_reads(agent: Client) -> None:
    today = agent.get("/things/todos", params={"view": "today"})
    assert today.status_code == 200
    assert sorted(t["id"] for t in today.json()["todos"]) == [
        "todo-overdue",
        "todo-today",
        "todo-yellow",
    ]
    assert agent.get("/things/todos/todo-anytime").json()["project"]["title"] == "Move house"
    assert [p["title"] for p in agent.get("/things/projects").json()] == ["Move house"]
    assert [a["title"] for a in agent.get("/things/areas").json()] == ["Home", "Work"]
    assert len(agent.get("/things/tags").json()) == 3
    missing = agent.get("/things/todos/nope")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"


@pytest.mark.process
def test_a_person_writes_and_an_agent_proposes(admin: Client, agent: Client) -> None:
    made = admin.post("/things/todos", json={"title": "Stamps", "area": "Home"})
    assert made.status_code == 201, made.text
    assert made.json()["status"] == "confirmed"
    todo = made.json()["todo"]
    assert todo["area"]["title"] == "Home"

    proposed = agent.post(f"/things/todos/{todo['id']}/complete")
    assert proposed.status_code == 202, proposed.text
    approved = admin.post(f"/proposals/{proposed.json()['proposalId']}/approve")
    assert approved.status_code == 200 and approved.json()["result"]["status"] == "confirmed"
    assert agent.get(f"/things/todos/{todo['id']}").json()["status"] == "completed"

    renamed = admin.patch(f"/things/todos/{todo['id']}", json={"title": "Stamps (20)"})
    assert renamed.status_code == 200 and renamed.json()["todo"]["title"] == "Stamps (20)"
    refused = admin.patch(f"/things/todos/{todo['id']}", json={"id": "other"})
    assert refused.status_code == 422


def test_skills_list_things_with_its_native_dependencies(agent: Client) -> None:
    skills = agent.get("/skills").json()
    (things,) = [a for a in skills["adapters"] if a["name"] == "things"]
    assert [(d["name"], d["available"]) for d in things["nativeDeps"]] == [
        ("things database", True),
        ("things URL scheme", True),
    ]
    tools = {c["tool"]: c["routes"] for c in things["capabilities"]}
    assert tools["create_todo"] == ["POST /things/todos"]
    assert set(tools) >= {"query_todos", "get_todo", "update_todo", "complete_todo"}


@pytest.mark.process
def test_the_page_says_when_an_approved_write_was_not_confirmed(
    app: bootstrap.App, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_http_ui import Browser

    # This time Things takes the URL and never shows the to-do.
    command = json.loads(os.environ["FRUITCTL_THINGS__OPEN_COMMAND"])
    monkeypatch.setenv("FRUITCTL_THINGS__OPEN_COMMAND", json.dumps([*command[:-1], "ignore"]))
    monkeypatch.setenv("FRUITCTL_THINGS__CONFIRM_SECONDS", "0.2")
    silent = bootstrap.build()
    try:
        tokens = TokenStore(secrets_dir(silent))
        filed = silent.gateway.invoke("create_todo", {"title": "Lost"}, Actor("agent", "claude"))
        proposal = filed.output["proposalId"]
        browser = Browser(create_app(silent, tokens=tokens))
        assert browser.sign_in(tokens.issue("admin", 3600, "alice")[0]).status_code == 303
        token = browser.csrf(f"/ui/proposals/{proposal}")
        done = browser.post(f"/ui/proposals/{proposal}/approve", {"csrf": token})
        assert done.headers["location"].endswith("?done=unconfirmed")
        assert "Approved and sent, but not confirmed" in browser.get(done.headers["location"]).text
    finally:
        silent.close()


@pytest.mark.process  # Things writes through the launcher, a process
def test_search_headings_a_reminder_and_checklist_items(admin: Client, agent: Client) -> None:
    """Issue 30's Things items: search, a project's headings, a move under one with a reminder
    set, and checklist items added (an agent's: a proposal)."""
    found = agent.get("/things/todos", params={"search": "hall"})
    assert found.status_code == 200 and [t["id"] for t in found.json()["todos"]] == ["todo-inbox"]
    headings = agent.get("/things/projects/Move house/headings")
    assert [h["id"] for h in headings.json()] == ["head-pack", "head-clean"]
    assert agent.get("/things/projects/Garden/headings").status_code == 404
    changed = admin.patch(
        "/things/todos/todo-inbox",
        json={"project": "Move house", "heading": "Packing", "when": "2031-12-01@07:45"},
    )
    assert changed.status_code == 200, changed.text
    todo = changed.json()["todo"]
    assert (todo["heading"]["id"], todo["startDate"], todo["reminderTime"]) == (
        "head-pack",
        "2031-12-01",
        "07:45",
    )
    proposed = agent.patch("/things/todos/todo-today", json={"appendChecklist": ["Card number"]})
    assert proposed.status_code == 202, proposed.text
