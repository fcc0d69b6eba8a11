"""Writing to Things through its URL scheme, on Linux: the URL is built by a URL library and stays
literal whatever a title holds, goes to ``open_command`` as one argument, and the write is
confirmed by watching a real Things-schema database - which a recorder changes as Things would,
or does not (sent, not confirmed)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from things_fixture import AUTH_TOKEN, ThingsFixture, build

from fruitctl.backends.things import ThingsDatabase
from fruitctl.backends.things.urls import Secret, things_url
from fruitctl.backends.things.writer import ThingsWriter
from fruitctl.domain.errors import BackendUnavailable, PermissionDenied, Unsupported
from fruitctl.ports import NewProject, NewToDo

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

RECORDER = str(Path(__file__).parents[2] / "things_recorder.py")
CORPUS = [
    "Milk & eggs",
    "a=b",
    "#1 priority",
    "two\nlines",
    "quotes \" and ' and `",
    "emoji 🍎 and ünïcödé",
    "%20 stays %20",
    "things:///update?id=x&auth-token=y",
    "x" * 5000,
]


@pytest.fixture
def fixture(tmp_path: Path) -> ThingsFixture:
    return build(tmp_path / "container")


def writer(
    fixture: ThingsFixture, log: Path, mode: str = "apply", seconds: float = 5
) -> ThingsWriter:
    command = [sys.executable, RECORDER, str(fixture.path), str(log), mode]
    return ThingsWriter(ThingsDatabase(fixture.path), command, seconds)


def sent_urls(log: Path) -> list[tuple[str, dict[str, str]]]:
    found = []
    for line in log.read_text(encoding="utf-8").splitlines():
        parts = urlsplit(line)
        found.append((parts.path, dict(parse_qsl(parts.query, keep_blank_values=True))))
    return found


@pytest.mark.parametrize("title", CORPUS, ids=range(len(CORPUS)))
def test_every_value_stays_literal(title: str) -> None:
    url = things_url("add", {"title": title, "tags": ["a b", "c"], "checklist-items": ["x", "y"]})
    assert url.startswith("things:///add?") and "\n" not in url and " " not in url
    params = dict(parse_qsl(urlsplit(url).query, keep_blank_values=True, strict_parsing=True))
    assert params == {"title": title, "tags": "a b,c", "checklist-items": "x\ny"}


def test_a_secret_is_only_in_the_url() -> None:
    token = Secret(AUTH_TOKEN)
    assert AUTH_TOKEN not in f"{token} {token!r} {[token]}"
    assert f"auth-token={AUTH_TOKEN}" in things_url("update", {"id": "x", "auth-token": token})


def test_a_create_is_confirmed_when_the_new_todo_appears(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    log = tmp_path / "urls.log"
    new = NewToDo(title=CORPUS[0], notes="two\nlines", list_id="proj-move", tags=("Errand",))
    done = writer(fixture, log).create(new)
    assert done.confirmed and done.todo is not None
    assert done.todo.title == "Milk & eggs" and done.todo.project is not None
    ((path, params),) = sent_urls(log)
    assert path == "/add"
    assert params == {
        "title": "Milk & eggs",
        "notes": "two\nlines",
        "tags": "Errand",
        "list-id": "proj-move",
    }


def test_a_write_things_never_made_is_sent_not_confirmed(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    done = writer(fixture, tmp_path / "urls.log", "ignore", seconds=0.3).create(NewToDo(title="x"))
    assert (done.confirmed, done.todo) == (False, None)
    assert done.waited >= 0.3


def test_an_update_carries_the_token_and_is_confirmed(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    log = tmp_path / "urls.log"
    done = writer(fixture, log).update(
        "todo-inbox", {"title": "Sort the post today", "status": "completed"}
    )
    assert done.confirmed and done.todo is not None
    assert (done.todo.title, done.todo.status, done.todo.view) == (
        "Sort the post today",
        "completed",
        "logbook",
    )
    ((path, params),) = sent_urls(log)
    assert (
        path == "/update" and params["auth-token"] == AUTH_TOKEN and params["completed"] == "true"
    )
    assert "auth-token" in done.url_params and AUTH_TOKEN not in repr(done)


def test_the_token_is_never_an_argument_another_user_could_read(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    log = tmp_path / "urls.log"
    things = writer(fixture, log)
    assert things.update("todo-inbox", {"title": "Sort the post"}).confirmed
    assert things.update_project("proj-move", {"title": "Move flat"}).confirmed
    assert things.create(NewToDo(title="Stamps")).confirmed
    # What ps showed of each launch (the kernel's copy): the program, never the URL.
    shown = [json.loads(line) for line in (tmp_path / "urls.log.argv").read_text().splitlines()]
    assert len(shown) == 3
    assert not any("things:" in arg or AUTH_TOKEN in arg for argv in shown for arg in argv)
    # ...yet Things got the token: on standard input.
    assert [AUTH_TOKEN in line for line in log.read_text().splitlines()] == [True, True, False]


def test_without_a_token_an_update_says_how_to_enable_it(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    with fixture.connect() as db:
        db.execute("UPDATE TMSettings SET uriSchemeAuthenticationToken = NULL")
    with pytest.raises(PermissionDenied, match="Enable Things URLs"):
        writer(fixture, tmp_path / "urls.log").update("todo-inbox", {"title": "x"})
    assert not (tmp_path / "urls.log").exists()


def test_a_launch_that_fails_says_so_without_the_url(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    with pytest.raises(BackendUnavailable) as caught:
        writer(fixture, tmp_path / "urls.log", "fail").update("todo-inbox", {"title": "x"})
    assert "exited 1" in caught.value.message and AUTH_TOKEN not in str(caught.value.to_dict())
    broken = ThingsWriter(ThingsDatabase(fixture.path), [str(tmp_path / "no-such-program")])
    with pytest.raises(BackendUnavailable, match="did not run"):
        broken.update("todo-inbox", {"title": "x"})


def test_without_an_open_command_writes_are_unsupported(fixture: ThingsFixture) -> None:
    with pytest.raises(Unsupported, match="open_command"):
        ThingsWriter(ThingsDatabase(fixture.path), []).create(NewToDo(title="x"))


def test_a_batch_is_one_launch_and_each_todo_is_confirmed(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    log = tmp_path / "urls.log"
    items = [
        NewToDo(title=CORPUS[0]),
        NewToDo(title="Label boxes", list_id="proj-move"),
        NewToDo(title=CORPUS[0], checklist=("a", "b")),
    ]
    sent = writer(fixture, log).create_many(items)
    assert [s.confirmed for s in sent] == [True, True, True]
    assert len({s.todo.id for s in sent if s.todo}) == 3  # the same title twice: two to-dos
    ((path, params),) = sent_urls(log)
    assert path == "/json"
    data = json.loads(params["data"])
    assert data[2] == {
        "type": "to-do",
        "attributes": {
            "title": "Milk & eggs",
            "checklist-items": [
                {"type": "checklist-item", "attributes": {"title": "a"}},
                {"type": "checklist-item", "attributes": {"title": "b"}},
            ],
        },
    }
    lost = writer(fixture, log, "ignore", seconds=0.2).create_many([NewToDo(title="x")])
    assert [(s.confirmed, s.todo) for s in lost] == [(False, None)]


def test_a_project_is_added_with_its_todos_and_changed(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    log = tmp_path / "urls.log"
    things = writer(fixture, log)
    made = things.create_project(
        NewProject(title="Garden", area_id="area-home", todos=("Dig", "Plant & water"))
    )
    assert made.confirmed and made.project is not None
    assert (made.project.title, made.project.openCount) == ("Garden", 2)
    assert made.project.area is not None and made.project.area.title == "Home"
    ((path, params),) = sent_urls(log)
    assert (path, params["to-dos"], params["area-id"]) == (
        "/add-project",
        "Dig\nPlant & water",
        "area-home",
    )

    changed = things.update_project(made.project.id, {"title": "Garden 2026", "deadline": None})
    assert changed.confirmed and changed.project is not None
    assert changed.project.title == "Garden 2026"
    path, params = sent_urls(log)[-1]
    assert (
        path == "/update-project"
        and params["deadline"] == ""
        and params["auth-token"] == AUTH_TOKEN
    )
