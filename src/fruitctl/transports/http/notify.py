"""Desktop notifications: one notifier process at a time, never a thread.

macOS: ``terminal-notifier`` when installed (a click opens the page: ``-open URL``), otherwise
``osascript`` showing the summary and the link. Linux: ``notify-send`` with the link in the text
and, where the installed libnotify has actions, an "Open" button that opens the page with
``xdg-open``. Every program is run with an argument list, never a shell (the AppleScript reads
its text from ``argv``, so a crafted summary cannot become script); where none exists nothing
happens.

``Notifier`` starts each notification as a process and leaves it running: whoever shows the next
one (``announce.ProposalWatcher``, each poll) calls ``tend`` first, which reaps it, opens the page
if its button was clicked, and ends it past its time. A notification still being handed over
makes the next one wait (``busy``: for ``TIMEOUT_SECONDS`` at most); one past that, only waiting
for a click, is replaced by the next. So a flood of
proposals holds one process and one pipe at most, where a thread and a process per proposal, up
to ten minutes each, once took a hundred of each.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

TIMEOUT_SECONDS = 5  # a notifier that has not handed its notification over by then never will
APPLESCRIPT = [
    "-e",
    "on run argv",
    "-e",
    "display notification (item 2 of argv) with title (item 1 of argv)",
    "-e",
    "end run",
]
ACTION_WAIT_SECONDS = 600  # how long an "Open" button is listened for
CLICK_BYTES = 64  # "open\n" is all a clicked button prints
Run = Callable[..., Any]
Which = Callable[[str], str | None]
QUIET: dict[str, Any] = {
    "stdin": subprocess.DEVNULL,
    "stdout": subprocess.DEVNULL,
    "stderr": subprocess.DEVNULL,
}


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


@dataclass
class Shown:
    """A notification's process, until when it may run, when it has surely handed the
    notification over, and the page its button opens."""

    process: subprocess.Popen[bytes]
    until: float
    handed_over: float
    opens: list[str] | None = None


class Notifier:
    def __init__(
        self,
        run: Run = subprocess.run,
        platform: str = sys.platform,
        which: Which = shutil.which,
        spawn: Run = subprocess.Popen,
        handover_seconds: float = TIMEOUT_SECONDS,
    ) -> None:
        self._run = run
        self._handover = handover_seconds
        self._spawn = spawn
        self._platform = platform
        self._which = which
        self._actions: bool | None = None
        self._shown: Shown | None = None

    def send(self, title: str, body: str, link: str | None = None) -> bool:
        """Show it, in place of a notification still showing; False (and silence) when there is
        no notifier or it cannot start."""
        argv = command(title, body, self._platform, self._which, link)
        if argv is None:
            return False
        self.close()
        opener = self._which("xdg-open") if self._platform != "darwin" else None
        if link and opener and self._has_actions(argv[0]):
            return self._start(with_open_action(argv), ACTION_WAIT_SECONDS, [opener, link])
        return self._start(argv, self._handover)

    def busy(self) -> bool:
        """Whether a notification may still be being handed over: the next one waits its turn
        (one only waiting for a click, past that, is not in the way)."""
        self.tend()
        return self._shown is not None and time.monotonic() < self._shown.handed_over

    def tend(self) -> None:
        """Reap the notification's process once it ended - opening the page if its button was
        clicked - and end it past its time."""
        shown = self._shown
        if shown is None:
            return
        if shown.process.poll() is None:
            if time.monotonic() >= shown.until:
                self.close()
            return
        self._shown = None
        clicked = _printed(shown.process)
        if shown.opens and clicked.strip() == b"open":
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                self._run(shown.opens, timeout=TIMEOUT_SECONDS, check=False, **QUIET)

    def close(self) -> None:
        """End the notification's process, if one runs (its button is no longer listened to)."""
        shown, self._shown = self._shown, None
        if shown is None:
            return
        with contextlib.suppress(OSError):
            shown.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            shown.process.wait(TIMEOUT_SECONDS)
        _printed(shown.process)

    def _start(self, argv: list[str], seconds: float, opens: list[str] | None = None) -> bool:
        # Only a button's answer is read: a plain notification gets no pipe.
        output = subprocess.PIPE if opens else subprocess.DEVNULL
        try:
            process = self._spawn(
                argv, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.DEVNULL
            )
        except OSError:
            return False
        now = time.monotonic()
        self._shown = Shown(process, now + seconds, now + self._handover, opens)
        return True

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


def _printed(process: subprocess.Popen[bytes]) -> bytes:
    """What an ended process printed (a few bytes at most), its pipe closed. Read without
    waiting: a child it left behind could hold the pipe open."""
    if process.stdout is None:
        return b""
    with process.stdout as pipe:
        os.set_blocking(pipe.fileno(), False)
        try:
            return pipe.read(CLICK_BYTES) or b""
        except OSError:
            return b""
