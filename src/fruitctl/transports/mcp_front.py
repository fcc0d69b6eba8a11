"""``fruitctl mcp`` in front of the daemon: the MCP protocol here, every tool run there.

When a daemon answers on the home's socket it is the one process that holds the person's data
(on a Mac, the one macOS granted access to Reminders, Calendars and Things), so an MCP client's
child must not touch that data itself. ``DaemonTools`` serves the MCP server's tool list from the
daemon's ``tools.list`` and sends each call there with ``tools.call``, as the agent the MCP door
names (``agent:mcp:stdio``, the client's name shown under it) - the same identity, rate limits
and proposals as in-process. A person who answers the client's approval form speaks to the daemon
as a person, proving it with the daemon's token file as the CLI does, and the daemon executes
the approval (its audit names them).

A session that started against the daemon stays with it: when the daemon goes away, each call
answers ``backend_unavailable`` saying how to start it again, and a daemon that comes back is
used again from the next call. Nothing ever runs here instead.

``RefusingTools`` is the other door with no data here: on a Mac where this process has no
grant, every call answers the refusal that says how to start the holder.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
import mcp_types as types
from pydantic import ValidationError

from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import BackendUnavailable, FruitctlError, InternalError
from fruitctl.tools.model import ToolResult
from fruitctl.transports.mcp import output_schema
from fruitctl.transports.rpc.client import DaemonClient, gone

if TYPE_CHECKING:
    from fruitctl.approvals.allowance import Allowance
    from fruitctl.gateway import Action

MAX_CONNECTIONS = 8
"""Calls in flight to the daemon at once, each on a connection of its own (the socket answers
one request at a time per connection). An MCP client rarely runs more than a few tools at once;
more wait their turn rather than open a connection each."""


class DaemonTools:
    """The MCP server's tools, run by the daemon on ``socket_file``."""

    def __init__(self, connect: Callable[[], DaemonClient | None], tools: list[types.Tool]):
        self._connections = _Connections(connect)
        self._tools = tools
        self._limit = anyio.CapacityLimiter(MAX_CONNECTIONS)

    @classmethod
    def reach(cls, socket_file: Path, token_file: Path) -> DaemonTools | None:
        """The daemon's tools, or None when no daemon answers on ``socket_file``."""

        def connect() -> DaemonClient | None:
            return DaemonClient.connect(socket_file, token_file)

        first = connect()
        if first is None:
            return None
        try:
            tools = _listed(first.rpc.request("tools.list"))
        except FruitctlError:  # something listens there, but it is no daemon we can use
            first.close()
            return None
        front = cls(connect, tools)
        front._connections.give_back(first)
        return front

    async def listing(self) -> list[types.Tool]:
        """The daemon's tools now; the last ones it gave while it is away (a call then says
        how to start it, which an empty list could not)."""
        try:
            found = await self._run(lambda client: client.rpc.request("tools.list"))
            self._tools = _listed(found)
        except BackendUnavailable:
            pass
        return self._tools

    def known(self, name: str) -> bool:
        return any(tool.name == name for tool in self._tools)

    async def call(self, name: str, args: dict[str, Any] | None, actor: Actor) -> ToolResult:
        try:
            output = await self._run(lambda client: client.call(name, args, actor))
        except FruitctlError as exc:
            return failed(name, exc)
        pending = self._writes(name) and _is_pending(output)
        return ToolResult(
            tool_name=name,
            success=True,
            output=output,
            metadata={"pending": True} if pending else {},
        )

    async def proposal(self, proposal_id: str, actor: Actor) -> dict[str, Any]:
        """The proposal as the agent that filed it sees it (``get_proposal``)."""
        found: dict[str, Any] = await self._run(
            lambda client: client.call("get_proposal", {"id": proposal_id}, actor)
        )
        return found

    async def decide(
        self,
        proposal_id: str,
        action: Action,
        who: Actor,
        reason: str | None,
        allow: Allowance | None = None,
    ) -> dict[str, Any]:
        """Taken by the daemon for the person, on a connection used for nothing else: one that
        spoke for a person never goes back to serving the agent."""

        def decide(client: DaemonClient) -> dict[str, Any]:
            return client.decide(proposal_id, action, who, reason, allow)

        async with self._limit:
            return await anyio.to_thread.run_sync(lambda: self._connections.once(decide))

    def _writes(self, name: str) -> bool:
        tool = next((t for t in self._tools if t.name == name), None)
        hints = tool.annotations if tool is not None else None
        return not (hints is not None and hints.read_only_hint)

    async def _run(self, work: Callable[[DaemonClient], Any]) -> Any:
        async with self._limit:
            return await anyio.to_thread.run_sync(lambda: self._connections.run(work))

    def close(self) -> None:
        self._connections.close()


class _Connections:
    """Connections to the daemon, kept while they work. A broken one is closed and never used
    again; the next call opens a new one (a daemon started again answers it)."""

    def __init__(self, connect: Callable[[], DaemonClient | None]) -> None:
        self._connect = connect
        self._idle: list[DaemonClient] = []
        self._lock = threading.Lock()

    def run(self, work: Callable[[DaemonClient], Any]) -> Any:
        with self._borrowed() as client:
            return work(client)

    def once(self, work: Callable[[DaemonClient], Any]) -> Any:
        client = self._open()
        try:
            return work(client)
        finally:
            client.close()

    def give_back(self, client: DaemonClient) -> None:
        with self._lock:
            self._idle.append(client)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for client in idle:
            client.close()

    @contextlib.contextmanager
    def _borrowed(self) -> Iterator[DaemonClient]:
        client = self._idle_one() or self._open()
        try:
            yield client
        except (BackendUnavailable, InternalError):  # gone, or out of step: never reused
            client.close()
            raise
        except BaseException:
            self.give_back(client)  # the daemon answered with an error: the line is fine
            raise
        self.give_back(client)

    def _idle_one(self) -> DaemonClient | None:
        """A kept connection the daemon still holds; those it dropped are closed on the way."""
        while True:
            with self._lock:
                client = self._idle.pop() if self._idle else None
            if client is None or client.rpc.usable():
                return client
            client.close()

    def _open(self) -> DaemonClient:
        client = self._connect()
        if client is None:
            raise gone("is not running")
        return client


def failed(name: str, error: FruitctlError) -> ToolResult:
    return ToolResult(
        tool_name=name,
        success=False,
        failure=error,
    )


def _is_pending(output: Any) -> bool:
    """Whether a write's answer is the pending answer (``outputs.Pending``, the one type the
    gateway answers when it files a proposal - with the items left out of a batch, too)."""
    from fruitctl.tools.outputs import Pending  # its models load on the first write's answer

    try:
        Pending.model_validate(output)
    except ValidationError:
        return False
    return True


def _listed(found: Any) -> list[types.Tool]:
    """The daemon's ``tools.list`` as MCP tools, exactly as ``mcp.describe`` makes them."""
    if not isinstance(found, dict) or not isinstance(found.get("tools"), list):
        raise InternalError("The daemon's tools.list is not a list of tools.")
    return [_tool(entry) for entry in found["tools"]]


def _tool(entry: dict[str, Any]) -> types.Tool:
    hints = entry.get("annotations") or {}
    return types.Tool(
        name=entry["name"],
        title=entry.get("title"),
        description=entry.get("description"),
        input_schema=entry["inputSchema"],
        output_schema=output_schema(entry.get("outputSchema") or {}),
        annotations=types.ToolAnnotations(
            title=hints.get("title"),
            read_only_hint=hints.get("readOnlyHint"),
            destructive_hint=hints.get("destructiveHint"),
            idempotent_hint=hints.get("idempotentHint"),
            open_world_hint=hints.get("openWorldHint"),
        ),
    )


class RefusingTools:
    """``tools`` listed, every call refused with ``refusal``: this process may not reach the
    person's data, and asking macOS from here would show nobody a prompt."""

    def __init__(self, tools: list[types.Tool], refusal: FruitctlError) -> None:
        self._tools = tools
        self._refusal = refusal

    async def listing(self) -> list[types.Tool]:
        return self._tools

    def known(self, name: str) -> bool:
        return any(tool.name == name for tool in self._tools)

    async def call(self, name: str, args: dict[str, Any] | None, actor: Actor) -> ToolResult:
        return failed(name, self._refusal)

    async def proposal(self, proposal_id: str, actor: Actor) -> dict[str, Any]:
        raise self._refusal

    def close(self) -> None:
        pass  # nothing was opened

    async def decide(
        self,
        proposal_id: str,
        action: Action,
        who: Actor,
        reason: str | None,
        allow: Allowance | None = None,
    ) -> dict[str, Any]:
        raise self._refusal
