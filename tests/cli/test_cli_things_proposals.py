"""A Things move as the person reads it in ``fruitctl proposals show``: the project and the
area by their titles, never Things' ids - in the move and in its undo (the real place it goes
back to)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_things_cli import AGENT, cli, things, writable  # noqa: F401 - fixtures
from things_fixture import ThingsFixture

from fruitctl import bootstrap

pytestmark = pytest.mark.process  # Things' writes go through the launcher, a process


def test_a_move_and_its_undo_name_the_project_and_area(
    things: ThingsFixture,  # noqa: F811
    writable: Path,  # noqa: F811
) -> None:
    app = bootstrap.build()
    try:
        filed = app.gateway.invoke(
            "update_todo", {"id": "todo-today", "project": "proj-move"}, AGENT
        )
        assert filed.success, filed.error
        proposal = str(filed.output["proposalId"])
    finally:
        app.close()
    shown = cli("proposals", "show", proposal)
    assert shown.exit_code == 0, shown.output
    assert "Move house" in shown.stdout and "proj-move" not in shown.stdout
    assert cli("proposals", "approve", proposal).exit_code == 0
    undo = json.loads(cli("proposals", "undo", proposal, "--json").stdout)
    back = json.loads(cli("proposals", "show", undo["proposalId"], "--json").stdout)
    assert {"field": "area", "after": "Work"}.items() <= back["diff"][-1].items()
    text = cli("proposals", "show", undo["proposalId"]).stdout
    assert "Work" in text and "area-work" not in text
