"""Things, complete (issue 30): a reminder time on a to-do (``when`` with ``@HH:MM``), text search
over title and notes, a project's headings and moving a to-do under one, and checklist items
added on update - read from a real Things-schema database (fruitctl's fixture, and things.py's
test database made by the Things app, read by things.py alongside), written through the URL
scheme to the recorder playing Things, and confirmed only when the database shows it."""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import closing
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
import things
from things_fixture import ThingsFixture, build
from things_home import app_on_things

from fruitctl import bootstrap
from fruitctl.backends.things import ThingsDatabase
from fruitctl.backends.things.writer import ThingsWriter
from fruitctl.domain.actors import Actor
from fruitctl.ports import NewProject

RECORDER = str(Path(__file__).parents[2] / "things_recorder.py")
THINGSPY = Path(__file__).parent / "thingspy"
PERSON = Actor("human", "me")
UPCOMING = "7F4vqUNiTvGKaCUfv5pqYG"  # things.py's 'To-Do in Upcoming', reminder 12:34
PROJECT_IN_AREA = "3x1QqJqfvZyhtw8NSdnZqG"  # things.py's 'Project in Area 1', one heading


@pytest.fixture
def app(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[bootstrap.App]:
    with app_on_things(tmp_path, tmp_path / "urls.log", monkeypatch) as built:
        yield built


@pytest.fixture
def thingspy(tmp_path: Path) -> Path:
    """A copy of things.py's database (with its WAL: the tree's copy is never opened)."""
    folder = tmp_path / "thingspy"
    folder.mkdir()
    for part in THINGSPY.glob("main.sqlite*"):
        (folder / part.name).write_bytes(part.read_bytes())
    return folder / "main.sqlite"


def ask(app: bootstrap.App, tool: str, **args: Any) -> Any:
    outcome = app.gateway.invoke(tool, args, PERSON)
    assert outcome.success, outcome.error
    return outcome.output


def refused(app: bootstrap.App, tool: str, **args: Any) -> tuple[str | None, str]:
    outcome = app.gateway.invoke(tool, args, PERSON)
    assert not outcome.success
    return outcome.error_code, outcome.error or ""


def sent(log: Path) -> list[tuple[str, dict[str, str]]]:
    found = []
    for line in log.read_text(encoding="utf-8").splitlines():
        parts = urlsplit(line)
        found.append((parts.path, dict(parse_qsl(parts.query, keep_blank_values=True))))
    return found


def add(fixture: ThingsFixture, uuid: str, title: str, notes: str = "") -> None:
    fixture.task(uuid, title, notes=notes)


# -- the reminder time ---------------------------------------------------------------------------


def test_the_reminder_is_read_as_things_py_reads_it(thingspy: Path) -> None:
    """Every to-do's reminder time, as things.py decodes the ``reminderTime`` column."""
    file = str(thingspy)
    theirs = {t["uuid"]: t.get("reminder_time") for t in things.todos(filepath=file, status=None)}
    mine = {t.id: t.reminderTime for t in ThingsDatabase(thingspy).todos(date.today())}
    assert {k: v for k, v in mine.items() if k in theirs} == theirs
    assert mine[UPCOMING] == "12:34"


def test_the_fixtures_reminder_is_read_and_answered(app: bootstrap.App) -> None:
    assert ask(app, "get_todo", id="todo-today")["reminderTime"] == "18:05"
    assert ask(app, "get_todo", id="todo-inbox")["reminderTime"] is None


@pytest.mark.parametrize(
    ("when", "url_when", "day"),
    [
        ("today@18:00", "today@18:00", "today"),
        ("tomorrow@7:05", "tomorrow@07:05", "tomorrow"),
        ("2031-12-01@09:30", "2031-12-01@09:30", "2031-12-01"),
    ],
)
@pytest.mark.process  # Things writes through the launcher
def test_when_with_a_time_sets_the_reminder_and_is_confirmed(
    app: bootstrap.App, tmp_path: Path, when: str, url_when: str, day: str
) -> None:
    made = ask(app, "create_todo", title="Take the bins out", when=when)
    changed = ask(app, "update_todo", id="todo-inbox", when=when)
    for answer in (made, changed):
        assert answer["status"] == "confirmed"
        assert answer["todo"]["reminderTime"] == url_when.partition("@")[2]
    assert [params["when"] for _, params in sent(tmp_path / "urls.log")] == [url_when] * 2
    if day == "2031-12-01":
        assert changed["todo"]["startDate"] == day


@pytest.mark.parametrize(
    "when", ["someday@18:00", "evening@18:00", "today@25:00", "today@18", "today@18:5", "x@1:00"]
)
def test_a_time_things_does_not_take_is_refused_naming_the_vocabulary(
    app: bootstrap.App, tmp_path: Path, when: str
) -> None:
    code, message = refused(app, "update_todo", id="todo-inbox", when=when)
    assert code == "invalid_params" and "today@18:00" in message
    assert not (tmp_path / "urls.log").exists()  # nothing sent


@pytest.mark.process  # Things writes through the launcher
def test_a_things_that_drops_the_time_is_sent_not_confirmed(home: Path, tmp_path: Path) -> None:
    fixture = build(tmp_path / "container")
    command = [sys.executable, RECORDER, str(fixture.path), str(tmp_path / "u.log"), "no-reminder"]
    writer = ThingsWriter(ThingsDatabase(fixture.path), command, 0.5)
    done = writer.update("todo-inbox", {"when": "today@18:00"})
    assert (done.confirmed, done.todo) == (False, None)
    read = ThingsDatabase(fixture.path).todo("todo-inbox", date.today())
    assert (read.startDate, read.reminderTime) == (date.today().isoformat(), None)


# -- search --------------------------------------------------------------------------------------


def titles(found: dict[str, Any]) -> list[str]:
    return [t["title"] for t in found["todos"]]


def test_search_matches_title_and_notes_in_any_case(app: bootstrap.App) -> None:
    assert titles(ask(app, "query_todos", search="BANK")) == ["Call the bank"]
    assert titles(ask(app, "query_todos", search="the hall")) == ["Sort the post"]  # notes
    assert titles(ask(app, "query_todos", search="passport")) == []  # the logbook's, not asked
    assert titles(ask(app, "query_todos", search="passport", view="logbook")) == ["Renew passport"]
    assert titles(ask(app, "query_todos", search="old")) == []  # trashed ones never appear


def test_search_folds_case_beyond_ascii(home: Path, tmp_path: Path, monkeypatch: Any) -> None:
    def prepare(fixture: ThingsFixture) -> None:
        add(fixture, "todo-uber", "ÜBER den Fluß", "Straße")

    with app_on_things(tmp_path, tmp_path / "u.log", monkeypatch, prepare) as app:
        assert titles(ask(app, "query_todos", search="über")) == ["ÜBER den Fluß"]
        assert titles(ask(app, "query_todos", search="STRASSE")) == ["ÜBER den Fluß"]


def test_percent_underscore_and_backslash_are_plain_characters(
    home: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    def prepare(fixture: ThingsFixture) -> None:
        add(fixture, "todo-pct", "Save 100% of it")
        add(fixture, "todo-under", "rename a_b")
        add(fixture, "todo-slash", "path C:\\temp")
        add(fixture, "todo-plain", "Save 1000 of axb")

    with app_on_things(tmp_path, tmp_path / "u.log", monkeypatch, prepare) as app:
        assert titles(ask(app, "query_todos", search="0%")) == ["Save 100% of it"]
        assert titles(ask(app, "query_todos", search="a_b")) == ["rename a_b"]
        assert titles(ask(app, "query_todos", search="\\t")) == ["path C:\\temp"]
        assert titles(ask(app, "query_todos", search="'; DROP TABLE TMTask; --")) == []
        assert len(ask(app, "query_todos")["todos"]) == 12


def test_search_is_bounded_and_counts_what_it_cut(app: bootstrap.App) -> None:
    found = ask(app, "query_todos", search="e", limit=2)
    assert (found["count"], len(found["todos"])) == (2, 2)
    assert found["total"] == len(ask(app, "query_todos", search="e", limit=1000)["todos"]) > 2
    code, _ = refused(app, "query_todos", search="")
    assert code == "invalid_params"


def test_search_narrows_in_sql(tmp_path: Path) -> None:
    """The reader answers only the matches: the rows are chosen by the query, not afterwards."""
    database = ThingsDatabase(build(tmp_path / "container").path)
    found = database.todos(date.today(), None, "boxes")
    assert [t.id for t in found] == ["todo-anytime"]
    assert found[0].checklist  # read in full, like any to-do


@pytest.mark.parametrize("query", ["to-do", "TODAY", "heading", "notes", "in a", "%", "_"])
def test_search_finds_what_things_py_finds(
    home: Path, thingspy: Path, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    """things.py's search (``LIKE`` on title and notes, and its area's title: none of these
    queries is in one) on the database the Things app made: the same open to-dos, less the
    hidden template of the repeating one, which is no to-do. A ``%`` or ``_`` is a plain
    character to fruitctl: things.py's query of one is any text."""
    theirs = {t["uuid"] for t in things.search(query, filepath=str(thingspy), type="to-do")}
    monkeypatch.setenv("FRUITCTL_THINGS__DATABASE", str(thingspy))
    built = bootstrap.build()
    try:
        mine = ask(built, "query_todos", search=query, limit=1000)["todos"]
    finally:
        built.close()
    template = "N1PJHsbjct4mb1bhcs7aHa"
    if query in ("%", "_"):  # by design: things.py pastes them into LIKE, where they match all
        assert (len(theirs), mine) == (15, [])  # no title or note holds one
    else:
        assert {t["id"] for t in mine} == theirs - {template}
        assert mine


# -- headings ------------------------------------------------------------------------------------


def test_a_projects_headings_in_the_apps_order(app: bootstrap.App) -> None:
    found = ask(app, "list_headings", project="move HOUSE")
    assert [(h["id"], h["title"], h["openCount"]) for h in found] == [
        ("head-pack", "Packing", 1),
        ("head-clean", "Cleaning", 0),
    ]
    assert found[0]["project"] == {"id": "proj-move", "title": "Move house"}
    code, message = refused(app, "list_headings", project="Old plans")  # in the Trash
    assert code == "not_found" and "Available projects: Move house" in message


def test_headings_are_things_pys(home: Path, thingspy: Path, monkeypatch: Any) -> None:
    theirs = things.tasks(type="heading", project=PROJECT_IN_AREA, filepath=str(thingspy))
    monkeypatch.setenv("FRUITCTL_THINGS__DATABASE", str(thingspy))
    built = bootstrap.build()
    try:
        mine = ask(built, "list_headings", project=PROJECT_IN_AREA)
    finally:
        built.close()
    assert [(h["id"], h["title"]) for h in mine] == [(t["uuid"], t["title"]) for t in theirs]
    assert mine[0]["openCount"] == len(things.todos(heading=mine[0]["id"], filepath=str(thingspy)))


@pytest.mark.process  # Things writes through the launcher
def test_a_todo_moves_under_a_heading_by_title_or_id(app: bootstrap.App, tmp_path: Path) -> None:
    moved = ask(app, "update_todo", id="todo-anytime", heading="cleaning")
    assert moved["status"] == "confirmed"
    assert moved["todo"]["heading"] == {"id": "head-clean", "title": "Cleaning"}
    assert moved["todo"]["project"]["id"] == "proj-move"  # still in its project
    into = ask(app, "update_todo", id="todo-inbox", project="Move house", heading="head-pack")
    assert into["todo"]["heading"]["id"] == "head-pack"
    (_, first), (_, second) = sent(tmp_path / "urls.log")
    assert first["heading-id"] == "head-clean" and "list-id" not in first
    assert (second["list-id"], second["heading-id"]) == ("proj-move", "head-pack")


def test_a_heading_that_is_not_there_is_refused_before_anything_is_sent(
    app: bootstrap.App, tmp_path: Path
) -> None:
    code, message = refused(app, "update_todo", id="todo-anytime", heading="Garage")
    assert code == "not_found" and "Available headings: Packing, Cleaning" in message
    code, message = refused(app, "update_todo", id="todo-inbox", heading="Packing")
    assert code == "invalid_params" and "give 'project' too" in message
    code, _ = refused(app, "update_todo", id="todo-anytime", area="Home", heading="Packing")
    assert code == "invalid_params"
    assert not (tmp_path / "urls.log").exists()


@pytest.mark.process  # Things writes through the launcher
def test_a_move_things_did_not_make_is_not_confirmed(home: Path, tmp_path: Path) -> None:
    """A Things that wrote the to-do (its new title is there) but did not move it."""
    fixture = build(tmp_path / "container")
    log = str(tmp_path / "u.log")
    command = [sys.executable, RECORDER, str(fixture.path), log, "without:heading-id"]
    writer = ThingsWriter(ThingsDatabase(fixture.path), command, 0.5)
    done = writer.update("todo-anytime", {"heading_id": "head-clean", "title": "Buy boxes!"})
    assert done.confirmed is False
    read = ThingsDatabase(fixture.path).todo("todo-anytime", date.today())
    assert (read.title, read.heading) == ("Buy boxes!", None)


@pytest.mark.process  # Things writes through the launcher
def test_a_new_project_is_made_with_its_headings(app: bootstrap.App, tmp_path: Path) -> None:
    """Things makes a heading only as an item of a project it creates (its ``json`` command):
    the project, its to-dos and then its headings, confirmed when Things shows them all."""
    made = ask(
        app,
        "create_project",
        title="Garden",
        area="Home",
        todos=["Order seeds"],
        headings=["Spring", "Autumn & winter"],
    )
    assert made["status"] == "confirmed"
    project = made["project"]["id"]
    found = ask(app, "list_headings", project=project)
    assert [h["title"] for h in found] == ["Spring", "Autumn & winter"]
    assert [t["title"] for t in ask(app, "query_todos", project="Garden")["todos"]] == [
        "Order seeds"
    ]
    ((path, params),) = sent(tmp_path / "urls.log")
    assert path == "/json"
    (sent_project,) = json.loads(params["data"])
    assert sent_project["attributes"]["items"] == [
        {"type": "to-do", "attributes": {"title": "Order seeds"}},
        {"type": "heading", "attributes": {"title": "Spring"}},
        {"type": "heading", "attributes": {"title": "Autumn & winter"}},
    ]
    assert sent_project["attributes"]["area-id"] == "area-home"
    plain = ask(app, "create_project", title="Attic", todos=["Sort"])  # no headings: add-project
    assert plain["status"] == "confirmed" and sent(tmp_path / "urls.log")[-1][0] == "/add-project"


@pytest.mark.process  # Things writes through the launcher
def test_a_project_without_the_headings_asked_is_not_confirmed(home: Path, tmp_path: Path) -> None:
    fixture = build(tmp_path / "container")
    log = str(tmp_path / "u.log")
    command = [sys.executable, RECORDER, str(fixture.path), log, "apply"]
    writer = ThingsWriter(ThingsDatabase(fixture.path), command, 0.5)
    with closing(sqlite3.connect(fixture.path)) as db, db:  # a Things that drops headings
        db.execute(
            "CREATE TRIGGER no_headings AFTER INSERT ON TMTask WHEN NEW.type = 2 "
            "BEGIN DELETE FROM TMTask WHERE uuid = NEW.uuid; END"
        )
    done = writer.create_project(NewProject(title="Garden", headings=("Spring",)))
    assert (done.confirmed, done.project) == (False, None)
    assert "Garden" in [p.title for p in ThingsDatabase(fixture.path).projects()]


# -- checklist items added on update -------------------------------------------------------------


def checklist(answer: dict[str, Any]) -> list[tuple[str, bool]]:
    return [(item["title"], item["done"]) for item in answer["todo"]["checklist"]]


@pytest.mark.process  # Things writes through the launcher
def test_items_are_added_before_and_after_those_it_has(app: bootstrap.App, tmp_path: Path) -> None:
    done = ask(
        app,
        "update_todo",
        id="todo-anytime",
        prependChecklist=["Measure the shelves"],
        appendChecklist=["Tape", "Labels & pens"],
    )
    assert done["status"] == "confirmed"
    assert checklist(done) == [
        ("Measure the shelves", False),
        ("Small ones", True),  # what it had is kept, ticked as it was
        ("Big ones", False),
        ("Tape", False),
        ("Labels & pens", False),
    ]
    ((_, params),) = sent(tmp_path / "urls.log")
    assert params["prepend-checklist-items"] == "Measure the shelves"
    assert params["append-checklist-items"] == "Tape\nLabels & pens"
    assert "checklist-items" not in params  # never the replacing one


def test_a_checklist_past_things_limit_is_refused(app: bootstrap.App, tmp_path: Path) -> None:
    many = [f"item {n}" for n in range(99)]
    code, message = refused(app, "update_todo", id="todo-anytime", appendChecklist=many)
    assert code == "invalid_params" and "101 items (2 now, 99 added)" in message
    code, _ = refused(app, "update_todo", id="todo-anytime", appendChecklist=["two\nlines"])
    assert code == "invalid_params"
    assert not (tmp_path / "urls.log").exists()


@pytest.mark.process  # Things writes through the launcher
def test_items_things_did_not_add_are_not_confirmed(home: Path, tmp_path: Path) -> None:
    """A Things that wrote the to-do (its other change is there) but added no item: the write
    is sent, not confirmed; one adding them after items Things had already is confirmed."""
    fixture = build(tmp_path / "container")

    def writer(mode: str) -> ThingsWriter:
        command = [sys.executable, RECORDER, str(fixture.path), str(tmp_path / "u.log"), mode]
        return ThingsWriter(ThingsDatabase(fixture.path), command, 0.5)

    lost = writer("without:append-checklist-items").update(
        "todo-anytime", {"title": "Buy more boxes", "append_checklist": ("Tape",)}
    )
    assert lost.confirmed is False
    read = ThingsDatabase(fixture.path).todo("todo-anytime", date.today())
    assert read.title == "Buy more boxes" and len(read.checklist) == 2
    done = writer("apply").update("todo-anytime", {"prepend_checklist": ("Tape",)})
    assert done.confirmed and done.todo is not None
    assert [i.title for i in done.todo.checklist] == ["Tape", "Small ones", "Big ones"]
