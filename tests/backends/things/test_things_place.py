"""Finding Things' database, and saying why it cannot be read: macOS keeping fruitctl out of
Things' Group Container (EPERM, as macOS gives it) is ``permission_denied`` naming Full Disk
Access - never "Things is not set up here" or SQLite's "unable to open database file"; a
database older than Things 3.15.16 is named by its version; of several ``ThingsData-*`` folders
the most recently written is read."""

from __future__ import annotations

import builtins
import errno
import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from things_fixture import TODAY, ThingsFixture, build

from fruitctl import bootstrap
from fruitctl.backends.eventkit import hosts
from fruitctl.backends.things import ThingsDatabase, default_database, place
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import BackendUnavailable, PermissionDenied


@pytest.fixture
def container(tmp_path: Path) -> Path:
    return tmp_path / "JLMPQHK86H.com.culturedcode.ThingsMac"


@pytest.fixture
def fixture(container: Path) -> ThingsFixture:
    return build(container)


def deny(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, under: Path) -> None:
    """``module.name`` fails with EPERM for every path under ``under``, as macOS's privacy
    protection answers a process without the grant."""
    real: Callable[..., Any] = getattr(module, name)

    def guarded(path: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(path, (str, os.PathLike)) and str(path).startswith(str(under)):
            raise PermissionError(errno.EPERM, "Operation not permitted", str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(module, name, guarded)


def assert_names_full_disk_access(refusal: PermissionDenied) -> None:
    assert refusal.code == "permission_denied"
    assert "Full Disk Access" in refusal.message
    assert "unable to open" not in refusal.message and "not set up" not in refusal.message


def test_a_container_macos_will_not_list_is_a_permission_to_give(
    fixture: ThingsFixture, container: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deny(monkeypatch, os, "listdir", container)
    found = default_database(container)
    assert found is not None  # Things is there: not "not set up"
    with pytest.raises(PermissionDenied) as refused:
        ThingsDatabase(found).todos(TODAY)
    assert_names_full_disk_access(refused.value)
    status = ThingsDatabase(found).status()
    assert status["readable"] is False and "Full Disk Access" in status["reason"]


def test_the_refusal_names_the_app_to_give_full_disk_access(
    fixture: ThingsFixture, container: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The app macOS holds responsible for this process, found by the same walk the Reminders
    # advice uses (a bare Python when no app started it, as on this test machine).
    deny(monkeypatch, os, "listdir", container)
    with pytest.raises(PermissionDenied) as refused:
        ThingsDatabase(container).todos(TODAY)
    assert f"Allow {hosts.detect().name}" in refused.value.message
    claude = hosts.Responsible("Claude", "/Applications/Claude.app", "app")
    monkeypatch.setattr(place, "detect", lambda: claude)
    with pytest.raises(PermissionDenied) as refused:
        ThingsDatabase(container).todos(TODAY)
    assert "Allow Claude (/Applications/Claude.app) in System Settings" in refused.value.message


def test_when_even_stat_is_denied_the_answer_is_the_same(
    fixture: ThingsFixture, container: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deny(monkeypatch, os, "listdir", container)
    deny(monkeypatch, os, "stat", container)
    found = default_database(container)
    assert found is not None
    with pytest.raises(PermissionDenied) as refused:
        ThingsDatabase(found).todos(TODAY)
    assert_names_full_disk_access(refused.value)
    assert ThingsDatabase(found).status()["readable"] is False


def test_a_configured_database_macos_will_not_open_names_the_permission(
    fixture: ThingsFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ``[things] database`` set: stat works, open is refused (what macOS does to such a file).
    deny(monkeypatch, builtins, "open", fixture.path)
    with pytest.raises(PermissionDenied) as refused:
        ThingsDatabase(fixture.path).todo("todo-today", TODAY)
    assert_names_full_disk_access(refused.value)


def test_once_access_is_given_the_same_database_reads(
    fixture: ThingsFixture, container: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as denied:
        deny(denied, os, "listdir", container)
        found = default_database(container)
    assert found is not None
    assert ThingsDatabase(found).todo("todo-today", TODAY).title == "Call the bank"


def test_through_the_gateway_it_is_permission_denied(
    home: Path, fixture: ThingsFixture, container: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRUITCTL_THINGS__DATABASE", str(container))
    monkeypatch.setenv("FRUITCTL_THINGS__OPEN_COMMAND", json.dumps([sys.executable, "-c", ""]))
    deny(monkeypatch, os, "listdir", container)
    app = bootstrap.build()
    try:
        outcome = app.gateway.invoke("query_todos", {"view": "today"}, Actor("agent", "t"))
        assert outcome.error_code == "permission_denied", outcome.output
        assert "Full Disk Access" in (outcome.error or "")
        assert app.status()["things"]["state"] == "unreadable"
    finally:
        app.close()


def test_a_database_older_than_3_15_16_is_named_by_its_version(fixture: ThingsFixture) -> None:
    # The layout before (things.py's db2022: version 18) has no deadline or heading columns;
    # the version is read first, so the person is told to update, not "not a Things database".
    with fixture.connect() as db:
        db.execute("UPDATE Meta SET value = '18' WHERE key = 'databaseVersion'")
        db.execute("ALTER TABLE TMTask DROP COLUMN deadline")
    things = ThingsDatabase(fixture.path)
    with pytest.raises(BackendUnavailable, match=r"older than 3\.15\.16 \(database version 18\)"):
        things.todos(TODAY)
    assert "update Things" in things.status()["reason"]


def test_the_oldest_version_read_is_22(fixture: ThingsFixture) -> None:
    with fixture.connect() as db:
        db.execute("UPDATE Meta SET value = '22' WHERE key = 'databaseVersion'")
    assert ThingsDatabase(fixture.path).status()["readable"] is True


def copy_as(fixture: ThingsFixture, container: Path, name: str, title: str) -> Path:
    """Another ``ThingsData-*`` folder, its one to-do renamed so reads tell which was read."""
    target = container / name
    shutil.copytree(fixture.path.parents[1], target)
    path = target / fixture.path.relative_to(fixture.path.parents[1])
    with ThingsFixture(path).connect() as db:
        db.execute("UPDATE TMTask SET title = ? WHERE uuid = 'todo-today'", (title,))
    return path


def age(path: Path, seconds: float) -> None:
    for file in path.parent.glob("main.sqlite*"):
        os.utime(file, (file.stat().st_atime, file.stat().st_mtime - seconds))


@pytest.mark.parametrize("newest", ["ThingsData-AAAAA", "ThingsData-ZZZZZ"])
def test_of_several_folders_the_most_recently_written_is_read(
    fixture: ThingsFixture, container: Path, newest: str
) -> None:
    age(fixture.path, 3600)  # ThingsData-TEST: left by a reset an hour ago
    live = copy_as(fixture, container, newest, "The live one")
    stale = copy_as(fixture, container, "ThingsData-MMMMM", "Another old one")
    age(stale, 7200)
    assert default_database(container) == live
    read = ThingsDatabase(container).todo("todo-today", TODAY)  # the container itself
    assert read.title == "The live one"


def test_a_commit_in_the_write_ahead_log_counts_as_written(
    fixture: ThingsFixture, container: Path
) -> None:
    other = copy_as(fixture, container, "ThingsData-AAAAA", "Newer main file")
    age(other, 60)
    age(fixture.path, 3600)
    wal = fixture.path.with_name("main.sqlite-wal")
    wal.write_bytes(wal.read_bytes() if wal.exists() else b"")  # the app just committed here
    assert default_database(container) == fixture.path


def test_the_version_is_read_as_things_writes_it(fixture: ThingsFixture) -> None:
    # Things keeps Meta values as XML property lists (as in things.py's test databases).
    plist = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST '
        '1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n'
        "<integer>{}</integer>\n</plist>\n"
    )
    with fixture.connect() as db:
        db.execute("UPDATE Meta SET value = ? WHERE key = 'databaseVersion'", (plist.format(18),))
    status = ThingsDatabase(fixture.path).status()
    assert "(database version 18)" in status["reason"]
    with fixture.connect() as db:
        db.execute("UPDATE Meta SET value = ? WHERE key = 'databaseVersion'", (plist.format(24),))
    assert ThingsDatabase(fixture.path).status()["readable"] is True
