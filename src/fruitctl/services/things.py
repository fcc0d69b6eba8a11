"""Things 3 operations: to-dos by view, project, area or tag; one to-do; projects, areas, tags.

Names match as everywhere in fruitctl: any case, or the id. An unknown name is ``NotFound``
naming what exists. Without a Things database (not a Mac, Things not installed, no
``[things] database``) every operation answers ``unsupported`` saying how to set it up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import Any, Literal, Protocol

from pydantic import Field

from fruitctl.domain.errors import NotFound, Unsupported
from fruitctl.domain.things import VIEWS, ThingsView, ToDo
from fruitctl.ports import ThingsBackend
from fruitctl.services.inputs import Input

NOT_SET_UP = (
    "Things is not set up here: no Things 3 database was found. On a Mac with Things 3 it is "
    "found by itself; elsewhere, or to use another copy, set [things] database in config.toml."
)


class QueryToDos(Input):
    view: Literal["inbox", "today", "upcoming", "anytime", "someday", "logbook"] | None = Field(
        None, description="Where the Things app shows them; default every view but the Logbook"
    )
    project: str | None = Field(None, description="Only this project (name, any case, or id)")
    area: str | None = Field(None, description="Only this area (name, any case, or id)")
    tag: str | None = Field(None, description="Only to-dos with this tag (name, any case)")
    limit: int = Field(200, ge=1, le=1000, description="Maximum to-dos to return")


class GetToDo(Input):
    id: str = Field(description="To-do id (Things' uuid)")


class NoArgs(Input):
    pass


class Named(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def title(self) -> str: ...


class ThingsService:
    def __init__(self, backend: ThingsBackend | None, today: Callable[[], date] = date.today):
        self._backend = backend
        self._today = today

    def query_todos(self, args: QueryToDos) -> dict[str, Any]:
        backend = self._require()
        found = backend.todos(self._today(), args.view)
        if args.view is None:
            found = [t for t in found if t.view != "logbook"]
        if args.project is not None:
            project = _named(backend.projects(), args.project, "project", "projects")
            found = [t for t in found if t.project is not None and t.project.id == project.id]
        if args.area is not None:
            area = _named(backend.areas(), args.area, "area", "areas")
            found = [t for t in found if t.area is not None and t.area.id == area.id]
        if args.tag is not None:
            tag = _named(backend.tags(), args.tag, "tag", "tags").title
            found = [t for t in found if tag in t.tags]
        shown = found[: args.limit]
        return {"todos": [t.to_wire() for t in shown], "count": len(shown), "total": len(found)}

    def get_todo(self, args: GetToDo) -> dict[str, Any]:
        todo: ToDo = self._require().todo(args.id, self._today())
        return todo.to_wire()

    def list_projects(self, _: NoArgs) -> list[dict[str, Any]]:
        return [p.to_wire() for p in self._require().projects()]

    def list_areas(self, _: NoArgs) -> list[dict[str, Any]]:
        return [a.to_wire() for a in self._require().areas()]

    def list_tags(self, _: NoArgs) -> list[dict[str, Any]]:
        return [t.to_wire() for t in self._require().tags()]

    def status(self) -> dict[str, Any]:
        if self._backend is None:
            return {"state": "not set up", "reason": NOT_SET_UP}
        found = self._backend.status()
        return {"state": "ok" if found.get("readable") else "unreadable", **found}

    def _require(self) -> ThingsBackend:
        if self._backend is None:
            raise Unsupported(NOT_SET_UP, backend="things")
        return self._backend


def _named(items: Sequence[Named], wanted: str, kind: str, plural: str) -> Named:
    folded = wanted.casefold()
    for item in items:
        if item.id == wanted or item.title.casefold() == folded:
            return item
    known = ", ".join(item.title for item in items) or "none"
    raise NotFound(f"No {kind} found with name: '{wanted}'. Available {plural}: {known}.")


__all__ = ["VIEWS", "GetToDo", "NoArgs", "QueryToDos", "ThingsService", "ThingsView"]
