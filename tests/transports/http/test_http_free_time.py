"""Free time and clashes over the HTTP API (an agent's token, ``POST /tools/{name}``), and the
approval page showing what an agent's new event overlaps."""

from __future__ import annotations

import html
import re

from conftest import Client
from fastapi import FastAPI
from test_http_ui import Browser

from fruitctl import bootstrap

LUNCH = {
    "title": "Lunch",
    "startAt": "2026-03-05T12:30:00+01:00",
    "endAt": "2026-03-05T13:30:00+01:00",
}


def test_an_agent_finds_free_time_and_conflicts(app: bootstrap.App, agent: Client) -> None:
    app.call("create_event", LUNCH)
    free = agent.post(
        "/tools/find_free_time",
        json={"from": "2026-03-05", "to": "2026-03-05", "hours": "12:00-14:00", "minutes": 15},
    )
    assert free.status_code == 200, free.text
    assert [(s["start"], s["minutes"]) for s in free.json()["slots"]] == [
        ("2026-03-05T12:00:00+01:00", 30),
        ("2026-03-05T13:30:00+01:00", 30),
    ]
    clash = agent.post(
        "/tools/check_conflicts",
        json={"start": "2026-03-05T13:00:00+01:00", "end": "2026-03-05T14:00:00+01:00"},
    )
    assert [e["title"] for e in clash.json()["conflicts"]] == ["Lunch"]
    refused = agent.post("/tools/find_free_time", json={"hours": "nine to five"})
    error = refused.json()["error"]
    assert refused.status_code == 422 and error["code"] == "VALIDATION_ERROR"
    assert "Invalid working hours 'nine to five'" in error["message"]


def test_the_page_shows_what_a_proposed_event_overlaps(
    app: bootstrap.App, api: FastAPI, agent: Client, admin_token: str
) -> None:
    app.call("create_event", LUNCH)
    asked = {"title": "Call", "startAt": "2026-03-05T13:00:00+01:00"}
    filed = agent.post("/calendar/events", json=asked)
    assert filed.status_code == 202, filed.text
    browser = Browser(api)
    assert browser.sign_in(admin_token).status_code == 303
    page = html.unescape(browser.get(f"/ui/proposals/{filed.json()['proposalId']}").text)
    row = re.search(r"<code>overlaps</code>.*?</tr>", page, re.S)
    assert row and "'Lunch' Thu 2026-03-05 12:30 - 13:30 (Calendar)" in row.group(0)


def test_the_calendar_routes_take_the_tools_arguments_as_query_parameters(
    app: bootstrap.App, agent: Client
) -> None:
    app.call("create_event", LUNCH)
    work = app.call("create_calendar", {"name": "Work"})
    app.call("create_event", {**LUNCH, "title": "Work lunch", "calendar": work["id"]})
    free = agent.get(
        "/calendar/free",
        params={"from": "2026-03-05", "to": "2026-03-06", "hours": "12:00-14:00",
                "weekday": ["thu"], "calendar": ["Work"], "minutes": 30},
    )  # fmt: skip
    assert free.status_code == 200, free.text
    assert [s["start"] for s in free.json()["slots"]] == [
        "2026-03-05T12:00:00+01:00",
        "2026-03-05T13:30:00+01:00",
    ]
    clash = agent.get(
        "/calendar/conflicts",
        params={"start": "2026-03-05T13:00:00+01:00", "end": "2026-03-05T14:00:00+01:00"},
    )
    assert sorted(e["title"] for e in clash.json()["conflicts"]) == ["Lunch", "Work lunch"]
    too_short = agent.get("/calendar/free", params={"minutes": 0})
    assert too_short.status_code == 422
    bounds = {
        p["name"]: p for p in agent.api.openapi()["paths"]["/calendar/free"]["get"]["parameters"]
    }
    assert (
        bounds["minutes"]["schema"]["minimum"] == 1 and bounds["limit"]["schema"]["maximum"] == 1000
    )
