"""Things keeps at most 10,000 characters of notes, 100 checklist items and 4,000 characters of
any other string (Cultured Code, "Things URL Scheme"); past them it cuts or drops the value
silently. So a longer value is refused at the door - ``invalid_params`` naming the field, nothing
proposed, nothing sent - and a value at the limit goes through whole."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from things_home import app_on_things

from fruitctl import bootstrap
from fruitctl.capabilities.things.inputs import CHECKLIST_MAX, NOTES_MAX, STRING_MAX
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
    with app_on_things(tmp_path, log, monkeypatch) as built:
        yield built


def test_the_limits_are_things_own() -> None:
    assert (NOTES_MAX, CHECKLIST_MAX, STRING_MAX) == (10_000, 100, 4_000)


TODO = {"title": "Pack"}
OVER = [
    ("create_todo", {**TODO, "notes": "n" * (NOTES_MAX + 1)}, "notes"),
    ("create_todo", {**TODO, "checklist": ["c"] * (CHECKLIST_MAX + 1)}, "checklist"),
    ("create_todo", {**TODO, "checklist": ["ok", "c" * (STRING_MAX + 1)]}, "checklist[1]"),
    ("create_todo", {**TODO, "tags": ["t" * (STRING_MAX + 1)]}, "tags[0]"),
    ("create_todo", {**TODO, "heading": "h" * (STRING_MAX + 1)}, "heading"),
    ("create_todo", {**TODO, "project": "p" * (STRING_MAX + 1)}, "project"),
    ("create_todo", {"title": "t" * (STRING_MAX + 1)}, "title"),
    ("create_todos", {"todos": [TODO, {**TODO, "notes": "n" * (NOTES_MAX + 1)}]}, "todos[1].notes"),
    ("update_todo", {"id": "x", "notes": "n" * (NOTES_MAX + 1)}, "notes"),
    ("update_todo", {"id": "x", "tags": ["t" * (STRING_MAX + 1)]}, "tags[0]"),
    ("create_project", {"title": "P", "notes": "n" * (NOTES_MAX + 1)}, "notes"),
    ("create_project", {"title": "P", "todos": ["t" * (STRING_MAX + 1)]}, "todos[0]"),
    ("create_project", {"title": "P", "todos": ["t"] * (CHECKLIST_MAX + 1)}, "todos"),
    ("update_project", {"id": "x", "notes": "n" * (NOTES_MAX + 1)}, "notes"),
]


@pytest.mark.parametrize(("tool", "args", "field"), OVER, ids=[f"{t}:{f}" for t, _, f in OVER])
def test_past_a_limit_is_refused_naming_the_field(
    app: bootstrap.App, log: Path, tool: str, args: dict[str, Any], field: str
) -> None:
    outcome = app.gateway.invoke(tool, args, AGENT)
    assert not outcome.success and outcome.error_code == "invalid_params", outcome.output
    assert f"'{field}'" in (outcome.error or "")
    assert "at most" in (outcome.error or "")
    assert app.approvals.recent("pending", 10) == []
    assert not log.exists()  # nothing was sent to Things


@pytest.mark.process
def test_at_the_limits_a_todo_is_written_whole(app: bootstrap.App, log: Path) -> None:
    args = {
        "title": "t" * STRING_MAX,
        "notes": "n" * NOTES_MAX,
        "checklist": [f"item {i:03}" for i in range(CHECKLIST_MAX - 1)] + ["c" * STRING_MAX],
    }
    outcome = app.gateway.invoke("create_todo", args, PERSON)
    assert outcome.success and outcome.output["status"] == "confirmed", outcome.error
    todo = outcome.output["todo"]
    assert (todo["title"], todo["notes"]) == (args["title"], args["notes"])
    assert [item["title"] for item in todo["checklist"]] == args["checklist"]


def test_a_todo_too_long_for_one_url_is_refused_naming_what_to_shorten(
    app: bootstrap.App, log: Path
) -> None:
    # Each value within Things' limits, together past what one URL may carry (batches.URL_MAX).
    args = {"title": "Huge", "checklist": ["c" * STRING_MAX] * CHECKLIST_MAX}
    outcome = app.gateway.invoke("create_todo", args, PERSON)
    assert not outcome.success and outcome.error_code == "invalid_params"
    assert "too long to hand to Things in one URL" in (outcome.error or "")
    assert "shorten its notes or checklist" in (outcome.error or "")
    assert not log.exists()


def test_an_agents_todo_too_long_for_one_url_is_refused_before_it_is_proposed(
    app: bootstrap.App, log: Path
) -> None:
    """Not filed for a person to approve only to fail when approved: refused as it is asked."""
    args = {"title": "Huge", "checklist": ["c" * STRING_MAX] * CHECKLIST_MAX}
    outcome = app.gateway.invoke("create_todo", args, AGENT)
    assert not outcome.success and outcome.error_code == "invalid_params", outcome.output
    assert "too long to hand to Things in one URL" in (outcome.error or "")
    assert app.approvals.recent(limit=10) == []
    assert not log.exists()
