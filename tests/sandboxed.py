"""Programs for sandbox tests, and how a test tells that one of their processes has ended."""

from __future__ import annotations

import fcntl
import os
import sys
import time
from pathlib import Path


def python(code: str, *args: str) -> list[str]:
    return [sys.executable, "-c", code, *args]


HOLD = """
import fcntl, os, sys, time

def hold(path):
    # A lock that lives exactly as long as this process (taken on a temporary name, then
    # renamed: the test sees the name only once the lock is held). Process ids do not help:
    # inside a PID namespace they are not the gateway's.
    fd = os.open(path + ".tmp", os.O_CREAT | os.O_WRONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.rename(path + ".tmp", path)
    return fd

def wait_for(path):
    while not os.path.exists(path):
        time.sleep(0.01)
"""


def released(path: Path, within: float = 3.0) -> bool:
    """Whether the process holding the lock at ``path`` (see ``HOLD``) has ended."""
    assert path.exists(), f"no process ever took the lock {path.name}"
    end = time.monotonic() + within
    fd = os.open(path, os.O_WRONLY)
    try:
        while time.monotonic() < end:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                time.sleep(0.02)
        return False
    finally:
        os.close(fd)
