"""The real thing, on a Mac only: a to-do written to the person's own Things 3 and read back.

The write goes through the ``things:///`` URL scheme with fruitctl's launcher (the default
``open_command`` on a Mac) and is confirmed from Things' own database, as the backend does for
an agent. Things' URL scheme cannot delete, so the to-do is cancelled at the end: it stays in
the Logbook, titled ``fruitctl test …`` (delete it by hand if you like).

Everywhere else these are skipped with the reason (the Things-schema fixture and the URL
recorder beside this file prove the rest). On a Mac they need ``FRUITCTL_TEST_THINGS=1``
(``make test-mac`` sets it), Things 3 installed and opened once, "Enable Things URLs" on
(Things > Settings > General), and read access to Things' database for the terminal running
them (its Group Container: System Settings > Privacy & Security > Full Disk Access).
"""

from __future__ import annotations

import os
import secrets
import sys
from datetime import date

import pytest

from fruitctl.backends import things
from fruitctl.config import ThingsConfig
from fruitctl.ports import NewToDo

CONFIRM_SECONDS = 30.0  # Things may be launched by the first URL: seconds, not milliseconds

pytestmark = [
    pytest.mark.skipif(
        sys.platform != "darwin",
        reason="needs macOS with Things 3 (make test-mac on a Mac); here the Things-schema "
        "fixture and the URL recorder cover the backend",
    ),
    pytest.mark.skipif(
        os.environ.get("FRUITCTL_TEST_THINGS") != "1",
        reason="writes a to-do into the person's own Things (then cancels it): set "
        "FRUITCTL_TEST_THINGS=1 to allow it (make test-mac does)",
    ),
]


def test_a_to_do_round_trip_through_the_real_things() -> None:
    found = things.default_database()
    if found is None:
        pytest.fail(
            "Things 3's database was not found: install Things 3 and open it once, or give "
            "this terminal Full Disk Access so it can read Things' Group Container"
        )
    database = things.ThingsDatabase(found)
    writer = things.ThingsWriter(database, ThingsConfig().open_command, CONFIRM_SECONDS)
    title = f"fruitctl test {secrets.token_hex(3)}"
    sent = writer.create(NewToDo(title=title, when="someday"))
    assert sent.confirmed and sent.todo is not None, "Things did not show the new to-do"
    try:
        assert database.todo(sent.todo.id, date.today()).title == title
    finally:
        cancelled = writer.update(sent.todo.id, {"status": "canceled"})
    assert cancelled.confirmed, "Things did not show the to-do as cancelled"
    assert database.todo(sent.todo.id, date.today()).status == "canceled"
