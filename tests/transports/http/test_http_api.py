"""Every API route through ``httpx.ASGITransport``: reads answer, an agent's writes become 202
proposals, an admin (a person) approves, and every failure is seed 003's error envelope."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import Client
from fastapi import FastAPI

from fruitctl import __version__, bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.transports.http.app import create_app
from fruitctl.transports.http.tokens import TokenStore, secrets_dir


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "retryable", "details"}
    assert body["error"]["code"] == code
    assert "Traceback" not in response.text
    return dict(body["error"])


def create(client: Client, title: str = "Milk", **fields: Any) -> Any:
    return client.post("/reminders", json={"title": title, **fields})


def test_health_needs_no_token(anonymous: Client) -> None:
    response = anonymous.get("/health")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


def test_lists_and_an_empty_query(agent: Client) -> None:
    lists = agent.get("/reminders/lists")
    assert lists.status_code == 200
    assert [item["name"] for item in lists.json()] == ["Reminders"]
    assert agent.get("/reminders").json() == []
    assert agent.get("/reminders/open").json()["items"] == []


def test_an_agent_write_is_a_202_proposal_until_a_person_approves(
    agent: Client, admin: Client
) -> None:
    proposed = create(agent, "Buy milk", priority="high")
    assert proposed.status_code == 202
    pending = proposed.json()
    assert pending["status"] == "pending"
    assert proposed.headers["location"] == f"/proposals/{pending['proposalId']}"
    assert agent.get("/reminders").json() == []  # nothing written yet

    shown = agent.get(f"/proposals/{pending['proposalId']}").json()
    assert shown["status"] == "PENDING"
    assert {"target": "new reminder 1", "field": "title", "before": None, "after": "Buy milk"} in (
        shown["diff"]
    )
    error_of(agent.post(f"/proposals/{pending['proposalId']}/approve"), 403, "PERMISSION_DENIED")

    approved = admin.post(f"/proposals/{pending['proposalId']}/approve")
    assert approved.status_code == 200
    assert approved.json()["status"] == "EXECUTED"
    [reminder] = agent.get("/reminders").json()
    assert (reminder["title"], reminder["priority"]) == ("Buy milk", 1)
    assert agent.get(f"/reminders/{reminder['id']}").json() == reminder


def test_a_person_writes_directly_and_each_write_route_works(admin: Client) -> None:
    created = create(admin, "Call Bob", dueDate="2026-03-02")
    assert created.status_code == 201
    reminder = created.json()
    assert reminder["dueDate"] == "2026-03-02"
    rid = reminder["id"]

    changed = admin.patch(f"/reminders/{rid}", json={"title": "Call Bob back", "notes": "re: X"})
    assert (changed.status_code, changed.json()["title"]) == (200, "Call Bob back")
    done = admin.post(f"/reminders/{rid}/complete")
    assert done.json()["isCompleted"] is True
    assert admin.get("/reminders", params={"status": "completed"}).json()[0]["id"] == rid

    deleted = admin.delete(f"/reminders/{rid}")
    assert deleted.json() == {"deleted": [rid]}
    error_of(admin.delete(f"/reminders/{rid}"), 404, "NOT_FOUND")
    error_of(admin.get(f"/reminders/{rid}"), 404, "NOT_FOUND")
    error_of(admin.patch(f"/reminders/{rid}", json={"title": "x"}), 404, "NOT_FOUND")


def test_query_parameters_reach_the_tool(admin: Client) -> None:
    for title in ("a", "b", "c"):
        create(admin, title)
    assert [r["title"] for r in admin.get("/reminders", params={"sort": "oldest"}).json()] == [
        "a",
        "b",
        "c",
    ]
    assert len(admin.get("/reminders", params={"limit": 2}).json()) == 2
    projected = admin.get("/reminders", params={"query": "[?title=='b'].title", "all": "true"})
    assert projected.json() == ["b"]
    assert admin.get("/reminders", params={"list": "reminders"}).status_code == 200
    error_of(admin.get("/reminders", params={"list": "Nope"}), 404, "NOT_FOUND")
    error_of(admin.get("/reminders", params={"limit": 0}), 422, "VALIDATION_ERROR")
    error_of(admin.get("/reminders", params={"sort": "sideways"}), 422, "VALIDATION_ERROR")
    error_of(admin.get("/reminders", params={"query": "[?"}), 422, "VALIDATION_ERROR")
    misspelt = error_of(admin.get("/reminders", params={"lmit": 5}), 422, "VALIDATION_ERROR")
    assert misspelt["details"] == {"field": "lmit"}
    error_of(admin.get("/reminders", params={"list": "a", "all": "true"}), 422, "VALIDATION_ERROR")


def test_malformed_bodies_are_refused_in_the_envelope(admin: Client) -> None:
    error_of(admin.post("/reminders", content=b"{nope"), 400, "PARSE_ERROR")
    error_of(admin.post("/reminders", json=["a"]), 422, "VALIDATION_ERROR")
    unknown = error_of(
        admin.post("/reminders", json={"title": "x", "colour": 1}), 422, "VALIDATION_ERROR"
    )
    assert "colour" in unknown["message"]
    error_of(admin.post("/reminders", json={}), 422, "VALIDATION_ERROR")
    rid = create(admin).json()["id"]
    error_of(admin.patch(f"/reminders/{rid}", json={"id": "other"}), 422, "VALIDATION_ERROR")


def test_allowlists_are_enforced_before_a_proposal_exists(agent: Client, admin: Client) -> None:
    error_of(agent.get("/config"), 403, "PERMISSION_DENIED")
    put = admin.put("/config/allowlist.reminders.lists", json={"value": ["Errands"]})
    assert put.json() == {"value": ["Errands"]}
    assert admin.get("/config").json()["allowlist.reminders.lists"] == ["Errands"]
    refused = error_of(create(agent, "sneaky"), 403, "LIST_NOT_ALLOWED")
    assert refused["retryable"] is False
    assert agent.get("/proposals").json() == []
    error_of(admin.put("/config/nope", json={"value": None}), 422, "VALIDATION_ERROR")


def test_agents_see_only_their_own_proposals(
    api: FastAPI, agent: Client, admin: Client, tokens: TokenStore
) -> None:
    other = Client(api, tokens.issue("agent", 600, "codex")[0])
    mine = create(agent, "mine").json()["proposalId"]
    theirs = create(other, "theirs").json()["proposalId"]
    assert [p["id"] for p in agent.get("/proposals").json()] == [mine]
    error_of(agent.get(f"/proposals/{theirs}"), 404, "PROPOSAL_NOT_FOUND")
    assert {p["id"] for p in admin.get("/proposals").json()} == {mine, theirs}
    assert [p["id"] for p in admin.get("/proposals", params={"status": "pending"}).json()] == [
        theirs,
        mine,
    ]


def test_reject_undo_and_decided_twice(agent: Client, admin: Client) -> None:
    first = create(agent, "no").json()["proposalId"]
    rejected = admin.post(f"/proposals/{first}/reject", json={"reason": "not now"})
    assert (rejected.json()["status"], rejected.json()["reason"]) == ("REJECTED", "not now")
    error_of(admin.post(f"/proposals/{first}/approve"), 409, "CONFLICT")
    error_of(admin.post(f"/proposals/{first}/undo"), 409, "CONFLICT")
    error_of(admin.post("/proposals/pnope/approve"), 404, "PROPOSAL_NOT_FOUND")

    second = create(agent, "yes").json()["proposalId"]
    admin.post(f"/proposals/{second}/approve")
    undo = admin.post(f"/proposals/{second}/undo")
    assert undo.status_code == 202
    assert admin.post(f"/proposals/{undo.json()['proposalId']}/approve").json()["status"] == (
        "EXECUTED"
    )
    assert admin.get("/reminders").json() == []
    error_of(agent.post(f"/proposals/{second}/undo"), 403, "PERMISSION_DENIED")
    error_of(agent.post(f"/proposals/{second}/reject"), 403, "PERMISSION_DENIED")


def test_the_audit_is_for_people(agent: Client, admin: Client) -> None:
    proposal = create(agent, "audited").json()["proposalId"]
    error_of(agent.get("/audit"), 403, "PERMISSION_DENIED")
    entries = admin.get("/audit", params={"proposal": proposal}).json()
    assert [e["event"] for e in entries] == ["proposal_created"]
    assert entries[0]["actor"].startswith("agent:claude.")
    assert len(admin.get("/audit", params={"limit": 1, "since": 3600}).json()) == 1


def test_an_idempotency_key_files_one_proposal(agent: Client) -> None:
    headers = {"Idempotency-Key": "k-1"}
    first = agent.post("/reminders", json={"title": "once"}, headers=headers).json()
    again = agent.post("/reminders", json={"title": "once"}, headers=headers).json()
    assert first["proposalId"] == again["proposalId"]
    changed = agent.post("/reminders", json={"title": "twice"}, headers=headers)
    error_of(changed, 422, "VALIDATION_ERROR")


def test_calendar_routes(agent: Client, admin: Client) -> None:
    [calendar] = admin.get("/calendar/calendars").json()
    body = {"title": "Dentist", "startAt": "2026-03-02T09:00:00+01:00", "location": "Main St"}
    created = admin.post("/calendar/events", json=body)
    assert created.status_code == 201, created.text
    event = created.json()
    assert event["calendarName"] == calendar["name"]
    window = {"from": "2026-03-01", "to": "2026-03-07"}
    assert [e["id"] for e in admin.get("/calendar/events", params=window).json()["events"]] == [
        event["id"]
    ]
    assert admin.get(f"/calendar/events/{event['id']}").json()["title"] == "Dentist"
    moved = admin.patch(f"/calendar/events/{event['id']}", json={"location": "Home"})
    assert moved.json()["location"] == "Home"
    assert admin.get("/calendar/upcoming", params={"days": 3}).status_code == 200
    assert agent.post("/calendar/events", json=body).status_code == 202
    assert admin.delete(f"/calendar/events/{event['id']}").json()["deleted"] == event["id"]
    error_of(admin.get(f"/calendar/events/{event['id']}"), 404, "NOT_FOUND")
    error_of(admin.post("/calendar/events", json={"title": "x"}), 422, "VALIDATION_ERROR")


def test_skills_come_from_the_registry(agent: Client) -> None:
    skills = agent.get("/skills").json()
    adapters = {a["name"]: a for a in skills["adapters"]}
    reminders = adapters["reminders"]
    assert reminders["nativeDeps"] == [{"name": "local", "status": "authorized", "available": True}]
    routes = {c["tool"]: c["routes"] for c in reminders["capabilities"]}
    assert routes["query_reminders"] == ["GET /reminders"]
    assert "POST /reminders/{reminder_id}/complete" in routes["update_reminders"]
    assert "approvals" in adapters
    assert {a["version"] for a in skills["adapters"]} == {__version__}


def test_routes_that_do_not_exist(agent: Client) -> None:
    error_of(agent.get("/nowhere"), 404, "NOT_FOUND")
    error_of(agent.put("/reminders"), 405, "METHOD_NOT_ALLOWED")


def test_every_answer_carries_the_security_headers(agent: Client, anonymous: Client) -> None:
    for response in (agent.get("/reminders"), anonymous.get("/health"), anonymous.get("/ui")):
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        assert response.headers["x-content-type-options"] == "nosniff"
    assert agent.get("/reminders").headers["x-trace-id"]


def test_a_large_body_is_413(app: bootstrap.App, tokens: TokenStore, admin_token: str) -> None:
    client = Client(create_app(app, tokens=tokens), admin_token)
    huge = {"title": "x" * (app.config.settings.http.max_body_bytes + 10)}
    error_of(client.post("/reminders", json=huge), 413, "PAYLOAD_TOO_LARGE")


def test_the_host_check_refuses_other_names(
    app: bootstrap.App, tokens: TokenStore, agent_token: str
) -> None:
    guarded = Client(create_app(app, tokens=tokens, allowed_hosts=["127.0.0.1:8765"]), agent_token)
    error_of(guarded.get("/reminders"), 421, "MISDIRECTED_REQUEST")
    assert guarded.get("/reminders", headers={"Host": "127.0.0.1:8765"}).status_code == 200


def test_rate_limits_are_per_token(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRUITCTL_HTTP__REQUESTS_PER_MINUTE", "3")
    app = bootstrap.build()
    try:
        store = TokenStore(secrets_dir(app))  # issues only: the app counts in its own
        api = create_app(app)
        first = Client(api, store.issue("agent", 600, "one")[0])
        second = Client(api, store.issue("agent", 600, "two")[0])
        assert [first.get("/reminders/lists").status_code for _ in range(3)] == [200] * 3
        limited = first.get("/reminders/lists")
        error_of(limited, 429, "RATE_LIMITED")
        assert limited.json()["error"]["retryable"] is True
        assert int(limited.headers["retry-after"]) >= 1
        assert second.get("/reminders/lists").status_code == 200
    finally:
        app.close()


def test_pending_objects_link_to_the_page_when_a_url_is_configured(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRUITCTL_HTTP__PUBLIC_URL", "http://100.64.0.1:8765/")
    app = bootstrap.build()
    try:
        result = app.gateway.invoke(
            "create_reminders", {"reminders": [{"title": "x"}]}, Actor("agent", "t")
        )
        pending = result.output
        assert pending["url"] == f"http://100.64.0.1:8765/ui/proposals/{pending['proposalId']}"
    finally:
        app.close()


def test_an_allowlist_tightened_after_filing_refuses_the_approval(
    agent: Client, admin: Client, app: bootstrap.App
) -> None:
    app.call("get_lists", {})
    app.backend.create_list("Errands")
    filed = agent.post("/reminders", json={"title": "Stamps", "list": {"name": "Errands"}})
    assert filed.status_code == 202
    proposal = filed.json()["proposalId"]
    assert admin.put("/config/allowlist.reminders.lists", json={"value": ["Inbox"]}).is_success
    refused = admin.post(f"/proposals/{proposal}/approve")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "LIST_NOT_ALLOWED"
    shown = admin.get(f"/proposals/{proposal}").json()
    assert shown["status"] == "PENDING" and shown["reason"].startswith("Approval refused:")
    # The allowlist is the agents': the person's own write through the API is not refused.
    own = admin.post("/reminders", json={"title": "Mine", "list": {"name": "Errands"}})
    assert own.status_code == 201, own.text


@pytest.mark.parametrize(
    ("path", "param", "tool", "argument"),
    [
        ("/reminders", "limit", "query_reminders", "limit"),
        ("/reminders/open", "limit", "open_reminders", "limit"),
        ("/reminders/open", "includeNoDueDate", "open_reminders", "includeNoDueDate"),
        ("/calendar/events", "limit", "query_events", "limit"),
        ("/calendar/upcoming", "days", "calendar_upcoming", "days"),
        ("/calendar/upcoming", "limit", "calendar_upcoming", "limit"),
        ("/things/todos", "limit", "query_todos", "limit"),
    ],
)
def test_route_parameters_carry_the_tools_own_bounds(
    app: bootstrap.App, api: FastAPI, path: str, param: str, tool: str, argument: str
) -> None:
    listed = {p["name"]: p for p in api.openapi()["paths"][path]["get"]["parameters"]}
    declared = listed[param]["schema"]
    found = app.gateway.registry.get(tool)
    assert found is not None
    expected = found.definition.input_schema["properties"][argument]
    for word in ("minimum", "maximum", "default"):
        assert declared.get(word) == expected.get(word), (path, param, word)
