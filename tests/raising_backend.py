"""A reminders backend that raises the error a test asks for, loaded as a plug-in
(``[reminders] backend = "raising_backend:raising_reminders"``, this directory on PYTHONPATH) by
a ``fruitctl serve`` subprocess and by a CLI in the test's process alike.

``get_lists`` (``lists()``) raises the domain error whose canonical code the file named by
``FRUITCTL_TEST_RAISE`` holds, with ``message(code)`` and ``DETAILS``; with the file empty or
absent it is the local store. A test writes a code, calls through a door, and sees what arrives.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from fruitctl.backends.local import LocalReminders
from fruitctl.domain.errors import from_code
from fruitctl.domain.reminders import ReminderList
from fruitctl.store import open_database

RAISE_ENV = "FRUITCTL_TEST_RAISE"
DETAILS = {"raisedBy": "raising_backend", "step": 3}


def message(code: str) -> str:
    return f"The {code} raised for the contract test: every door shows these words."


class RaisingReminders(LocalReminders):
    def lists(self, *, with_counts: bool = True) -> list[ReminderList]:
        path = os.environ.get(RAISE_ENV)
        code = Path(path).read_text().strip() if path and Path(path).exists() else ""
        if code:
            raise from_code(code, message(code), **DETAILS)
        return super().lists(with_counts=with_counts)


def raising_reminders(config: Any) -> Any:
    return RaisingReminders(open_database(config.paths.local_db, "local"))
