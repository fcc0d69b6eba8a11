"""The real thing, on a Mac only: the PyObjC adapter against the person's own EventKit store.

Everywhere else these are skipped with the reason, and the fake-backed tests beside this file
prove everything above the adapter. On a Mac they also need ``FRUITCTL_TEST_EVENTKIT=1`` (they
make and remove a temporary list in the person's Reminders) and access granted to the app that
runs them (run ``fruitctl doctor`` once in that app first).
"""

from __future__ import annotations

import os
import secrets

import pytest

from fruitctl.backends import eventkit
from fruitctl.backends.eventkit.permission import Access
from fruitctl.ports import NewReminder, ReminderQuery, ReminderScope

pytestmark = [
    pytest.mark.skipif(
        not eventkit.available(),
        reason="needs macOS with PyObjC's EventKit bridge; on Linux the fake-backed tests cover "
        "the mapping and the selectors are checked against Apple's list",
    ),
    pytest.mark.skipif(
        os.environ.get("FRUITCTL_TEST_EVENTKIT") != "1",
        reason="writes a temporary list into the person's own Reminders: set "
        "FRUITCTL_TEST_EVENTKIT=1 to allow it",
    ),
]


def test_a_round_trip_through_the_real_store() -> None:
    backend = eventkit.open_reminders(Access(eventkit.shared_port(), may_prompt=True))
    made = backend.create_list(f"fruitctl test {secrets.token_hex(3)}")
    try:
        (created,) = backend.create(
            [NewReminder(list_id=made.id, title="fruitctl test", priority=5)]
        )
        assert backend.get(created.id).title == "fruitctl test"
        scope = ReminderScope(list_ids=(made.id,))
        assert [r.id for r in backend.fetch(ReminderQuery(scope=scope))] == [created.id]
        backend.delete(created.id)
        assert backend.fetch(ReminderQuery(scope=scope)) == []
    finally:
        backend.delete_list(made.id)
