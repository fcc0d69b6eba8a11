"""A sync waits on the server without the mirror's lock, so a write may land in the mirror while
a sync is under way: the sync must not undo it with what the server said before the write."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from caldav_server import (
    Account,
    FaultProxy,
    OpenBackend,
    ProxyHandler,
    Radicale,
    running_proxy,
    vtodo,
)

from fruitctl.backends.caldav import CaldavReminders, Progress, state
from fruitctl.domain.reminders import Reminder
from fruitctl.ports import NewReminder, ReminderQuery, ReminderScope

WAIT_S = 30.0
"""A generous bound on each wait of these tests (each is over in well under a second)."""


@pytest.fixture
def proxy(radicale: Radicale) -> Iterator[FaultProxy]:
    with running_proxy(radicale.url) as running:
        yield running


def _passes(_: ProxyHandler) -> bool:
    return False


def _answered(event: threading.Event) -> Any:
    """Forward the request, and say so once the server has answered it."""

    def fault(handler: ProxyHandler) -> bool:
        handler.forward()
        event.set()
        return True

    return fault


def test_a_write_made_during_a_sync_is_not_undone_by_it(
    open_backend: OpenBackend, caldav_account: Account, proxy: FaultProxy
) -> None:
    backend = open_backend(url=f"{proxy.url}{caldav_account.username}/", staleness_seconds=3600)
    backend.sync()
    # Two new lists, made elsewhere: the next sync reads both whole, the second one's listing
    # asked (and answered) while the first one is being stored.
    first = caldav_account.make_calendar("First")
    caldav_account.make_calendar("Second")
    assert caldav_account.put(first + "a.ics", vtodo("a", "SUMMARY:in the first")) == 201
    listed = threading.Event()
    proxy.inject(_passes, "REPORT")
    proxy.inject(_answered(listed), "REPORT")
    written: list[Any] = []

    def write_meanwhile(done: Progress) -> None:
        """Once the second listing is answered: a reminder created in that list."""
        other = "Second" if done.collection == "First" else "First"
        assert listed.wait(WAIT_S)

        def create() -> None:
            (target,) = [lst.id for lst in backend.lists() if lst.name == other]
            written.extend(backend.create([NewReminder(list_id=target, title="meanwhile")]))

        writer = threading.Thread(target=create, daemon=True)
        writer.start()
        writer.join(WAIT_S)
        assert not writer.is_alive(), "the write waited on the sync"

    report = backend.sync(write_meanwhile)
    assert report.modes["First"] == report.modes["Second"] == "query"
    (created,) = written
    # The second listing (from before the write) does not name it; the mirror still has it.
    assert backend.get(created.id).title == "meanwhile"
    titles = sorted(r.title for lst in ("First", "Second") for r in _in_list(backend, lst))
    assert titles == ["in the first", "meanwhile"]


def _in_list(backend: CaldavReminders, name: str) -> list[Reminder]:
    (list_id,) = [lst.id for lst in backend.lists() if lst.name == name]
    return backend.fetch(ReminderQuery(ReminderScope((list_id,), "all")))


def test_a_sync_applies_only_what_no_write_changed_since_it_asked(
    backend: CaldavReminders,
) -> None:
    list_id = backend.lists()[0].id
    changed, kept = backend.create([NewReminder(list_id=list_id, title=t) for t in "ab"])
    with backend.mirror.engine.connect() as conn:
        asked = state.etags(conn, backend.lists()[0].id)  # what a sync would hold before asking
    backend.update(changed.id, {"title": "written meanwhile"})
    with backend.mirror.engine.connect() as conn:
        hrefs = {r.id: state.by_uid(conn, r.id, "VTODO").href for r in (changed, kept)}  # type: ignore[union-attr]
        untouched = state.untouched(conn, asked, [*hrefs.values(), "/elsewhere/new.ics"])
    # The written one is left alone; the other, and one the mirror never had, may be applied.
    assert untouched == {hrefs[kept.id], "/elsewhere/new.ics"}
