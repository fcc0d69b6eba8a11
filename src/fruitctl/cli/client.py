"""What a command asks of the gateway, wherever it runs: ``Client``.

Two kinds answer it. ``LocalClient``: this machine's gateway, through the daemon's socket when
one runs, otherwise in this process on the same files; the caller is the person at the
keyboard. ``cli.remote.RemoteClient``: a gateway elsewhere, over its HTTP API, as whoever the
token names (an agent's writes become proposals; only an admin token approves). Both answer
with the same shapes, so each command renders one way and ``--json`` is the same everywhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from fruitctl.domain.actors import CLI_ACTOR, Actor

if TYPE_CHECKING:
    from fruitctl.approvals.allowance import Allowance
    from fruitctl.bootstrap import App
    from fruitctl.gateway import Action
    from fruitctl.transports.rpc.client import DaemonClient


class Client(Protocol):
    where: str
    """Where the answers come from, for people: "in-process", "daemon on …", "gateway at …"."""

    def call(
        self,
        tool: str,
        args: dict[str, Any] | None,
        actor: Actor | None = None,
        idempotency_key: str | None = None,
    ) -> Any: ...

    def decide(
        self,
        proposal_id: str,
        action: Action,
        reason: str | None = None,
        allow: Allowance | None = None,
    ) -> dict[str, Any]: ...

    def grants(self, every: bool) -> list[dict[str, Any]]: ...

    def revoke_grant(self, grant_id: str) -> dict[str, Any]: ...

    def proposals(self, status: str | None, limit: int) -> list[dict[str, Any]]: ...

    def proposal(self, proposal_id: str) -> dict[str, Any]: ...

    def config(self) -> dict[str, Any]: ...

    def set_config(self, key: str, value: Any) -> Any: ...

    def audit(
        self, since: float | None, limit: int, proposal: str | None
    ) -> list[dict[str, Any]]: ...

    def verify_audit(self) -> dict[str, Any]: ...

    def describe_tools(self, category: str | None) -> list[dict[str, Any]]: ...

    def describe_tool(self, name: str) -> dict[str, Any]: ...

    def mode(self) -> dict[str, Any]: ...

    def stats(self, seconds: float) -> list[dict[str, Any]]: ...

    def ping(self) -> dict[str, Any]: ...

    def info(self) -> dict[str, Any]: ...


class LocalClient:
    """This machine's gateway, for the person who runs the command.

    Given an ``app``, it answers through it (the daemon's socket when the app found one).
    Given a ``daemon`` found before anything was built (``cli.thin``), calls and decisions go
    straight to it and the app is built only for the rest, on first use, by ``build``."""

    def __init__(
        self,
        app: App | None = None,
        *,
        daemon: DaemonClient | None = None,
        socket: Path | None = None,
        build: Callable[[], App] | None = None,
    ) -> None:
        self._app = app
        self._build = build
        self.daemon = daemon
        if daemon is None and app is not None and app.remote:
            socket = app.config.paths.socket_file
        self.where = "in-process" if socket is None else f"daemon on {socket}"
        self.drift: dict[str, Any] = {}
        """Whether the daemon runs what its files say, as its last answer told (``cli.drift``)."""

    @property
    def app(self) -> App:
        if self._app is None:
            if self._build is None:
                raise RuntimeError("LocalClient needs an app or a way to build one")
            self._app = self._build()
        return self._app

    def call(
        self,
        tool: str,
        args: dict[str, Any] | None,
        actor: Actor | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        if self.daemon is not None:
            return self.daemon.call(tool, args, actor or CLI_ACTOR, idempotency_key)
        return self.app.call(tool, args, actor or CLI_ACTOR, idempotency_key)

    def decide(
        self,
        proposal_id: str,
        action: Action,
        reason: str | None = None,
        allow: Allowance | None = None,
    ) -> dict[str, Any]:
        if self.daemon is not None:
            decided: dict[str, Any] = self.daemon.decide(
                proposal_id, action, CLI_ACTOR, reason, allow
            )
            return decided
        return self.app.decide(proposal_id, action, CLI_ACTOR, reason, allow)

    def grants(self, every: bool) -> list[dict[str, Any]]:
        return self.app.approvals.grants_listed(every)

    def revoke_grant(self, grant_id: str) -> dict[str, Any]:
        return self.app.approvals.revoke(grant_id, CLI_ACTOR)

    def proposals(self, status: str | None, limit: int) -> list[dict[str, Any]]:
        found = self._asked(lambda daemon: daemon.proposals(status, limit, CLI_ACTOR))
        return self.app.approvals.recent(status, limit) if found is None else found

    def proposal(self, proposal_id: str) -> dict[str, Any]:
        found = self._asked(lambda daemon: daemon.proposal(proposal_id, CLI_ACTOR))
        return self.app.approvals.get(proposal_id) if found is None else found

    def _asked(self, ask: Callable[[DaemonClient], Any]) -> Any:
        """The daemon's answer, when one runs and knows the method; else None, and this process
        reads the same files. A daemon older than the method (updated, not restarted) is not
        an error: the person still gets their answer."""
        daemon = self.daemon if self.daemon is not None else self.app.remote
        if daemon is None:
            return None
        from fruitctl.domain.errors import MethodNotFound

        try:
            return ask(daemon)
        except MethodNotFound:
            if self._app is None and self._build is None:
                raise  # nothing here reads the files: the caller's to handle (``cli.fast``)
            return None

    def config(self) -> dict[str, Any]:
        return self.app.allowlists.items()

    def set_config(self, key: str, value: Any) -> Any:
        return self.app.allowlists.set(key, value, CLI_ACTOR.label)

    def audit(self, since: float | None, limit: int, proposal: str | None) -> list[dict[str, Any]]:
        start = None if since is None else time.time() - since
        return self.app.audit.entries(since=start, limit=limit, proposal_id=proposal)

    def verify_audit(self) -> dict[str, Any]:
        return self.app.audit.verify()

    def describe_tools(self, category: str | None) -> list[dict[str, Any]]:
        found = self._in_force({"category": category})
        if found is not None:  # the rules the daemon enforces, not this process's reading
            tools: list[dict[str, Any]] = found["tools"]
            return tools
        return self.app.gateway.describe_tools(category)

    def describe_tool(self, name: str) -> dict[str, Any]:
        found = self._in_force({"name": name})
        if found is not None:
            tool: dict[str, Any] = found["tool"]
            return tool
        return self.app.gateway.describe_tool(name)

    def _in_force(self, params: dict[str, Any]) -> dict[str, Any] | None:
        """``tools.describe`` of the daemon, when one runs; what it says of its files is kept
        in ``drift``. A daemon older than that method (updated, not restarted) says so there."""
        if not self.app.remote:
            return None
        from fruitctl.domain.errors import MethodNotFound

        asked = {key: value for key, value in params.items() if value is not None}
        try:
            found: dict[str, Any] = self.app.remote.rpc.request("tools.describe", asked)
        except MethodNotFound:
            self.drift = {"configuration": {"current": False, "olderProgram": True}}
            return None
        self.drift = {key: found.get(key) for key in ("governance", "configuration")}
        return found

    def mode(self) -> dict[str, Any]:
        return self.app.modes.describe()

    def stats(self, seconds: float) -> list[dict[str, Any]]:
        return self.app.stats(time.time() - seconds)

    def ping(self) -> dict[str, Any]:
        from fruitctl.transports.rpc.methods import ping_result

        if self.daemon is not None or self.app.remote:
            found: dict[str, Any] = (self.daemon or self.app.remote).rpc.request("system.ping")
            return found
        return ping_result()

    def info(self) -> dict[str, Any]:
        if self.daemon is not None or self.app.remote:
            found: dict[str, Any] = (self.daemon or self.app.remote).rpc.request("system.info")
            return found
        import psutil  # only an in-process answer needs this process's start time

        from fruitctl.transports.service_info import service_info

        uptime = int((time.time() - psutil.Process().create_time()) * 1000)
        socket = self.app.config.paths.socket_file
        return service_info(self.app.status(), socket, None, uptime_ms=uptime, daemon=False)
