"""Where a call runs and until when is decided in one place (``gateway.placement``), and the
shorter of the tool's timeout and a door's cap wins - also over what a tool waits on: a Things
write watching for its change to show stops in time to answer within the call's deadline."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from things_fixture import build

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.gateway.placement import place
from fruitctl.tools.model import Tool

RECORDER = str(Path(__file__).parent / "things_recorder.py")
PERSON = Actor("human", "me")


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def _tool(app: bootstrap.App, name: str) -> Tool:
    found = app.gateway.registry.get(name)
    assert found is not None
    return found


def test_each_kind_of_call_has_its_place(app: bootstrap.App) -> None:
    read, write = _tool(app, "query_reminders"), _tool(app, "create_reminders")
    sandboxed = _tool(app, "read_system_logs")
    assert sandboxed.child is not None, "a sandboxed read to place"
    assert [place(read, entry).where for entry in ("loop", "thread", "caller")] == [
        "loop",
        "here",
        "worker",
    ]
    for entry in ("loop", "thread", "caller"):
        assert place(write, entry).where == "worker"  # through the write gate, never abandoned
        assert place(sandboxed, entry).where == "child"  # killed at its deadline
    assert [p.abandoned for p in (place(read, "thread"), place(write, "thread"))] == [True, False]


def test_the_shorter_of_the_tools_timeout_and_the_doors_cap_wins(app: bootstrap.App) -> None:
    write = _tool(app, "create_reminders")
    timeout = write.definition.timeout_seconds
    assert place(write, "thread").seconds == timeout
    assert place(write, "thread", limit=timeout / 2).seconds == timeout / 2
    assert place(write, "thread", limit=timeout * 2).seconds == timeout
    governed = replace(write, definition=write.definition.model_copy(update={"timeout_seconds": 4}))
    assert place(governed, "caller", limit=10).seconds == 4


@pytest.fixture
def things_app(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[bootstrap.App]:
    things = build(tmp_path / "container")
    command = [sys.executable, RECORDER, str(things.path), str(tmp_path / "urls.log"), "ignore"]
    monkeypatch.setenv("FRUITCTL_THINGS__DATABASE", str(things.path))
    monkeypatch.setenv("FRUITCTL_THINGS__OPEN_COMMAND", json.dumps(command))
    monkeypatch.setenv("FRUITCTL_THINGS__CONFIRM_SECONDS", "60")  # longer than any deadline
    built = bootstrap.build()
    yield built
    built.close()


@pytest.mark.slow  # it watches Things for a couple of seconds
def test_a_things_write_answers_sent_within_its_deadline_not_outcome_unknown(
    things_app: bootstrap.App, tmp_path: Path
) -> None:
    limit = 3.0
    outcome = things_app.gateway.invoke("create_todo", {"title": "Stamps"}, PERSON, limit=limit)
    assert outcome.success, outcome.error
    assert outcome.output["status"] == "sent" and outcome.output["confirmed"] is False
    waited = re.search(r"not seen in Things within ([\d.]+) s", outcome.output["message"])
    assert waited is not None and float(waited.group(1)) < limit
    assert (tmp_path / "urls.log").exists()  # it was sent, once
    shown = things_app.approvals.recent(limit=1)[0]
    assert shown["status"] == "EXECUTED"
