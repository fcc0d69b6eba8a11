"""``fruitctl reminders …``: seed 002's operations and seed 000's open view for a person."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

import typer

from fruitctl.capabilities.reminders.inputs import (
    ListSelector,
    NewReminderItem,
    OpenReminders,
    QueryReminders,
    ReminderUpdate,
)
from fruitctl.cli import render
from fruitctl.cli.alarms import ClearAlerts, alarms_given, minutes_option, moment_option
from fruitctl.cli.app import JsonOption, client
from fruitctl.cli.fields import option
from fruitctl.cli.output import (
    answer_write,
    emit_json,
    fail,
    is_pending,
    out,
    report_failures,
    reporting,
    run,
    show_pending,
)
from fruitctl.domain.errors import InvalidParams
from fruitctl.domain.reminders import PRIORITY_VALUES, SortOrder, Status

reminders_app = typer.Typer(
    help="Query, add, edit, complete and delete reminders.", no_args_is_help=True
)


def _priorities(incomplete: str) -> list[str]:
    return [name for name in PRIORITY_VALUES if name.startswith(incomplete)]


# Text, checked by the reminders service, so a bad one reads as everywhere else:
# "Invalid priority: 'urgent'. Must be one of: none, low, medium, high."
def _priority(model: type[NewReminderItem | ReminderUpdate]) -> Any:
    made = option(model, "priority", "--priority")
    made.autocompletion = _priorities
    return made


class Flag(StrEnum):
    true = "true"
    false = "false"


Ids = Annotated[list[str], typer.Argument(help="Reminder IDs.", show_default=False)]


@reminders_app.command("list")
def list_command(
    list_name: str | None = option(ListSelector, "name", "--list"),
    list_id: str | None = option(ListSelector, "id", "--list-id"),
    all_lists: bool | None = option(ListSelector, "all", "--all"),
    status: Status = option(QueryReminders, "status"),
    sort: SortOrder = option(QueryReminders, "sortBy", "--sort"),
    query: str | None = option(QueryReminders, "query", also='E.g. "[?priority == `1`]".'),
    search: str | None = option(QueryReminders, "search"),
    limit: int = option(QueryReminders, "limit"),
    offset: int = option(QueryReminders, "offset"),
    as_json: JsonOption = False,
) -> None:
    """List reminders: the default list's open ones, newest first, unless told otherwise."""
    selector = {
        key: value
        for key, value in (("name", list_name), ("id", list_id), ("all", all_lists or None))
        if value is not None
    }
    args: dict[str, Any] = {"status": status, "sortBy": sort, "limit": limit}
    if offset:
        args["offset"] = offset
    if selector:
        args["list"] = selector
    if query is not None:
        args["query"] = query
    if search is not None:
        args["search"] = search
    run(as_json, lambda: client(as_json).call("query_reminders", args), render.show_reminders)


@reminders_app.command("get")
def get_command(
    reminder_id: Annotated[str, typer.Argument(help="Reminder ID.")], as_json: JsonOption = False
) -> None:
    """Show one reminder with all its fields."""
    run(
        as_json,
        lambda: client(as_json).call("get_reminder", {"id": reminder_id}),
        render.show_reminder,
    )


@reminders_app.command("add")
def add_command(
    title: str = option(NewReminderItem, "title"),
    list_name: str | None = option(
        NewReminderItem, "list", "--list", also="By name, or Account/Name (iCloud/Errands)."
    ),
    due: str | None = option(NewReminderItem, "dueDate", "--due"),
    priority: str | None = _priority(NewReminderItem),
    notes: str | None = option(NewReminderItem, "notes"),
    tag: list[str] | None = option(NewReminderItem, "tags", "--tag", also="Repeat for more."),
    flagged: bool | None = option(NewReminderItem, "flagged", "--flagged"),
    url: str | None = option(NewReminderItem, "url"),
    rrule: str | None = option(NewReminderItem, "recurrence", "--rrule"),
    start: str | None = option(NewReminderItem, "startDate", "--start"),
    alert: list[int] | None = minutes_option(),
    alert_at: list[str] | None = moment_option(),
    as_json: JsonOption = False,
) -> None:
    """Add a reminder (to the default list unless --list is given)."""
    item: dict[str, Any] = {"title": title}
    optional = {
        "notes": notes,
        "dueDate": due,
        "url": url,
        "tags": tag,
        "flagged": flagged,
        "recurrence": rrule,
        "startDate": start,
        "alarms": alarms_given(alert, alert_at),
    }
    item.update({key: value for key, value in optional.items() if value is not None})
    if priority is not None:
        item["priority"] = priority
    if list_name is not None:
        item["list"] = {"name": list_name}
    _write(as_json, "create_reminders", {"reminders": [item]}, "created", "Added")


@reminders_app.command("update")
@reminders_app.command("edit", hidden=True)  # the earlier name, kept working
def edit_command(
    reminder_id: Annotated[str, typer.Argument(help="Reminder ID.")],
    title: str | None = option(ReminderUpdate, "title"),
    list_name: str | None = option(
        ReminderUpdate, "list", "--list", also="By name, or Account/Name (iCloud/Errands)."
    ),
    due: str | None = option(ReminderUpdate, "dueDate", "--due"),
    clear_due: Annotated[bool, typer.Option("--clear-due", help="Remove the due date.")] = False,
    priority: str | None = _priority(ReminderUpdate),
    notes: str | None = option(ReminderUpdate, "notes"),
    clear_notes: Annotated[bool, typer.Option("--clear-notes", help="Remove the notes.")] = False,
    tag: list[str] | None = option(ReminderUpdate, "tags", "--tag", also="Repeat for more."),
    clear_tags: Annotated[bool, typer.Option("--clear-tags", help="Remove all tags.")] = False,
    flagged: Flag | None = option(ReminderUpdate, "flagged"),
    url: str | None = option(ReminderUpdate, "url"),
    clear_url: Annotated[bool, typer.Option("--clear-url", help="Remove the link.")] = False,
    rrule: str | None = option(ReminderUpdate, "recurrence", "--rrule"),
    no_repeat: Annotated[bool, typer.Option("--no-repeat", help="Stop it repeating.")] = False,
    start: str | None = option(ReminderUpdate, "startDate", "--start"),
    clear_start: Annotated[
        bool, typer.Option("--clear-start", help="Remove the start date.")
    ] = False,
    alert: list[int] | None = minutes_option(),
    alert_at: list[str] | None = moment_option(),
    clear_alerts: ClearAlerts = False,
    as_json: JsonOption = False,
) -> None:
    """Change some fields of a reminder; the others stay as they are."""
    given = {
        "title": title,
        "dueDate": due,
        "notes": notes,
        "url": url,
        "recurrence": rrule,
        "startDate": start,
        "alarms": alarms_given(alert, alert_at, clear_alerts),
    }
    change: dict[str, Any] = {key: value for key, value in given.items() if value is not None}
    for flag, key, cleared in (
        (clear_due, "dueDate", None),
        (clear_notes, "notes", None),
        (clear_tags, "tags", []),
        (clear_url, "url", None),
        (no_repeat, "recurrence", None),
        (clear_start, "startDate", None),
    ):
        if flag:
            change[key] = cleared
    if tag:
        change["tags"] = tag
    if priority is not None:
        change["priority"] = priority
    if flagged is not None:
        change["flagged"] = flagged is Flag.true
    if list_name is not None:
        change["list"] = {"name": list_name}
    if not change:
        with reporting(as_json):
            raise InvalidParams.no_option_given()
    _write(
        as_json,
        "update_reminders",
        {"reminders": [{"id": reminder_id, **change}]},
        "updated",
        "Updated",
    )


@reminders_app.command("complete")
def complete_command(ids: Ids, as_json: JsonOption = False) -> None:
    """Mark reminders completed (now)."""
    items = [{"id": i, "completed": True} for i in ids]
    _write(as_json, "update_reminders", {"reminders": items}, "updated", "Completed")


@reminders_app.command("uncomplete")
def uncomplete_command(ids: Ids, as_json: JsonOption = False) -> None:
    """Mark reminders not completed again."""
    items = [{"id": i, "completed": False} for i in ids]
    _write(as_json, "update_reminders", {"reminders": items}, "updated", "Reopened")


@reminders_app.command("delete")
def delete_command(ids: Ids, as_json: JsonOption = False) -> None:
    """Delete reminders permanently."""
    _write(as_json, "delete_reminders", {"ids": ids}, "deleted", "Deleted")


@reminders_app.command("open")
def open_command(
    limit: int = option(OpenReminders, "limit"),
    include_no_due_date: Flag = option(
        OpenReminders, "includeNoDueDate", "--include-no-due-date", words=True
    ),
    no_due_date_left_out: Annotated[
        bool,
        typer.Option("--no-include-no-due-date", help="Leave out reminders without a due date."),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Open reminders across all lists: soonest due first, flagged first, then by title."""
    included = include_no_due_date == Flag.true and not no_due_date_left_out
    args = {"limit": limit, "includeNoDueDate": included}
    run(as_json, lambda: client(as_json).call("open_reminders", args), render.show_open)


def _write(as_json: bool, operation: str, args: dict[str, Any], key: str, verb: str) -> None:
    """Run a batch write; print what worked, then what failed (exit 1 if anything did)."""
    with reporting(as_json):
        answer = written(client(as_json).call(operation, args), key)
    if answer["status"] == "pending":
        answer_write(as_json, answer, show_pending)
    done, failed = answer[key], answer["failed"]
    if failed and len(args.get("reminders") or args.get("ids") or ()) == 1:
        # One item asked for, one item failed: that is the command's error. (Batches only
        # ever fail an item for something missing: an unknown list or reminder.)
        fail("not_found", failed[0]["error"], as_json=as_json)
    if as_json:
        emit_json(answer)
    elif done and key == "deleted":
        out.print(f"{verb} {len(done)} reminder{'s' if len(done) != 1 else ''}.")
    elif done:
        out.print(f"{verb}:")
        render.show_reminders(done)
    report_failures(failed, as_json)


def written(result: Any, key: str) -> dict[str, Any]:
    """A write's answer in one shape whatever became of it, so a script reads every outcome
    alike: ``status`` (``done``, ``partial`` when some items failed, ``pending`` when a person
    must approve it), what was written under ``key``, what failed under ``failed``; a pending
    one carries its proposal's fields too (``proposalId``, ``approve``, ``url``...). The tools
    answer as seed 002 has them: a bare list when everything worked, else an object."""
    if is_pending(result):
        return {**result, key: [], "failed": []}
    done, failed = (result[key], result["failed"]) if isinstance(result, dict) else (result, [])
    return {"status": "partial" if failed else "done", key: done, "failed": failed}
