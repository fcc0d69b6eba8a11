"""Things' ``when`` vocabulary is spelled once (``domain.things.WhenWord``): every word of it is
taken and written, anything else is refused naming the whole vocabulary, and each description,
help and tool text that lists it lists the same words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from things_home import app_on_things
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.capabilities.things import inputs as things_inputs
from fruitctl.capabilities.things.tools import TOOLS
from fruitctl.cli.app import app as cli_app
from fruitctl.domain.actors import Actor
from fruitctl.domain.things import WHEN, WHEN_WORDS

AGENT = Actor("agent", "tester")
PERSON = Actor("human", "me")
WHEN_MODELS = [
    things_inputs.CreateToDo,
    things_inputs.UpdateToDo,
    things_inputs.CreateProject,
    things_inputs.UpdateProject,
]


@pytest.fixture
def app(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[bootstrap.App]:
    with app_on_things(tmp_path, tmp_path / "urls.log", monkeypatch) as built:
        yield built


def test_the_vocabulary_is_things_own() -> None:
    assert WHEN_WORDS == ("today", "tomorrow", "evening", "anytime", "someday")


@pytest.mark.parametrize("word", WHEN_WORDS)
@pytest.mark.process
def test_each_word_is_written_and_confirmed(app: bootstrap.App, word: str) -> None:
    outcome = app.gateway.invoke("create_todo", {"title": f"On {word}", "when": word}, PERSON)
    assert outcome.success and outcome.output["status"] == "confirmed", outcome.output


def test_a_date_is_taken_and_anything_else_refused_naming_the_vocabulary(
    app: bootstrap.App,
) -> None:
    dated = app.gateway.invoke("create_todo", {"title": "Dated", "when": "2031-05-04"}, AGENT)
    assert dated.success, dated.error
    refused = app.gateway.invoke("create_todo", {"title": "Soon", "when": "soon"}, AGENT)
    assert not refused.success and refused.error_code == "invalid_params"
    assert WHEN in (refused.error or "")


@pytest.mark.parametrize("model", WHEN_MODELS, ids=lambda m: m.__name__)
def test_every_when_field_describes_the_vocabulary(model: type[things_inputs.Input]) -> None:
    description = model.model_fields["when"].description or ""
    assert WHEN in description


@pytest.mark.parametrize("command", ["create", "update"])
def test_the_cli_help_gives_the_vocabulary(command: str) -> None:
    shown = CliRunner().invoke(cli_app, ["things", command, "--help"], terminal_width=400)
    assert shown.exit_code == 0, shown.output
    assert WHEN in " ".join(re.sub(r"[│\s]+", " ", shown.output).split())


@pytest.mark.parametrize("name", ["create_todo", "update_todo", "create_project"])
def test_the_tool_descriptions_list_the_same_words(name: str) -> None:
    """Tool descriptions are docstrings, so they repeat the words: held to the vocabulary."""
    (tool,) = [t for t in TOOLS if t.name == name]
    said = " ".join(tool.definition.description.split())
    assert f"{', '.join(WHEN_WORDS)} or YYYY-MM-DD" in said
