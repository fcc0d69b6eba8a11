"""fruitctl's Things reader against things.py, the maintained one, on things.py's own test
databases (made by the Things app: ``thingspy/NOTICE``): view by view the same to-dos in the same
order, and the same facts of each, asked for through the gateway as an agent asks. Where the two
differ by design, the test asserts the exact difference and says why fruitctl answers as it does.

Both read "today" from the same clock (things.py in SQL, ``date('now', 'localtime')``; fruitctl
with ``date.today()``), in two zones: Rome, and Kiritimati (UTC+14), whose date is not UTC's for
most of the day. The database is read as shipped, and with its dates moved to this year, so that
what its makers scheduled ahead (``To-Do in Upcoming``, 2026-09-17) is ahead again.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
import things

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.domain.things import pack_date

DATA = Path(__file__).parent / "thingspy"
MADE = 2025  # when things.py last changed main.sqlite (debaf79, 2025-04-01)
AGENT = Actor("agent", "tester")
ZONES = ("Europe/Rome", "Pacific/Kiritimati")
Found = list[dict[str, Any]]
# Rows of main.sqlite named in the assertions below.
TEMPLATE = "N1PJHsbjct4mb1bhcs7aHa"  # 'Repeating To-Do', the hidden template (deadline 4001)
INSTANCE = "K9bx7h1xCJdevvyWardZDq"  # 'Repeating To-Do', its instance (in Today)
IN_TODAY = "5pUx6PESj3ctFYbgth1PXY"  # 'To-Do in Today' (Anytime, start date in the past)
OVERDUE = "KisAmSsnzCcRRumjY4TkVV"  # 'Overdue Todo automatically shown in Today'
PROJECT_IN_TODAY = "PgsWnDkzXRz6zvofTqtHqn"  # 'Project in Today'
IN_ANYTIME = "QqhVksfbsAVaNnwB1x3CuD"  # 'To-Do in Anytime'
IN_SOMEDAY = "JLYSEPFkLfBC5rhGJRa5S1"  # 'To-Do in Someday'
PROJECT_IN_AREA = "3x1QqJqfvZyhtw8NSdnZqG"  # 'Project in Area 1' (a heading, 4 open to-dos)
PROJECT_ALONE = "TCozQqXVbB2TJkXXXQj2H9"  # 'Project without Area' (1 open to-do)


def copied(source: Path, folder: Path) -> Path:
    """A copy of a database with its write-ahead log and -shm, kept together: SQLite may write the
    -shm index even of a database it opens read-only, so the tree's copy is never opened."""
    folder.mkdir(parents=True)
    for part in sorted(source.parent.glob(source.name + "*")):
        shutil.copy2(part, folder / part.name)
    return folder / source.name


def moved_to_this_year(path: Path) -> None:
    """Every packed date (start, deadline, the day an overdue deadline was dismissed) moved on by
    the years since the database was made: each stays on the side of today it was made on."""
    years = date.today().year - MADE
    with closing(sqlite3.connect(path)) as db, db:
        for column in ("startDate", "deadline", "deadlineSuppressionDate"):
            db.execute(
                f"UPDATE TMTask SET {column} = {column} + ? WHERE {column} IS NOT NULL",
                (years << 16,),
            )


@pytest.fixture(params=["as shipped", "moved to this year"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    path = copied(DATA / "main.sqlite", tmp_path / "things")
    if request.param == "moved to this year":
        moved_to_this_year(path)
    return path


@pytest.fixture(params=ZONES)
def zone(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TZ", request.param)  # conftest puts the zone back afterwards
    time.tzset()
    return str(request.param)


@contextmanager
def gateway_on(path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[bootstrap.App]:
    monkeypatch.setenv("FRUITCTL_THINGS__DATABASE", str(path))
    built = bootstrap.build()
    try:
        yield built
    finally:
        built.close()


@pytest.fixture
def app(
    home: Path, database: Path, zone: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[bootstrap.App]:
    with gateway_on(database, monkeypatch) as built:
        yield built


def ask(app: bootstrap.App, tool: str, **args: Any) -> Any:
    outcome = app.gateway.invoke(tool, args, AGENT)
    assert outcome.success, outcome.error
    return outcome.output


def ours(app: bootstrap.App, **query: Any) -> list[str]:
    return [t["id"] for t in ask(app, "query_todos", **{"limit": 1000, **query})["todos"]]


def ids(found: Found) -> list[str]:
    return [t["uuid"] for t in found]


def runs(order: list[str], key: Callable[[str], Any]) -> list[tuple[Any, frozenset[str]]]:
    """``order`` as runs of equal ``key``: the order both promise, without an order among ties,
    which neither promises (SQLite answers rows of equal ``index`` in any order)."""
    found: list[tuple[Any, set[str]]] = []
    for uuid in order:
        if found and found[-1][0] == key(uuid):
            found[-1][1].add(uuid)
        else:
            found.append((key(uuid), {uuid}))
    return [(k, frozenset(group)) for k, group in found]


def assert_same_order(mine: list[str], theirs: Found, *columns: str) -> None:
    """The same to-dos, in the order of things.py's ``columns`` (its ``index`` by default)."""
    facts = {t["uuid"]: tuple(t[c] or "" for c in columns or ("index",)) for t in theirs}
    assert sorted(mine) == sorted(facts), "not the same to-dos"
    assert runs(mine, facts.__getitem__) == runs(ids(theirs), facts.__getitem__)


# -- views -----------------------------------------------------------------------------------------


VIEWS: dict[str, tuple[Callable[..., Found], tuple[str, ...]]] = {
    "inbox": (things.inbox, ("index",)),
    "today": (things.today, ("today_index", "start_date")),
    "someday": (things.someday, ("index",)),
    "logbook": (things.logbook, ("stop_date",)),
}


@pytest.mark.parametrize("view", VIEWS)
def test_a_view_is_things_pys(app: bootstrap.App, database: Path, view: str) -> None:
    """Today included: things.py adds what the app will move into Today when it next opens (a
    scheduled day come, the "yellow" ones; a deadline passed and not dismissed), as fruitctl does.
    The hidden template of the repeating to-do (Someday, deadline 4001) is in neither Someday."""
    read, order = VIEWS[view]
    theirs = read(filepath=str(database), type="to-do")
    mine = ours(app, view=view)
    assert_same_order(mine, theirs, *order)
    assert ours(app, view=view, limit=2) == mine[:2]  # limit cuts that order
    assert theirs, "nothing to compare"


def test_the_template_of_a_repeating_todo_is_never_a_todo(
    app: bootstrap.App, database: Path
) -> None:
    everything = ours(app) + ours(app, view="logbook")
    assert TEMPLATE not in everything
    assert TEMPLATE not in ids(things.todos(filepath=str(database), status=None))
    instance = ask(app, "get_todo", id=INSTANCE)
    assert instance["view"] == "today" and instance["repeating"]["template"] == TEMPLATE


def test_today_holds_to_dos_where_things_py_adds_projects(
    app: bootstrap.App, database: Path
) -> None:
    """The app's Today shows projects too (``Project in Today``); query_todos answers to-dos, the
    things complete_todo and update_todo act on; projects, with their start date, are
    list_projects'."""
    mine = ours(app, view="today")
    extra = [t for t in things.today(filepath=str(database)) if t["uuid"] not in mine]
    assert [(t["uuid"], t["type"]) for t in extra] == [(PROJECT_IN_TODAY, "project")]
    (project,) = [p for p in ask(app, "list_projects") if p["id"] == PROJECT_IN_TODAY]
    assert project["startDate"] == extra[0]["start_date"]


def test_anytime_is_things_pys_without_what_today_shows(app: bootstrap.App, database: Path) -> None:
    """things.py's anytime() is every open to-do filed as Anytime (``start = 1``), Today's among
    them. fruitctl answers each to-do in the one view its ``view`` names, so a to-do Today shows
    is in today and not again in anytime: "what is there to do" is today, then anytime, with no
    to-do twice."""
    theirs = things.anytime(filepath=str(database), type="to-do")
    today = ours(app, view="today")
    assert_same_order(ours(app, view="anytime"), [t for t in theirs if t["uuid"] not in today])
    assert {t["uuid"] for t in theirs if t["uuid"] in today} == {IN_TODAY, OVERDUE, INSTANCE}


def scheduled(path: Path, *days: tuple[str, date]) -> None:
    """To-dos scheduled as the app does it: filed as Someday with the day they start."""
    with closing(sqlite3.connect(path)) as db, db:
        for uuid, day in days:
            db.execute(
                "UPDATE TMTask SET start = 2, startDate = ? WHERE uuid = ?", (pack_date(day), uuid)
            )


def test_upcoming_is_things_pys_by_the_day_each_starts(
    home: Path, database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """things.py answers Upcoming in the order to-dos are filed (``index``); the app lists it
    by day, the soonest first (issue "every view in the app's order"), and so does fruitctl."""
    soon, later = date.today() + timedelta(days=10), date.today() + timedelta(days=20)
    scheduled(database, (IN_ANYTIME, later), (IN_SOMEDAY, soon))  # filed IN_ANYTIME first
    theirs = things.upcoming(filepath=str(database), type="to-do")
    with gateway_on(database, monkeypatch) as app:
        mine = ours(app, view="upcoming")
    by_day = sorted(theirs, key=lambda t: str(t["start_date"]))
    assert_same_order(mine, by_day, "start_date")
    assert [uuid for uuid in ids(theirs) if uuid in (IN_ANYTIME, IN_SOMEDAY)] == [
        IN_ANYTIME,
        IN_SOMEDAY,
    ]
    assert mine[:2] == [IN_SOMEDAY, IN_ANYTIME]


# -- projects, areas, tags, and the to-dos of each ------------------------------------------------

STATUS = {"incomplete": "open", "completed": "completed", "canceled": "canceled"}


def test_projects_are_things_pys(app: bootstrap.App, database: Path) -> None:
    """Every project outside the Trash, done ones too (they carry their status), as things.py
    answers them when asked for every status."""
    file = str(database)
    theirs = things.projects(filepath=file, status=None)
    mine = ask(app, "list_projects")
    assert_same_order([p["id"] for p in mine], theirs)
    assert {p["status"] for p in mine} == {"open", "canceled"}
    for project, their in zip(mine, theirs, strict=True):
        assert (project["title"], project["status"], project["notes"]) == (
            their["title"],
            STATUS[their["status"]],
            their["notes"] or None,
        )
        assert (project["area"] or {}).get("id") == their.get("area")
        assert (project["startDate"], project["deadline"]) == (
            their["start_date"],
            their["deadline"],
        )
        assert project["tags"] == their.get("tags", [])
        assert project["openCount"] == len(things.todos(filepath=file, project=their["uuid"]))


def test_areas_and_tags_are_things_pys(app: bootstrap.App, database: Path) -> None:
    file = str(database)
    areas = [(a["id"], a["title"], a["tags"]) for a in ask(app, "list_areas")]
    assert areas == [
        (a["uuid"], a["title"], a.get("tags", [])) for a in things.areas(filepath=file)
    ]
    assert any(tags for _, _, tags in areas)
    tags = [(t["id"], t["title"]) for t in ask(app, "list_tags")]
    assert tags == [(t["uuid"], t["title"]) for t in things.tags(filepath=file)]


def test_a_projects_to_dos_are_things_pys(app: bootstrap.App, database: Path) -> None:
    """Its to-dos under its headings included, as things.py has them."""
    file = str(database)
    projects = things.projects(filepath=file, status=None)
    for project in projects:
        assert_same_order(
            ours(app, project=project["uuid"]), things.todos(filepath=file, project=project["uuid"])
        )
    assert len(things.todos(filepath=file, project=PROJECT_IN_AREA)) == 4  # one under its heading


def test_a_tags_to_dos_are_things_pys(app: bootstrap.App, database: Path) -> None:
    file = str(database)
    tagged = 0
    for tag in things.tags(filepath=file):
        theirs = things.todos(filepath=file, tag=tag["title"])
        assert_same_order(ours(app, tag=tag["title"]), theirs)
        tagged += len(theirs)
    assert tagged


def test_an_areas_to_dos_include_its_projects(app: bootstrap.App, database: Path) -> None:
    """things.py's ``todos(area=)`` is only the to-dos filed straight in the area. fruitctl's
    ``area`` of a to-do in a project is its project's area (the app shows the project, and in it
    its to-dos, in the area), so asking for an area answers those too."""
    file = str(database)
    everything = things.todos(filepath=file)
    through_projects = 0
    for area in things.areas(filepath=file):
        direct = ids(things.todos(filepath=file, area=area["uuid"]))
        projects = things.projects(filepath=file, area=area["uuid"], status=None)
        via = [
            uuid for p in projects for uuid in ids(things.todos(filepath=file, project=p["uuid"]))
        ]
        expected = [t for t in everything if t["uuid"] in direct + via]
        assert_same_order(ours(app, area=area["uuid"]), expected)
        through_projects += len(via)
    assert through_projects == 4  # 'Project in Area 1''s


# -- the facts of each to-do ---------------------------------------------------------------------


def local(moment: str | None) -> str | None:
    """fruitctl's moment (``2021-03-28T21:14:28+02:00``, in the person's zone) as things.py
    writes it (SQLite's ``datetime(…, 'localtime')``)."""
    return None if moment is None else moment[:19].replace("T", " ")


def same_facts(todo: dict[str, Any], their: dict[str, Any]) -> None:
    assert (todo["title"], todo["status"]) == (their["title"], STATUS[their["status"]])
    assert (todo["startDate"], todo["deadline"]) == (their["start_date"], their["deadline"])
    assert todo["tags"] == their.get("tags", [])
    heading = (their["heading"], their["heading_title"]) if "heading" in their else None
    assert (todo["heading"] and (todo["heading"]["id"], todo["heading"]["title"])) == heading
    checklist = [
        {"title": i["title"], "done": i["status"] != "incomplete"}
        for i in their.get("checklist", [])
    ]
    assert todo["checklist"] == checklist
    assert local(todo["completionDate"]) == their["stop_date"]
    assert local(todo["creationDate"]) == their["created"]
    assert local(todo["modificationDate"]) == their["modified"]


@pytest.mark.usefixtures("zone")
def test_every_todos_facts_are_things_pys(app: bootstrap.App, database: Path) -> None:
    """Title, status, dates, tags, heading, checklist and moments as things.py has them, for
    every to-do both list. By design, fruitctl says where a to-do lives in full: one under a
    heading is in the heading's project (``macos/THINGS.md``: "its project is the heading's
    project"), one in a project in its project's area (things.py answers only the columns of the
    to-do's own row); and no notes is ``null``, not ``""``."""
    file = str(database)
    theirs = {t["uuid"]: t for t in things.todos(filepath=file, status=None, include_items=True)}
    mine = (
        ask(app, "query_todos", limit=1000)["todos"]
        + ask(app, "query_todos", view="logbook", limit=1000)["todos"]
    )
    assert sorted(t["id"] for t in mine) == sorted(theirs)
    home = {p["uuid"]: p for p in things.projects(filepath=file, status=None)}
    by_heading = by_project = 0  # to-dos whose project, or area, is not on their own row
    for todo in mine:
        their = theirs[todo["id"]]
        same_facts(todo, their)
        assert todo["notes"] == (their["notes"] or None)
        project = their.get("project") or (
            their.get("heading") and things.get(their["heading"], filepath=file)["project"]
        )
        area = their.get("area") or (project and home[project].get("area"))
        assert ((todo["project"] or {}).get("id"), (todo["area"] or {}).get("id")) == (
            project,
            area,
        )
        by_heading += "project" not in their and project is not None
        by_project += "area" not in their and area is not None
    assert any(t["checklist"] for t in mine) and any(t["tags"] for t in mine)
    assert (by_heading, by_project) == (3, 8)
    assert sum(1 for t in theirs.values() if t["notes"] == "") == 9


# -- by design: This Evening is Today's last part ------------------------------------------------


def test_this_evening_is_below_the_rest_of_today(
    home: Path, database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app shows Today's to-dos moved to This Evening (``startBucket = 1``, which fruitctl's
    ``when: evening`` makes too) in a part of their own below the rest, so a ``limit`` cuts them
    last (ossianhempel/things3-cli#11 found the column; things.py orders Today by ``todayIndex``
    alone, so it keeps such a to-do in its place)."""
    with closing(sqlite3.connect(database)) as db, db:
        db.execute("UPDATE TMTask SET startBucket = 1 WHERE uuid = ?", (IN_TODAY,))
    theirs = ids(things.today(filepath=str(database), type="to-do"))
    with gateway_on(database, monkeypatch) as app:
        mine = ours(app, view="today")
    assert theirs[-1] != IN_TODAY
    assert mine == [uuid for uuid in theirs if uuid != IN_TODAY] + [IN_TODAY]


# -- by design: a project not yet started keeps its to-dos -----------------------------------------


@contextmanager
def things_app_holding(path: Path) -> Iterator[sqlite3.Connection]:
    """The database held open as Things holds it, its commits left in the write-ahead log."""
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA wal_autocheckpoint = 0")
        yield db


def test_a_parked_projects_todos_stay_with_it(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project put in Someday keeps its to-dos out of Today and Anytime, one scheduled for a
    later day keeps them in Upcoming until then: the app shows them nowhere else (review T2;
    hald/things-mcp had to add the same). The app moves the project, not its to-dos, whose own
    row still says Anytime, and that row is all things.py reads."""
    path = copied(DATA / "main.sqlite", tmp_path / "things")
    file, later = str(path), pack_date(date.today() + timedelta(days=30))
    with things_app_holding(path) as things_app:
        things_app.execute(
            "UPDATE TMTask SET start = 2, startDate = NULL WHERE uuid = ?", (PROJECT_IN_AREA,)
        )
        things_app.execute(
            "UPDATE TMTask SET start = 2, startDate = ? WHERE uuid = ?", (later, PROJECT_ALONE)
        )
        things_app.commit()
        parked = set(ids(things.todos(filepath=file, project=PROJECT_IN_AREA)))
        waiting = set(ids(things.todos(filepath=file, project=PROJECT_ALONE)))
        assert len(parked) == 4 and len(waiting) == 1
        with gateway_on(path, monkeypatch) as app:
            mine = {
                view: ours(app, view=view) for view in ("today", "upcoming", "anytime", "someday")
            }
        theirs = {view: getattr(things, view)(filepath=file, type="to-do") for view in mine}
        # The app's commits are in its log alone, not yet in the main file: both read them there.
        alone = tmp_path / "main file alone"
        alone.mkdir()
        shutil.copy2(path, alone / path.name)
        with closing(sqlite3.connect(f"file:{alone / path.name}?mode=ro", uri=True)) as db:
            start = db.execute("SELECT start FROM TMTask WHERE uuid = ?", (PROJECT_IN_AREA,))
            assert start.fetchone() == (1,)
    apart = parked | waiting
    assert set(mine["someday"]) - set(ids(theirs["someday"])) == parked
    assert set(mine["upcoming"]) - set(ids(theirs["upcoming"])) == waiting
    assert_same_order(
        mine["today"],
        [t for t in theirs["today"] if t["uuid"] not in apart],
        "today_index",
        "start_date",
    )
    today = set(mine["today"])
    assert_same_order(
        mine["anytime"], [t for t in theirs["anytime"] if t["uuid"] not in apart | today]
    )
    assert OVERDUE in parked and OVERDUE in ids(theirs["today"])  # things.py still has it in Today


# -- a database older than fruitctl reads -----------------------------------------------------


def test_an_older_layout_is_refused_saying_so(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Things before 3.15.16 (database version 18 here) kept another layout: ``dueDate`` and
    ``actionGroup``, no ``deadline``, ``heading`` or repeat columns fruitctl reads. fruitctl says
    which Things wrote it and what to do; things.py 1.0.1 refuses it too (an ``AssertionError``
    pointing to its 0.0.14)."""
    path = copied(DATA / "db2022" / "main.sqlite", tmp_path / "old")
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(TMTask)")}
    assert {"dueDate", "actionGroup"} <= columns
    assert not {"deadline", "heading", "rt1_recurrenceRule", "rt1_repeatingTemplate"} & columns
    with gateway_on(path, monkeypatch) as app:
        outcome = app.gateway.invoke("query_todos", {"view": "today"}, AGENT)
        status = app.things.status()
    assert outcome.error_code == "backend_unavailable"
    assert "written by a Things older than 3.15.16 (database version 18)" in (outcome.error or "")
    assert "update Things" in (outcome.error or "")
    assert status["readable"] is False and "3.15.16" in status["reason"]
    with pytest.raises(AssertionError, match="older format"):
        things.todos(filepath=str(path))
