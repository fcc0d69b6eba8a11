"""Which process owns an approved proposal while it executes: an owner names the host, the
pid and that process's start time, so a pid reused by another program never passes for the
one that died (``Approvals.recover`` takes over what dead processes owned)."""

from __future__ import annotations

import os
import socket


def of_this_process() -> str:
    import psutil  # here, not at the top: only an owner needs it, and it costs every start-up

    return f"{socket.gethostname()}:{os.getpid()}:{psutil.Process().create_time():.3f}"


def is_dead(owner: str) -> bool:
    """Whether the process ``owner`` names is gone (another machine's is not ours to
    judge: never dead)."""
    import psutil

    host, pid, started = owner.rsplit(":", 2)
    if host != socket.gethostname():
        return False
    try:
        return f"{psutil.Process(int(pid)).create_time():.3f}" != started
    except psutil.NoSuchProcess:
        return True
