"""Things 3 tools: to-dos by view, project, area or tag; one to-do; the projects, areas and tags;
and the writes (through Things' URL scheme, confirmed by reading Things back), which the
default governance turns into proposals."""

from __future__ import annotations

from typing import Any

from fruitctl.capabilities.context import Context
from fruitctl.capabilities.things import changes, inputs, outputs
from fruitctl.capabilities.things.targets import THINGS, THINGS_BATCH, THINGS_PROJECTS
from fruitctl.tools.inputs import parse
from fruitctl.tools.model import tool


@tool(
    returns=outputs.ToDos,
    category="read_only",
    risk="low",
    title="Query Things to-dos",
    parse=parse,
)
def query_todos(args: inputs.QueryToDos, ctx: Context) -> Any:
    """To-dos from Things 3, as the Things app shows them.

    view: inbox, today (with what Things moves into Today: scheduled for today or earlier,
    deadlines due), upcoming, anytime, someday or logbook (completed and canceled, newest
    first); default every view but the logbook. project / area: a name (any case) or id.
    tag: a tag name. search: text the title or notes contain (any case; % and _ are plain
    characters). limit: $(limit), cutting the view in the app's own order.
    Trashed to-dos, and those of trashed projects, never appear; a Someday project's to-dos
    are in someday. A repeating to-do shows as its instances, never its hidden template.

    Each to-do: id, title, notes, status (open/completed/canceled), view, startDate and
    deadline (dates), reminderTime (HH:MM on startDate, or null), tags, project / area /
    heading ({id, title} or null), checklist
    ([{title, done}]), repeating ({template} on an instance of a repeating to-do, else null),
    creationDate, modificationDate, completionDate. Answers {"todos": [...], "count",
    "total"}.

    Examples: {"view": "today"} · {"project": "Move house"} · {"tag": "Errand", "view": "anytime"}
    · {"search": "passport", "view": "logbook"}
    """
    return ctx.things.query_todos(args)


@tool(
    returns=outputs.OneToDo,
    category="read_only",
    risk="low",
    title="Get a Things to-do",
    parse=parse,
)
def get_todo(args: inputs.GetToDo, ctx: Context) -> Any:
    """One Things to-do with every field (one in the Trash has view null). Example:
    {"id": "..."}"""
    return ctx.things.get_todo(args)


@tool(
    returns=outputs.Projects,
    category="read_only",
    risk="low",
    title="List Things projects",
    parse=parse,
)
def list_projects(args: inputs.NoArgs, ctx: Context) -> Any:
    """Things projects outside the Trash, in the app's order: id, title, status, area, tags,
    openCount. No parameters: {}"""
    return ctx.things.list_projects(args)


@tool(
    returns=outputs.Headings,
    category="read_only",
    risk="low",
    title="List a Things project's headings",
    parse=parse,
)
def list_headings(args: inputs.ListHeadings, ctx: Context) -> Any:
    """The headings of a Things project (a name, any case, or id), in the app's order: id,
    title, project ({id, title}), openCount. update_todo's heading moves a to-do under one.
    Example: {"project": "Move house"}"""
    return ctx.things.list_headings(args)


@tool(
    returns=outputs.Areas, category="read_only", risk="low", title="List Things areas", parse=parse
)
def list_areas(args: inputs.NoArgs, ctx: Context) -> Any:
    """Things areas in the app's order: id, title, tags. No parameters: {}"""
    return ctx.things.list_areas(args)


@tool(returns=outputs.Tags, category="read_only", risk="low", title="List Things tags", parse=parse)
def list_tags(args: inputs.NoArgs, ctx: Context) -> Any:
    """Things tags in the app's order: id, title, parent (the tag it is nested in). No
    parameters: {}"""
    return ctx.things.list_tags(args)


@tool(
    returns=outputs.ToDoWrite,
    category="pim_write",
    risk="medium",
    title="Add a Things to-do",
    parse=parse,
    change=changes.CREATE_TODO,
    targets=(THINGS,),
)
def create_todo(args: inputs.CreateToDo, ctx: Context) -> Any:
    """Add a to-do to Things.

    title is required. when: today, tomorrow, evening, anytime, someday or YYYY-MM-DD
    (default: the Inbox); today, tomorrow or a date with @HH:MM also sets a reminder
    (today@18:00). deadline: YYYY-MM-DD. tags: existing tag names. checklist: items in
    order. project or area: a name (any case) or id; heading: a heading's title in the project.
    Things' own limits hold: notes up to $(notes.maxLength) characters, checklist up to
    $(checklist.maxItems) items, any other text up to $(title.maxLength).

    Examples: {"title": "Buy stamps", "when": "today"}
    · {"title": "Pack books", "project": "Move house", "heading": "Packing", "tags": ["Home"]}

    Answers {"status": "confirmed", "todo": {...}} once Things shows the change, or {"status":
    "sent", "confirmed": false, "message"} when it did not show in time (it may still land:
    check before sending it again).
    """
    return ctx.things.create_todo(args)


@tool(
    returns=outputs.ToDosSent,
    category="pim_write",
    risk="medium",
    title="Add Things to-dos",
    parse=parse,
    change=changes.CREATE_TODOS,
    targets=(THINGS_BATCH,),
)
def create_todos(args: inputs.CreateToDos, ctx: Context) -> Any:
    """Add several to-dos to Things at once ($(todos.minItems)-$(todos.maxItems)), each as
    create_todo takes it, sent in as few URLs as fit (Things' json command; Things takes at most
    250 to-dos in 10 s, so a write past that waits its turn). Items that cannot work (an unknown
    project, area or tag) are answered in "failed" with their index; the rest are added.

    Example: {"todos": [{"title": "Buy tape", "when": "today"}, {"title": "Label boxes",
    "project": "Move house"}]}

    Answers {"status": "confirmed", "todos": [...]} once Things shows them all, or {"status":
    "sent", "confirmed": false, "todos": [those seen], "message"}; plus "failed" when some
    could not be sent.
    """
    return ctx.things.create_todos(args)


@tool(
    returns=outputs.ToDoWrite,
    category="pim_write",
    risk="medium",
    title="Update a Things to-do",
    parse=parse,
    change=changes.UPDATE_TODO,
    targets=(THINGS,),
)
def update_todo(args: inputs.UpdateToDo, ctx: Context) -> Any:
    """Change a Things to-do; only the fields given change. notes or deadline '' clears it;
    tags: the tags it has afterwards. when reschedules it (today, tomorrow, evening, anytime,
    someday or YYYY-MM-DD; today, tomorrow or a date with @HH:MM sets a reminder:
    2026-12-01@09:30). project or area moves it; heading moves it under a heading (title or
    id, list_headings) of its project or of the project given. prependChecklist /
    appendChecklist add checklist items before / after those it has (Things' URL scheme
    cannot tick or remove an item it has).

    Examples: {"id": "...", "title": "Call the bank about the card", "deadline": "2026-03-10"}
    · {"id": "...", "when": "today@18:00"} · {"id": "...", "heading": "Packing"}
    · {"id": "...", "appendChecklist": ["Tape", "Labels"]}

    Answers {"status": "confirmed", "todo": {...}} once Things has written the to-do since and
    shows the change (values it already held confirm nothing), or {"status":
    "sent", "confirmed": false, "message"} when it did not show in time (it may still land:
    check before sending it again).
    """
    return ctx.things.update_todo(args)


@tool(
    returns=outputs.ToDoWrite,
    category="pim_write",
    risk="medium",
    title="Complete a Things to-do",
    parse=parse,
    change=changes.COMPLETE_TODO,
    targets=(THINGS,),
)
def complete_todo(args: inputs.CompleteToDo, ctx: Context) -> Any:
    """Complete a Things to-do; canceled: true cancels it instead; reopen: true makes a
    completed or canceled one open again. Things' URL scheme cannot delete: cancel instead.

    Examples: {"id": "..."} · {"id": "...", "canceled": true}

    Answers {"status": "confirmed", "todo": {...}} once Things shows the change, or {"status":
    "sent", "confirmed": false, "message"} when it did not show in time (it may still land:
    check before sending it again).
    """
    return ctx.things.complete_todo(args)


@tool(
    returns=outputs.ProjectWrite,
    category="pim_write",
    risk="medium",
    title="Add a Things project",
    parse=parse,
    change=changes.CREATE_PROJECT,
    targets=(THINGS_PROJECTS,),
)
def create_project(args: inputs.CreateProject, ctx: Context) -> Any:
    """Add a project to Things, with to-dos in it if given.

    title is required. area: a name (any case) or id. when: today, tomorrow, evening, anytime,
    someday or YYYY-MM-DD. deadline: YYYY-MM-DD. tags: existing tag names. todos: titles of
    to-dos to add to it.

    Example: {"title": "Move house", "area": "Home", "todos": ["Book the van", "Buy boxes"]}

    Answers {"status": "confirmed", "project": {...}} once Things shows it, or {"status":
    "sent", "confirmed": false, "message"} when it did not show in time.
    """
    return ctx.things.create_project(args)


@tool(
    returns=outputs.ProjectWrite,
    category="pim_write",
    risk="medium",
    title="Update a Things project",
    parse=parse,
    change=changes.UPDATE_PROJECT,
    targets=(THINGS_PROJECTS,),
)
def update_project(args: inputs.UpdateProject, ctx: Context) -> Any:
    """Change a Things project; only the fields given change. notes or deadline '' clears it;
    tags: the tags it has afterwards; status: completed, canceled or open.

    Example: {"id": "...", "deadline": "2026-04-30"} · {"id": "...", "status": "completed"}

    Answers {"status": "confirmed", "project": {...}} once Things shows the change, or
    {"status": "sent", "confirmed": false, "message"}.
    """
    return ctx.things.update_project(args)


TOOLS = [
    query_todos,
    get_todo,
    list_projects,
    list_headings,
    list_areas,
    list_tags,
    create_todo,
    create_todos,
    update_todo,
    complete_todo,
    create_project,
    update_project,
]
