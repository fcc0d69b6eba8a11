"""What the Things tools answer, as types (their ``returns`` and ``outputSchema``)."""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from fruitctl.domain.things import Area, Heading, Project, Tag, ToDo
from fruitctl.tools.outputs import IndexFailure


class ToDos(TypedDict):
    todos: list[ToDo]
    count: int
    total: int


class Unconfirmed(TypedDict):
    """Handed to Things, but not seen in its database in time: sent, never reported done."""

    status: Literal["sent"]
    confirmed: Literal[False]
    message: str


class ToDoConfirmed(TypedDict):
    status: Literal["confirmed"]
    todo: ToDo


class ProjectConfirmed(TypedDict):
    status: Literal["confirmed"]
    project: Project


class ToDosSent(TypedDict):
    status: Literal["confirmed", "sent"]
    todos: list[ToDo]
    confirmed: NotRequired[bool]
    message: NotRequired[str]
    failed: NotRequired[list[IndexFailure]]


OneToDo = ToDo
ToDoWrite = ToDoConfirmed | Unconfirmed
ProjectWrite = ProjectConfirmed | Unconfirmed
Projects = list[Project]
Areas = list[Area]
Headings = list[Heading]
Tags = list[Tag]
