"""What a test does when a program it drives is missing: fail where it must run, skip elsewhere.

``make test`` installs Debian's chromium itself on Linux as root with apt-get, and ``.ci/run``
sets ``FRUITCTL_TEST_STRICT=1``: there a missing browser or Inspector is a broken set-up and
fails the run, so CI never passes by skipping them. Elsewhere (a Mac, a Linux box without root)
the test skips and its reason says what it needs and how to get it. The Makefile's ``REQUIRED``
holds the same rule.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import NoReturn

import pytest

STRICT = "FRUITCTL_TEST_STRICT"


def required_here() -> bool:
    """Whether a missing tool is a failure here rather than a skip."""
    if os.environ.get(STRICT) == "1":
        return True
    return sys.platform == "linux" and os.geteuid() == 0 and shutil.which("apt-get") is not None


def missing(what: str) -> NoReturn:
    """Fail or skip the calling test, saying ``what`` is missing and how to get it."""
    if required_here():
        why = f"{STRICT}=1" if os.environ.get(STRICT) == "1" else "Linux as root with apt-get"
        pytest.fail(f"{what} (required here: {why}, where make test installs it)")
    pytest.skip(what)
