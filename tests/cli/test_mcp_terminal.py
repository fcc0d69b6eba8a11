"""``fruitctl mcp`` started by a person on a terminal (stdin a TTY), run for real on a pty: one
line on stderr says what it is and how to stop it, it still answers a client typing JSON-RPC,
and Ctrl-C stops it at once with status 130 and no traceback."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

import pytest
from mcp_wire import initialize

from fruitctl.cli.mcp import ON_A_TERMINAL

FRUITCTL = Path(sys.executable).parent / "fruitctl"
DEADLINE_S = 60  # a Python start and the MCP server's imports: a second or two when healthy

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="needs a pty"),
    pytest.mark.slow,  # its one test takes two seconds or more
]

INITIALIZE = initialize("a person", "0")


class Terminal:
    """``fruitctl mcp`` on the child side of a pty; what it writes, as the terminal shows it."""

    def __init__(self, home: Path) -> None:
        env = {**os.environ, "FRUITCTL_HOME": str(home), "FRUITCTL_IN_PROCESS": "1"}
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the real command, on the pty
            os.execve(str(FRUITCTL), ["fruitctl", "mcp"], env)
        self.seen = b""
        self.status: int | None = None

    def read_until(self, wanted: bytes) -> bytes:
        deadline = time.monotonic() + DEADLINE_S
        while wanted not in self.seen and time.monotonic() < deadline:
            if select.select([self.fd], [], [], 0.2)[0]:
                try:
                    self.seen += os.read(self.fd, 65536)
                except OSError:  # the child is gone
                    break
        assert wanted in self.seen, self.seen
        return self.seen

    def wait(self) -> int:
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            if select.select([self.fd], [], [], 0.2)[0]:
                with contextlib.suppress(OSError):  # the child is gone: its status tells
                    self.seen += os.read(self.fd, 65536)
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        raise AssertionError(f"fruitctl mcp was still running after Ctrl-C: {self.seen!r}")

    def close(self) -> None:
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        os.close(self.fd)


def test_on_a_terminal_it_says_what_it_is_and_ctrl_c_stops_it(home: Path) -> None:
    terminal = Terminal(home)
    try:
        shown = terminal.read_until(b"Ctrl-C stops it.")
        assert shown.decode().strip() == ON_A_TERMINAL  # one line, nothing else
        os.write(terminal.fd, json.dumps(INITIALIZE).encode() + b"\n")
        terminal.read_until(b'"serverInfo"')  # a client typing still gets answers
        os.kill(terminal.pid, signal.SIGINT)  # what Ctrl-C sends
        assert terminal.wait() == 130
        assert b"Traceback" not in terminal.seen and b"KeyboardInterrupt" not in terminal.seen
    finally:
        terminal.close()
