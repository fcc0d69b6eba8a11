"""Writing to Things through its URL scheme, and confirming that the write landed.

Things answers a ``things:///`` URL with nothing a caller can read, so after launching one the
writer watches the database until the change is there, for at most ``confirm_seconds``: a new
to-do created after the launch holding the title, notes, checklist and list asked for (so one
Things cut at its limits is not it); a changed row whose ``userModificationDate`` moved after the
launch and that holds the asked values (so an update to values already held, which Things may
have refused, is not confirmed by them). Each poll reads only the rows created since the launch,
or the one row updated (``watch.py``). What it did not see is reported as sent and not
confirmed, never as done.

The URL goes to ``open_command`` on its standard input (on a Mac, fruitctl's own launcher,
``launch.py``), never as an argument: a program's arguments are readable by every local user
while it runs, and an update's URL carries Things' auth token. No shell, and nothing of the
URL in an error or a log line.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Sequence
from datetime import date, timedelta

from fruitctl.backends.things.batches import URL_MAX, Pace, split, too_long
from fruitctl.backends.things.reader import ThingsDatabase
from fruitctl.backends.things.urls import Command, Secret, Value, things_url
from fruitctl.backends.things.watch import holds, moved, same
from fruitctl.domain.errors import BackendUnavailable, Unsupported
from fruitctl.domain.things import Project, ToDo
from fruitctl.domain.writes import remaining
from fruitctl.ports import (
    NewProject,
    NewToDo,
    ProjectChanges,
    Sent,
    SentProject,
    ToDoChanges,
)

LAUNCH_SECONDS = 15.0
POLL_SECONDS = 0.1
ANSWER_SECONDS = 1.0  # kept from a call's deadline for reading the to-do back and answering
SLACK_SECONDS = 2.0  # clocks of one machine; Things stamps creation with whole seconds
NOT_ON_THIS_SYSTEM = (
    "Writing to Things needs its URL scheme, which only a Mac with Things 3 has: set "
    "[things] open_command (a program that reads the URL on its standard input) to send writes."
)
STDIN_HINT = (
    " [things] open_command is handed the URL on its standard input, never as an argument; "
    "the default on a Mac, python -m fruitctl.backends.things.launch, reads it there."
)


class ThingsWriter:
    def __init__(
        self,
        database: ThingsDatabase,
        open_command: Sequence[str],
        confirm_seconds: float = 5.0,
        *,
        today: Callable[[], date] = date.today,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._db = database
        self._command = list(open_command)
        self._confirm = confirm_seconds
        self._today = today
        self._clock = clock
        self._sleep = sleep
        self._pace = Pace(clock, sleep)

    def create(self, new: NewToDo) -> Sent:
        self._require()
        params = _add_params(new)
        since, before = self._created_before()
        self._launch("add", params, adds=1)

        def landed() -> ToDo | None:
            for todo in self._db.created_since(since, self._today()):
                if todo.id not in before and holds(todo, new):
                    return todo
            return None

        return self._confirmed(landed, params)

    def check_create(self, new: NewToDo) -> None:
        _fitting("add", _add_params(new))

    def create_many(self, items: Sequence[NewToDo]) -> list[Sent]:
        """Several to-dos in as few launches as fit (Things' ``json`` command, ``batches.py``),
        each confirmed on its own."""
        self._require()
        data = [{"type": "to-do", "attributes": _attributes(new)} for new in items]
        texts = [json.dumps(item, ensure_ascii=False) for item in data]
        groups = split(texts)  # before anything is sent: one to-do too long refuses them all
        since, before = self._created_before()
        params: dict[str, Value | Secret] = {}
        for group in groups:
            params = {"data": "[" + ", ".join(texts[i] for i in group) + "]"}
            self._launch("json", params, adds=len(group))
        found: dict[int, ToDo] = {}

        def all_landed() -> bool:
            taken = {todo.id for todo in found.values()}
            for todo in self._db.created_since(since, self._today()):
                if todo.id in before or todo.id in taken:
                    continue
                for index, new in enumerate(items):
                    if index not in found and holds(todo, new):
                        found[index] = todo
                        taken.add(todo.id)
                        break
            return len(found) == len(items)

        waited = self._wait(all_landed)
        names = tuple(sorted(params))
        return [Sent(found.get(i), i in found, waited, names) for i in range(len(items))]

    def update(self, todo_id: str, changes: ToDoChanges) -> Sent:
        self._require()
        params = self._update_params(todo_id, changes)
        stamp = self._db.modified_at(todo_id)
        checklist = _checklist_after(self._db.todo(todo_id, self._today()), changes)
        self._launch("update", params)

        def landed() -> ToDo | None:
            if not moved(stamp, self._db.modified_at(todo_id)):
                return None  # Things has not written it since: its values prove nothing
            todo = self._db.todo(todo_id, self._today())
            if checklist is not None and [i.title for i in todo.checklist] != checklist:
                return None
            return todo if _matches(todo, changes, self._today()) else None

        return self._confirmed(landed, params)

    def create_project(self, new: NewProject) -> SentProject:
        """``add-project``; with headings, Things' ``json`` command (the only one that makes a
        heading: as an item of a project it creates)."""
        self._require()
        command, params = _project_params(new)
        before = {p.id for p in self._db.projects()}
        self._launch(command, params, adds=1 + len(new.todos) + len(new.headings))
        seen: list[Project] = []

        def landed() -> bool:
            seen[:] = [
                p
                for p in self._db.projects()
                if p.id not in before
                and p.title == new.title
                and [h.title for h in self._db.headings(p.id)] == [*map(str.strip, new.headings)]
            ]
            return bool(seen)

        waited = self._wait(landed)
        return SentProject(seen[0] if seen else None, bool(seen), waited)

    def update_project(self, project_id: str, changes: ProjectChanges) -> SentProject:
        self._require()
        params = self._update_params(project_id, changes)
        stamp = self._db.modified_at(project_id)
        self._launch("update-project", params)
        seen: list[Project] = []

        def landed() -> bool:
            if not moved(stamp, self._db.modified_at(project_id)):
                return False  # Things has not written it since: its values prove nothing
            project = self._db.project(project_id)
            if _project_matches(project, changes):
                seen.append(project)
            return bool(seen)

        waited = self._wait(landed)
        return SentProject(seen[0] if seen else None, bool(seen), waited)

    # -- helpers ---------------------------------------------------------------------------------

    def _update_params(
        self, item_id: str, changes: ToDoChanges | ProjectChanges
    ) -> dict[str, Value | Secret]:
        """``update``/``update-project`` parameters: the id, Things' token, the changes."""
        params: dict[str, Value | Secret] = {"id": item_id, "auth-token": self._db.auth_token()}
        given: dict[str, object] = dict(changes)
        for name in ("title", "notes", "when"):
            if name in given:
                params[name] = str(given[name])
        if "deadline" in given:
            deadline = given["deadline"]
            params["deadline"] = "" if deadline is None else str(deadline)
        params.update(_placing(given))
        tags = given.get("tags")
        if isinstance(tags, tuple | list):
            params["tags"] = [str(tag) for tag in tags]
        status = given.get("status")
        if status == "completed":
            params["completed"] = True
        elif status == "canceled":
            params["canceled"] = True
        elif status == "open":
            params["completed"] = False
        return params

    def _created_before(self) -> tuple[float, set[str]]:
        """Where a launch's polls start (``creationDate`` from, with the slack Things' whole
        seconds need) and the to-dos already there in that slack, which are not the new one."""
        since = self._clock() - SLACK_SECONDS
        return since, {todo.id for todo in self._db.created_since(since, self._today())}

    def _require(self) -> None:
        if not self._command:
            raise Unsupported(NOT_ON_THIS_SYSTEM, backend="things")

    def _launch(self, command: Command, params: dict[str, Value | Secret], adds: int = 0) -> None:
        """Hand one URL to ``open_command``: refused if too long for any, and ``adds`` (the
        to-dos it adds) paced to Things' limit (``batches.py``)."""
        url = _fitting(command, params)
        self._pace.take(adds)
        program = self._command[0]
        try:
            done = subprocess.run(
                self._command,  # the URL is not an argument: see the module docstring
                input=url.encode("ascii") + b"\n",
                check=False,
                capture_output=True,
                timeout=LAUNCH_SECONDS,
                shell=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BackendUnavailable(
                f"Could not hand the write to Things: {program} did not run ({type(exc).__name__})."
            ) from None  # the exception holds the command line, and with it the URL
        if done.returncode != 0:
            raise BackendUnavailable(
                f"Could not hand the write to Things: {program} exited {done.returncode}."
                + STDIN_HINT
            )

    def _confirmed(
        self, landed: Callable[[], ToDo | None], params: dict[str, Value | Secret]
    ) -> Sent:
        seen: list[ToDo] = []

        def done() -> bool:
            found = landed()
            if found is not None:
                seen.append(found)
            return found is not None

        waited = self._wait(done)
        names = tuple(sorted(params))
        return Sent(seen[0], True, waited, names) if seen else Sent(None, False, waited, names)

    def _wait(self, done: Callable[[], bool]) -> float:
        """Poll ``done`` until it holds or ``confirm_seconds`` pass - fewer when the call must
        answer sooner (``remaining``: its deadline, less the time to answer); the seconds
        waited. A read that fails while Things writes is one more poll: the write was sent,
        and an error now would invite sending it again."""
        started = self._clock()
        budget = self._confirm
        left = remaining()
        if left is not None:
            budget = min(budget, max(0.0, left - ANSWER_SECONDS))
        while True:
            if _quietly(done):
                return round(self._clock() - started, 3)
            waited = round(self._clock() - started, 3)
            if waited >= budget:
                return waited
            self._sleep(POLL_SECONDS)


def _quietly(done: Callable[[], bool]) -> bool:
    try:
        return done()
    except BackendUnavailable:  # a file Things is replacing, a lock it holds past the wait
        return False


FIELDS = {
    "checklist-items": "checklist",
    "to-dos": "todos",
    "prepend-checklist-items": "prependChecklist",
    "append-checklist-items": "appendChecklist",
}  # URL parameter -> the tools' field


def _longest(params: dict[str, Value | Secret]) -> str:
    """The field that makes a URL long, to name in its refusal."""
    sizes = {name: len(str(value)) for name, value in params.items() if value is not None}
    name = max(sizes, key=lambda name: sizes[name])
    return FIELDS.get(name, name)


def _project_matches(project: Project, changes: ProjectChanges) -> bool:
    deadline = changes.get("deadline")
    checks = [
        "title" not in changes or same(project.title, changes["title"]),
        "notes" not in changes or same(project.notes, changes["notes"]),
        "deadline" not in changes
        or project.deadline == (None if deadline is None else str(deadline)),
        "tags" not in changes or set(project.tags) == set(changes["tags"]),
        "status" not in changes or project.status == changes["status"],
    ]
    return all(checks)


def _attributes(new: NewToDo) -> dict[str, object]:
    """A to-do of Things' ``json`` command: its attributes, the ones given only."""
    checklist = [{"type": "checklist-item", "attributes": {"title": t}} for t in new.checklist]
    given: dict[str, object] = {
        "title": new.title,
        "notes": new.notes,
        "when": new.when,
        "deadline": None if new.deadline is None else new.deadline.isoformat(),
        "tags": list(new.tags) or None,
        "checklist-items": checklist or None,
        "list-id": new.list_id,
        "heading": new.heading,
    }
    return {key: value for key, value in given.items() if value is not None}


def _matches(todo: ToDo, changes: ToDoChanges, today: date) -> bool:
    checks = [
        "title" not in changes or same(todo.title, changes["title"]),
        "notes" not in changes or same(todo.notes, changes["notes"]),
        "deadline" not in changes
        or todo.deadline == (None if changes["deadline"] is None else str(changes["deadline"])),
        "tags" not in changes or set(todo.tags) == set(changes["tags"]),
        "status" not in changes or todo.status == changes["status"],
        "when" not in changes or _scheduled(todo, changes["when"], today),
        "list_id" not in changes
        or changes["list_id"] in {ref.id for ref in (todo.project, todo.area) if ref is not None},
        "heading_id" not in changes
        or (todo.heading is not None and todo.heading.id == changes["heading_id"]),
    ]
    return all(checks)


def _placing(given: dict[str, object]) -> dict[str, Value | Secret]:
    """An update's moves (to a project or area, under a heading) and checklist additions."""
    params: dict[str, Value | Secret] = {}
    for name, param in (("list_id", "list-id"), ("heading_id", "heading-id")):
        if name in given:
            params[param] = str(given[name])
    for name, param in CHECKLIST_ADDS.items():
        items = given.get(name)
        if isinstance(items, tuple | list):
            params[param] = [str(item) for item in items]
    return params


CHECKLIST_ADDS = {
    "prepend_checklist": "prepend-checklist-items",
    "append_checklist": "append-checklist-items",
}


def _checklist_after(before: ToDo, changes: ToDoChanges) -> list[str] | None:
    """The checklist titles an update adding items leaves (Things trims each), or ``None``."""
    if "prepend_checklist" not in changes and "append_checklist" not in changes:
        return None
    added = [*changes.get("prepend_checklist", ()), None, *changes.get("append_checklist", ())]
    held = [item.title for item in before.checklist]
    return [t for item in added for t in ([item.strip()] if item is not None else held)]


def _scheduled(todo: ToDo, when: str, today: date) -> bool:
    """Whether ``todo`` is scheduled as ``when`` asks, its reminder too (``…@HH:MM``)."""
    when, _, time = when.partition("@")
    if time and todo.reminderTime != time:
        return False  # a date without a time says nothing of a reminder Things may keep
    days = {"today": today, "evening": today, "tomorrow": today + timedelta(days=1)}
    if when in days:
        return todo.startDate == days[when].isoformat()
    if when == "someday":
        return todo.view == "someday"
    if when == "anytime":
        return todo.view in ("anytime", "today") and todo.startDate is None
    return todo.startDate == when


def _project_params(new: NewProject) -> tuple[Command, dict[str, Value | Secret]]:
    given: dict[str, Value | Secret] = {
        "title": new.title,
        "notes": new.notes,
        "when": new.when,
        "deadline": None if new.deadline is None else new.deadline.isoformat(),
        "tags": new.tags or None,
        "area-id": new.area_id,
    }
    if not new.headings:
        return "add-project", {**given, "to-dos": new.todos or None}
    items = [{"type": "to-do", "attributes": {"title": t}} for t in new.todos]
    items += [{"type": "heading", "attributes": {"title": h}} for h in new.headings]
    attributes = {k: v for k, v in given.items() if v is not None}
    if new.tags:
        attributes["tags"] = list(new.tags)
    project = {"type": "project", "attributes": {**attributes, "items": items}}
    return "json", {"data": json.dumps([project], ensure_ascii=False)}


def _add_params(new: NewToDo) -> dict[str, Value | Secret]:
    return {
        "title": new.title,
        "notes": new.notes,
        "when": new.when,
        "deadline": None if new.deadline is None else new.deadline.isoformat(),
        "tags": new.tags or None,
        "checklist-items": new.checklist or None,
        "list-id": new.list_id,
        "heading": new.heading,
    }


def _fitting(command: Command, params: dict[str, Value | Secret]) -> str:
    """The URL of ``command``, or ``too_long`` when no URL of Things' can carry it."""
    url = things_url(command, params)
    if len(url) > URL_MAX:
        raise too_long(len(url), "The write", _longest(params))
    return url
