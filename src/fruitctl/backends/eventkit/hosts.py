"""Who macOS asks about this process's access to Reminders and Calendars, and whether it can.

macOS attributes a request to the *responsible* app - the one that started this process, whose
children inherit it - and shows its prompt only when that app's ``Info.plist`` declares why it
wants the data (``NSRemindersFullAccessUsageDescription`` …). An app that does not is refused
without a prompt, and never appears in System Settings: those panes have no "+" to add it by
hand. So the app is found, and classified, to give advice that can be followed:

- ``terminal``: a terminal known to ask for its children (Terminal, iTerm2, Zed).
- ``holder``: ``fruitctl.app``, the small app ``fruitctl service install`` builds so that the
  gateway has an identity macOS can ask about; its launcher starts Python as its child.
- ``app``: any other app (Claude Desktop, Cursor, VS Code and Warp, whose terminals are known to
  be refused): it cannot ask, and Claude Desktop even disclaims its children.
- ``ssh``: a session over SSH: nobody at the Mac sees a prompt.
- ``service``: no app above (launchd, cron): a bare Python, which has no ``Info.plist``.

Framework Pythons (Homebrew, python.org, the Command Line Tools) re-execute themselves inside
``Python.framework/…/Resources/Python.app``: that bundle is the interpreter, never the app, and
is skipped.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

HostKind = Literal["terminal", "holder", "app", "ssh", "service"]
ASKING: frozenset[HostKind] = frozenset({"terminal", "holder"})

# Terminals reported to show the prompt for the programs run in them (BRO3886/rem#41: Terminal,
# iTerm2 and Zed work; VS Code's terminal and Warp are refused silently). Any other app is
# taken to be unable to ask: a prompt that never comes is worse than a route that works.
TERMINALS = frozenset({"terminal", "iterm", "iterm2", "zed"})
HOLDER_BUNDLE = "fruitctl.app"
"""The bundle ``fruitctl service install`` builds (``~/Applications/fruitctl.app``)."""
SSH_DAEMONS = frozenset({"sshd", "sshd-session"})
# An app bundle inside a framework is the framework's helper - Python.app of a framework
# Python (Python.framework, or Python3.framework in Xcode and the Command Line Tools).
_FRAMEWORK_APP = re.compile(r"\.framework/.*\.app/")


@dataclass(frozen=True)
class Responsible:
    """The app macOS asks about access for this process, and what kind of host it is."""

    name: str
    path: str
    kind: HostKind

    @property
    def can_ask(self) -> bool:
        """Whether macOS shows its prompt for this host (so a grant can be given at all)."""
        return self.kind in ASKING


def responsible(chain: Sequence[str], executable: str = sys.executable) -> Responsible:
    """From the executables of this process and its parents (nearest first), the app that is
    responsible for it: the first app bundle that is not a framework's Python.app; an SSH
    session met first; else this Python itself (started by launchd or another service)."""
    for path in chain:
        if _FRAMEWORK_APP.search(path):
            continue
        bundle, found, _ = path.partition(".app/")
        if found:
            return _app(bundle + ".app")
        if os.path.basename(path) in SSH_DAEMONS:
            return Responsible("an SSH session", path, "ssh")
    return Responsible(f"the Python at {executable}", executable, "service")


def _app(bundle: str) -> Responsible:
    folder = os.path.basename(bundle)
    name = folder.removesuffix(".app")
    if folder.casefold() == HOLDER_BUNDLE:
        return Responsible(name, bundle, "holder")
    kind: HostKind = "terminal" if name.casefold() in TERMINALS else "app"
    return Responsible(name, bundle, kind)


def process_chain(pid: int | None = None) -> list[str]:
    """The executables of a process (this one by default) and its ancestors, nearest first
    (unknown ones left out)."""
    import psutil  # here: only a refusal or `fruitctl doctor` needs it

    chain: list[str] = []
    process: psutil.Process | None = psutil.Process(pid)
    while process is not None and process.pid > 1:
        try:
            chain.append(process.exe())
            process = process.parent()
        except psutil.Error:
            break
    return chain


def kernel_responsible(pid: int) -> int | None:
    """The pid macOS holds responsible for ``pid`` - its own answer, which survives what the
    parent walk cannot see: a daemon re-parented to launchd after ``fruitctl server start``
    (still Terminal's), a host that disclaimed its child (its own). A private function of
    libSystem (Chromium's ``IsProcessSelfResponsible`` uses it); None off a Mac or without it."""
    if sys.platform != "darwin":
        return None
    import ctypes  # here: only a Mac gets this far

    try:
        ask = ctypes.CDLL("/usr/lib/libSystem.B.dylib").responsibility_get_pid_responsible_for_pid
    except (OSError, AttributeError):
        return None
    ask.argtypes, ask.restype = [ctypes.c_int], ctypes.c_int
    found = int(ask(pid))
    return found if found > 0 else None


def detect(
    kernel: Callable[[int], int | None] = kernel_responsible,
    chain: Callable[[int], list[str]] = process_chain,
) -> Responsible:
    """This process's responsible app: the walk from the process macOS names, when it names
    one; a process that answers for itself has no ``Info.plist`` of its own, so cannot ask."""
    own = os.getpid()
    held = kernel(own)
    if held is not None and held != own:
        return responsible(chain(held))
    found = responsible(chain(own))
    if held == own and found.can_ask:  # a host that disclaimed us: its grant is not ours
        return replace(found, kind="app")
    return found
