"""Standing grants and many decisions at once over the HTTP API: an admin token (a person) gives,
lists and revokes grants and approves many; an agent token can do none of it."""

from __future__ import annotations

from typing import Any

from conftest import Client

from fruitctl import bootstrap


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code
    return dict(response.json()["error"])


def propose(agent: Client, title: str, where: str = "Work") -> str:
    filed = agent.post("/reminders", json={"title": title, "list": {"name": where}})
    assert filed.status_code == 202, filed.text
    return str(filed.json()["proposalId"])


def test_approve_with_allow_for_then_the_agent_writes_directly(
    app: bootstrap.App, agent: Client, admin: Client
) -> None:
    app.backend.create_list("Work")
    app.backend.create_list("Errands")
    first = propose(agent, "first")
    error_of(
        agent.post(f"/proposals/{first}/approve", json={"allowFor": "1h"}), 403, "PERMISSION_DENIED"
    )
    approved = admin.post(f"/proposals/{first}/approve", json={"allowFor": "2h"})
    assert approved.status_code == 200, approved.text
    grant = approved.json()["grant"]
    assert grant["scope"] == ["list:Work"]
    assert grant["createdBy"].startswith("human:alice")  # the token's identity
    assert grant["agent"].startswith("agent:claude")
    direct = agent.post("/reminders", json={"title": "second", "list": {"name": "Work"}})
    assert direct.status_code == 201, direct.text
    assert propose(agent, "third", "Errands")
    error_of(agent.get("/grants"), 403, "PERMISSION_DENIED")
    assert [g["id"] for g in admin.get("/grants").json()] == [grant["id"]]
    error_of(agent.post(f"/grants/{grant['id']}/revoke"), 403, "PERMISSION_DENIED")
    revoked = admin.post(f"/grants/{grant['id']}/revoke")
    assert (revoked.status_code, revoked.json()["status"]) == (200, "revoked")
    assert admin.get("/grants").json() == []
    assert admin.get("/grants", params={"all": "true"}).json()[0]["status"] == "revoked"
    error_of(admin.post(f"/grants/{grant['id']}/revoke"), 409, "CONFLICT")
    error_of(admin.post("/grants/g0/revoke"), 404, "NOT_FOUND")
    assert propose(agent, "fourth")


def test_a_grant_past_the_bound_is_refused_and_the_proposal_waits(
    app: bootstrap.App, agent: Client, admin: Client
) -> None:
    pid = propose(agent, "x", "Reminders")
    refused = error_of(
        admin.post(f"/proposals/{pid}/approve", json={"allowFor": "48h"}), 422, "VALIDATION_ERROR"
    )
    assert "at most 24h" in refused["message"]
    error_of(
        admin.post(f"/proposals/{pid}/approve", json={"allowFor": "1h", "scope": "all"}),
        422,
        "VALIDATION_ERROR",
    )
    assert admin.get(f"/proposals/{pid}").json()["status"] == "PENDING"
    assert admin.post(f"/proposals/{pid}/approve").json()["status"] == "EXECUTED"


def test_approve_many_by_ids_names_the_ones_that_fail(
    app: bootstrap.App, agent: Client, admin: Client
) -> None:
    ids = [propose(agent, title, "Reminders") for title in ("a", "b")]
    assert admin.post(f"/proposals/{ids[1]}/reject").status_code == 200
    done = admin.post("/proposals/approve", json={"ids": [*ids, "p0"]})
    assert done.status_code == 200, done.text
    body = done.json()
    assert [p["id"] for p in body["decided"]] == [ids[0]]
    assert [(f["id"], f["error"]["code"]) for f in body["failed"]] == [
        (ids[1], "conflict"),
        ("p0", "proposal_not_found"),
    ]
    error_of(agent.post("/proposals/approve", json={}), 403, "PERMISSION_DENIED")


def test_reject_many_of_one_tool(app: bootstrap.App, agent: Client, admin: Client) -> None:
    reminders = [propose(agent, title, "Reminders") for title in ("a", "b")]
    made_list = agent.post("/tools/create_reminder_list", json={"name": "New"})
    assert made_list.status_code == 202, made_list.text
    done = admin.post("/proposals/reject", json={"tool": "create_reminders", "reason": "no"})
    assert sorted(p["id"] for p in done.json()["decided"]) == sorted(reminders)
    assert {p["reason"] for p in done.json()["decided"]} == {"no"}
    listed = admin.get("/proposals", params={"status": "pending"}).json()
    assert [p["id"] for p in listed] == [made_list.json()["proposalId"]]
    error_of(admin.post("/proposals/reject", json={"allowFor": "1h"}), 422, "VALIDATION_ERROR")
