"""Announcing proposals as they arrive, from any front door (MCP over stdio, the socket, the CLI,
an agent elsewhere): each poll, one notification for everything filed since the last one.

``ProposalWatcher`` keeps a cursor - the position of the last proposal it has accounted for
(``Approvals.arrivals``) - so none is missed however many arrive between polls, and none is
announced twice; those already waiting when it starts are not news. While a notification is
still being handed over (``Notifier.busy``) the cursor stays put: the next poll counts what
arrived meanwhile too ("12 new proposals"). What an agent wrote - a summary, its name - is shown
with hidden characters revealed (``reveal_plain``), so a notification cannot pass one thing off
as another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from fruitctl.transports.http.ui.text import reveal_plain

TITLE = "fruitctl: approval needed"
BODY_MAX = 240
Arrivals = Callable[[int | None], tuple[int, int, list[dict[str, Any]]]]
Page = Callable[[str | None], str | None]
"""The page of one proposal (its id), or of the pending list (None); None when none is served."""


class Shows(Protocol):
    def busy(self) -> bool: ...

    def send(self, title: str, body: str, link: str | None = None) -> bool: ...


class ProposalWatcher:
    def __init__(self, arrivals: Arrivals, notifier: Shows, page: Page) -> None:
        self._arrivals = arrivals
        self._notifier = notifier
        self._page = page
        self._position: int | None = None

    def prime(self) -> None:
        """Start from here: what waits already is not news."""
        self._position, _, _ = self._arrivals(None)

    def poll(self) -> int:
        """Announce what arrived since the last announcement, in one notification; how many."""
        if self._notifier.busy():
            return 0  # counted at a later poll, with whatever else arrives by then
        position, count, latest = self._arrivals(self._position)
        self._position = position
        if count:
            body, link = announcement(count, latest[0] if latest else None, self._page)
            self._notifier.send(TITLE, body, link)
        return count


def announcement(count: int, latest: dict[str, Any] | None, page: Page) -> tuple[str, str | None]:
    """The text of a notification about ``count`` new proposals, the newest ``latest``, and the
    page a click opens: that proposal's when it is the only one, else the pending list."""
    if count == 1 and latest is not None:
        link = page(latest["id"])
        return message(latest, link), link
    link = page(None)
    lines = [f"{count} new proposals"]
    if latest is not None:
        lines.append(f"latest: {_line(latest)}")
    return "\n".join([*lines, *([link] if link else [])]), link


def message(proposal: dict[str, Any], link: str | None) -> str:
    return _line(proposal) + (f"\n{link}" if link else "")


def _line(proposal: dict[str, Any]) -> str:
    summary = _clipped(reveal_plain(proposal.get("summary") or ""))
    by = _clipped(reveal_plain(str(proposal.get("actor") or "an agent")))
    return f"{summary}\nby {by}"


def _clipped(text: str) -> str:
    return text if len(text) <= BODY_MAX else text[: BODY_MAX - 1] + "…"
