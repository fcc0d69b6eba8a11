"""``fruitctl things …``: Things 3 to-dos for a person, through the gateway (reads only for now)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.text import Text

from fruitctl.capabilities.things.inputs import (
    CompleteToDo,
    CreateToDo,
    ListHeadings,
    QueryToDos,
    UpdateToDo,
)
from fruitctl.cli.app import JsonOption, client
from fruitctl.cli.fields import help_of, option
from fruitctl.cli.output import is_pending, out, run, show_pending, show_table
from fruitctl.domain.errors import Unsupported
from fruitctl.domain.things import ThingsView

things_app = typer.Typer(
    help="Things 3: list, get, create, update and complete to-dos; projects, areas and tags.",
    no_args_is_help=True,
)
TodoId = Annotated[str, typer.Argument(help="To-do id.", show_default=False)]


@things_app.command("list")
def list_command(
    view: ThingsView | None = option(QueryToDos, "view"),
    project: str | None = option(QueryToDos, "project"),
    area: str | None = option(QueryToDos, "area"),
    tag: str | None = option(QueryToDos, "tag"),
    search: str | None = option(QueryToDos, "search"),
    limit: int = option(QueryToDos, "limit"),
    as_json: JsonOption = False,
) -> None:
    """To-dos as the Things app shows them."""
    given = {"view": view, "project": project, "area": area, "tag": tag, "search": search}
    args: dict[str, Any] = {"limit": limit, **{k: v for k, v in given.items() if v is not None}}
    run(as_json, lambda: client(as_json).call("query_todos", args), _show_todos)


@things_app.command("get")
def get_command(
    todo_id: Annotated[str, typer.Argument(help="To-do id.", show_default=False)],
    as_json: JsonOption = False,
) -> None:
    """One to-do with every field."""
    run(as_json, lambda: client(as_json).call("get_todo", {"id": todo_id}), _show_todo)


@things_app.command("projects")
def projects_command(as_json: JsonOption = False) -> None:
    """Projects outside the Trash, with their area and open to-dos."""
    columns = (("TITLE", "title"), ("AREA", "area"), ("OPEN", "openCount"), ("ID", "id"))
    run(
        as_json,
        lambda: client(as_json).call("list_projects", {}),
        lambda rows: _table(rows, columns, empty="No projects."),
    )


@things_app.command("headings")
def headings_command(
    project: Annotated[str, typer.Argument(help=help_of(ListHeadings.model_fields["project"]))],
    as_json: JsonOption = False,
) -> None:
    """A project's headings, in the app's order, with their open to-dos."""
    columns = (("TITLE", "title"), ("OPEN", "openCount"), ("ID", "id"))
    run(
        as_json,
        lambda: client(as_json).call("list_headings", {"project": project}),
        lambda rows: _table(rows, columns, empty="No headings."),
    )


@things_app.command("areas")
def areas_command(as_json: JsonOption = False) -> None:
    """Areas, in the app's order."""
    columns = (("TITLE", "title"), ("TAGS", "tags"), ("ID", "id"))
    run(
        as_json,
        lambda: client(as_json).call("list_areas", {}),
        lambda rows: _table(rows, columns, empty="No areas."),
    )


@things_app.command("tags")
def tags_command(as_json: JsonOption = False) -> None:
    """Tags, in the app's order, with the tag each is nested in."""
    columns = (("TITLE", "title"), ("PARENT", "parent"), ("ID", "id"))
    run(
        as_json,
        lambda: client(as_json).call("list_tags", {}),
        lambda rows: _table(rows, columns, empty="No tags."),
    )


@things_app.command("create")
def create_command(
    title: str = option(CreateToDo, "title"),
    notes: str | None = option(CreateToDo, "notes"),
    when: str | None = option(CreateToDo, "when"),
    deadline: str | None = option(CreateToDo, "deadline"),
    tag: list[str] | None = option(CreateToDo, "tags", "--tag", also="Repeat for more."),
    project: str | None = option(CreateToDo, "project"),
    area: str | None = option(CreateToDo, "area"),
    heading: str | None = option(CreateToDo, "heading"),
    checklist: list[str] | None = option(CreateToDo, "checklist", also="Repeat for more."),
    as_json: JsonOption = False,
) -> None:
    """Add a to-do to Things and wait until Things shows it."""
    given = {
        "title": title,
        "notes": notes,
        "when": when,
        "deadline": deadline,
        "project": project,
        "area": area,
        "heading": heading,
        "tags": tag,
        "checklist": checklist,
    }
    args = {k: v for k, v in given.items() if v is not None}
    run(as_json, lambda: written(client(as_json).call("create_todo", args)), _show_written)


@things_app.command("update")
def update_command(
    todo_id: TodoId,
    title: str | None = option(UpdateToDo, "title"),
    notes: str | None = option(UpdateToDo, "notes"),
    when: str | None = option(UpdateToDo, "when"),
    deadline: str | None = option(UpdateToDo, "deadline"),
    tag: list[str] | None = option(UpdateToDo, "tags", "--tag", also="Repeat for each."),
    project: str | None = option(UpdateToDo, "project"),
    area: str | None = option(UpdateToDo, "area"),
    heading: str | None = option(UpdateToDo, "heading"),
    prepend: list[str] | None = option(
        UpdateToDo, "prependChecklist", "--prepend-checklist", also="Repeat for more."
    ),
    append: list[str] | None = option(
        UpdateToDo, "appendChecklist", "--append-checklist", also="Repeat for more."
    ),
    as_json: JsonOption = False,
) -> None:
    """Change a to-do; only the options given change."""
    given = {
        "title": title,
        "notes": notes,
        "when": when,
        "deadline": deadline,
        "tags": tag,
        "project": project,
        "area": area,
        "heading": heading,
        "prependChecklist": prepend,
        "appendChecklist": append,
    }
    args = {"id": todo_id, **{k: v for k, v in given.items() if v is not None}}
    run(as_json, lambda: written(client(as_json).call("update_todo", args)), _show_written)


@things_app.command("complete")
def complete_command(
    todo_id: TodoId,
    cancel: bool = option(CompleteToDo, "canceled", "--cancel"),
    reopen: bool = option(CompleteToDo, "reopen", "--reopen"),
    as_json: JsonOption = False,
) -> None:
    """Complete (or cancel, or reopen) a to-do."""
    args = {"id": todo_id, "canceled": cancel, "reopen": reopen}
    run(as_json, lambda: written(client(as_json).call("complete_todo", args)), _show_written)


@things_app.command("delete")
def delete_command(todo_id: TodoId, as_json: JsonOption = False) -> None:
    """Things' URL scheme cannot delete: this says so, and how to cancel instead."""

    def refuse() -> Any:
        raise Unsupported(
            f"Things' URL scheme cannot delete a to-do; cancel it instead: "
            f"fruitctl things complete {todo_id} --cancel",
            backend="things",
        )

    run(as_json, refuse, lambda _: None)


def written(result: dict[str, Any]) -> dict[str, Any]:
    """A write's answer in one shape whatever became of it, so a script reads every outcome
    alike: ``status`` (``confirmed``; ``sent``, not yet seen in Things; ``pending``, waiting
    for a person), ``confirmed``, ``todo`` (the to-do as Things has it, once confirmed, else
    null) and ``message`` (what to check, else null); a pending one carries its proposal's
    fields too (``proposalId``, ``approve``, ``url``...)."""
    return {
        "todo": None,
        "message": None,
        **result,
        "confirmed": result.get("status") == "confirmed",
    }


def _show_written(result: dict[str, Any]) -> None:
    if is_pending(result):
        show_pending(result)
        return
    if result.get("status") == "confirmed":
        out.print(
            f"Done in Things: {result['todo']['title']} ({result['todo']['id']})", markup=False
        )
        return
    out.print(result.get("message", "Sent to Things, not confirmed."), markup=False)
    raise typer.Exit(1)


def _show_todos(found: dict[str, Any]) -> None:
    rows = [
        {**t, "when": t["startDate"] or "", "in": (t["project"] or t["area"] or {}).get("title")}
        for t in found["todos"]
    ]
    columns = (
        ("TITLE", "title"),
        ("VIEW", "view"),
        ("WHEN", "when"),
        ("DEADLINE", "deadline"),
        ("IN", "in"),
        ("TAGS", "tags"),
        ("ID", "id"),
    )
    _table(rows, columns, empty="No to-dos.")
    if found["total"] > found["count"]:
        out.print(f"[dim]{found['count']} of {found['total']}; --limit shows more.[/]")


def _show_todo(todo: dict[str, Any]) -> None:
    fields = [
        ("title", todo["title"]),
        ("status", todo["status"]),
        ("view", todo["view"] or "trash"),
        ("when", todo["startDate"]),
        ("reminder", todo["reminderTime"]),
        ("deadline", todo["deadline"]),
        ("project", (todo["project"] or {}).get("title")),
        ("heading", (todo["heading"] or {}).get("title")),
        ("area", (todo["area"] or {}).get("title")),
        ("tags", ", ".join(todo["tags"])),
        ("notes", todo["notes"]),
        ("completed", todo["completionDate"]),
        ("id", todo["id"]),
    ]
    for name, value in fields:
        if value:
            out.print(f"{name:<10}{value}", markup=False)
    for item in todo["checklist"]:
        out.print(f"          [{'x' if item['done'] else ' '}] {item['title']}", markup=False)


def _table(rows: list[dict[str, Any]], columns: tuple[tuple[str, str], ...], *, empty: str) -> None:
    show_table(
        [header for header, _ in columns],
        ([Text(_cell(row.get(key))) for _, key in columns] for row in rows),  # never markup
        empty=empty,
    )


def _cell(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("title", ""))
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return "" if value is None else str(value)
