"""The fast lane's guard: a test that starts another process without the ``process`` mark fails.

``make test-fast`` leaves out the tests marked ``process`` (and ``slow``). ``tests/conftest.py``
turns the guard on for each test without the mark; a start is then refused, and recorded, so a
test whose code swallowed the refusal fails all the same. Python's process starts cost most of a
second of CPU each: the lane must not drift into paying for them.
"""

from __future__ import annotations

import os
import subprocess
from typing import Any

starts_allowed = True
_spawn = subprocess.Popen.__init__
_posix_spawn = os.posix_spawn


class UnmarkedProcess(AssertionError):
    pass


# What a test tried to start, kept even when the code under test swallowed the refusal.
refused_starts: list[str] = []


def _refuse(what: object) -> None:
    if not starts_allowed:
        refused_starts.append(str(what)[:80])
        raise UnmarkedProcess(
            f"this test starts a process ({str(what)[:80]}): mark it @pytest.mark.process"
            " (or slow), so make test-fast leaves it out"
        )


def _guarded_popen(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
    _refuse(args)
    _spawn(self, args, *rest, **kwargs)


def _guarded_posix_spawn(path: Any, argv: Any, *rest: Any, **kwargs: Any) -> int:
    _refuse(argv)
    return _posix_spawn(path, argv, *rest, **kwargs)


subprocess.Popen.__init__ = _guarded_popen  # type: ignore[method-assign]
os.posix_spawn = _guarded_posix_spawn
