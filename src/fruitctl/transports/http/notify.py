"""Desktop notifications when a proposal arrives (seed 003, Milestone 5).

``notify-send`` on Linux, ``osascript`` on macOS, each run with an argument list (never a shell;
the AppleScript reads the text from ``argv``, so a crafted summary cannot become script). Where
neither exists nothing happens. ``ProposalWatcher`` polls the pending proposals, so a proposal
filed by any process - MCP over stdio, the socket, the CLI - is announced once, with the link to
its page.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from fruitctl.transports.http.ui.text import reveal_plain

TITLE = "fruitctl: approval needed"
BODY_MAX = 240
TIMEOUT_SECONDS = 5
APPLESCRIPT = [
    "-e",
    "on run argv",
    "-e",
    "display notification (item 2 of argv) with title (item 1 of argv)",
    "-e",
    "end run",
]
Run = Callable[..., Any]
Which = Callable[[str], str | None]


def command(title: str, body: str, platform: str, which: Which) -> list[str] | None:
    """The argv that shows a notification here, or None when no notifier exists."""
    if platform == "darwin":
        osascript = which("osascript")
        return [osascript, *APPLESCRIPT, title, body] if osascript else None
    notify_send = which("notify-send")
    if notify_send is None:
        return None
    # Notification servers read a little HTML in the body: escape it, show it as text.
    markup_safe = body.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return [notify_send, "--app-name=fruitctl", "--urgency=normal", title, markup_safe]


class Notifier:
    def __init__(
        self, run: Run = subprocess.run, platform: str = sys.platform, which: Which = shutil.which
    ) -> None:
        self._run = run
        self._platform = platform
        self._which = which

    def send(self, title: str, body: str) -> bool:
        """Show it; False (and silence) when there is no notifier or it fails."""
        argv = command(title, body, self._platform, self._which)
        if argv is None:
            return False
        try:
            done = self._run(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=TIMEOUT_SECONDS,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return False
        return getattr(done, "returncode", 1) == 0


def message(proposal: dict[str, Any], link: str | None) -> str:
    summary = reveal_plain(proposal.get("summary") or "")
    if len(summary) > BODY_MAX:
        summary = summary[: BODY_MAX - 1] + "…"
    by = proposal.get("actor", "an agent")
    return f"{summary}\nby {by}" + (f"\n{link}" if link else "")


class ProposalWatcher:
    """Announces each pending proposal once; those already waiting at start are not news."""

    def __init__(
        self,
        pending: Callable[[], list[dict[str, Any]]],
        notify: Callable[[str, str], Any],
        link: Callable[[str], str | None],
    ) -> None:
        self._pending = pending
        self._notify = notify
        self._link = link
        self._seen: set[str] = set()

    def prime(self) -> None:
        self._seen = {p["id"] for p in self._pending()}

    def poll(self) -> list[str]:
        """Notify about the proposals that arrived since the last poll; their ids."""
        current = self._pending()
        new = [p for p in current if p["id"] not in self._seen]
        for proposal in reversed(new):  # oldest first
            self._notify(TITLE, message(proposal, self._link(proposal["id"])))
        self._seen = {p["id"] for p in current}  # decided ones drop out, so the set stays small
        return [p["id"] for p in new]
