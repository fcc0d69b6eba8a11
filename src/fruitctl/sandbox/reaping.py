"""Ending every process a sandboxed program started: a call's own pids cgroup, and the
process-tree walk for machines with neither namespaces nor cgroups (see ``sandbox.isolation``)."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded when a tree is walked: a tool's declaration imports this package
    import psutil

MARK = "FRUITCTL_SANDBOX_CALL"
"""Environment variable every sandboxed program gets, with a token of its call: what finds an
orphan whose parent died before the walk reached it."""
_ROUNDS = 50
_RMDIR_WAIT = 2.0


class CallCgroup:
    """A pids cgroup of one call: its members cannot leave it or pass ``pids.max``."""

    def __init__(self, base: Path, most: int) -> None:
        self.path = base / f"fruitctl-{os.getpid()}-{secrets.token_hex(4)}"
        self.path.mkdir()
        (self.path / "pids.max").write_text(str(most))
        self.procs = str(self.path / "cgroup.procs")

    def join(self) -> None:
        """Move the calling process in (in the forked child, before exec: system calls only)."""
        fd = os.open(self.procs, os.O_WRONLY)
        try:
            os.write(fd, b"0")
        finally:
            os.close(fd)

    def members(self) -> list[int]:
        try:
            return [int(word) for word in Path(self.procs).read_text().split()]
        except OSError:
            return []

    def kill_all(self) -> None:
        """Kill every member until none is left (a member forking meanwhile stays inside)."""
        for _ in range(_ROUNDS):
            pids = self.members()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.005)

    def limit_reached(self) -> bool:
        """Whether a fork was refused because the call had ``pids.max`` processes."""
        try:
            events = (self.path / "pids.events").read_text().split()
        except OSError:
            return False
        counts = dict(zip(events[::2], events[1::2], strict=False))
        return int(counts.get("max", "0")) > 0

    def remove(self) -> None:
        """Remove the cgroup once its last member is gone (the kernel takes a moment)."""
        end = time.monotonic() + _RMDIR_WAIT
        while True:
            try:
                self.path.rmdir()
                return
            except OSError:
                if time.monotonic() > end:
                    return  # left behind empty-ish; the next doctor run can tell
                self.kill_all()
                time.sleep(0.01)


def kill_tree(leader: int | None, token: str) -> None:
    """Stop, then kill, every descendant of ``leader`` and every process of this user marked
    with ``token`` - walking again until a walk finds nothing new, so a process that forks or
    starts a session of its own meanwhile is caught (a stopped process forks no more)."""
    import psutil

    held: dict[int, psutil.Process] = {}
    for _ in range(_ROUNDS):
        fresh = [p for p in _descendants(leader) + _marked(token) if p.pid not in held]
        if not fresh:
            break
        for process in fresh:
            held[process.pid] = process
            with contextlib.suppress(psutil.Error):
                process.send_signal(signal.SIGSTOP)
    for process in held.values():
        with contextlib.suppress(psutil.Error):
            process.kill()  # psutil checks the pid still names the same process


def _descendants(leader: int | None) -> list[psutil.Process]:
    import psutil

    if leader is None:
        return []
    try:
        return list(psutil.Process(leader).children(recursive=True))
    except psutil.Error:
        return []


def _marked(token: str) -> list[psutil.Process]:
    import psutil

    wanted = f"{MARK}={token}"
    found: list[psutil.Process] = []
    me = os.getuid()
    for process in psutil.process_iter(["uids"]):
        uids = process.info.get("uids")
        if uids is None or uids.real != me or process.pid == os.getpid():
            continue
        with contextlib.suppress(psutil.Error):
            env = process.environ()
            if f"{MARK}={env.get(MARK)}" == wanted:
                found.append(process)
    return found
