"""Why fruitctl could not start serving: one family of errors, each with the exit status the CLI
ends with (the table in ``fruitctl.cli.output``). A message says what is wrong and what to do,
in one line, and never holds a token or a secret."""

from __future__ import annotations

CANNOT_START = 13


class StartupError(Exception):
    """fruitctl cannot start serving (the daemon, the HTTP API, MCP over HTTP)."""

    exit_code: int = CANNOT_START

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:  # the same cause, said again by a caller
            self.exit_code = exit_code


class CannotListen(StartupError):
    """The address cannot be listened on (in use, not this machine's); the message says which
    and why, and how to choose another."""


class NotAllowed(StartupError):
    """Serving as asked would expose the person's data (beyond loopback without tokens, say)."""

    exit_code = 5


class AlreadyRunning(StartupError):
    """Another fruitctl already serves on the socket."""

    exit_code = 4

    def __init__(self, message: str, pid: int | None = None) -> None:
        super().__init__(message)
        self.pid = pid


class UnsafeLocation(StartupError):
    """A folder or file the server needs cannot be made private to its user."""

    exit_code = 78  # bad configuration: the place is the person's choice


class StartFailed(StartupError):
    """The daemon was started and died, or never answered."""
