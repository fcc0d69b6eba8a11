"""A query of to-dos is narrowed on the rows and only its page is built: what it answers is
exactly what narrowing and cutting every to-do of the view would give, in the app's order, with
the same total - for every view, project, area, tag, search and limit."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from things_fixture import TODAY, ThingsFixture, add_parked_projects, add_repeating, build

from fruitctl.backends.things import ThingsDatabase
from fruitctl.domain.errors import BackendUnavailable
from fruitctl.domain.things import VIEWS, ThingsView, ToDo, ToDoQuery


@pytest.fixture(scope="module")
def things(tmp_path_factory: pytest.TempPathFactory) -> ThingsDatabase:
    fixture = build(tmp_path_factory.mktemp("things") / "container")
    add_repeating(fixture)
    add_parked_projects(fixture)
    return ThingsDatabase(fixture.path)


def expected(things: ThingsDatabase, wanted: ToDoQuery) -> tuple[list[ToDo], int]:
    """The query answered the long way: every to-do of the view built, then narrowed."""
    found = things.todos(TODAY, wanted.view, wanted.search)
    if wanted.view is None:
        found = [t for t in found if t.view != "logbook"]
    if wanted.project is not None:
        found = [t for t in found if t.project is not None and t.project.id == wanted.project]
    if wanted.area is not None:
        found = [t for t in found if t.area is not None and t.area.id == wanted.area]
    if wanted.tag is not None:
        found = [t for t in found if wanted.tag in t.tags]
    return found[: wanted.limit], len(found)


def test_every_narrowing_answers_what_the_whole_view_narrowed_gives(
    things: ThingsDatabase,
) -> None:
    views: list[ThingsView | None] = [None, *VIEWS]
    projects = [None, *(p.id for p in things.projects())]
    areas = [None, *(a.id for a in things.areas())]
    tags = [None, *(t.title for t in things.tags())]
    checked = 0
    for view in views:
        for project in projects:
            for area in areas:
                for tag in tags:
                    for limit in (None, 1, 2):
                        wanted = ToDoQuery(view, None, project, area, tag, limit)
                        page = things.query(TODAY, wanted)
                        assert (page.todos, page.total) == expected(things, wanted), wanted
                        checked += page.total
    assert checked > 100  # the narrowings found to-dos, not only empty pages
    for search in ("bank", "BANK", "a", "HALL", "nothing like it"):
        wanted = ToDoQuery(None, search, limit=3)
        page = things.query(TODAY, wanted)
        assert (page.todos, page.total) == expected(things, wanted)


def test_a_page_is_the_first_to_dos_in_the_apps_order(things: ThingsDatabase) -> None:
    for view in VIEWS:
        every = things.todos(TODAY, view)
        for limit in range(1, len(every) + 2):
            page = things.query(TODAY, ToDoQuery(view, limit=limit))
            assert page.todos == every[:limit] and page.total == len(every)


def test_a_date_older_things_wrote_is_refused_in_a_database_without_its_version(
    tmp_path: Path,
) -> None:
    fixture: ThingsFixture = build(tmp_path / "container")
    with sqlite3.connect(fixture.path) as db:
        db.execute("DROP TABLE Meta")
        # In the Logbook, so no view's read meets it: the check of the whole table finds it.
        changed = db.execute("UPDATE TMTask SET deadline = 1614902400.0 WHERE status = 3")
        assert changed.rowcount > 0
    things = ThingsDatabase(fixture.path)
    with pytest.raises(BackendUnavailable, match=r"older than 3\.15; update Things"):
        things.query(TODAY, ToDoQuery("today"))
