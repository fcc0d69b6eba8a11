"""``fruitctl things …`` and the Things tools through the gateway, on a real Things-schema
database named in the configuration; and an honest answer where there is none."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from things_fixture import AUTH_TOKEN, ThingsFixture, build
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.capabilities.things.service import ENABLE_URLS
from fruitctl.cli.app import app as cli_app
from fruitctl.domain.actors import Actor

runner = CliRunner()


def cli(*args: str) -> Any:
    return runner.invoke(cli_app, list(args))


@pytest.fixture
def things(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ThingsFixture:
    fixture = build(tmp_path / "container")
    monkeypatch.setenv("FRUITCTL_THINGS__DATABASE", str(fixture.path))
    return fixture


def test_list_by_view_project_area_and_tag(things: ThingsFixture) -> None:
    shown = json.loads(cli("things", "list", "--view", "inbox", "--json").stdout)
    assert [t["title"] for t in shown["todos"]] == ["Sort the post"]
    moving = json.loads(cli("things", "list", "--project", "move house", "--json").stdout)
    assert sorted(t["title"] for t in moving["todos"]) == ["Buy boxes", "Pack books"]
    work = json.loads(cli("things", "list", "--area", "Work", "--json").stdout)
    assert [t["title"] for t in work["todos"]] == ["Call the bank"]
    errands = json.loads(cli("things", "list", "--tag", "errand", "--json").stdout)
    assert sorted(t["title"] for t in errands["todos"]) == ["Buy boxes", "Call the bank"]
    everything = json.loads(cli("things", "list", "--json").stdout)
    assert everything["count"] == 8  # every view but the logbook, nothing from the Trash
    table = cli("things", "list", "--view", "today")
    assert table.exit_code == 0 and "Call the bank" in table.stdout


def test_an_unknown_project_names_what_exists(things: ThingsFixture) -> None:
    result = cli("things", "list", "--project", "Garden", "--json")
    assert result.exit_code == 3
    error = json.loads(result.stdout)["error"]
    assert (
        error["message"] == "No project found with name: 'Garden'. Available projects: Move house."
    )


def test_get_projects_areas_and_tags(things: ThingsFixture) -> None:
    todo = json.loads(cli("things", "get", "todo-anytime", "--json").stdout)
    assert todo["checklist"][0] == {"title": "Small ones", "done": True}
    shown = cli("things", "get", "todo-anytime")
    assert "[x] Small ones" in shown.stdout and "Move house" in shown.stdout
    assert [p["title"] for p in json.loads(cli("things", "projects", "--json").stdout)] == [
        "Move house"
    ]
    assert "Home" in cli("things", "areas").stdout
    assert json.loads(cli("things", "tags", "--json").stdout)[2]["parent"] == "Errand"
    missing = cli("things", "get", "nope")
    assert missing.exit_code == 3 and "No to-do found with ID: 'nope'." in missing.stderr


def test_an_agent_reads_things_through_the_gateway(things: ThingsFixture) -> None:
    app = bootstrap.build()
    try:
        found = app.gateway.invoke("query_todos", {"view": "upcoming"}, Actor("agent", "claude"))
        assert found.success, found.error
        assert [t["title"] for t in found.output["todos"]] == ["Dentist"]
        assert found.output["todos"][0]["deadline"] == "2040-11-04"
    finally:
        app.close()


def test_doctor_reports_the_things_database(things: ThingsFixture) -> None:
    report = json.loads(cli("doctor", "--json").stdout)
    assert report["things"]["state"] == "ok" and report["things"]["todos"] == 13
    assert report["things"]["writes"] == "unsupported here: no [things] open_command"


def test_without_a_things_database_the_answer_says_how_to_set_it_up(home: Path) -> None:
    result = cli("things", "list", "--json")
    assert result.exit_code != 0
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "unsupported"
    assert "[things] database" in error["message"]


# -- writes ---------------------------------------------------------------------------------------

RECORDER = str(Path(__file__).parents[1] / "things_recorder.py")
AGENT = Actor("agent", "claude")


@pytest.fixture
def writable(things: ThingsFixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Things' part played by the recorder; the URLs it was handed are in the returned log."""
    log = tmp_path / "urls.log"
    command = [sys.executable, RECORDER, str(things.path), str(log), "apply"]
    monkeypatch.setenv("FRUITCTL_THINGS__OPEN_COMMAND", json.dumps(command))
    return log


def title_of(things: ThingsFixture, todo_id: str) -> tuple[str, int]:
    with things.connect() as db:
        row = db.execute("SELECT title, status FROM TMTask WHERE uuid = ?", (todo_id,)).fetchone()
    return row[0], row[1]


@pytest.mark.process
def test_a_person_creates_a_todo_and_sees_it_confirmed(
    things: ThingsFixture, writable: Path
) -> None:
    made = cli(
        "things", "create", "--title", "Buy stamps & tape", "--project", "move house", "--json"
    )
    assert made.exit_code == 0, made.output
    shown = json.loads(made.stdout)
    assert shown["status"] == "confirmed"
    assert shown["todo"]["title"] == "Buy stamps & tape"
    assert shown["todo"]["project"]["title"] == "Move house"
    assert "list-id=proj-move" in writable.read_text()
    text = cli("things", "create", "--title", "Second")
    assert text.exit_code == 0 and "Done in Things: Second" in text.stdout


@pytest.mark.process
def test_an_agents_create_waits_for_approval(things: ThingsFixture, writable: Path) -> None:
    app = bootstrap.build()
    try:
        pending = app.gateway.invoke("create_todo", {"title": "Agent's idea"}, AGENT)
        assert pending.success and pending.metadata.get("pending"), pending.error
        assert not writable.exists()  # nothing sent to Things yet
        refused = app.gateway.invoke("create_todo", {"title": "x", "tags": ["Nope"]}, AGENT)
        assert refused.error_code == "not_found"  # fails when proposed, no proposal
        assert "Available tags: Errand, Home, Calls." in (refused.error or "")
        proposal = pending.output["proposalId"]
    finally:
        app.close()
    approved = cli("proposals", "approve", proposal, "--json")
    assert approved.exit_code == 0, approved.output
    view = json.loads(approved.stdout)
    assert view["status"] == "EXECUTED" and view["result"]["status"] == "confirmed"


@pytest.mark.process
def test_completing_is_undone_by_reopening(things: ThingsFixture, writable: Path) -> None:
    app = bootstrap.build()
    try:
        pending = app.gateway.invoke("complete_todo", {"id": "todo-inbox"}, AGENT)
        proposal = pending.output["proposalId"]
    finally:
        app.close()
    assert cli("proposals", "approve", proposal).exit_code == 0
    assert title_of(things, "todo-inbox") == ("Sort the post", 3)
    undo = json.loads(cli("proposals", "undo", proposal, "--json").stdout)
    assert cli("proposals", "approve", undo["proposalId"]).exit_code == 0
    assert title_of(things, "todo-inbox") == ("Sort the post", 0)
    assert "completed=false" in writable.read_text().splitlines()[-1]


def test_a_todo_changed_in_things_meanwhile_is_a_conflict(
    things: ThingsFixture, writable: Path
) -> None:
    app = bootstrap.build()
    try:
        change = {"id": "todo-today", "title": "Agent's title"}
        proposal = app.gateway.invoke("update_todo", change, AGENT).output["proposalId"]
    finally:
        app.close()
    with things.connect() as db:  # the person renames it in Things
        db.execute("UPDATE TMTask SET title = 'Mine' WHERE uuid = 'todo-today'")
    refused = cli("proposals", "approve", proposal)
    assert refused.exit_code == 4, refused.output
    assert title_of(things, "todo-today")[0] == "Mine"
    assert not writable.exists()


@pytest.mark.process
def test_a_write_things_never_shows_is_not_reported_as_done(
    things: ThingsFixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = [sys.executable, RECORDER, str(things.path), str(tmp_path / "log"), "ignore"]
    monkeypatch.setenv("FRUITCTL_THINGS__OPEN_COMMAND", json.dumps(command))
    monkeypatch.setenv("FRUITCTL_THINGS__CONFIRM_SECONDS", "0.3")
    result = cli("things", "create", "--title", "Lost")
    assert result.exit_code == 1
    assert "Sent 'Lost' to Things; not seen in Things within 0.3 s" in result.stdout
    shown = json.loads(cli("things", "create", "--title", "Lost", "--json").stdout)
    assert shown == {
        "status": "sent",
        "confirmed": False,
        "todo": None,
        "message": "Sent 'Lost' to Things; not seen in Things within 0.3 s. Check Things "
        "before sending it again." + ENABLE_URLS,  # Things never took a write of this CLI
    }


@pytest.mark.process
def test_an_approved_write_things_never_shows_exits_non_zero(
    things: ThingsFixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = [sys.executable, RECORDER, str(things.path), str(tmp_path / "log"), "ignore"]
    monkeypatch.setenv("FRUITCTL_THINGS__OPEN_COMMAND", json.dumps(command))
    monkeypatch.setenv("FRUITCTL_THINGS__CONFIRM_SECONDS", "0.2")
    app = bootstrap.build()
    try:
        proposal = app.gateway.invoke("create_todo", {"title": "Lost"}, AGENT).output["proposalId"]
    finally:
        app.close()
    result = cli("proposals", "approve", proposal)
    assert result.exit_code == 1, result.output
    assert "Sent 'Lost' to Things; not seen in Things within 0.2 s" in result.stderr


def test_without_an_open_command_writes_say_why(things: ThingsFixture) -> None:
    result = cli("things", "create", "--title", "x", "--json")
    assert json.loads(result.stdout)["error"]["code"] == "unsupported"
    assert "open_command" in json.loads(result.stdout)["error"]["message"]


def test_delete_points_at_cancel(things: ThingsFixture) -> None:
    result = cli("things", "delete", "todo-inbox")
    assert result.exit_code != 0
    assert "fruitctl things complete todo-inbox --cancel" in result.stderr


@pytest.mark.process
def test_things_allowlists_bind_agents_not_the_person(
    things: ThingsFixture, writable: Path
) -> None:
    assert cli("config", "set", "allowlist.things.projects", "Move house").exit_code == 0
    assert cli("config", "set", "allowlist.things.tags", "Home").exit_code == 0
    app = bootstrap.build()
    try:
        into = app.gateway.invoke(
            "create_todo", {"title": "Tape", "project": "move house", "tags": ["home"]}, AGENT
        )
        assert into.success and into.metadata.get("pending"), into.error
        inbox = app.gateway.invoke("create_todo", {"title": "x"}, AGENT)
        assert inbox.error_code == "list_not_allowed"
        assert inbox.error == "Writes to the Things Inbox are not permitted."
        tagged = app.gateway.invoke(
            "create_todo", {"title": "x", "project": "Move house", "tags": ["Errand"]}, AGENT
        )
        assert tagged.error == "Things tag 'Errand' is not permitted."
        elsewhere = app.gateway.invoke("complete_todo", {"id": "todo-today"}, AGENT)
        assert elsewhere.error == "Writes to Things area 'Work' are not permitted."
        inside = app.gateway.invoke("complete_todo", {"id": "todo-heading"}, AGENT)
        assert inside.success, inside.error  # under a heading of Move house
    finally:
        app.close()
    own = cli("things", "create", "--title", "Mine, in the Inbox", "--json")
    assert own.exit_code == 0, own.output  # the person's own call is not bound


@pytest.mark.process
def test_the_auth_token_is_nowhere_but_in_the_url(
    things: ThingsFixture, writable: Path, home: Path
) -> None:
    app = bootstrap.build()
    try:
        change = {"id": "todo-inbox", "title": "Sorted"}
        proposal = app.gateway.invoke("update_todo", change, AGENT).output["proposalId"]
    finally:
        app.close()
    approved = cli("proposals", "approve", proposal, "--json")
    assert approved.exit_code == 0, approved.output
    assert AUTH_TOKEN in writable.read_text()  # Things got it ...
    shown = cli("proposals", "show", proposal, "--json").stdout + cli("audit", "--json").stdout
    assert "Sorted" in shown and "todo-inbox" in shown  # the proposal and its audit trail
    assert AUTH_TOKEN not in shown + approved.stdout  # ... and nothing fruitctl keeps has it
    for path in home.rglob("*"):
        if path.is_file():
            assert AUTH_TOKEN.encode() not in path.read_bytes(), path


@pytest.mark.process
def test_an_agents_batch_files_what_can_work_and_adds_it_on_approval(
    things: ThingsFixture, writable: Path
) -> None:
    todos = [
        {"title": "Tape", "when": "today"},
        {"title": "x", "project": "Garden"},
        {"title": "Labels", "project": "Move house", "tags": ["Home"]},
    ]
    app = bootstrap.build()
    try:
        pending = app.gateway.invoke("create_todos", {"todos": todos}, AGENT)
        assert pending.success and pending.metadata.get("pending"), pending.error
        assert pending.output["failed"] == [
            {
                "index": 1,
                "error": "No project found with name: 'Garden'. Available projects: Move house.",
            }
        ]
        proposal = pending.output["proposalId"]
        none = app.gateway.invoke("create_todos", {"todos": [todos[1]]}, AGENT)
        assert none.error_code == "not_found"
    finally:
        app.close()
    approved = json.loads(cli("proposals", "approve", proposal, "--json").stdout)
    assert approved["status"] == "EXECUTED"
    assert approved["result"]["status"] == "confirmed"
    assert [t["title"] for t in approved["result"]["todos"]] == ["Tape", "Labels"]
    assert len(writable.read_text().splitlines()) == 1  # one launch for the batch


@pytest.mark.process
def test_an_agents_project_writes_are_proposals_with_undo(
    things: ThingsFixture, writable: Path
) -> None:
    app = bootstrap.build()
    try:
        args = {"title": "Garden", "area": "home", "todos": ["Dig"]}
        made = app.gateway.invoke("create_project", args, AGENT)
        assert made.success and made.metadata.get("pending"), made.error
        unknown = app.gateway.invoke("create_project", {"title": "x", "area": "Shed"}, AGENT)
        assert "No area found with name: 'Shed'. Available areas: Home, Work." in (
            unknown.error or ""
        )
        change = {"id": "proj-move", "status": "completed"}
        done = app.gateway.invoke("update_project", change, AGENT).output["proposalId"]
    finally:
        app.close()
    created = json.loads(cli("proposals", "approve", made.output["proposalId"], "--json").stdout)
    assert created["result"]["project"]["title"] == "Garden"
    assert cli("proposals", "approve", done).exit_code == 0
    assert title_of(things, "proj-move") == ("Move house", 3)
    undo = json.loads(cli("proposals", "undo", done, "--json").stdout)
    assert cli("proposals", "approve", undo["proposalId"]).exit_code == 0
    assert title_of(things, "proj-move") == ("Move house", 0)


@pytest.mark.process
def test_a_todo_moves_to_another_project_or_area_and_back_on_undo(
    things: ThingsFixture, writable: Path
) -> None:
    moved = cli("things", "update", "todo-today", "--project", "Move house", "--json")
    assert moved.exit_code == 0, moved.output
    assert json.loads(moved.stdout)["todo"]["project"]["title"] == "Move house"
    assert "list-id=proj-move" in writable.read_text().splitlines()[-1]
    app = bootstrap.build()
    try:
        back = app.gateway.invoke("update_todo", {"id": "todo-today", "area": "Work"}, AGENT)
        proposal = back.output["proposalId"]
        assert cli("config", "set", "allowlist.things.projects", "Move house").exit_code == 0
        away = app.gateway.invoke("update_todo", {"id": "todo-today", "area": "Work"}, AGENT)
        assert away.error == "Writes to Things area 'Work' are not permitted."  # the destination
    finally:
        app.close()
    assert cli("config", "unset", "allowlist.things.projects").exit_code == 0
    done = json.loads(cli("proposals", "approve", proposal, "--json").stdout)
    assert done["result"]["todo"]["area"]["title"] == "Work"
    assert done["result"]["todo"]["project"] is None
    undo = json.loads(cli("proposals", "undo", proposal, "--json").stdout)
    assert cli("proposals", "approve", undo["proposalId"]).exit_code == 0
    assert json.loads(cli("things", "get", "todo-today", "--json").stdout)["project"]["id"] == (
        "proj-move"
    )
