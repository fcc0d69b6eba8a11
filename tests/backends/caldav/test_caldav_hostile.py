"""A hostile CalDAV server: an answer trickled a byte at a time, one of hundreds of megabytes,
one that never comes. Each request is cut off at its overall deadline or past the size cap with
the backend's stable errors, the server's side of the wire shows it was cut off, and the mirror
keeps answering reads while a sync waits on such a server."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from caldav_server import Account, FaultProxy, OpenBackend, Radicale, running_proxy, vtodo
from hostile_caldav import Gauge, huge_answer, never_answer, trickle

from fruitctl.backends.caldav import CaldavReminders
from fruitctl.backends.caldav.errors import AnswerTooLarge
from fruitctl.domain.errors import BackendUnavailable, Timeout
from fruitctl.ports import NewReminder, ReminderQuery, ReminderScope

EVERYTHING = ReminderQuery(ReminderScope(None, "all"))
DEADLINE_S = 4.0
"""The configured deadline ([caldav] timeout_seconds) of these tests: above the trickle's two
seconds a byte, so no per-read timeout ever fires and only the overall deadline can end it."""
TEST_DEADLINE_S = 60.0
"""How long a test waits for a request that should have been cut off at DEADLINE_S."""
CAP = 1_048_576
"""The size cap ([caldav] max_response_bytes) of these tests."""
HUGE = 400 * 1_048_576
SENT_BOUND = 64 * 1_048_576
"""What a server may have sent before the cut: the cap, plus a chunk read, plus what the two
sockets' kernel buffers take on loopback - far below the answer's 400 MB."""


@pytest.fixture
def proxy(radicale: Radicale) -> Iterator[FaultProxy]:
    with running_proxy(radicale.url) as running:
        yield running


@pytest.fixture
def hostile(
    open_backend: OpenBackend, caldav_account: Account, proxy: FaultProxy
) -> CaldavReminders:
    """A backend that talks to the account through the proxy, under the tests' bounds."""
    return open_backend(
        url=f"{proxy.url}{caldav_account.username}/",
        timeout_seconds=DEADLINE_S,
        max_response_bytes=CAP,
    )


def _within(seconds: float, call: Callable[[], Any]) -> Any:
    """Run ``call`` on a thread, waiting at most ``seconds`` (a test deadline far above the one
    under test): its result, or the exception it raised. Fails if it is still running."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # the outcome under test
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s"
    return outcome[0]


def _hung_up(gauge: Gauge) -> None:
    """The server's side: its answer ended because the client closed the connection."""
    assert gauge.finished.wait(TEST_DEADLINE_S), "the hostile answer never ended"
    assert gauge.cut_off


# -- an overall deadline ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("headers_too", [False, True], ids=["body", "headers"])
def test_a_trickling_answer_is_cut_off_at_the_deadline(
    hostile: CaldavReminders, proxy: FaultProxy, headers_too: bool
) -> None:
    gauge = Gauge()
    proxy.inject(trickle(gauge, 2.0, headers_too=headers_too), "REPORT")
    failed = _within(TEST_DEADLINE_S, hostile.sync)
    assert isinstance(failed, Timeout), failed
    assert failed.retryable is True
    assert failed.to_dict()["code"] == "timeout"
    # The overall deadline cut it (not a per-read timeout), and the message says where and how.
    assert f"did not finish answering within {DEADLINE_S:g} s" in failed.message
    assert proxy.url.split("/")[2] in failed.message
    assert "timeout_seconds" in failed.message
    _hung_up(gauge)
    assert gauge.sent < 100_000  # a few bytes of hours of answer
    proxy.heal()
    assert hostile.sync().collections == 2  # the next request is not hurt


@pytest.mark.slow
def test_a_server_that_never_answers_times_out(hostile: CaldavReminders, proxy: FaultProxy) -> None:
    gauge = Gauge()
    proxy.inject(never_answer(gauge), "PROPFIND")
    failed = _within(TEST_DEADLINE_S, hostile.sync)
    assert isinstance(failed, Timeout), failed
    assert failed.retryable is True
    assert gauge.started.is_set()
    assert hostile.sync().collections == 2


# -- a size cap ---------------------------------------------------------------------------------


@pytest.mark.parametrize("declared", [False, True], ids=["chunked", "content-length"])
def test_a_huge_answer_is_stopped_past_the_cap(
    hostile: CaldavReminders, proxy: FaultProxy, declared: bool
) -> None:
    gauge = Gauge()
    proxy.inject(huge_answer(gauge, HUGE, declared=declared), "PROPFIND")
    failed = _within(TEST_DEADLINE_S, hostile.sync)
    assert isinstance(failed, AnswerTooLarge), failed
    assert failed.to_dict()["code"] == "backend_unavailable"
    assert failed.retryable is False  # the same request gets the same answer
    assert "larger than 1 MB" in failed.message
    assert "max_response_bytes" in failed.message
    assert proxy.url.split("/")[2] in failed.message
    _hung_up(gauge)
    assert gauge.sent < SENT_BOUND
    assert hostile.sync().collections == 2


# -- what does not fit one answer is read in pieces ---------------------------------------------


def test_a_listing_too_large_to_read_whole_is_read_in_pieces(
    hostile: CaldavReminders, proxy: FaultProxy, caldav_account: Account
) -> None:
    for i in range(3):
        todo = vtodo(f"t{i}", f"SUMMARY:todo {i}")
        assert caldav_account.put(f"{caldav_account.made[0]}t{i}.ics", todo) == 201
    gauge = Gauge()
    proxy.inject(huge_answer(gauge, HUGE), "REPORT")  # the whole listing of the first calendar
    report = _within(TEST_DEADLINE_S, hostile.sync)
    assert not isinstance(report, BaseException), report
    # That calendar was read from a sync REPORT of ETags instead, the other one whole.
    assert sorted(report.modes.values()) == ["query", "sync-token"]
    assert sorted(r.title for r in hostile.fetch(EVERYTHING)) == ["todo 0", "todo 1", "todo 2"]
    _hung_up(gauge)
    assert gauge.sent < SENT_BOUND


@pytest.mark.slow
@pytest.mark.process
def test_an_object_too_large_to_read_is_skipped_and_never_wedges_a_sync(
    hostile: CaldavReminders, proxy: FaultProxy, caldav_account: Account
) -> None:
    hostile.sync()
    calendar = caldav_account.made[0]
    huge = vtodo("huge", "SUMMARY:huge", _folded("DESCRIPTION:" + "x" * (CAP + CAP // 2)))
    for uid, text in [("a", vtodo("a", "SUMMARY:small a")), ("huge", huge)]:
        assert caldav_account.put(f"{calendar}{uid}.ics", text) == 201
    assert caldav_account.put(f"{calendar}b.ics", vtodo("b", "SUMMARY:small b")) == 201
    report = _within(TEST_DEADLINE_S, hostile.sync)
    assert not isinstance(report, BaseException), report
    assert (report.broken, report.modes["Reminders"]) == (1, "sync-token")
    assert sorted(r.title for r in hostile.fetch(EVERYTHING)) == ["small a", "small b"]
    # The next sync neither fails nor asks for it again: it has not changed.
    assert caldav_account.put(f"{calendar}c.ics", vtodo("c", "SUMMARY:small c")) == 201
    seen = len(proxy.seen)
    again = hostile.sync()
    assert (again.broken, again.fetched) == (0, 1)
    assert proxy.seen[seen:].count("REPORT") == 1  # one sync REPORT, which fits
    # Made small again, it is read.
    status = caldav_account.put(f"{calendar}huge.ics", vtodo("huge", "SUMMARY:small now"))
    assert status in (201, 204)
    hostile.sync()
    titles = sorted(r.title for r in hostile.fetch(EVERYTHING))
    assert titles == ["small a", "small b", "small c", "small now"]


def _folded(line: str) -> str:
    """One iCalendar content line folded at 74 octets (RFC 5545 3.1)."""
    return "\r\n ".join(line[i : i + 74] for i in range(0, len(line), 74))


# -- the mirror is not held hostage -------------------------------------------------------------


def test_reads_answer_from_the_mirror_while_a_sync_waits_on_a_trickle(
    open_backend: OpenBackend, caldav_account: Account, proxy: FaultProxy
) -> None:
    # Every read wants a sync (staleness 0); the deadline is long, so only the test ends the
    # trickle: a read that waited for the sync would wait for the test itself.
    backend = open_backend(
        url=f"{proxy.url}{caldav_account.username}/",
        timeout_seconds=TEST_DEADLINE_S,
        staleness_seconds=0,
    )
    backend.create([NewReminder(list_id=backend.lists()[0].id, title="kept")])
    calendar = caldav_account.made[0]
    assert caldav_account.put(calendar + "new.ics", vtodo("new", "SUMMARY:added elsewhere")) == 201
    gauge, stop = Gauge(), threading.Event()
    proxy.inject(trickle(gauge, 0.5, stop=stop), "REPORT")
    syncing: list[Any] = []
    sync = threading.Thread(target=lambda: syncing.append(_outcome(backend.sync)), daemon=True)
    sync.start()
    try:
        assert gauge.started.wait(TEST_DEADLINE_S)
        titles = _within(TEST_DEADLINE_S / 3, lambda: [r.title for r in backend.fetch(EVERYTHING)])
        lists = _within(TEST_DEADLINE_S / 3, lambda: [lst.name for lst in backend.lists()])
        assert (titles, lists) == (["kept"], ["Reminders"])
        assert sync.is_alive() and not gauge.finished.is_set()  # the sync still waits
    finally:
        stop.set()
    sync.join(TEST_DEADLINE_S)
    assert isinstance(syncing[0], BackendUnavailable)  # the answer broke off: try again
    assert sorted(r.title for r in backend.fetch(EVERYTHING)) == ["added elsewhere", "kept"]


def _outcome(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except Exception as exc:  # the outcome under test
        return exc
