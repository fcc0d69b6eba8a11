"""Seed 004's AAI envelopes on the daemon's socket and in-process, and the generated aai.json,
held to a JSON Schema of the seed's descriptor (every tool's parameters and returns valid JSON
Schemas themselves)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from socket_daemon import Daemon, Raw, demo_daemon
from typer.testing import CliRunner

from fruitctl import __version__
from fruitctl.capabilities import all_tools
from fruitctl.cli.app import app

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

runner = CliRunner()
SEMVER = r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$"
DESCRIPTOR = {  # seed 004, "Create aai.json"
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["schema_version", "version", "platform", "app", "execution", "tools"],
    "properties": {
        "schema_version": {"const": "1.0"},
        "version": {"type": "string", "pattern": SEMVER},
        "platform": {"enum": ["macos", "linux"]},
        "app": {
            "type": "object",
            "required": ["id", "name", "description"],
            "properties": {
                k: {"type": "string", "minLength": 1} for k in ("id", "name", "description")
            },
        },
        "execution": {
            "type": "object",
            "required": ["type"],
            "properties": {"type": {"const": "ipc"}},
        },
        "tools": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "description", "parameters", "returns"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
                    "description": {"type": "string", "minLength": 1},
                    "parameters": {"type": "object", "properties": {"type": {"const": "object"}}},
                    "returns": {"type": "object"},
                },
            },
        },
    },
}


TITLED = {"reminders": [{"title": "by a person"}]}


def envelope(tool: str, params: Any = None, request_id: str = "req_1") -> dict[str, Any]:
    return {"version": "1.0", "tool": tool, "params": params or {}, "request_id": request_id}


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with demo_daemon() as served:
        yield served


@pytest.fixture
def rpc(daemon: Daemon) -> Iterator[Raw]:
    with Raw(daemon.socket) as client:
        yield client


# -- envelopes on the socket -----------------------------------------------------------------------


def test_success_envelope(rpc: Raw) -> None:
    answer = rpc.call(envelope("open_reminders", {"limit": 3}, "req_123"))
    assert set(answer) == {"version", "request_id", "status", "result"}
    assert answer["version"] == "1.0" and answer["request_id"] == "req_123"
    assert answer["status"] == "success" and answer["result"]["count"] == 3


@pytest.mark.parametrize(
    ("message", "code"),
    [
        (envelope("no_such_tool"), "METHOD_NOT_FOUND"),
        (envelope("open_reminders", {"limit": 0}), "INVALID_PARAMS"),
        ({**envelope("get_lists"), "params": [1]}, "INVALID_REQUEST"),
        ({"version": "1.0", "tool": "get_lists", "params": {}}, "INVALID_REQUEST"),
        ({**envelope("get_lists"), "version": "2.0"}, "INVALID_REQUEST"),
        ({**envelope("get_lists"), "tool": 5}, "INVALID_REQUEST"),
    ],
)
def test_error_envelopes(rpc: Raw, message: dict[str, Any], code: str) -> None:
    answer = rpc.call(message)
    assert answer["status"] == "error" and answer["version"] == "1.0"
    assert answer["error"]["code"] == code and answer["error"]["message"]
    assert isinstance(answer["error"]["retryable"], bool)
    if isinstance(message.get("request_id"), str):
        assert answer["request_id"] == message["request_id"]


def test_malformed_json_is_invalid_request(rpc: Raw) -> None:
    rpc.send(b'{"version": "1.0", "tool": "get_lists", "params": {\n')
    answer = rpc.answer()
    assert answer["status"] == "error" and answer["error"]["code"] == "INVALID_REQUEST"
    assert answer["request_id"] is None
    rpc.send(b"not json at all\n")  # this connection speaks AAI now
    assert rpc.answer()["error"]["code"] == "INVALID_REQUEST"
    assert rpc.call(envelope("get_lists"))["status"] == "success"


def test_an_envelope_without_a_tool_is_answered_in_aai(rpc: Raw) -> None:
    answer = rpc.call({"version": "1.0", "request_id": "r7", "params": {}})  # fresh connection
    assert answer["status"] == "error" and answer["error"]["code"] == "INVALID_REQUEST"
    assert answer["request_id"] == "r7" and "jsonrpc" not in answer


def test_a_broken_envelope_after_json_rpc_is_still_answered_in_aai(rpc: Raw) -> None:
    assert rpc.request("system.ping")["result"]["ok"] is True  # this connection spoke JSON-RPC
    rpc.send(b'{"version": "1.0", "request_id": "r8", "tool": "get_lists", \n')
    answer = rpc.answer()
    assert answer["status"] == "error" and answer["error"]["code"] == "INVALID_REQUEST"


def test_aai_and_json_rpc_share_a_connection(rpc: Raw) -> None:
    assert rpc.call(envelope("get_lists"))["status"] == "success"
    assert rpc.request("system.ping")["result"]["ok"] is True
    rpc.send(b"garbage\n")  # back to JSON-RPC
    assert rpc.answer()["error"]["code"] == "parse_error"


def test_a_write_by_envelope_waits_for_approval(rpc: Raw) -> None:
    answer = rpc.call(envelope("create_reminders", {"reminders": [{"title": "aai"}]}))
    assert answer["status"] == "success" and answer["result"]["status"] == "pending"


def test_aai_call_goes_to_the_daemon(daemon: Daemon, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRUITCTL_HOME", str(daemon.home))
    done = runner.invoke(app, ["aai", "call", json.dumps(envelope("create_reminders", TITLED))])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["result"][0]["title"] == "by a person"  # the CLI is a person
    with Raw(daemon.socket) as rpc:  # and the daemon is the one that wrote it
        titles = [r["title"] for r in rpc.result("reminders.query", {"list": {"all": True}})]
    assert "by a person" in titles
    failed = runner.invoke(app, ["aai", "call", json.dumps(envelope("nope"))])
    assert failed.exit_code == 2
    assert json.loads(failed.stdout)["error"]["code"] == "METHOD_NOT_FOUND"
    # The CLI identifies over JSON-RPC first; a broken envelope is still answered in AAI.
    broken = runner.invoke(app, ["aai", "call", '{"version": "1.0", "tool": "get_lists",'])
    assert broken.exit_code == 2, broken.output
    assert json.loads(broken.stdout)["error"]["code"] == "INVALID_REQUEST"
    untooled = runner.invoke(app, ["aai", "call", '{"version": "1.0", "request_id": "r1"}'])
    assert json.loads(untooled.stdout)["error"]["code"] == "INVALID_REQUEST"


# -- in-process, and aai.json ----------------------------------------------------------------------


def test_aai_call_in_process() -> None:
    result = runner.invoke(app, ["aai", "call", json.dumps(envelope("get_lists", request_id="r9"))])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["request_id"] == "r9" and answer["result"][0]["name"] == "Reminders"
    bad = runner.invoke(app, ["aai", "call", "{oops"])
    assert bad.exit_code == 2
    assert json.loads(bad.stdout)["error"]["code"] == "INVALID_REQUEST"


def test_install_writes_a_valid_descriptor(home: Path) -> None:
    result = runner.invoke(app, ["aai", "install", "--app-id", "com.example.fruit", "--json"])
    assert result.exit_code == 0, result.output
    path = home / "aai" / "com.example.fruit" / "aai.json"
    assert json.loads(result.stdout)["path"] == str(path)
    descriptor = json.loads(path.read_text())
    Draft202012Validator.check_schema(DESCRIPTOR)
    Draft202012Validator(DESCRIPTOR).validate(descriptor)
    assert descriptor["version"] == __version__ and descriptor["app"]["id"] == "com.example.fruit"
    assert descriptor["execution"]["socket"] == str(home / "run" / "fruitctl.sock")
    tools = {t["name"]: t for t in descriptor["tools"]}
    assert list(tools) == [t.name for t in all_tools()]
    for tool in descriptor["tools"]:
        Draft202012Validator.check_schema(tool["parameters"])
        Draft202012Validator.check_schema(tool["returns"])
    assert "anyOf" in tools["create_reminders"]["returns"]  # a write may come back pending
    assert [p.name for p in path.parent.iterdir()] == ["aai.json"]  # no temporary left


def test_parameters_schemas_accept_and_refuse_like_the_tools(home: Path) -> None:
    runner.invoke(app, ["aai", "install"])
    descriptor = json.loads((home / "aai" / "dev.fruitctl.gateway" / "aai.json").read_text())
    schema = next(t for t in descriptor["tools"] if t["name"] == "open_reminders")["parameters"]
    validator = Draft202012Validator(schema)
    assert validator.is_valid({"limit": 200, "includeNoDueDate": False})
    assert not validator.is_valid({"limit": 1001})
    assert not validator.is_valid({"colour": "red"})


def test_install_replaces_atomically_and_refuses_bad_ids(home: Path) -> None:
    for _ in range(2):
        assert runner.invoke(app, ["aai", "install"]).exit_code == 0
    for bad in ("../escape", "a/b", ".hidden", "x" * 200, ""):
        result = runner.invoke(app, ["aai", "install", "--app-id", bad])
        assert result.exit_code == 2, bad
    assert sorted(p.name for p in (home / "aai").iterdir()) == ["dev.fruitctl.gateway"]


def test_without_fruitctl_home_it_goes_to_dot_aai(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("FRUITCTL_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    result = runner.invoke(app, ["aai", "install", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["path"] == str(tmp_path / ".aai/dev.fruitctl.gateway/aai.json")
    assert re.match(SEMVER, __version__)
