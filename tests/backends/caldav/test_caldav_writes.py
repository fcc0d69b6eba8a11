"""Writes go to the server first, with the ETag the mirror holds: a change made meanwhile by a
second client is a ``conflict``, never overwritten; the mirror then shows the server's version."""

from __future__ import annotations

import pytest
from caldav_server import Account, OpenBackend, vtodo

from fruitctl.backends.caldav import CaldavReminders
from fruitctl.backends.caldav.writes import new_uids
from fruitctl.domain.errors import Conflict, InvalidParams, NotFound
from fruitctl.domain.reminders import Reminder
from fruitctl.domain.writes import writing
from fruitctl.ports import NewReminder


@pytest.fixture
def patient(open_backend: OpenBackend) -> CaldavReminders:
    """A backend that does not resync before each read: it works from what it last saw."""
    return open_backend(staleness_seconds=3600)


@pytest.fixture
def mine(patient: CaldavReminders) -> Reminder:
    (created,) = patient.create([NewReminder(list_id=patient.lists()[0].id, title="mine")])
    return created


def _url(account: Account, reminder_id: str) -> str:
    (url,) = [u for u in account.members(account.made[0]) if reminder_id in u]
    return url


def _change_elsewhere(account: Account, reminder_id: str, title: str) -> None:
    url = _url(account, reminder_id)
    text, etag = account.get(url)
    changed = text.replace("SUMMARY:mine", f"SUMMARY:{title}")
    assert account.put(url, changed, **{"If-Match": etag}) == 204


def test_an_update_over_a_change_made_elsewhere_is_a_conflict(
    patient: CaldavReminders, mine: Reminder, caldav_account: Account
) -> None:
    _change_elsewhere(caldav_account, mine.id, "theirs")
    with pytest.raises(Conflict) as conflict:
        patient.update(mine.id, {"title": "ours"})
    assert conflict.value.code == "conflict"
    assert conflict.value.retryable is False
    text, _ = caldav_account.get(_url(caldav_account, mine.id))
    assert "SUMMARY:theirs" in text and "SUMMARY:ours" not in text
    # The mirror now holds the server's version, so doing it again, knowingly, works.
    assert patient.get(mine.id).title == "theirs"
    assert patient.update(mine.id, {"title": "ours"}).title == "ours"


def test_a_delete_over_a_change_made_elsewhere_is_a_conflict(
    patient: CaldavReminders, mine: Reminder, caldav_account: Account
) -> None:
    _change_elsewhere(caldav_account, mine.id, "theirs")
    with pytest.raises(Conflict):
        patient.delete(mine.id)
    assert len(caldav_account.members(caldav_account.made[0])) == 1
    patient.delete(mine.id)
    assert caldav_account.members(caldav_account.made[0]) == []


def test_an_update_of_something_deleted_elsewhere(
    patient: CaldavReminders, mine: Reminder, caldav_account: Account
) -> None:
    assert caldav_account.delete(_url(caldav_account, mine.id)) in (200, 204)
    with pytest.raises(Conflict):
        patient.update(mine.id, {"title": "ours"})
    assert caldav_account.members(caldav_account.made[0]) == []  # not brought back
    with pytest.raises(NotFound):
        patient.get(mine.id)


def test_a_delete_of_something_deleted_elsewhere_is_done(
    patient: CaldavReminders, mine: Reminder, caldav_account: Account
) -> None:
    assert caldav_account.delete(_url(caldav_account, mine.id)) in (200, 204)
    patient.delete(mine.id)
    with pytest.raises(NotFound):
        patient.get(mine.id)


def test_a_create_into_a_list_deleted_elsewhere_is_not_found(
    patient: CaldavReminders, caldav_account: Account
) -> None:
    work = patient.create_list("Work")
    with caldav_account.http() as client:
        client.delete(caldav_account.home + work.id + "/").raise_for_status()
    with pytest.raises(NotFound):
        patient.create([NewReminder(list_id=work.id, title="nowhere")])
    assert caldav_account.members(caldav_account.home + work.id + "/") == []


def test_a_move_between_lists_keeps_one_copy(
    patient: CaldavReminders, mine: Reminder, caldav_account: Account
) -> None:
    work = patient.create_list("Work")
    moved = patient.update(mine.id, {"listId": work.id, "title": "moved"})
    assert (moved.listId, moved.title) == (work.id, "moved")
    assert caldav_account.members(caldav_account.made[0]) == []
    (url,) = caldav_account.members(caldav_account.home + work.id + "/")
    assert "SUMMARY:moved" in caldav_account.get(url)[0]


def test_create_list_makes_a_task_calendar(
    patient: CaldavReminders, caldav_account: Account
) -> None:
    work = patient.create_list("Work")
    with pytest.raises(InvalidParams):
        patient.create_list("WORK")
    body = '<propfind xmlns="DAV:"><prop><displayname/></prop></propfind>'
    with caldav_account.http() as client:
        answer = client.request(
            "PROPFIND", caldav_account.home + work.id + "/", headers={"Depth": "0"}, content=body
        )
    assert "<displayname>Work</displayname>" in answer.text.replace("D:", "")


def test_a_uid_taken_by_something_else_is_a_conflict_not_an_overwrite(
    patient: CaldavReminders, caldav_account: Account
) -> None:
    # Another client put an object at the very href a create picks (a UID collision).
    with writing("proposal-x"):
        (uid,) = new_uids(1)
    calendar = caldav_account.made[0]
    assert caldav_account.put(f"{calendar}{uid}.ics", vtodo("someone-else")) == 201
    with writing("proposal-x"), pytest.raises(Conflict):
        patient.create([NewReminder(list_id=patient.lists()[0].id, title="mine")])
    assert "someone-else" in caldav_account.get(f"{calendar}{uid}.ics")[0]
