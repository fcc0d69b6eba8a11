"""A Things write is confirmed only by what Things did after the launch: an update when the row's
``userModificationDate`` moved and it holds the asked values (values it already held prove
nothing - Things may have refused the URL); a create when a to-do created since the launch holds
the title, notes, checklist and list asked for (one Things cut at its limits is not it). Each
poll reads the rows created since the launch or the one row updated, never the whole library.
The recorder plays Things on a real Things-schema database."""

from __future__ import annotations

import sys
import time
from datetime import date
from pathlib import Path

import pytest
from things_fixture import ThingsFixture, build

from fruitctl.backends.things import ThingsDatabase
from fruitctl.backends.things.writer import ThingsWriter
from fruitctl.domain.things import ThingsView, ToDo
from fruitctl.ports import NewToDo, ToDoChanges

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

RECORDER = str(Path(__file__).parents[2] / "things_recorder.py")


class NoWholeReads(ThingsDatabase):
    """The real database, refusing the read of a whole library a poll must not make."""

    def todos(
        self, today: date, view: ThingsView | None = None, search: str | None = None
    ) -> list[ToDo]:
        raise AssertionError("a poll read every to-do of the library")


@pytest.fixture
def fixture(tmp_path: Path) -> ThingsFixture:
    return build(tmp_path / "container")


def writer(fixture: ThingsFixture, tmp_path: Path, mode: str, seconds: float = 5) -> ThingsWriter:
    command = [sys.executable, RECORDER, str(fixture.path), str(tmp_path / "urls.log"), mode]
    return ThingsWriter(NoWholeReads(fixture.path), command, seconds)


@pytest.mark.parametrize(
    "changes",
    [{"status": "completed"}, {"title": "Renew passport"}, {"notes": ""}],
    ids=["complete-completed", "same-title", "same-notes"],
)
def test_an_update_to_values_already_held_is_not_confirmed_when_things_did_nothing(
    fixture: ThingsFixture, tmp_path: Path, changes: ToDoChanges
) -> None:
    things = writer(fixture, tmp_path, "ignore", seconds=0.5)
    done = things.update("todo-done", changes)
    assert (done.confirmed, done.todo) == (False, None)
    assert (tmp_path / "urls.log").exists()  # it was sent


def test_an_update_to_values_already_held_is_confirmed_once_things_writes_the_row(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    done = writer(fixture, tmp_path, "apply").update("todo-done", {"status": "completed"})
    assert done.confirmed and done.todo is not None and done.todo.status == "completed"


def test_a_project_update_to_values_it_holds_is_not_confirmed_when_things_did_nothing(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    things = writer(fixture, tmp_path, "ignore", seconds=0.5)
    assert not things.update_project("proj-move", {"title": "Move house"}).confirmed
    assert (
        writer(fixture, tmp_path, "apply")
        .update_project("proj-move", {"title": "Move house"})
        .confirmed
    )


def test_a_create_is_matched_on_its_notes_and_checklist(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    new = NewToDo(title="Pack", notes="fragile\nfirst", checklist=("cups", "plates"))
    done = writer(fixture, tmp_path, "apply").create(new)
    assert done.confirmed and done.todo is not None
    assert [item.title for item in done.todo.checklist] == ["cups", "plates"]
    assert done.todo.notes == "fragile\nfirst"


@pytest.mark.parametrize(
    "new",
    [
        NewToDo(title="Long", notes="n" * 10_001),
        NewToDo(title="Many", checklist=tuple(f"item {i}" for i in range(101))),
    ],
    ids=["notes-cut", "checklist-cut"],
)
def test_a_create_things_cut_is_not_confirmed(
    fixture: ThingsFixture, tmp_path: Path, new: NewToDo
) -> None:
    done = writer(fixture, tmp_path, "cut", seconds=0.5).create(new)
    assert (done.confirmed, done.todo) == (False, None)
    # Things did add a to-do of that title: it is not the one asked for.
    made = ThingsDatabase(fixture.path).created_since(time.time() - 60, date.today())
    assert [t.title for t in made] == [new.title]


def test_a_batch_is_matched_on_notes_and_checklist_each(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    items = [
        NewToDo(title="Same", notes="one"),
        NewToDo(title="Same", notes="two", checklist=("a",)),
        NewToDo(title="Same", notes="n" * 10_001),
    ]
    sent = writer(fixture, tmp_path, "cut", seconds=0.5).create_many(items)
    assert [s.confirmed for s in sent] == [True, True, False]
    assert [s.todo.notes if s.todo else None for s in sent] == ["one", "two", None]


def test_a_todo_of_the_same_title_made_just_before_is_not_the_new_one(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    fixture.task("todo-just-made", "Stamps", creationDate=time.time(), userModificationDate=0)
    done = writer(fixture, tmp_path, "ignore", seconds=0.5).create(NewToDo(title="Stamps"))
    assert (done.confirmed, done.todo) == (False, None)


def test_created_since_reads_only_the_rows_made_since(fixture: ThingsFixture) -> None:
    database = ThingsDatabase(fixture.path)
    assert database.created_since(time.time() - 60, date.today()) == []
    fixture.task("todo-new", "New", creationDate=time.time())
    fixture.task("todo-new-trashed", "Gone", creationDate=time.time(), trashed=1)
    found = database.created_since(time.time() - 60, date.today())
    assert [t.id for t in found] == ["todo-new"]


def test_a_database_unreadable_after_the_launch_leaves_the_write_sent_not_an_error(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    # A Things that takes the URL and then moves its database away mid-confirmation: the write
    # was handed over, so the answer is "sent, not confirmed", never an error inviting a resend.
    gone = fixture.path.with_name("moved.sqlite")
    script = f"import sys, os; sys.stdin.read(); os.rename({str(fixture.path)!r}, {str(gone)!r})"
    things = ThingsWriter(ThingsDatabase(fixture.path), [sys.executable, "-c", script], 0.5)
    done = things.update("todo-inbox", {"title": "Sort the post today"})
    assert (done.confirmed, done.todo) == (False, None)
    assert gone.exists()


def test_a_title_things_trims_is_still_the_write_asked_for(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    things = writer(fixture, tmp_path, "apply")
    made = things.create(NewToDo(title="  Stamps  "))
    assert made.confirmed and made.todo is not None and made.todo.title == "Stamps"
    changed = things.update(made.todo.id, {"title": "Envelopes "})
    assert changed.confirmed and changed.todo is not None and changed.todo.title == "Envelopes"
    assert things.update_project("proj-move", {"title": " Move flat"}).confirmed
