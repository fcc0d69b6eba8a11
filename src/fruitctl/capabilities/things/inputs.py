"""The arguments of the Things operations (``services.things``), as their tools take them."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from fruitctl.domain.things import WHEN, ThingsView, ToDoStatus
from fruitctl.tools.inputs import Input, Line, Lines

# Things' own limits (Cultured Code, "Things URL Scheme"): past them Things cuts or drops the
# value silently, so the write would be reported as asked while Things holds something else.
NOTES_MAX = 10_000  # "notes ... Maximum unencoded length: 10,000 characters"
STRING_MAX = 4_000  # "Maximum un-encoded string length: 4,000 characters unless otherwise ..."
CHECKLIST_MAX = 100  # "checklist-items ... (maximum of 100)"

Text = Annotated[str, Field(max_length=STRING_MAX)]
"""A name that is looked up or sent (a tag, a project or area): at most Things' string length."""
ShortLine = Annotated[Line, Field(max_length=STRING_MAX)]
"""One line written into Things (a checklist item, a heading, a to-do of a new project)."""


class QueryToDos(Input):
    view: ThingsView | None = Field(
        None, description="Where the Things app shows them; default every view but the Logbook"
    )
    project: Text | None = Field(None, description="Only this project (name, any case, or id)")
    area: Text | None = Field(None, description="Only this area (name, any case, or id)")
    tag: str | None = Field(None, description="Only to-dos with this tag (name, any case)")
    search: Text | None = Field(
        None,
        min_length=1,
        description="Only to-dos whose title or notes contain this text (any case)",
    )
    limit: int = Field(200, ge=1, le=1000, description="Maximum to-dos to return")


class GetToDo(Input):
    id: str = Field(description="To-do id (Things' uuid)")


class NoArgs(Input):
    pass


class ListHeadings(Input):
    project: Text = Field(description="The project (name, any case, or id)")


class CreateToDo(Input):
    title: Line = Field(min_length=1, max_length=STRING_MAX, description="The to-do's title")
    notes: Lines | None = Field(None, max_length=NOTES_MAX, description="Notes")
    when: str | None = Field(None, description=f"When to do it: {WHEN}; default the Inbox")
    deadline: str | None = Field(None, description="Deadline, a date YYYY-MM-DD")
    tags: list[Text] = Field(default_factory=list, description="Tag names (they must exist)")
    checklist: list[ShortLine] = Field(
        default_factory=list, max_length=CHECKLIST_MAX, description="Checklist items, in order"
    )
    project: Text | None = Field(None, description="Project (name, any case, or id)")
    area: Text | None = Field(None, description="Area (name, any case, or id), if no project")
    heading: ShortLine | None = Field(None, description="A heading's title in the project")


class CreateToDos(Input):
    todos: list[CreateToDo] = Field(
        min_length=1, max_length=50, description="The to-dos to add (1-50), each as create_todo"
    )


class UpdateToDo(Input):
    id: str = Field(description="To-do id")
    title: Line | None = Field(None, min_length=1, max_length=STRING_MAX, description="New title")
    notes: Lines | None = Field(None, max_length=NOTES_MAX, description="New notes ('' clears)")
    when: str | None = Field(None, description=f"Reschedule: {WHEN}")
    deadline: str | None = Field(None, description="New deadline YYYY-MM-DD ('' clears)")
    tags: list[Text] | None = Field(None, description="The tags it has afterwards")
    project: Text | None = Field(None, description="Move it to this project (name or id)")
    area: Text | None = Field(None, description="Move it to this area (name or id)")
    heading: ShortLine | None = Field(
        None,
        description="Move it under this heading (title, any case, or id) of its project, or of "
        "the project given",
    )
    prependChecklist: list[ShortLine] | None = Field(
        None,
        min_length=1,
        max_length=CHECKLIST_MAX,
        description="Checklist items to add before those it has",
    )
    appendChecklist: list[ShortLine] | None = Field(
        None,
        min_length=1,
        max_length=CHECKLIST_MAX,
        description="Checklist items to add after those it has",
    )


class CreateProject(Input):
    title: Line = Field(min_length=1, max_length=STRING_MAX, description="The project's title")
    notes: Lines | None = Field(None, max_length=NOTES_MAX, description="Notes")
    when: str | None = Field(None, description=f"When to start it: {WHEN}")
    deadline: str | None = Field(None, description="Deadline, a date YYYY-MM-DD")
    tags: list[Text] = Field(default_factory=list, description="Tag names (they must exist)")
    area: Text | None = Field(None, description="Area (name, any case, or id)")
    todos: list[ShortLine] = Field(
        default_factory=list,
        max_length=CHECKLIST_MAX,  # one URL, like a checklist
        description="Titles of to-dos to add to it",
    )
    headings: list[ShortLine] = Field(
        default_factory=list,
        max_length=CHECKLIST_MAX,  # one URL, like a checklist
        description="Titles of headings to add to it, after its to-dos (Things makes headings "
        "only with a new project)",
    )


class UpdateProject(Input):
    id: str = Field(description="Project id")
    title: Line | None = Field(None, min_length=1, max_length=STRING_MAX, description="New title")
    notes: Lines | None = Field(None, max_length=NOTES_MAX, description="New notes ('' clears)")
    when: str | None = Field(None, description=f"Reschedule: {WHEN}")
    deadline: str | None = Field(None, description="New deadline YYYY-MM-DD ('' clears)")
    tags: list[Text] | None = Field(None, description="The tags it has afterwards")
    status: ToDoStatus | None = Field(None, description="Complete, cancel or reopen the project")


class CompleteToDo(Input):
    id: str = Field(description="To-do id")
    canceled: bool = Field(False, description="Cancel it instead of completing it")
    reopen: bool = Field(False, description="Make a completed or canceled to-do open again")
