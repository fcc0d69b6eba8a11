"""Newline-delimited JSON-RPC with a child process on raw pipes, for the stdio tests."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from typing import Any

READ_TIMEOUT_S = 30.0  # one reply


def spawn(
    argv: list[str], env: dict[str, str], stderr: Any = subprocess.PIPE
) -> subprocess.Popen[bytes]:
    """A server on raw pipes, unbuffered, in a session of its own (a kill of its group takes
    whatever it started with it)."""
    return subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=env,
        bufsize=0,
        start_new_session=True,
    )


class Wire:
    """Newline-delimited JSON-RPC to a child process, read with a timeout (no reader thread)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.proc, self.stdin, self.fd = proc, proc.stdin, proc.stdout.fileno()
        self.buffer = b""

    def send(self, message: dict[str, Any]) -> None:
        self.stdin.write(json.dumps(message).encode() + b"\n")
        self.stdin.flush()

    def line(self, timeout: float = READ_TIMEOUT_S) -> bytes | None:
        """The next stdout line, or None at end of file."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise TimeoutError(f"no line from the server within {timeout}s")
            chunk = os.read(self.fd, 65536)
            if not chunk:
                rest, self.buffer = self.buffer, b""
                return rest or None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def replies(self, ids: set[int]) -> dict[int, dict[str, Any]]:
        """Read until every id in ``ids`` is answered; every line must be JSON-RPC."""
        found: dict[int, dict[str, Any]] = {}
        while not ids <= found.keys():
            line = self.line()
            assert line is not None, "the server closed stdout before answering"
            message = jsonrpc(line)
            if "id" in message:
                found[message["id"]] = message
        return found


def jsonrpc(line: bytes) -> dict[str, Any]:
    message = json.loads(line)
    assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", line
    assert "method" in message or (
        "id" in message and ("result" in message) != ("error" in message)
    )
    return message
