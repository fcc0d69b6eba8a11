"""Server faults: down, killed mid-session, slow, answering garbage, or losing the answer to a
write. Every fault is a retryable error (never a crash), and no write is lost or made twice."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from caldav_server import (
    Account,
    FaultProxy,
    OpenBackend,
    ProxyHandler,
    Radicale,
    answer_error,
    answer_garbage,
    answer_slowly,
    demand_digest,
    hang_up,
    land_then_stall,
    lose_the_answer,
    running_proxy,
    running_radicale,
)

from fruitctl.backends.caldav import CaldavReminders
from fruitctl.domain.errors import (
    BackendUnavailable,
    FruitctlError,
    OutcomeUnknown,
    PermissionDenied,
    Timeout,
)
from fruitctl.domain.writes import writing
from fruitctl.ports import NewReminder, ReminderQuery, ReminderScope

EVERYTHING = ReminderQuery(ReminderScope(None, "all"))


@pytest.fixture
def proxy(radicale: Radicale) -> Iterator[FaultProxy]:
    with running_proxy(radicale.url) as running:
        yield running


@pytest.fixture
def proxied(
    open_backend: OpenBackend, caldav_account: Account, proxy: FaultProxy
) -> CaldavReminders:
    """A backend that talks to the account through the fault proxy, synced once."""
    backend = open_backend(url=f"{proxy.url}{caldav_account.username}/", timeout_seconds=2)
    backend.sync()
    return backend


def _passes(_: ProxyHandler) -> bool:
    return False


def _assert_retryable(error: FruitctlError, code: str) -> None:
    assert error.code == code
    assert error.retryable is True
    assert error.to_dict()["retryable"] is True


# -- the server goes away -----------------------------------------------------------------------


@pytest.fixture
def own_radicale(tmp_path: Path) -> Iterator[Radicale]:
    """A server of this test's own, to kill."""
    with running_radicale(tmp_path / "own-radicale") as server:
        yield server


def test_a_server_killed_mid_session(open_backend: OpenBackend, own_radicale: Radicale) -> None:
    account = own_radicale.add_account()
    account.make_calendar("Reminders")
    patient = open_backend(account, staleness_seconds=3600)
    eager = open_backend(account, staleness_seconds=0)
    (kept,) = patient.create([NewReminder(list_id=patient.lists()[0].id, title="kept")])
    eager.sync()

    own_radicale.kill()
    # Within the staleness bound the mirror answers; past it the error says "try again".
    assert [r.title for r in patient.fetch(EVERYTHING)] == ["kept"]
    with pytest.raises(BackendUnavailable) as down:
        eager.fetch(EVERYTHING)
    _assert_retryable(down.value, "backend_unavailable")
    for write in (
        lambda: patient.create([NewReminder(list_id=kept.listId, title="lost?")]),
        lambda: patient.update(kept.id, {"title": "changed?"}),
        lambda: patient.delete(kept.id),
        patient.sync,
    ):
        with pytest.raises(BackendUnavailable) as failed:
            write()
        _assert_retryable(failed.value, "backend_unavailable")
    assert [r.title for r in patient.fetch(EVERYTHING)] == ["kept"]  # the mirror is untouched

    own_radicale.start()  # same port, same storage: nothing happened while it was down
    assert [r.title for r in eager.fetch(EVERYTHING)] == ["kept"]
    patient.update(kept.id, {"title": "after the restart"})
    assert [r.title for r in eager.fetch(EVERYTHING)] == ["after the restart"]


@pytest.mark.slow
def test_a_slow_server_is_a_retryable_timeout(proxied: CaldavReminders, proxy: FaultProxy) -> None:
    proxy.always(answer_slowly)
    with pytest.raises(Timeout) as slow:
        proxied.sync()
    _assert_retryable(slow.value, "timeout")
    assert "2 s" in slow.value.message


@pytest.mark.parametrize(
    "fault",
    [answer_garbage, answer_error(500), answer_error(503), hang_up],
    ids=["garbage", "500", "503", "hang-up"],
)
def test_a_server_answering_nonsense_is_unavailable(
    proxied: CaldavReminders, proxy: FaultProxy, fault: object
) -> None:
    proxy.always(fault)  # type: ignore[arg-type]
    with pytest.raises(BackendUnavailable) as broken:
        proxied.sync()
    _assert_retryable(broken.value, "backend_unavailable")
    proxy.heal()
    assert proxied.sync().collections == 2  # Reminders and Calendar


def test_refused_credentials_say_so(open_backend: OpenBackend, caldav_account: Account) -> None:
    wrong = Account(caldav_account.server, caldav_account.username, "not the password")
    with pytest.raises(PermissionDenied) as refused:
        open_backend(wrong).lists()
    assert caldav_account.username in refused.value.message
    assert "not the password" not in refused.value.message
    assert refused.value.retryable is False


# -- answers lost on the way back ---------------------------------------------------------------


def test_a_create_whose_answer_was_lost_is_made_once(
    proxied: CaldavReminders, proxy: FaultProxy, caldav_account: Account
) -> None:
    proxy.inject(lose_the_answer, "PUT")  # the PUT lands; the client hears nothing
    (created,) = proxied.create([NewReminder(list_id=proxied.lists()[0].id, title="once")])
    assert proxy.seen.count("PUT") == 2  # the retry found its own UID there
    (url,) = caldav_account.members(caldav_account.made[0])
    assert created.id in url
    assert [r.title for r in proxied.fetch(EVERYTHING)] == ["once"]


def test_an_update_whose_answer_was_lost_is_not_a_conflict(
    proxied: CaldavReminders, proxy: FaultProxy, caldav_account: Account
) -> None:
    (created,) = proxied.create([NewReminder(list_id=proxied.lists()[0].id, title="before")])
    proxy.inject(lose_the_answer, "PUT")
    updated = proxied.update(created.id, {"title": "after", "priority": 1})
    (url,) = caldav_account.members(caldav_account.made[0])
    text, _ = caldav_account.get(url)
    assert "SUMMARY:after" in text
    assert (updated.title, updated.priority) == ("after", 1)


def test_a_delete_whose_answer_was_lost_is_done(
    proxied: CaldavReminders, proxy: FaultProxy, caldav_account: Account
) -> None:
    (created,) = proxied.create([NewReminder(list_id=proxied.lists()[0].id, title="gone")])
    proxy.inject(lose_the_answer, "DELETE")
    proxied.delete(created.id)
    assert caldav_account.members(caldav_account.made[0]) == []
    assert proxied.fetch(EVERYTHING) == []


@pytest.mark.slow
def test_a_write_cut_off_after_it_landed_is_unknown_never_retryable(
    proxied: CaldavReminders, proxy: FaultProxy, caldav_account: Account
) -> None:
    # Both PUTs reach the server, neither answer comes before the deadline: it may have landed.
    proxy.inject(land_then_stall, "PUT")
    proxy.inject(land_then_stall, "PUT")
    with pytest.raises(OutcomeUnknown) as unknown:
        proxied.create([NewReminder(list_id=proxied.lists()[0].id, title="maybe")])
    assert unknown.value.retryable is False
    assert unknown.value.to_dict()["code"] == "outcome_unknown"
    assert "sync and look" in unknown.value.message
    assert len(caldav_account.members(caldav_account.made[0])) == 1  # it did land, once
    proxy.heal()
    proxied.sync()
    assert [r.title for r in proxied.fetch(EVERYTHING)] == ["maybe"]


def test_a_proposal_run_again_after_a_failure_creates_nothing_twice(
    proxied: CaldavReminders, proxy: FaultProxy, caldav_account: Account
) -> None:
    list_id = proxied.lists()[0].id
    items = [NewReminder(list_id=list_id, title="a"), NewReminder(list_id=list_id, title="b")]
    # Both PUTs of "a" land but neither answer arrives: the first run fails, retryably...
    proxy.inject(lose_the_answer, "PUT")
    proxy.inject(lose_the_answer, "PUT")
    with writing("proposal-1"), pytest.raises(BackendUnavailable):
        proxied.create(items)
    # ...and the approval engine's re-run, under the same write token, picks the same UIDs.
    with writing("proposal-1"):
        created = proxied.create(items)
    assert sorted(r.title for r in created) == ["a", "b"]
    assert len(caldav_account.members(caldav_account.made[0])) == 2


def test_a_create_of_several_that_fails_half_way_leaves_nothing(
    proxied: CaldavReminders, proxy: FaultProxy, caldav_account: Account
) -> None:
    list_id = proxied.lists()[0].id
    proxy.inject(_passes, "PUT")
    proxy.inject(answer_error(507), "PUT")
    proxy.inject(answer_error(507), "PUT")
    with pytest.raises(BackendUnavailable):
        proxied.create([NewReminder(list_id=list_id, title=t) for t in ("first", "second")])
    assert caldav_account.members(caldav_account.made[0]) == []
    assert proxied.fetch(EVERYTHING) == []


def test_a_server_that_speaks_only_digest_is_answered_in_digest(
    open_backend: OpenBackend, caldav_account: Account, proxy: FaultProxy
) -> None:
    # Basic goes first (this machine's wire is private); the Digest challenge is then met.
    proxy.always(demand_digest(caldav_account.username, caldav_account.password))
    backend = open_backend(url=f"{proxy.url}{caldav_account.username}/")
    assert [lst.name for lst in backend.lists()] == ["Reminders"]
    (made,) = backend.create([NewReminder(list_id=backend.lists()[0].id, title="over digest")])
    assert backend.get(made.id).title == "over digest"
    wrong = Account(caldav_account.server, caldav_account.username, "not the password")
    with pytest.raises(PermissionDenied):
        open_backend(wrong, url=f"{proxy.url}{caldav_account.username}/").lists()
