"""Server -> mirror: what another client does shows up, by sync-token or by ETag comparison, as
often as the staleness bound says; broken objects are skipped, calendars come and go."""

from __future__ import annotations

import logging
import threading

import pytest
from caldav_server import Account, OpenBackend, running_proxy, vtodo
from sqlalchemy import inspect, update

from fruitctl.backends import caldav
from fruitctl.backends.caldav import CaldavReminders, Progress, state
from fruitctl.backends.caldav.collections import Ahead
from fruitctl.backends.caldav.errors import SyncUnsupported
from fruitctl.backends.caldav.wire import Listing
from fruitctl.domain.errors import NotFound
from fruitctl.ports import NewReminder, ReminderQuery, ReminderScope

EVERYTHING = ReminderQuery(ReminderScope(None, "all"))


def _titles(backend: CaldavReminders) -> list[str]:
    return sorted(r.title for r in backend.fetch(EVERYTHING))


def _changes_by_another_client(account: Account, backend: CaldavReminders) -> None:
    """Add one, change one, delete one - with plain HTTP, as a phone would."""
    calendar = account.made[0]
    assert account.put(calendar + "new.ics", vtodo("new", "SUMMARY:added elsewhere")) == 201
    kept, dropped = backend.create(
        [NewReminder(list_id=backend.lists()[0].id, title=t) for t in ("kept", "dropped")]
    )
    urls = {r.id: url for url in account.members(calendar) for r in (kept, dropped) if r.id in url}
    text, etag = account.get(urls[kept.id])
    changed = text.replace("SUMMARY:kept", "SUMMARY:changed elsewhere")
    assert account.put(urls[kept.id], changed, **{"If-Match": etag}) == 204
    assert account.delete(urls[dropped.id]) in (200, 204)


@pytest.mark.parametrize("use_sync_token", [True, False], ids=["sync-token", "etag"])
def test_changes_made_elsewhere_show_up(
    open_backend: OpenBackend, caldav_account: Account, use_sync_token: bool
) -> None:
    backend = open_backend(staleness_seconds=3600, use_sync_token=use_sync_token)
    assert _titles(backend) == []
    _changes_by_another_client(caldav_account, backend)
    report = backend.sync().to_wire()
    assert _titles(backend) == ["added elsewhere", "changed elsewhere"]
    mode = "sync-token" if use_sync_token else "etag"
    assert report["modes"] == {"Reminders": mode, "Calendar": "unchanged"}
    # Only what changed travels: the new one and the changed one (ours were known already).
    assert (report["fetched"], report["deleted"]) == (2, 1)
    again = backend.sync().to_wire()
    assert again["modes"] == {"Reminders": "unchanged", "Calendar": "unchanged"}
    assert again["fetched"] == 0


def test_within_the_staleness_bound_reads_come_from_the_mirror(
    open_backend: OpenBackend, caldav_account: Account
) -> None:
    patient = open_backend(staleness_seconds=3600)
    eager = open_backend(staleness_seconds=0)
    assert _titles(patient) == _titles(eager) == []
    caldav_account.put(caldav_account.made[0] + "x.ics", vtodo("x", "SUMMARY:fresh"))
    assert _titles(eager) == ["fresh"]
    assert _titles(patient) == []  # not stale yet: no request to the server
    patient.sync()
    assert _titles(patient) == ["fresh"]


def test_an_expired_sync_token_means_a_full_resync(
    backend: CaldavReminders, caldav_account: Account
) -> None:
    (mine,) = backend.create([NewReminder(list_id=backend.lists()[0].id, title="mine")])
    caldav_account.put(caldav_account.made[0] + "x.ics", vtodo("x", "SUMMARY:theirs"))
    with backend.mirror.writer.begin() as conn:
        conn.execute(update(state.collections).values(sync_token="http://radicale.org/ns/sync/0"))
    assert _titles(backend) == ["mine", "theirs"]
    assert backend.get(mine.id) == mine


@pytest.mark.slow
@pytest.mark.process
def test_progress_is_reported_per_batch(backend: CaldavReminders, caldav_account: Account) -> None:
    items = {f"t{i}.ics": vtodo(f"t{i}", f"SUMMARY:todo {i}") for i in range(1_100)}
    caldav_account.write_items(caldav_account.made[0], items)
    seen: list[Progress] = []
    report = backend.sync(seen.append)
    assert [(p.done, p.total) for p in seen] == [(500, 1_100), (1_000, 1_100), (1_100, 1_100)]
    assert {p.collection for p in seen} == {"Reminders"}
    assert report.fetched == 1_100
    assert len(backend.fetch(EVERYTHING)) == 1_100


def test_a_broken_object_is_skipped_with_a_warning(
    backend: CaldavReminders, caldav_account: Account, caplog: pytest.LogCaptureFixture
) -> None:
    calendar = caldav_account.made[0]
    # Radicale accepts this (it does not check PRIORITY); a strict iCalendar reader does not.
    assert caldav_account.put(calendar + "bad.ics", vtodo("bad", "PRIORITY:high")) == 201
    caldav_account.put(calendar + "good.ics", vtodo("good", "SUMMARY:fine"))
    with caplog.at_level(logging.WARNING, logger="fruitctl.caldav"):
        report = backend.sync()
    assert report.broken == 1
    assert _titles(backend) == ["fine"]
    assert any("bad.ics" in r.getMessage() for r in caplog.records)
    with pytest.raises(NotFound):
        backend.get("bad")
    # Remembered by its ETag: not fetched again until it changes - then it is read again.
    assert backend.sync().fetched == 0
    caldav_account.put(calendar + "bad.ics", vtodo("bad", "PRIORITY:1", "SUMMARY:fixed"))
    assert backend.get("bad").priority == 1


def test_calendars_come_and_go_with_their_reminders(
    backend: CaldavReminders, caldav_account: Account
) -> None:
    assert [lst.name for lst in backend.lists()] == ["Reminders"]
    work = caldav_account.make_calendar("Work")
    caldav_account.make_calendar("Meetings", ["VEVENT"])  # not a task list
    caldav_account.put(work + "w.ics", vtodo("w", "SUMMARY:at work"))
    assert [lst.name for lst in backend.lists()] == ["Reminders", "Work"]
    assert [(lst.name, lst.count) for lst in backend.lists()][1] == ("Work", 1)
    with caldav_account.http() as client:
        client.delete(work).raise_for_status()
    assert [lst.name for lst in backend.lists()] == ["Reminders"]
    with pytest.raises(NotFound):
        backend.get("w")


def test_configured_lists_select_and_the_first_is_the_default(
    open_backend: OpenBackend, caldav_account: Account
) -> None:
    caldav_account.make_calendar("Work")
    caldav_account.make_calendar("Someday")
    backend = open_backend(lists=("work", "Reminders"))  # names match case-insensitively
    found = backend.lists()
    assert [(lst.name, lst.isDefault) for lst in found] == [("Work", True), ("Reminders", False)]
    # A list made through fruitctl is kept even though the configuration does not name it.
    made = backend.create_list("Errands")
    assert made.id in {lst.id for lst in backend.lists()}


def test_a_mirror_pointed_at_another_account_starts_over(
    open_backend: OpenBackend, caldav_account: Account
) -> None:
    first = open_backend()
    first.create([NewReminder(list_id=first.lists()[0].id, title="first account")])
    other = caldav_account.server.add_account()
    other.make_calendar("Reminders")
    settings = caldav.Settings(other.home, other.username, other.password, staleness_seconds=0)
    second = caldav.reminders(settings, first.mirror.engine)  # the same mirror file
    try:
        assert _titles(second) == []
        assert [lst.name for lst in second.lists()] == ["Reminders"]
    finally:
        second.mirror.dav.close()


def test_the_local_default_list_of_a_new_mirror_is_replaced_by_the_server_lists(
    open_backend: OpenBackend, caldav_account: Account
) -> None:
    backend = open_backend()
    (only,) = backend.lists()
    assert only.id == caldav_account.made[0].rstrip("/").rsplit("/", 1)[-1]


def test_two_calendars_of_one_name_are_two_lists(
    backend: CaldavReminders, caldav_account: Account
) -> None:
    caldav_account.make_calendar("Work")
    caldav_account.make_calendar("work")
    names = sorted(lst.name for lst in backend.lists())
    assert names == ["Reminders", "Work", "work (2)"] or names == ["Reminders", "Work (2)", "work"]


def test_the_bookkeeping_tables_are_what_the_migration_made(backend: CaldavReminders) -> None:
    found = inspect(backend.mirror.engine)
    for table in state.metadata.sorted_tables:
        columns = {c["name"]: c for c in found.get_columns(table.name)}
        assert set(columns) == {c.name for c in table.columns}, table.name
        for column in table.columns:
            assert columns[column.name]["nullable"] == column.nullable, (table.name, column.name)


def test_a_subtask_arriving_before_its_parent_is_linked_once_the_parent_is_there(
    backend: CaldavReminders, caldav_account: Account
) -> None:
    calendar = caldav_account.made[0]
    child = vtodo("child", "SUMMARY:sub", "RELATED-TO;RELTYPE=PARENT:parent")
    assert caldav_account.put(calendar + "child.ics", child) == 201
    assert backend.get("child").parentId is None  # no such reminder (yet): no dangling link
    assert caldav_account.put(calendar + "parent.ics", vtodo("parent", "SUMMARY:top")) == 201
    assert backend.get("child").parentId == "parent"
    assert caldav_account.delete(calendar + "parent.ics") in (200, 204)
    assert backend.get("child").parentId is None


def test_a_sync_that_finds_nothing_changed_writes_nothing(
    backend: CaldavReminders, caldav_account: Account
) -> None:
    caldav_account.put(caldav_account.made[0] + "x.ics", vtodo("x", "SUMMARY:there"))
    assert backend.sync().fetched == 1
    watcher = backend.mirror.engine.raw_connection()  # sees every other connection's commit
    try:
        version = watcher.execute("PRAGMA data_version").fetchone()[0]
        report = backend.sync()
        assert report.unchanged == report.collections == 2
        # Nothing written, so the read caches (and series expanded into them) stay warm.
        assert watcher.execute("PRAGMA data_version").fetchone()[0] == version
        caldav_account.put(caldav_account.made[0] + "y.ics", vtodo("y", "SUMMARY:more"))
        assert backend.sync().fetched == 1
        assert watcher.execute("PRAGMA data_version").fetchone()[0] != version
    finally:
        watcher.close()


@pytest.mark.slow
def test_a_cold_mirror_is_filled_with_one_report_per_collection(
    open_backend: OpenBackend, caldav_account: Account
) -> None:
    items = {f"t{i}.ics": vtodo(f"t{i}", f"SUMMARY:todo {i}") for i in range(300)}
    caldav_account.write_items(caldav_account.made[0], items)
    with running_proxy(caldav_account.server.url) as proxy:
        backend = open_backend(url=f"{proxy.url}{caldav_account.username}/")
        assert backend.sync().fetched == 300
        # The sync REPORT carried every object's text: no calendar-multiget after it.
        assert proxy.seen.count("REPORT") == 2  # Reminders and Calendar
        assert proxy.seen.count("PROPFIND") <= 5, proxy.seen  # finding the calendars
        # Credentials went with the first request (Basic, to this machine): never a 401.
        assert 401 not in proxy.statuses
        proxy.seen.clear()
        caldav_account.put(caldav_account.made[0] + "t1.ics", vtodo("t1", "SUMMARY:changed"))
        backend.sync()
        # The change's text came with the listing of what changed.
        assert proxy.seen.count("REPORT") == 1 and len(proxy.seen) <= 3, proxy.seen
    assert "changed" in _titles(backend)


def test_a_first_sync_reads_each_new_collection_whole_in_one_request(
    backend: CaldavReminders, caldav_account: Account
) -> None:
    lists = [caldav_account.made[0], caldav_account.make_calendar("Work")]
    lists.append(caldav_account.make_calendar("Errands"))
    for n, url in enumerate(lists):
        for i in range(3):
            caldav_account.put(f"{url}t{i}.ics", vtodo(f"t{n}-{i}", f"SUMMARY:{n}.{i}"))
    report = backend.sync().to_wire()
    assert report["modes"] == dict.fromkeys(("Reminders", "Work", "Errands", "Calendar"), "query")
    assert report["fetched"] == 9
    assert _titles(backend) == [f"{n}.{i}" for n in range(3) for i in range(3)]


def test_listings_are_asked_one_ahead_in_order_and_errors_reach_their_reader() -> None:
    asked: list[str] = []
    gate = threading.Event()

    def ask(href: str) -> Listing:
        asked.append(href)
        if href == "/b/":
            gate.set()
        if href == "/c/":
            raise SyncUnsupported("501 Not Implemented")
        return Listing(None, {f"{href}x.ics": '"1"'}, complete=True)

    with Ahead(ask, ["/a/", "/b/", "/c/"]) as ahead:
        assert ahead.listing("/a/").changed == {"/a/x.ics": '"1"'}
        assert gate.wait(5)  # /b/ is asked while /a/ is being stored
        assert asked == ["/a/", "/b/"]
        assert ahead.listing("/b/").changed == {"/b/x.ics": '"1"'}
        with pytest.raises(SyncUnsupported):
            ahead.listing("/c/")
        assert ahead.listing("/elsewhere/").complete  # one not read whole is asked at once
    assert asked == ["/a/", "/b/", "/c/", "/elsewhere/"]
