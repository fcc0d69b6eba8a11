"""Things' views as the app has them: a repeating to-do's hidden template is never a to-do (its
instances say which template made them), each view is in the app's own order, and the to-dos
of a project not yet started are where the app shows them (Someday or Upcoming), never in
Today or Anytime."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from things_fixture import (
    TODAY,
    ThingsFixture,
    add_parked_projects,
    add_repeating,
    build,
    packed,
)

from fruitctl.backends.things import ThingsDatabase
from fruitctl.domain.errors import InvalidParams
from fruitctl.domain.things import VIEWS, Repeating


@pytest.fixture
def fixture(tmp_path: Path) -> ThingsFixture:
    return build(tmp_path / "container")


@pytest.fixture
def things(fixture: ThingsFixture) -> ThingsDatabase:
    return ThingsDatabase(fixture.path)


def ids(things: ThingsDatabase, view: str | None) -> list[str]:
    return [t.id for t in things.todos(TODAY, view)]  # type: ignore[arg-type]


# -- repeating to-dos ------------------------------------------------------------------------------


def test_a_repeating_todos_template_is_never_a_todo(
    fixture: ThingsFixture, things: ThingsDatabase
) -> None:
    add_repeating(fixture)
    assert "todo-repeat-template" not in ids(things, None)
    assert ids(things, "someday") == ["todo-someday"]  # not the template (start = 2)
    assert all(t.deadline != "4001-01-01" for t in things.todos(TODAY))
    (move,) = things.projects()
    assert move.openCount == 2  # the template sits in the project; it is not counted


def test_an_instance_says_which_template_made_it(
    fixture: ThingsFixture, things: ThingsDatabase
) -> None:
    add_repeating(fixture)
    assert "todo-repeat" in ids(things, "today")
    instance = things.todo("todo-repeat", TODAY)
    assert instance.repeating == Repeating(template="todo-repeat-template", rule="every week")
    assert instance.to_wire()["repeating"] == {
        "template": "todo-repeat-template",
        "rule": "every week",
    }
    assert things.todo("todo-today", TODAY).to_wire()["repeating"] is None


def test_a_template_asked_for_by_id_is_refused_saying_why(
    fixture: ThingsFixture, things: ThingsDatabase
) -> None:
    # Every update and completion finds its to-do by id here first: none can reach a template.
    add_repeating(fixture)
    with pytest.raises(InvalidParams, match="template of a repeating to-do") as refused:
        things.todo("todo-repeat-template", TODAY)
    assert "repeating.template is 'todo-repeat-template'" in refused.value.message


# -- the app's order ---------------------------------------------------------------------------


def test_today_is_in_the_apps_own_order(things: ThingsDatabase) -> None:
    # By todayIndex, then start date: the overdue deadline (index 0, no date), the to-do
    # scheduled for today (1), the Someday one scheduled yesterday (2) - not insertion order.
    assert ids(things, "today") == ["todo-overdue", "todo-today", "todo-yellow"]


def test_equal_today_places_go_by_start_date(
    fixture: ThingsFixture, things: ThingsDatabase
) -> None:
    day = timedelta(days=1)
    fixture.task("today-later", "B", startDate=packed(TODAY), todayIndex=7)
    fixture.task("today-earlier", "A", startDate=packed(TODAY - 2 * day), todayIndex=7)
    assert ids(things, "today")[-2:] == ["today-earlier", "today-later"]


def test_the_other_views_follow_the_apps_index(
    fixture: ThingsFixture, things: ThingsDatabase
) -> None:
    # Written in the opposite order to the app's index, so the database's order is wrong.
    for n, index in enumerate([30, 20, 10]):
        fixture.task(f"any-{index}", f"Any {n}", **{"index": index})
        fixture.task(f"inbox-{index}", f"In {n}", start=0, **{"index": index})
        fixture.task(f"some-{index}", f"Some {n}", start=2, **{"index": index})
    assert ids(things, "anytime")[-3:] == ["any-10", "any-20", "any-30"]
    assert ids(things, "inbox")[-3:] == ["inbox-10", "inbox-20", "inbox-30"]
    assert ids(things, "someday")[-3:] == ["some-10", "some-20", "some-30"]


def test_upcoming_goes_by_date_then_index(fixture: ThingsFixture, things: ThingsDatabase) -> None:
    day = timedelta(days=1)
    fixture.task("up-far", "Far", startDate=packed(TODAY + 9 * day))
    # Titles against the index: a tie is the app's order, not the alphabet's.
    fixture.task("up-near-b", "Near A", startDate=packed(TODAY + day), **{"index": 5})
    fixture.task("up-near-a", "Near B", startDate=packed(TODAY + day), **{"index": 4})
    assert ids(things, "upcoming") == ["up-near-a", "up-near-b", "todo-upcoming", "up-far"]


# -- projects not yet started --------------------------------------------------------------------


def test_a_someday_projects_todos_are_in_someday(
    fixture: ThingsFixture, things: ThingsDatabase
) -> None:
    add_parked_projects(fixture)
    parked = {"todo-parked", "todo-parked-dated", "todo-parked-heading"}
    assert parked <= set(ids(things, "someday"))  # directly and under its heading
    for view in ("today", "anytime", "upcoming"):
        assert not parked & set(ids(things, view)), view
    assert things.todo("todo-parked-heading", TODAY).view == "someday"


def test_a_later_projects_todos_wait_in_upcoming(
    fixture: ThingsFixture, things: ThingsDatabase
) -> None:
    add_parked_projects(fixture)
    assert "todo-later" not in ids(things, "today")  # its deadline passed, but not yet started
    assert ids(things, "upcoming") == ["todo-upcoming", "todo-later"]  # by the project's date
    assert things.todo("todo-later", TODAY + timedelta(days=5)).view == "today"


@pytest.mark.parametrize("when", [-3, 0, 3, 6], ids=["-3 days", "today", "+3 days", "+6 days"])
def test_each_views_sql_agrees_with_the_apps_rule_for_parked_projects(
    fixture: ThingsFixture, things: ThingsDatabase, when: int
) -> None:
    add_parked_projects(fixture)
    add_repeating(fixture)
    day = TODAY + timedelta(days=when)
    everything = things.todos(day)
    for view in VIEWS:
        assert sorted(t.id for t in things.todos(day, view)) == sorted(
            t.id for t in everything if t.view == view
        ), view
