"""``fruitctl mcp``'s tools when they run in its own process: proposals link to the approval
page of this home's daemon when one serves it.

That happens when the daemon started after this server (a client starts ``fruitctl mcp`` when
it starts, and the daemon may come later) or when ``FRUITCTL_IN_PROCESS`` keeps the tools here:
the daemon's page shows every proposal of this home, this server's included, so an agent can
hand the person the link, as it can when the daemon runs the tools (``mcp_front``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from fruitctl.domain.actors import Actor
from fruitctl.tools.model import ToolResult
from fruitctl.transports.mcp import InProcessTools


class PagedTools(InProcessTools):
    """The tools run by this process's gateway; a proposal's answer carries the daemon's page.

    The page is asked for at each proposal (so a daemon that starts or stops meanwhile is
    seen), unless ``[http] public_url`` names it: the answer then carries it already."""

    def __init__(self, build: Callable[[], Any], daemon_page: Callable[[], str | None]) -> None:
        super().__init__(build=build)
        self._daemon_page = daemon_page
        self._found = False  # whether the approvals link to a page found here

    async def call(self, name: str, args: dict[str, Any] | None, actor: Actor) -> ToolResult:
        result = await super().call(name, args, actor)
        output = result.output
        if not result.metadata.get("pending") or not isinstance(output, dict):
            return result
        if output.get("url") and not self._found:
            return result  # the configured page
        approvals = self._gateway.approvals
        approvals.page_base = await anyio.to_thread.run_sync(self._daemon_page)
        self._found = approvals.page_base is not None
        url = approvals.page_url(output["proposalId"])
        return result.model_copy(update={"output": {**output, "url": url}})

    def close(self) -> None:
        """Nothing of its own: the command closes the app and its gateway."""


def daemon_page(socket_file: Path) -> Callable[[], str | None]:
    """What asks this home's daemon (on ``socket_file``) for the address of its HTTP server,
    the approval page's; None when no daemon answers or it serves no HTTP."""
    from fruitctl.cli.doctor_daemon import daemon

    def ask() -> str | None:
        found = daemon(socket_file)
        url = (found.get("info") or {}).get("httpUrl") if found.get("answers") else None
        return str(url) if url else None

    return ask
