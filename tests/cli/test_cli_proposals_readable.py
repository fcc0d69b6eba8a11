"""What a person reads before deciding, through ``fruitctl proposals list/show/undo``: lists and
calendars by name (never ``{"id": …}``), priorities in words on both sides, the weekday beside
every date, what a delete will lose, the real list of an undo, no row for what does not change,
counts that agree with their noun; and ``list`` shows what waits for a person first."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.backends.local import LocalReminders
from fruitctl.backends.local.calendars import LocalCalendars
from fruitctl.cli.app import app
from fruitctl.domain.actors import Actor
from fruitctl.store import open_database

runner = CliRunner()
AGENT = Actor("agent", "claude")


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args))


def as_agent(tool: str, args: dict[str, Any]) -> str:
    """What an agent proposes (through the gateway, as the socket and MCP doors do)."""
    built = bootstrap.build()
    try:
        filed = built.gateway.invoke(tool, args, AGENT)
    finally:
        built.close()
    assert filed.success, filed.error
    return str(filed.output["proposalId"])


def show(proposal: str) -> tuple[str, list[dict[str, Any]]]:
    """``proposals show`` as a person reads it, and the same proposal's diff rows (--json)."""
    read = cli("proposals", "show", proposal)
    assert read.exit_code == 0, read.output
    return read.stdout, json.loads(cli("proposals", "show", proposal, "--json").stdout)["diff"]


def reminder(title: str, **fields: Any) -> dict[str, Any]:
    made = cli("reminders", "add", "--title", title, "--json")
    assert made.exit_code == 0, made.output
    found: dict[str, Any] = json.loads(made.stdout)["created"][0]
    if fields:
        built = bootstrap.build()
        try:
            found = built.call("update_reminders", {"reminders": [{"id": found["id"], **fields}]})
            found = found[0] if isinstance(found, list) else found["updated"][0]
        finally:
            built.close()
    return found


def new_list(name: str) -> str:
    built = bootstrap.build()
    engine = open_database(built.config.paths.local_db, "local")
    built.close()
    try:
        return LocalReminders(engine).create_list(name).id
    finally:
        engine.dispose()


def test_a_move_reads_in_names_words_and_weekdays_and_only_what_changes() -> None:
    errands = new_list("Errands")
    pay = reminder("Pay rent", dueDate="2026-03-06T17:00:00+01:00", notes="same")
    change = {"id": pay["id"], "list": {"id": errands}, "priority": "high", "notes": "same"}
    proposal = as_agent("update_reminders", {"reminders": [{**change, "dueDate": "2026-03-07"}]})
    text, diff = show(proposal)
    rows = {row["field"]: (row["before"], row["after"]) for row in diff}
    assert rows == {
        "list": ("Reminders", "Errands"),
        "priority": ("none", "high"),
        "dueDate": ("Fri 2026-03-06 17:00", "Sat 2026-03-07"),
    }  # notes: the same on both sides, no row
    assert errands not in text and '"id"' not in text
    assert "Change dueDate, list, priority of 1 reminder: 'Pay rent'" in text
    assert "(s)" not in text


def test_a_delete_says_what_it_will_lose_and_counts_agree() -> None:
    one = reminder("Call mum", dueDate="2026-03-06", notes="about Sunday", priority="low")
    two = reminder("Water plants")
    text, diff = show(as_agent("delete_reminders", {"ids": [one["id"], two["id"]]}))
    lost = {row["field"]: row["before"] for row in diff if row["target"] == "Call mum"}
    assert lost == {
        "reminder": "exists",
        "list": "Reminders",
        "dueDate": "Fri 2026-03-06",
        "priority": "low",
        "notes": "about Sunday",
    }
    assert "Delete 2 reminders: 'Call mum', 'Water plants'" in text
    assert "about Sunday" in text and "Fri 2026-03-06" in text


def test_the_undo_of_a_move_names_the_list_it_goes_back_to() -> None:
    errands = new_list("Errands")
    pay = reminder("Pay rent")
    moved = as_agent(
        "update_reminders", {"reminders": [{"id": pay["id"], "list": {"id": errands}}]}
    )
    assert cli("proposals", "approve", moved).exit_code == 0
    undone = cli("proposals", "undo", moved, "--json")
    assert undone.exit_code == 6, undone.output  # filed, pending: a pending write's status
    text, diff = show(json.loads(undone.stdout)["proposalId"])
    assert diff == [
        {"target": "Pay rent", "field": "list", "before": "Errands", "after": "Reminders"}
    ]
    assert "Change list of 1 reminder: 'Pay rent'" in text  # not every field the undo restores


def test_a_new_item_shows_what_the_agent_set_not_the_defaults() -> None:
    errands = new_list("Errands")
    item = {"title": "Stamps", "list": {"id": errands}, "flagged": False, "priority": "none"}
    text, diff = show(as_agent("create_reminders", {"reminders": [item]}))
    assert [(row["field"], row["after"]) for row in diff] == [
        ("list", "Errands"),
        ("title", "Stamps"),
    ]
    assert "Create 1 reminder in Errands: 'Stamps'" in text


def test_an_event_reads_with_its_calendar_name_and_weekday() -> None:
    built = bootstrap.build()
    engine = open_database(built.config.paths.local_db, "local")
    built.close()
    try:
        work = LocalCalendars(engine).create_calendar("Work").id
    finally:
        engine.dispose()
    event = {"title": "Review", "startAt": "2026-03-06T17:00:00+01:00", "calendar": work}
    event["endAt"] = "2026-03-06T18:00:00+01:00"
    text, diff = show(as_agent("create_event", event))
    after = {row["field"]: row["after"] for row in diff}
    assert after["calendar"] == "Work" and after["startAt"] == "Fri 2026-03-06 17:00"
    assert "Create event 'Review' at Fri 2026-03-06 17:00 in Work" in text
    assert work not in text


def test_list_shows_what_waits_for_a_person_and_all_shows_pending_first() -> None:
    waiting = as_agent("create_reminders", {"reminders": [{"title": "waits"}]})
    reminder("done by me")  # a person's own write: executed at once, recorded as a proposal
    rejected = as_agent("create_reminders", {"reminders": [{"title": "refused"}]})
    assert cli("proposals", "reject", rejected).exit_code == 0
    default = json.loads(cli("proposals", "list", "--json").stdout)
    assert [p["id"] for p in default] == [waiting]
    every = json.loads(cli("proposals", "list", "--status", "all", "--json").stdout)
    assert [p["status"] for p in every] == ["PENDING", "REJECTED", "EXECUTED"]  # then newest
    assert [
        p["id"]
        for p in json.loads(cli("proposals", "list", "--status", "Rejected", "--json").stdout)
    ] == [rejected]
    shown = cli("proposals", "list")
    assert "waits" in shown.stdout and "refused" not in shown.stdout


def test_an_unknown_status_is_a_usage_error_naming_the_real_ones() -> None:
    for args in (["--status", "done"], ["--status", "done", "--json"]):
        refused = cli("proposals", "list", *args)
        assert refused.exit_code == 2, refused.output
        said = refused.stdout + refused.stderr
        for word in ("pending", "approved", "executed", "rejected", "expired", "failed", "all"):
            assert word in said
        assert "'done'" in said


def test_a_limit_out_of_bounds_is_a_usage_error_naming_the_bounds() -> None:
    for limit in ("0", "501"):
        refused = cli("proposals", "list", "--limit", limit)
        assert refused.exit_code == 2, refused.output
        assert "'--limit' must be a whole number from 1 to 500" in refused.stderr


def test_a_list_renamed_before_approval_is_a_conflict_not_a_write_into_another_name() -> None:
    errands = new_list("Errands")
    pay = reminder("Pay rent")
    moved = as_agent(
        "update_reminders", {"reminders": [{"id": pay["id"], "list": {"id": errands}}]}
    )
    built = bootstrap.build()
    with sqlite3.connect(built.config.paths.local_db) as db:  # renamed in the app meanwhile
        db.execute("UPDATE lists SET name = 'Archive' WHERE id = ?", (errands,))
    built.close()
    refused = cli("proposals", "approve", moved)
    assert refused.exit_code == 4, refused.output
    listed = json.loads(cli("reminders", "get", pay["id"], "--json").stdout)
    assert listed["listName"] == "Reminders"  # not moved into what is now called Archive
    failed = json.loads(cli("proposals", "show", moved, "--json").stdout)
    renamed = {"target": errands, "field": "name", "before": "Errands", "after": "Archive"}
    assert failed["error"]["details"]["changes"] == [renamed]
