"""Things asks once, the first time a program sends it a URL, whether to enable its URL scheme,
and acts on nothing until the person answers (Cultured Code, "Things URL Scheme"). So until
Things has taken one of fruitctl's writes, a write not seen in Things says so and what to
answer; once one has landed, the scheme is on and the answer no longer says it. Through the
gateway, with the recorder playing a Things that first does nothing, then acts."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from things_fixture import build

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor

pytestmark = pytest.mark.slow  # its one test takes two seconds or more

RECORDER = str(Path(__file__).parents[1] / "things_recorder.py")
PERSON = Actor("human", "me")
HINT = "Things may be showing a question whether to enable its URLs: answer Enable"


@pytest.fixture
def mode(tmp_path: Path) -> Path:
    chosen = tmp_path / "mode"
    chosen.write_text("ignore")
    return chosen


@pytest.fixture
def app(
    home: Path, tmp_path: Path, mode: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[bootstrap.App]:
    things = build(tmp_path / "container")
    command = [sys.executable, RECORDER, str(things.path), str(tmp_path / "urls.log"), f"@{mode}"]
    monkeypatch.setenv("FRUITCTL_THINGS__DATABASE", str(things.path))
    monkeypatch.setenv("FRUITCTL_THINGS__OPEN_COMMAND", json.dumps(command))
    monkeypatch.setenv("FRUITCTL_THINGS__CONFIRM_SECONDS", "0.5")
    built = bootstrap.build()
    yield built
    built.close()


def message(app: bootstrap.App, tool: str, args: dict[str, object]) -> str:
    outcome = app.gateway.invoke(tool, args, PERSON)
    assert outcome.success, outcome.error
    assert outcome.output["status"] == "sent"
    return str(outcome.output["message"])


def test_until_things_takes_a_write_an_unseen_one_says_to_enable_urls(
    app: bootstrap.App, mode: Path
) -> None:
    assert HINT in message(app, "create_todo", {"title": "Stamps"})
    assert HINT in message(app, "complete_todo", {"id": "todo-inbox"})
    assert HINT in message(app, "create_todos", {"todos": [{"title": "a"}, {"title": "b"}]})
    assert HINT in message(app, "update_project", {"id": "proj-move", "title": "Move flat"})
    mode.write_text("apply")  # the person answered Enable
    outcome = app.gateway.invoke("create_todo", {"title": "Envelopes"}, PERSON)
    assert outcome.output["status"] == "confirmed"
    mode.write_text("ignore")
    unseen = message(app, "create_todo", {"title": "Tape"})
    assert "Check Things before sending it again" in unseen and HINT not in unseen
