"""Desktop notifications when a proposal arrives, each leading to its approval page.

macOS: ``terminal-notifier`` when installed (a click opens the page: ``-open URL``), otherwise
``osascript`` showing the summary and the link. Linux: ``notify-send`` with the link in the text
and, where the installed libnotify has actions, an "Open" button that opens the page with
``xdg-open``. Every program is run with an argument list, never a shell (the AppleScript reads
its text from ``argv``, so a crafted summary cannot become script); where none exists nothing
happens. ``ProposalWatcher`` polls the pending proposals, so a proposal filed by any process -
MCP over stdio, the socket, the CLI, an agent elsewhere - is announced once.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import threading
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
ACTION_WAIT_SECONDS = 600  # how long an "Open" button is listened for
Run = Callable[..., Any]
Which = Callable[[str], str | None]


def command(
    title: str, body: str, platform: str, which: Which, link: str | None = None
) -> list[str] | None:
    """The argv that shows a notification here, or None when no notifier exists. ``link``: the
    page a click opens, where the notifier can (terminal-notifier)."""
    if platform == "darwin":
        notifier = which("terminal-notifier")
        if notifier:
            opens = ["-open", link] if link else []
            return [notifier, "-title", title, "-message", body, "-group", "fruitctl", *opens]
        osascript = which("osascript")
        return [osascript, *APPLESCRIPT, title, body] if osascript else None
    notify_send = which("notify-send")
    if notify_send is None:
        return None
    # Notification servers read a little HTML in the body: escape it, show it as text.
    markup_safe = body.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return [notify_send, "--app-name=fruitctl", "--urgency=normal", title, markup_safe]


def with_open_action(argv: list[str]) -> list[str]:
    """notify-send waiting for an "Open" button (it prints ``open`` when clicked)."""
    return [argv[0], "--action=open=Open", "--wait", *argv[1:]]


class Notifier:
    def __init__(
        self,
        run: Run = subprocess.run,
        platform: str = sys.platform,
        which: Which = shutil.which,
        spawn: Run = subprocess.Popen,
    ) -> None:
        self._run = run
        self._spawn = spawn
        self._platform = platform
        self._which = which
        self._actions: bool | None = None

    def send(self, title: str, body: str, link: str | None = None) -> bool:
        """Show it; False (and silence) when there is no notifier or it fails."""
        argv = command(title, body, self._platform, self._which, link)
        if argv is None:
            return False
        opener = self._which("xdg-open") if self._platform != "darwin" else None
        if link and opener and self._has_actions(argv[0]):
            return self._with_button(with_open_action(argv), [opener, link])
        try:
            done = self._run(argv, timeout=TIMEOUT_SECONDS, check=False, **QUIET)
        except (OSError, subprocess.SubprocessError):
            return False
        return getattr(done, "returncode", 1) == 0

    def _has_actions(self, notify_send: str) -> bool:
        """Whether this notify-send has ``--action`` (libnotify 0.7.10 and later)."""
        if self._actions is None:
            try:
                shown = self._run(
                    [notify_send, "--help"],
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    text=True,
                    timeout=TIMEOUT_SECONDS,
                    check=False,
                )
                self._actions = "--action" in str(getattr(shown, "stdout", ""))
            except (OSError, subprocess.SubprocessError):
                self._actions = False
        return self._actions

    def _with_button(self, argv: list[str], opens: list[str]) -> bool:
        """Show it and, on a thread of its own, open the page if the button is clicked."""
        try:
            shown = self._spawn(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
        except OSError:
            return False

        def listen() -> None:
            try:
                clicked, _ = shown.communicate(timeout=ACTION_WAIT_SECONDS)
            except subprocess.TimeoutExpired:
                shown.kill()
                shown.communicate()
                return
            if clicked and clicked.strip() == b"open":
                with contextlib.suppress(OSError, subprocess.SubprocessError):
                    self._run(opens, timeout=TIMEOUT_SECONDS, check=False, **QUIET)

        threading.Thread(target=listen, name="fruitctl-notification", daemon=True).start()
        return True


QUIET: dict[str, Any] = {
    "stdin": subprocess.DEVNULL,
    "stdout": subprocess.DEVNULL,
    "stderr": subprocess.DEVNULL,
}


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
        notify: Callable[[str, str, str | None], Any],
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
            link = self._link(proposal["id"])
            self._notify(TITLE, message(proposal, link), link)
        self._seen = {p["id"] for p in current}  # decided ones drop out, so the set stays small
        return [p["id"] for p in new]
