"""``fruitctl things create/update/complete --json`` answer in one shape whatever became of the
write: confirmed in Things, or sent and not yet seen there - the same keys either way."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from things_fixture import build
from typer.testing import CliRunner

from fruitctl.cli.app import app

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

runner = CliRunner()
RECORDER = str(Path(__file__).parents[1] / "things_recorder.py")
KEYS = {"status", "confirmed", "todo", "message"}


@pytest.fixture
def mode(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Things database, and the recorder playing Things' part as the returned file says:
    ``apply`` each URL, or ``ignore`` them (a Things that never acts)."""
    fixture = build(tmp_path / "container")
    monkeypatch.setenv("FRUITCTL_THINGS__DATABASE", str(fixture.path))
    chosen = tmp_path / "mode"
    chosen.write_text("apply")
    log = str(tmp_path / "urls.log")
    command = [sys.executable, RECORDER, str(fixture.path), log, f"@{chosen}"]
    monkeypatch.setenv("FRUITCTL_THINGS__OPEN_COMMAND", json.dumps(command))
    return chosen


def things_json(*args: str, code: int = 0) -> dict[str, Any]:
    result = runner.invoke(app, ["things", *args, "--json"])
    assert result.exit_code == code, result.output
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


def test_confirmed_and_sent_have_the_same_keys(mode: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    confirmed = things_json("create", "--title", "Buy stamps")
    assert confirmed.keys() == KEYS and confirmed["confirmed"] is True
    assert confirmed["todo"]["title"] == "Buy stamps" and confirmed["message"] is None
    updated = things_json("update", confirmed["todo"]["id"], "--title", "Buy more stamps")
    assert updated.keys() == KEYS and updated["todo"]["title"] == "Buy more stamps"
    mode.write_text("ignore")
    monkeypatch.setenv("FRUITCTL_THINGS__CONFIRM_SECONDS", "0")  # no wait for what never comes
    sent = things_json("complete", confirmed["todo"]["id"])
    assert sent.keys() == KEYS and (sent["status"], sent["confirmed"]) == ("sent", False)
    assert sent["todo"] is None and "Check Things" in sent["message"]
