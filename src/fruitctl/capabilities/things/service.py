"""Things 3 operations: to-dos by view, project, area or tag; one to-do; projects, areas, tags.

Names match as everywhere in fruitctl: any case, or the id. An unknown name is ``NotFound``
naming what exists. Without a Things database (not a Mac, Things not installed, no
``[things] database``) every operation answers ``unsupported`` saying how to set it up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import Any, Protocol

from fruitctl.capabilities.things.inputs import (
    CHECKLIST_MAX,
    CompleteToDo,
    CreateProject,
    CreateToDo,
    CreateToDos,
    GetToDo,
    ListHeadings,
    NoArgs,
    QueryToDos,
    UpdateProject,
    UpdateToDo,
)
from fruitctl.domain.errors import InvalidParams, NotFound, Unsupported
from fruitctl.domain.things import (
    REMINDER_DAYS,
    VIEWS,
    WHEN,
    WHEN_WORDS,
    ThingsView,
    ToDo,
    ToDoQuery,
)
from fruitctl.ports import (
    NewProject,
    NewToDo,
    ProjectChanges,
    Sent,
    SentProject,
    ThingsBackend,
    ThingsWrites,
    ToDoChanges,
)
from fruitctl.tools.inputs import parse as parse_input

NOT_SET_UP = (
    "Things is not set up here: no Things 3 database was found. On a Mac with Things 3 it is "
    "found by itself; elsewhere, or to use another copy, set [things] database in config.toml."
)

# Cultured Code: "The first time you execute a command via the URL scheme, Things will ask you
# if you want to enable this feature." Until it is answered, nothing sent lands.
ENABLE_URLS = (
    " If this is the first write sent to Things, Things may be showing a question whether to "
    "enable its URLs: answer Enable there (or turn on Settings > General > Enable Things URLs)."
)


class Named(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def title(self) -> str: ...


class ThingsService:
    def __init__(
        self,
        backend: ThingsBackend | None,
        writer: ThingsWrites | None = None,
        *,
        confirm_seconds: float = 5.0,
        writes_via: str | None = None,
        today: Callable[[], date] = date.today,
    ) -> None:
        self._backend = backend
        self._writer = writer
        self._writes_via = writes_via
        self._confirm_seconds = confirm_seconds
        self._today = today
        self._taken = False  # whether Things has taken one of this service's writes yet

    def query_todos(self, args: QueryToDos) -> dict[str, Any]:
        backend = self._require()
        project = area = tag = None
        if args.project is not None:
            project = _named(backend.projects(), args.project, "project", "projects").id
        if args.area is not None:
            area = _named(backend.areas(), args.area, "area", "areas").id
        if args.tag is not None:
            tag = _named(backend.tags(), args.tag, "tag", "tags").title
        wanted = ToDoQuery(args.view, args.search, project, area, tag, args.limit)
        page = backend.query(self._today(), wanted)
        shown = [t.to_wire() for t in page.todos]
        return {"todos": shown, "count": len(shown), "total": page.total}

    def get_todo(self, args: GetToDo) -> dict[str, Any]:
        todo: ToDo = self._require().todo(args.id, self._today())
        return todo.to_wire()

    def list_projects(self, _: NoArgs | None = None) -> list[dict[str, Any]]:
        return [p.to_wire() for p in self._require().projects()]

    def list_headings(self, args: ListHeadings) -> list[dict[str, Any]]:
        backend = self._require()
        project = _named(backend.projects(), args.project, "project", "projects")
        return [h.to_wire() for h in backend.headings(project.id)]

    def list_areas(self, _: NoArgs | None = None) -> list[dict[str, Any]]:
        return [a.to_wire() for a in self._require().areas()]

    def list_tags(self, _: NoArgs | None = None) -> list[dict[str, Any]]:
        return [t.to_wire() for t in self._require().tags()]

    # -- writes ----------------------------------------------------------------------------------

    def todo_view(self, todo_id: str) -> dict[str, Any]:
        """One to-do as wire data (for proposals' snapshots)."""
        return self._require().todo(todo_id, self._today()).to_wire()

    def check_create(self, args: dict[str, Any]) -> None:
        """Everything a create checks before it sends anything (project, area, tags, dates,
        and - where writes are set up - that one URL can carry it)."""
        new = self._new(self._require(), parse_input(CreateToDo, args, "create"))
        if self._writer is not None:
            self._writer.check_create(new)

    def create_todo(self, args: CreateToDo) -> dict[str, Any]:
        backend, writer = self._require(), self._writer_or_refusal()
        new = self._new(backend, args)
        return self._first(_outcome(writer.create(new), f"'{new.title}'", self._confirm_seconds))

    def precheck_create_many(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        """The items of a batch that cannot work, as ``{"index", "error"}``."""
        backend = self._require()
        parsed = parse_input(CreateToDos, args, "create")
        return self._sorted(backend, parsed.todos)[1]

    def create_todos(self, args: CreateToDos) -> dict[str, Any]:
        """Several to-dos in one launch; those that cannot work are answered in ``failed``."""
        backend, writer = self._require(), self._writer_or_refusal()
        workable, failed = self._sorted(backend, args.todos)
        if not workable:
            raise NotFound(" ".join(dict.fromkeys(str(f["error"]) for f in failed)), failed=failed)
        sent = writer.create_many([new for _, new in workable])
        result: dict[str, Any] = {
            "status": "confirmed" if all(s.confirmed for s in sent) else "sent",
            "todos": [s.todo.to_wire() for s in sent if s.todo is not None],
        }
        lost = [
            f"'{new.title}'" for (_, new), s in zip(workable, sent, strict=True) if not s.confirmed
        ]
        if lost:
            result["confirmed"] = False
            waited = max(s.waited for s in sent if not s.confirmed)
            why = f"not seen in Things within {_seconds(waited)} s"
            result["message"] = (
                f"Sent {len(sent)} to-dos to Things; {', '.join(lost)} {why}. "
                "Check Things before sending them again."
            )
        if failed:
            result["failed"] = failed
        return self._first(result)

    def project_view(self, project_id: str) -> dict[str, Any]:
        """One project as wire data (for proposals' snapshots)."""
        return self._require().project(project_id).to_wire()

    def check_project(self, args: dict[str, Any]) -> None:
        """What a new project checks before anything is sent (area, tags, dates)."""
        self._new_project(self._require(), parse_input(CreateProject, args, "create"))

    def create_project(self, args: CreateProject) -> dict[str, Any]:
        backend, writer = self._require(), self._writer_or_refusal()
        sent = writer.create_project(self._new_project(backend, args))
        return self._first(_project_outcome(sent, f"project '{args.title}'", self._confirm_seconds))

    def update_project(self, args: UpdateProject) -> dict[str, Any]:
        backend, writer = self._require(), self._writer_or_refusal()
        current = backend.project(args.id)
        changes: ProjectChanges = {}
        if args.title is not None:
            changes["title"] = _one_line("title", args.title)
        if args.notes is not None:
            changes["notes"] = args.notes
        if args.when is not None:
            changes["when"] = str(_when(args.when))
        if args.deadline is not None:
            changes["deadline"] = _date("deadline", args.deadline) if args.deadline else None
        if args.tags is not None:
            changes["tags"] = _tags(backend, args.tags)
        if args.status is not None:
            changes["status"] = args.status
        if not changes:
            raise InvalidParams(
                "Nothing to change: give title, notes, when, deadline, tags or status."
            )
        sent = writer.update_project(current.id, changes)
        what = f"project '{current.title}'"
        return self._first(_project_outcome(sent, what, self._confirm_seconds))

    def _new_project(self, backend: ThingsBackend, args: CreateProject) -> NewProject:
        return NewProject(
            title=_one_line("title", args.title),
            notes=args.notes,
            when=_when(args.when),
            deadline=_date("deadline", args.deadline),
            tags=_tags(backend, args.tags),
            area_id=self._home(backend, None, args.area),
            todos=tuple(_one_line("todos", title) for title in args.todos),
            headings=tuple(_one_line("headings", title) for title in args.headings),
        )

    def _sorted(
        self, backend: ThingsBackend, items: Sequence[CreateToDo]
    ) -> tuple[list[tuple[int, NewToDo]], list[dict[str, Any]]]:
        workable: list[tuple[int, NewToDo]] = []
        failed: list[dict[str, Any]] = []
        for index, item in enumerate(items):
            try:
                workable.append((index, self._new(backend, item)))
            except (InvalidParams, NotFound) as exc:
                failed.append({"index": index, "error": exc.message})
        return workable, failed

    def _new(self, backend: ThingsBackend, args: CreateToDo) -> NewToDo:
        return NewToDo(
            title=_one_line("title", args.title),
            notes=args.notes,
            when=_when(args.when),
            deadline=_date("deadline", args.deadline),
            tags=_tags(backend, args.tags),
            checklist=tuple(_one_line("checklist", item) for item in args.checklist),
            list_id=self._home(backend, args.project, args.area),
            heading=args.heading,
        )

    def check_update(self, args: dict[str, Any]) -> None:
        """Everything an update checks before it sends anything (the to-do, where it moves, the
        heading, tags, dates, the checklist's length): a proposal fails when filed."""
        backend = self._require()
        parsed = parse_input(UpdateToDo, args, "update")
        self._changes(backend, backend.todo(parsed.id, self._today()), parsed)

    def update_todo(self, args: UpdateToDo) -> dict[str, Any]:
        backend, writer = self._require(), self._writer_or_refusal()
        current = backend.todo(args.id, self._today())
        sent = writer.update(current.id, self._changes(backend, current, args))
        return self._first(_outcome(sent, f"'{current.title}'", self._confirm_seconds))

    def _changes(self, backend: ThingsBackend, current: ToDo, args: UpdateToDo) -> ToDoChanges:
        changes: ToDoChanges = {}
        if args.title is not None:
            changes["title"] = _one_line("title", args.title)
        if args.notes is not None:
            changes["notes"] = args.notes
        if args.when is not None:
            changes["when"] = str(_when(args.when))
        if args.deadline is not None:
            changes["deadline"] = _date("deadline", args.deadline) if args.deadline else None
        if args.tags is not None:
            changes["tags"] = _tags(backend, args.tags)
        home = self._home(backend, args.project, args.area)
        if home is not None:
            changes["list_id"] = home
        if args.heading is not None:
            changes["heading_id"] = _heading(backend, current, home, args).id
        changes.update(_checklist_changes(current, args))
        if not changes:
            raise InvalidParams(
                "Nothing to change: give title, notes, when, deadline, tags, project, area, "
                "heading, prependChecklist or appendChecklist."
            )
        return changes

    def complete_todo(self, args: CompleteToDo) -> dict[str, Any]:
        backend, writer = self._require(), self._writer_or_refusal()
        current = backend.todo(args.id, self._today())
        if args.reopen and args.canceled:
            raise InvalidParams("Give 'canceled' or 'reopen', not both.")
        status = "open" if args.reopen else ("canceled" if args.canceled else "completed")
        sent = writer.update(current.id, {"status": status})
        return self._first(_outcome(sent, f"'{current.title}'", self._confirm_seconds))

    def _home(self, backend: ThingsBackend, project: str | None, area: str | None) -> str | None:
        if project is not None and area is not None:
            raise InvalidParams("Give 'project' or 'area', not both.")
        if project is not None:
            return _named(backend.projects(), project, "project", "projects").id
        if area is not None:
            return _named(backend.areas(), area, "area", "areas").id
        return None

    def _first(self, result: dict[str, Any]) -> dict[str, Any]:
        """Until Things has taken one of these writes, an answer of one not seen says why the
        first may not be: Things asks once before it acts on any URL (``ENABLE_URLS``)."""
        if result.get("status") == "confirmed" or result.get("todos"):
            self._taken = True
        elif not self._taken and "message" in result:
            result["message"] += ENABLE_URLS
        return result

    def _writer_or_refusal(self) -> ThingsWrites:
        if self._writer is None:
            raise Unsupported(NOT_SET_UP, backend="things")
        return self._writer

    def status(self) -> dict[str, Any]:
        if self._backend is None:
            return {"state": "not set up", "reason": NOT_SET_UP}
        found = self._backend.status()
        writes = (
            f"through {self._writes_via}, confirmed within {self._confirm_seconds:g} s"
            if self._writes_via
            else "unsupported here: no [things] open_command"
        )
        return {"state": "ok" if found.get("readable") else "unreadable", **found, "writes": writes}

    def _require(self) -> ThingsBackend:
        if self._backend is None:
            raise Unsupported(NOT_SET_UP, backend="things")
        return self._backend


def _outcome(sent: Sent, what: str, seconds: float) -> dict[str, Any]:
    """A confirmed write answers the to-do as Things now has it; one not seen is sent, never
    done."""
    if sent.confirmed and sent.todo is not None:
        return {"status": "confirmed", "todo": sent.todo.to_wire()}
    return _unconfirmed(what, seconds, sent.waited)


def _project_outcome(sent: SentProject, what: str, seconds: float) -> dict[str, Any]:
    if sent.confirmed and sent.project is not None:
        return {"status": "confirmed", "project": sent.project.to_wire()}
    return _unconfirmed(what, seconds, sent.waited)


def _unconfirmed(what: str, seconds: float, waited: float) -> dict[str, Any]:
    """A write sent and not seen: never reported done. ``waited`` may be under ``seconds``
    when the call had to answer sooner (its deadline)."""
    why = f"not seen in Things within {_seconds(waited)} s" if seconds else "confirmation is off"
    return {
        "status": "sent",
        "confirmed": False,
        "message": f"Sent {what} to Things; {why}. Check Things before sending it again.",
    }


def _seconds(waited: float) -> str:
    return f"{round(waited, 1):g}"


def _one_line(field: str, text: str) -> str:
    if "\n" in text or "\r" in text:
        raise InvalidParams(f"'{field}' must be one line.", field=field)
    return text


def _when(text: str | None) -> str | None:
    """``when`` as Things takes it: a word, a date, or either of today, tomorrow and a date
    with ``@HH:MM`` (Things' "date time string", which sets a reminder), the time written
    ``HH:MM`` whatever its leading zeros."""
    if text is None or text in WHEN_WORDS:
        return text
    day, at, time = text.partition("@")
    if day not in REMINDER_DAYS:
        _date("when", day)
    if not at:
        return text
    return f"{day}@{_time(text, time)}"


def _time(text: str, time: str) -> str:
    hour, colon, minute = time.partition(":")
    if (
        colon
        and hour.isdigit()
        and len(minute) == 2
        and minute.isdigit()
        and int(hour) < 24
        and int(minute) < 60
    ):
        return f"{int(hour):02d}:{minute}"
    raise InvalidParams(f"Invalid 'when': '{text}'. Expected {WHEN}.", field="when")


def _heading(backend: ThingsBackend, current: ToDo, home: str | None, args: UpdateToDo) -> Named:
    """The heading ``args.heading`` names, in the project the to-do is moved to or is in."""
    if args.project is not None:
        project = home
    elif args.area is None and current.project is not None:
        project = current.project.id
    else:
        project = None  # in an area, or moved to one: no headings there
    if project is None:
        raise InvalidParams.heading_without_project(current.title)
    return _named(backend.headings(project), str(args.heading), "heading", "headings")


def _checklist_changes(current: ToDo, args: UpdateToDo) -> ToDoChanges:
    """Items added before / after the checklist, within what Things keeps of one."""
    changes: ToDoChanges = {}
    if args.prependChecklist is not None:
        changes["prepend_checklist"] = tuple(
            _one_line("prependChecklist", i) for i in args.prependChecklist
        )
    if args.appendChecklist is not None:
        changes["append_checklist"] = tuple(
            _one_line("appendChecklist", i) for i in args.appendChecklist
        )
    added = len(changes.get("prepend_checklist", ())) + len(changes.get("append_checklist", ()))
    if added and len(current.checklist) + added > CHECKLIST_MAX:
        raise InvalidParams.checklist_too_long(len(current.checklist), added, CHECKLIST_MAX)
    return changes


def _date(field: str, text: str | None) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise InvalidParams(
            f"Invalid '{field}': '{text}'. Expected {WHEN if field == 'when' else 'YYYY-MM-DD'}.",
            field=field,
        ) from exc


def _tags(backend: ThingsBackend, names: Sequence[str]) -> tuple[str, ...]:
    """Tags by name (any case), as Things spells them; an unknown one names what exists."""
    known = backend.tags()
    return tuple(_named(known, name, "tag", "tags").title for name in names)


def _named(items: Sequence[Named], wanted: str, kind: str, plural: str) -> Named:
    folded = wanted.casefold()
    for item in items:
        if item.id == wanted or item.title.casefold() == folded:
            return item
    known = ", ".join(item.title for item in items) or "none"
    raise NotFound(f"No {kind} found with name: '{wanted}'. Available {plural}: {known}.")


__all__ = [
    "VIEWS",
    "CompleteToDo",
    "CreateProject",
    "CreateToDo",
    "CreateToDos",
    "GetToDo",
    "ListHeadings",
    "NoArgs",
    "QueryToDos",
    "ThingsService",
    "ThingsView",
    "UpdateProject",
    "UpdateToDo",
]
