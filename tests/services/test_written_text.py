"""What an agent writes into a title, notes or a name cannot hold characters that hide or reorder
what it says: through the gateway (the one entry every door uses), for reminders, events and
Things, each refusal names the field and the character - and nothing is proposed."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from things_fixture import build

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor

RECORDER = str(Path(__file__).parents[1] / "things_recorder.py")
AGENT = Actor("agent", "tester")


@pytest.fixture
def app(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[bootstrap.App]:
    things = build(tmp_path / "container")
    command = [sys.executable, RECORDER, str(things.path), str(tmp_path / "urls.log"), "apply"]
    monkeypatch.setenv("FRUITCTL_THINGS__DATABASE", str(things.path))
    monkeypatch.setenv("FRUITCTL_THINGS__OPEN_COMMAND", json.dumps(command))
    built = bootstrap.build()
    yield built
    built.close()


def refused(app: bootstrap.App, tool: str, args: dict[str, Any]) -> str:
    outcome = app.gateway.invoke(tool, args, AGENT)
    assert not outcome.success, outcome.output
    assert outcome.error_code == "invalid_params"
    assert app.approvals.recent("pending", 10) == []
    return outcome.error or ""


EVENT = {"calendar": "Home", "startAt": "2026-03-02T09:00:00+01:00"}
CASES = [
    ("create_reminders", {"reminders": [{"title": "a\u2028b"}]}, "'title'", "U+2028"),
    ("create_reminders", {"reminders": [{"title": "x", "notes": "\u202eok"}]}, "'notes'", "U+202E"),
    ("create_reminders", {"reminders": [{"title": "x", "notes": "a\x85b"}]}, "'notes'", "U+0085"),
    ("create_reminders", {"reminders": [{"title": "x", "tags": ["a\u2069"]}]}, "'tags'", "U+2069"),
    ("create_event", {**EVENT, "title": "Lunch\u2029"}, "'title'", "U+2029"),
    ("create_event", {**EVENT, "title": "x", "location": "\u202dHall"}, "'location'", "U+202D"),
    ("create_event", {**EVENT, "title": "x", "notes": "\x9bcode"}, "'notes'", "U+009B"),
    ("create_todo", {"title": "Stamps\u2028"}, "'title'", "U+2028"),
    ("create_todo", {"title": "x", "notes": "\u2066a"}, "'notes'", "U+2066"),
    ("create_todo", {"title": "x", "checklist": ["ok", "\x85"]}, "'checklist[1]'", "U+0085"),
    ("create_todos", {"todos": [{"title": "\u202eyaP"}]}, "'todos[0].title'", "U+202E"),
    ("create_project", {"title": "x", "todos": ["a\u2029"]}, "'todos[0]'", "U+2029"),
]


@pytest.mark.parametrize(("tool", "args", "field", "char"), CASES)
def test_hidden_or_reordering_characters_are_refused(
    app: bootstrap.App, tool: str, args: dict[str, Any], field: str, char: str
) -> None:
    if tool == "create_event":
        app.calendar_backend.create_calendar("Home")
    message = refused(app, tool, args)
    assert message.startswith(field), message
    assert char in message


def test_half_a_character_is_refused(app: bootstrap.App) -> None:
    message = refused(app, "create_reminders", {"reminders": [{"title": "x\ud800"}]})
    assert "U+D800, half of a character" in message


@pytest.mark.process
def test_what_real_text_needs_is_kept(app: bootstrap.App) -> None:
    # Emoji sequences, scripts that join, marks that place punctuation, and a note's lines.
    title = "\U0001f468\u200d\U0001f469\u200d\U0001f467 \u2764\ufe0f \u0645\u06cc\u200c\u0631\u200f"
    notes = "line one\nline two\r\n\ttabbed"
    done = app.call("create_reminders", {"reminders": [{"title": title, "notes": notes}]})
    assert done[0]["title"] == title and done[0]["notes"] == notes
    todo = app.call("create_todo", {"title": title, "notes": notes})
    assert todo["todo"]["title"] == title
