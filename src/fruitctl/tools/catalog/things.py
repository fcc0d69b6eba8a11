"""Things 3 tools: to-dos by view, project, area or tag; one to-do; the projects, areas and tags.
Reads only: writes through Things' URL scheme are not built yet."""

from __future__ import annotations

from typing import Any

from fruitctl.services import things as inputs
from fruitctl.services.inputs import parse
from fruitctl.tools.context import ToolContext
from fruitctl.tools.model import tool


@tool(category="read_only", risk="low", title="Query Things to-dos", parse=parse)
def query_todos(args: inputs.QueryToDos, ctx: ToolContext) -> Any:
    """To-dos from Things 3, as the Things app shows them.

    view: inbox, today (with what Things moves into Today: scheduled for today or earlier,
    deadlines due), upcoming, anytime, someday or logbook (completed and canceled, newest
    first); default every view but the logbook. project / area: a name (any case) or id.
    tag: a tag name. limit: 1-1000, default 200. Trashed to-dos, and those of trashed
    projects, never appear.

    Each to-do: id, title, notes, status (open/completed/canceled), view, startDate and
    deadline (dates), tags, project / area / heading ({id, title} or null), checklist
    ([{title, done}]), creationDate, modificationDate, completionDate. Answers {"todos": [...],
    "count", "total"}.

    Examples: {"view": "today"} · {"project": "Move house"} · {"tag": "Errand", "view": "anytime"}
    """
    return ctx.things.query_todos(args)


@tool(category="read_only", risk="low", title="Get a Things to-do", parse=parse)
def get_todo(args: inputs.GetToDo, ctx: ToolContext) -> Any:
    """One Things to-do with every field (one in the Trash has view null). Example:
    {"id": "..."}"""
    return ctx.things.get_todo(args)


@tool(category="read_only", risk="low", title="List Things projects", parse=parse)
def list_projects(args: inputs.NoArgs, ctx: ToolContext) -> Any:
    """Things projects outside the Trash, in the app's order: id, title, status, area, tags,
    openCount. No parameters: {}"""
    return ctx.things.list_projects(args)


@tool(category="read_only", risk="low", title="List Things areas", parse=parse)
def list_areas(args: inputs.NoArgs, ctx: ToolContext) -> Any:
    """Things areas in the app's order: id, title, tags. No parameters: {}"""
    return ctx.things.list_areas(args)


@tool(category="read_only", risk="low", title="List Things tags", parse=parse)
def list_tags(args: inputs.NoArgs, ctx: ToolContext) -> Any:
    """Things tags in the app's order: id, title, parent (the tag it is nested in). No
    parameters: {}"""
    return ctx.things.list_tags(args)


TOOLS = [query_todos, get_todo, list_projects, list_areas, list_tags]
