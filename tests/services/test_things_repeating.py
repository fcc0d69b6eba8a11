"""Through the gateway, as an agent or the person: an update or a completion addressed to a
repeating to-do's hidden template is refused (``invalid_params``, saying why and what to do),
nothing is proposed and nothing reaches Things; and ``limit`` cuts a view in the app's order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from things_fixture import add_repeating
from things_home import app_on_things

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor

AGENT = Actor("agent", "tester")
PERSON = Actor("human", "me")


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "urls.log"


@pytest.fixture
def app(
    home: Path, tmp_path: Path, log: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[bootstrap.App]:
    with app_on_things(tmp_path, log, monkeypatch, add_repeating) as built:
        yield built


WRITES = [
    ("update_todo", {"id": "todo-repeat-template", "title": "Water the roses"}),
    ("complete_todo", {"id": "todo-repeat-template"}),
]


@pytest.mark.parametrize("actor", [AGENT, PERSON], ids=["agent", "person"])
@pytest.mark.parametrize(("tool", "args"), WRITES, ids=[t for t, _ in WRITES])
def test_a_write_to_a_template_is_refused(
    app: bootstrap.App, log: Path, actor: Actor, tool: str, args: dict[str, str]
) -> None:
    outcome = app.gateway.invoke(tool, args, actor)
    assert not outcome.success and outcome.error_code == "invalid_params", outcome.output
    assert "template of a repeating to-do" in (outcome.error or "")
    assert app.approvals.recent("pending", 10) == []
    assert not log.exists()  # nothing was sent to Things


@pytest.mark.process
def test_its_instance_can_be_completed(app: bootstrap.App, log: Path) -> None:
    outcome = app.gateway.invoke("complete_todo", {"id": "todo-repeat"}, PERSON)
    assert outcome.error_code is None, outcome.error
    assert "todo-repeat" in log.read_text()


def test_limit_cuts_todays_order(app: bootstrap.App) -> None:
    outcome = app.gateway.invoke("query_todos", {"view": "today", "limit": 2}, AGENT)
    assert outcome.success, outcome.error
    answer = outcome.output
    assert [t["id"] for t in answer["todos"]] == ["todo-overdue", "todo-today"]
    assert (answer["count"], answer["total"]) == (2, 4)  # and the repeating instance, last
