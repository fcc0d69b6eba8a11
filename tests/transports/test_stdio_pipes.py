"""fruitctl's MCP stdio transport (``transports.stdio_pipes``): it writes what the SDK would
write, keeps stray output off the wire, survives an over-long line, hands stdin and stdout back
in blocking mode, and leaves a regular-file stdin to the SDK's own transport."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp_wire import INITIALIZED, initialize
from pipe_wire import Wire, jsonrpc

from fruitctl.domain.errors import InvalidParams
from fruitctl.tools.model import ToolResult
from fruitctl.transports.mcp import render
from fruitctl.transports.stdio_pipes import encode

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

NOISY_SERVER = [sys.executable, str(Path(__file__).with_name("noisy_stdio_server.py"))]
TIMEOUT_S = 60.0
INITIALIZE = initialize("pipe-test", "0", protocol="2025-11-25")


def call(id_: int, name: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": name}}


def lines(*messages: dict[str, Any] | bytes) -> bytes:
    return b"".join(m if isinstance(m, bytes) else json.dumps(m).encode() + b"\n" for m in messages)


# -- what goes on the wire is what the SDK would have written --------------------------------

RESULT = {
    "content": [{"type": "text", "text": 'caf\u00e9 \u2014 "quoted" \U0001f34e'}],
    "structuredContent": {"result": [{"id": "a", "due": None, "n": 3, "ok": True}]},
    "isError": False,
}
MESSAGES = [
    types.JSONRPCResponse(jsonrpc="2.0", id=7, result=RESULT),
    types.JSONRPCResponse(jsonrpc="2.0", id="req-\u00e9", result={}),
    types.JSONRPCResponse(jsonrpc="2.0", id=1, result={"big": 2**70}),  # orjson refuses it
    types.JSONRPCError(
        jsonrpc="2.0", id=3, error=types.ErrorData(code=-32601, message="Unknown tool 'x'.")
    ),
    types.JSONRPCRequest(jsonrpc="2.0", id=9, method="elicitation/create", params={"a": 1}),
    types.JSONRPCNotification(jsonrpc="2.0", method="notifications/message", params=None),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_a_message_is_written_as_the_sdk_writes_it(message: Any) -> None:
    written = encode(message)
    assert written.endswith(b"\n") and written.count(b"\n") == 1
    sdk = message.model_dump_json(by_alias=True, exclude_unset=True)
    assert json.loads(written) == json.loads(sdk)


@pytest.mark.parametrize(
    "result",
    [
        ToolResult(tool_name="t", success=True, output=[{"title": "caf\u00e9", "due": None}]),
        ToolResult(tool_name="t", success=True, output={"status": "pending", "id": "p1"}),
        ToolResult(
            tool_name="t", success=False, failure=InvalidParams("Invalid JMESPath expression")
        ),
    ],
    ids=["list", "object", "failure"],
)
def test_a_tool_result_is_the_wire_form_of_a_call_tool_result(result: ToolResult) -> None:
    if result.success:
        structured = result.output if isinstance(result.output, dict) else {"result": result.output}
        model = types.CallToolResult(
            content=[types.TextContent(text=json.dumps(result.output))],
            structured_content=structured,
        )
    else:
        error = {"code": result.error_code, "retryable": False}  # the code travels in _meta
        model = types.CallToolResult(
            content=[types.TextContent(text=result.error or "")],
            is_error=True,
            _meta={"dev.fruitctl/error": error},
        )
    wire = render(result)
    expected = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    if result.success:  # the same JSON, however it is spaced
        text = json.loads(wire["content"][0]["text"])
        assert text == json.loads(expected["content"][0]["text"])
        wire["content"][0]["text"] = expected["content"][0]["text"]
    assert wire == expected


# -- a real process on real pipes -------------------------------------------------------------


def converse(
    command: list[str], messages: list[dict[str, Any] | bytes], ids: set[int], **env: str
) -> tuple[dict[int, dict[str, Any]], list[dict[str, Any]], str]:
    """Start ``command`` on pipes, send ``messages``, wait for the replies to ``ids``, close
    stdin; the replies, what came after them (every stdout line must be JSON) and stderr."""
    with subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **env},
        bufsize=0,
    ) as proc:
        try:
            assert proc.stdin is not None and proc.stderr is not None
            proc.stdin.write(lines(*messages))
            wire = Wire(proc)
            replies = wire.replies(ids)
            proc.stdin.close()
            assert proc.wait(timeout=TIMEOUT_S) == 0
            rest = [json.loads(line) for line in iter(wire.line, None)]
            return replies, rest, proc.stderr.read().decode()
        finally:
            if proc.poll() is None:
                proc.kill()


def test_stray_output_goes_to_stderr_and_the_pipes_are_handed_back_blocking() -> None:
    replies, rest, stderr = converse(NOISY_SERVER, [INITIALIZE, INITIALIZED, call(2, "noisy")], {2})
    assert replies[2]["result"]["content"][0]["text"] == "quiet on the wire"
    for stray in ("stray print", "stray write", "stray child"):
        assert stray in stderr
    assert rest == [{"after": True, "stdin_blocking": True, "stdout_blocking": True}]


def test_an_over_long_line_is_skipped_and_the_next_one_answered() -> None:
    too_long = b'{"jsonrpc": "2.0", "id": 5, "method": "ping", "pad": "' + b"x" * 5000 + b'"}\n'
    messages = [INITIALIZE, INITIALIZED, too_long, call(2, "noisy")]
    replies, _, stderr = converse(NOISY_SERVER, messages, {2}, LINE_LIMIT="1024")
    assert 5 not in replies and "result" in replies[2]
    assert "Traceback" not in stderr


def test_a_regular_file_on_stdin_is_served_by_the_sdks_transport(
    home: Path, tmp_path: Path
) -> None:
    """asyncio cannot watch a regular file, so the SDK's own transport reads it. (At the end of
    the file the SDK ends the session: a call still running is answered "Connection closed".)"""
    requests = tmp_path / "requests.jsonl"
    requests.write_bytes(lines(INITIALIZE, INITIALIZED))
    with requests.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "fruitctl", "mcp"],
            stdin=stdin,
            capture_output=True,
            timeout=TIMEOUT_S,
            env={**os.environ, "FRUITCTL_HOME": str(home)},
            check=True,
        )
    [reply] = [jsonrpc(line) for line in done.stdout.splitlines()]
    assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "fruitctl"


def test_a_client_that_stops_reading_ends_the_server_quietly(home: Path) -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "fruitctl", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "FRUITCTL_HOME": str(home)},
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # the client is gone before the first answer
        proc.stdin.write(lines(INITIALIZE, INITIALIZED, call(2, "get_lists")))
        proc.stdin.close()
        assert proc.wait(timeout=TIMEOUT_S) == 0
        assert "Traceback" not in proc.stderr.read().decode()
