"""``fruitctl mcp`` as a third-party client sees it: the MCP Inspector CLI (Node, the reference
client of the MCP project) spawns the server over stdio, calls a method and prints the result as
JSON. The Inspector is pinned in tests/inspector/package-lock.json; ``make test`` installs it
(``npm ci --prefix tests/inspector``). Without node or the installed package this test fails where
it is required (Linux as root with apt-get, FRUITCTL_TEST_STRICT=1 as on CI) and skips elsewhere,
naming what is missing (tests/needs.py).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from needs import missing

from fruitctl.backends.local import LocalReminders
from fruitctl.capabilities import all_tools
from fruitctl.ports import NewReminder
from fruitctl.store import open_database

pytestmark = pytest.mark.slow  # most of its tests take two seconds or more

INSPECTOR_DIR = Path(__file__).parents[1] / "inspector"
INSPECTOR_BIN = INSPECTOR_DIR / "node_modules" / ".bin" / "mcp-inspector"
TIMEOUT_S = 90  # one run starts node, the Inspector and a Python server: ~2.5 s when healthy
MIN_NODE = 20
HINT = "Hint: Use '==' for equality, not '='."


def _node() -> str:
    """The node executable, or a skip (a failure where required) naming what is missing."""
    node = shutil.which("node")
    if node is None:
        missing(
            f"node not found on PATH: the MCP Inspector CLI needs Node >= {MIN_NODE} "
            "(macOS: brew install node; Debian: apt-get install nodejs npm)"
        )
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
    major = int(version.stdout.strip().lstrip("v").split(".")[0] or 0)
    if major < MIN_NODE:
        missing(f"node {version.stdout.strip()} found: the MCP Inspector needs >= {MIN_NODE}")
    if not INSPECTOR_BIN.exists():
        npm = "npm" if shutil.which("npm") else "npm (not found on PATH)"
        missing(
            f"MCP Inspector not installed ({INSPECTOR_BIN} missing): "
            f"run `{npm} ci --prefix tests/inspector` or `make test`"
        )
    return node


@pytest.fixture(scope="module")
def node() -> str:
    return _node()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A FRUITCTL_HOME with three open reminders in the default list and one in 'Work'."""
    home = tmp_path_factory.mktemp("inspector-home")
    engine = open_database(home / "local.db", "local")
    try:
        backend = LocalReminders(engine)
        default = backend.lists()[0].id
        work = backend.create_list("Work").id
        backend.create(
            [
                NewReminder(list_id=default, title="call mom", priority=1),
                NewReminder(list_id=default, title="buy milk", tags=("next",)),
                NewReminder(list_id=default, title="pay rent", priority=5),
                NewReminder(list_id=work, title="send slides", priority=9),
            ]
        )
    finally:
        engine.dispose()
    yield home


def inspect(node: str, home: Path, *method: str) -> dict[str, Any]:
    """Run the Inspector CLI against ``fruitctl mcp`` and return the JSON it printed."""
    command = [
        *(node, str(INSPECTOR_BIN), "--cli", "-e", f"FRUITCTL_HOME={home}"),
        *(sys.executable, "-m", "fruitctl", "mcp"),
        *method,
    ]
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # on a timeout, the Inspector and the server die together
    ) as proc:
        try:
            out, err = proc.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    assert proc.returncode == 0, f"inspector failed ({proc.returncode}): {err}"
    parsed: dict[str, Any] = json.loads(out)
    return parsed


def call(node: str, home: Path, tool: str, *pairs: str) -> dict[str, Any]:
    args = [arg for pair in pairs for arg in ("--tool-arg", pair)]
    return inspect(node, home, "--method", "tools/call", "--tool-name", tool, *args)


def test_tools_list_shows_every_tool_with_schema_and_hints(node: str, store: Path) -> None:
    listed = inspect(node, store, "--method", "tools/list")["tools"]
    tools = {tool["name"]: tool for tool in listed}
    assert set(tools) == {tool.definition.name for tool in all_tools()}
    query = tools["query_reminders"]
    assert query["title"] == "Query reminders"
    assert query["inputSchema"]["properties"]["limit"]["maximum"] == 200
    assert query["annotations"]["readOnlyHint"] is True
    assert tools["delete_reminders"]["annotations"]["destructiveHint"] is True


def test_get_lists_answers_with_the_default_list_first(node: str, store: Path) -> None:
    result = call(node, store, "get_lists")
    assert result["isError"] is False
    lists = result["structuredContent"]["result"]
    assert [(x["name"], x["isDefault"], x["count"]) for x in lists] == [
        ("Reminders", True, 3),
        ("Work", False, 1),
    ]
    assert json.loads(result["content"][0]["text"]) == lists


def test_query_reminders_with_typed_arguments(node: str, store: Path) -> None:
    # The Inspector types each key=value by the tool's input schema: an object, an integer.
    result = call(
        node, store, "query_reminders", 'list={"all": true}', "sortBy=priority", "limit=2"
    )
    assert result["isError"] is False
    found = result["structuredContent"]["result"]
    assert [(r["title"], r["priority"], r["listName"]) for r in found] == [
        ("call mom", 1, "Reminders"),
        ("pay rent", 5, "Reminders"),
    ]


def test_a_bad_query_is_a_tool_error_with_the_hint(node: str, store: Path) -> None:
    result = call(node, store, "query_reminders", "query=[?priority = 1]")
    assert result["isError"] is True
    assert "structuredContent" not in result
    text = result["content"][0]["text"]
    assert text.startswith("Invalid JMESPath expression")
    assert HINT in text
