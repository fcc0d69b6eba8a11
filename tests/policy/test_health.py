"""DEGRADED by itself: low disk or memory, or a store that answered "disk full", lowers the mode
through the one mode store, with the cause; it returns to the mode it came from once the cause
has been clear long enough - unless a person set the mode meanwhile."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from fruitctl import bootstrap
from fruitctl.config import HealthConfig
from fruitctl.domain.actors import Actor
from fruitctl.policy.health import Health, Reading, machine
from fruitctl.policy.modes import ModeStore
from fruitctl.store import open_database

HUMAN = Actor("human", "tester")
AGENT = Actor("agent", "a1")
PLENTY = Reading(free_disk_mb=50_000, available_memory_mb=8_000, memory_percent=40)
SETTINGS = HealthConfig(
    min_free_disk_mb=200,
    min_available_memory_mb=100,
    max_memory_percent=97,
    check_every_seconds=10,
    recover_after_seconds=60,
)


class Machine:
    """The readings a test sets, and a clock it moves (the seams ``Health`` takes)."""

    def __init__(self) -> None:
        self.reading = PLENTY
        self.now = 1000.0

    def read(self) -> Reading:
        return self.reading

    def clock(self) -> float:
        return self.now


@pytest.fixture
def modes(tmp_path: Path) -> Iterator[ModeStore]:
    engine = open_database(tmp_path / "state.db", "state")
    store = ModeStore(engine)
    yield store
    store.close()
    engine.dispose()


def _health(modes: ModeStore, box: Machine, told: list[Any]) -> Health:
    return Health(modes, SETTINGS, box.read, box.clock, told=lambda e, f: told.append((e, f)))


@pytest.mark.parametrize(
    ("reading", "words"),
    [
        (Reading(120, 8_000, 40), "free disk space for fruitctl's data is 120 MB, under 200 MB"),
        (Reading(50_000, 60, 40), "available memory is 60 MB, under 100 MB"),
        (Reading(50_000, 8_000, 99), "memory in use is 99%, over 97%"),
    ],
)
def test_each_threshold_degrades_with_its_cause(
    modes: ModeStore, reading: Reading, words: str
) -> None:
    box, told = Machine(), []
    health = _health(modes, box, told)
    health.check()
    assert modes.get() == "NORMAL" and modes.automatic() is None
    box.reading, box.now = reading, box.now + 10
    health.check()
    assert modes.get() == "DEGRADED"
    assert modes.automatic() == {"cause": words, "previous": "NORMAL"}
    assert modes.describe()["setBy"] == f"fruitctl (automatic): {words}"
    assert told == [("mode_degraded", {"cause": words, "previous": "NORMAL"})]


def test_looks_at_most_once_per_cadence(modes: ModeStore) -> None:
    box, told = Machine(), []
    health = _health(modes, box, told)
    health.check()
    box.reading = Reading(10, 8_000, 40)
    box.now += 9.9
    health.check()
    assert modes.get() == "NORMAL"  # not looked again yet
    box.now += 0.1
    health.check()
    assert modes.get() == "DEGRADED"


def test_returns_to_the_mode_it_came_from_once_clear_for_a_while(modes: ModeStore) -> None:
    modes.set("ALERT", "tester")
    box, told = Machine(), []
    health = _health(modes, box, told)
    box.reading = Reading(10, 8_000, 40)
    health.check()
    assert modes.get() == "DEGRADED"
    box.reading = PLENTY
    for _ in range(5):  # clear for 50 s: not yet
        box.now += 10
        health.check()
        assert modes.get() == "DEGRADED"
    box.reading = Reading(10, 8_000, 40)  # back again: the clear time starts over
    box.now += 10
    health.check()
    box.reading = PLENTY
    box.now += 50
    health.check()
    assert modes.get() == "DEGRADED"
    box.now += 10
    health.check()
    assert modes.get() == "ALERT" and modes.automatic() is None
    assert modes.describe()["setBy"].startswith("fruitctl (automatic): cleared (free disk")
    assert [e for e, _ in told] == ["mode_degraded", "mode_restored"]


def test_a_persons_change_meanwhile_is_left_alone(modes: ModeStore) -> None:
    box, told = Machine(), []
    health = _health(modes, box, told)
    box.reading = Reading(10, 8_000, 40)
    health.check()
    assert modes.get() == "DEGRADED"
    modes.set("LOCKDOWN", "tester")
    box.reading = PLENTY
    box.now += 600
    health.check()
    assert modes.get() == "LOCKDOWN" and modes.automatic() is None
    modes.set("DEGRADED", "tester")  # a person's own DEGRADED is theirs, too
    box.now += 600
    health.check()
    assert modes.describe()["setBy"] == "tester"


def test_a_persons_degraded_or_lockdown_is_not_taken_over(modes: ModeStore) -> None:
    box, told = Machine(), []
    modes.set("LOCKDOWN", "tester")
    health = _health(modes, box, told)
    box.reading = Reading(10, 8_000, 40)
    health.check()
    assert modes.get() == "LOCKDOWN" and modes.automatic() is None and told == []


def test_another_process_returns_a_mode_set_before_it_started(modes: ModeStore) -> None:
    box, told = Machine(), []
    _health(modes, box, told).check(force=True)
    box.reading = Reading(10, 8_000, 40)
    _health(modes, box, told).check()
    box.reading = PLENTY
    later = _health(modes, box, told)  # a daemon started after the CLI degraded the mode
    later.check()
    assert modes.get() == "DEGRADED"
    box.now += 60
    later.check()
    assert modes.get() == "NORMAL"


def test_the_real_reading_sees_this_disk_and_memory(tmp_path: Path) -> None:
    seen = machine(tmp_path)()
    assert seen.free_disk_mb > 0 and seen.available_memory_mb > 0
    assert 0 <= seen.memory_percent <= 100


# -- a store that answers "disk full", through the gateway ----------------------------------------


def _no_more_pages(dbapi: sqlite3.Connection, _record: object) -> None:
    pages = dbapi.execute("PRAGMA page_count").fetchone()[0]
    dbapi.execute(f"PRAGMA max_page_count = {pages}")


def _titles(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return sorted(row[0] for row in db.execute("SELECT title FROM reminders"))


def test_a_write_that_hits_disk_full_fails_whole_and_degrades_the_gateway(home: Path) -> None:
    app = bootstrap.build()
    try:
        assert app.call("create_reminders", {"reminders": [{"title": "before"}]}, HUMAN)
        engine = app.backend._engine
        # The real file may not grow past the pages it has: SQLite itself answers SQLITE_FULL.
        event.listen(engine, "connect", _no_more_pages)
        engine.dispose()
        many = [{"title": f"t{i}", "notes": "x" * 3000} for i in range(40)]
        full = app.gateway.invoke("create_reminders", {"reminders": many}, HUMAN)
        assert not full.success and full.error_code == "storage_fault"
        assert full.failure is not None and full.failure.details["reason"] == "full"
        assert "disk is full" in (full.error or "")
        assert _titles(home / "local.db") == ["before"]  # rolled back: nothing half-written
        assert app.modes.get() == "DEGRADED"
        held = app.modes.automatic()
        assert held == {"cause": "a database answered that the disk is full", "previous": "NORMAL"}
        assert app.status()["degraded"] == held
        (audited,) = [e for e in app.audit.entries() if e["event"] == "mode_degraded"]
        assert audited["actor"] == "fruitctl (automatic)"
        assert audited["payload"]["cause"] == held["cause"]
        # governance's DEGRADED rules apply: an agent's file write now waits for a person
        (home / "workspace").mkdir()
        target = home / "workspace" / "out.txt"
        filed = app.gateway.invoke("write_file", {"path": str(target), "content": "x"}, AGENT)
        assert filed.success and filed.output["status"] == "pending"
        assert not target.exists()
    finally:
        app.close()


def test_a_write_looks_at_the_machine_before_it_is_judged(home: Path) -> None:
    app = bootstrap.build()
    try:
        box = Machine()
        box.reading = Reading(10, 8_000, 40)
        assert app.gateway.health is not None
        app.gateway.health = Health(app.modes, SETTINGS, box.read, box.clock)
        (home / "workspace").mkdir(parents=True)
        target = home / "workspace" / "out.txt"
        filed = app.gateway.invoke("write_file", {"path": str(target), "content": "x"}, AGENT)
        assert app.modes.get() == "DEGRADED"
        assert filed.success and filed.output["status"] == "pending" and not target.exists()
    finally:
        app.close()


# -- what the CLI shows ---------------------------------------------------------------------------


@pytest.mark.process  # doctor asks the platform (uname)
def test_info_and_doctor_say_why_the_gateway_degraded_itself(home: Path) -> None:
    from typer.testing import CliRunner

    from fruitctl.cli.app import app as cli_app

    runner = CliRunner()
    app = bootstrap.build()
    try:
        app.modes.set_automatic("DEGRADED", "available memory is 60 MB, under 100 MB", "ALERT")
    finally:
        app.close()
    shown = runner.invoke(cli_app, ["info"])
    assert shown.exit_code == 0, shown.output
    assert (
        "set by fruitctl itself: available memory is 60 MB, under 100 MB; returns to ALERT"
        in shown.stdout
    )
    doctor = runner.invoke(cli_app, ["doctor", "--json"])
    report = json.loads(doctor.stdout)
    assert report["mode"]["degraded"] == {
        "cause": "available memory is 60 MB, under 100 MB",
        "previous": "ALERT",
    }
    assert report["mode"]["setBy"].startswith("fruitctl (automatic)")
    assert report["healthy"] is False and doctor.exit_code == 1
    said = runner.invoke(cli_app, ["doctor"]).stdout
    assert "set by fruitctl itself: available memory is 60 MB" in said
    assert "it returns to ALERT once that has cleared" in said


def test_the_daemons_watcher_looks_on_its_own(modes: ModeStore) -> None:
    import threading

    from fruitctl.policy.health import watch

    box = Machine()
    box.reading = Reading(10, 8_000, 40)
    degraded = threading.Event()
    health = Health(modes, SETTINGS, box.read, told=lambda e, f: degraded.set())
    stop = threading.Event()
    thread = watch(health, 0.01, stop)
    try:
        assert degraded.wait(30)  # nobody called check: the watcher did
    finally:
        stop.set()
        thread.join()
    assert modes.get() == "DEGRADED"
