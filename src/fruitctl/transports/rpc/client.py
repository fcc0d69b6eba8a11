"""A small blocking client for the daemon's socket: what the CLI uses when a daemon runs.

``DaemonClient.call(tool, args, actor)`` behaves like ``App.call`` in-process: the tool's output,
or its failure raised as the same domain error. Before a call it tells the daemon who speaks
(``session.identify``); a person proves it with the daemon's token file.
"""

from __future__ import annotations

import itertools
import json
import select
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import BackendUnavailable, FruitctlError, InternalError

if TYPE_CHECKING:
    from fruitctl.approvals.allowance import Allowance

DEFAULT_TIMEOUT_S = 600.0  # longer than any request timeout: the daemon answers first
START_IT = (
    "Start it again with `fruitctl server start`, or run it as a service (`fruitctl service "
    "install`), then retry."
)
"""What a person does when the daemon a client was talking to is gone."""


class RpcClient:
    """One connection; one request at a time."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._reader = sock.makefile("rb")
        self._ids = itertools.count(1)

    @classmethod
    def connect(cls, path: Path, timeout: float | None = DEFAULT_TIMEOUT_S) -> RpcClient | None:
        """A connection to the daemon on ``path``, or None when nothing listens there."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError, NotADirectoryError):
            sock.close()
            return None
        except OSError:  # a path too long to be a socket, no permission, …: no daemon for us
            sock.close()
            return None
        return cls(sock)

    def send(self, line: str | bytes) -> None:
        """Send one line and expect nothing back (a notification)."""
        data = line.encode() if isinstance(line, str) else line
        try:
            self._sock.sendall(data.rstrip(b"\n") + b"\n")
        except OSError as exc:
            raise gone(f"stopped answering ({exc.strerror or exc})") from exc

    def exchange(self, line: str | bytes) -> bytes:
        """Send one line, return the next line the daemon sends (without its newline)."""
        data = line.encode() if isinstance(line, str) else line
        try:
            self._sock.sendall(data.rstrip(b"\n") + b"\n")
            reply = self._reader.readline()
        except OSError as exc:
            raise gone(f"stopped answering ({exc.strerror or exc})") from exc
        if not reply:
            raise gone("closed the connection")
        return reply.rstrip(b"\n")

    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """The method's result, or its error raised as the domain error it names."""
        request_id = next(self._ids)
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}
        try:
            answer = json.loads(self.exchange(json.dumps(message)))
        except ValueError as exc:
            raise InternalError("The daemon sent something that is not JSON.") from exc
        if not isinstance(answer, dict):
            raise InternalError("The daemon sent something that is not a JSON-RPC response.")
        if "error" in answer:
            raise as_error(answer["error"])
        if answer.get("id") != request_id:
            raise InternalError("The daemon answered another request.")
        return answer.get("result")

    def usable(self) -> bool:
        """Whether a connection kept idle can carry the next request: the daemon has not closed
        its end (it stopped, or dropped an idle client) and sent nothing unasked."""
        poller = select.poll()
        try:  # readable means closed (or out of step): an idle daemon connection is silent
            poller.register(self._sock, select.POLLIN)
            return not poller.poll(0)
        except (OSError, ValueError):  # closed here already
            return False

    def close(self) -> None:
        self._reader.close()
        self._sock.close()


def gone(what: str) -> BackendUnavailable:
    """The daemon went away under a client: what happened, and how to bring it back."""
    return BackendUnavailable(f"The fruitctl daemon {what}. {START_IT}")


def as_error(error: Any) -> FruitctlError:
    """A JSON-RPC error object back into the domain error it was (its code is the table's
    canonical name; details from ``data``)."""
    if not isinstance(error, dict) or not isinstance(error.get("code"), str):
        return InternalError("The daemon sent an error this client cannot read.")
    raw = error.get("data")
    data: dict[str, Any] = raw if isinstance(raw, dict) else {}
    details = {k: v for k, v in data.items() if k not in ("jsonrpcCode", "retryable")}
    from fruitctl.domain import error_table  # only an error needs the table of codes

    return error_table.rebuilt(error["code"], str(error.get("message", "")), details)


class DaemonClient:
    """The daemon, seen as a gateway: ``call`` a tool as an actor."""

    def __init__(self, client: RpcClient, token_file: Path) -> None:
        self.rpc = client
        self._token_file = token_file
        self._speaking_for: Actor | None = None

    @classmethod
    def connect(cls, socket_file: Path, token_file: Path) -> DaemonClient | None:
        client = RpcClient.connect(socket_file)
        return None if client is None else cls(client, token_file)

    def call(
        self,
        tool: str,
        args: dict[str, Any] | None,
        actor: Actor,
        idempotency_key: str | None = None,
    ) -> Any:
        self.identify(actor)
        params: dict[str, Any] = {"name": tool, "arguments": args or {}}
        if idempotency_key is not None:
            params["idempotencyKey"] = idempotency_key
        return self.rpc.request("tools.call", params)

    def decide(
        self,
        proposal_id: str,
        action: str,
        actor: Actor,
        reason: str | None = None,
        allow: Allowance | None = None,
    ) -> dict[str, Any]:
        """A person's decision on a proposal, taken by the daemon's gateway."""
        self.identify(actor)
        params: dict[str, Any] = {"id": proposal_id, "action": action}
        if reason is not None:
            params["reason"] = reason
        if allow is not None:
            params.update(allow.wire())
        decided: dict[str, Any] = self.rpc.request("proposals.decide", params)
        return decided

    def proposals(self, status: str | None, limit: int, actor: Actor) -> list[dict[str, Any]]:
        """Proposals newest first, of ``status`` (None: all), as ``actor`` may read them."""
        self.identify(actor)
        found: list[dict[str, Any]] = self.rpc.request(
            "proposals.list", {"status": status, "limit": limit}
        )
        return found

    def proposal(self, proposal_id: str, actor: Actor) -> dict[str, Any]:
        self.identify(actor)
        found: dict[str, Any] = self.rpc.request("proposals.get", {"id": proposal_id})
        return found

    def identify(self, actor: Actor) -> None:
        if actor == self._speaking_for:
            return
        params = {"kind": actor.kind, "name": actor.name}
        if actor.display:  # shown under the identity, as it would be in-process
            params["display"] = actor.display
        if actor.kind == "human":
            params["token"] = self._token()
        self.rpc.request("session.identify", params)
        self._speaking_for = actor

    def close(self) -> None:
        self.rpc.close()

    def _token(self) -> str:
        try:
            return self._token_file.read_text().strip()
        except OSError as exc:
            raise BackendUnavailable(
                f"The daemon runs but its token ({self._token_file.name}) cannot be read."
            ) from exc
