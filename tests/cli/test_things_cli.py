"""``fruitctl things …`` and the Things tools through the gateway, on a real Things-schema
database named in the configuration; and an honest answer where there is none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from things_fixture import ThingsFixture, build
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app as cli_app
from fruitctl.policy.decision import Actor

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
    assert report["things"]["writes"].startswith("not built")


def test_without_a_things_database_the_answer_says_how_to_set_it_up(home: Path) -> None:
    result = cli("things", "list", "--json")
    assert result.exit_code != 0
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "unsupported"
    assert "[things] database" in error["message"]
