"""Input models of the reminder operations: seed 002's schemas (plus GTD fields), the only place
their fields, bounds, defaults and descriptions are written; and the seed's names for its
actions in the messages of invalid arguments."""

from __future__ import annotations

import builtins
from typing import TypeVar

from pydantic import (
    BaseModel,
    Field,
    model_validator,
)

from fruitctl.domain.alarms import ALARMS_MAX
from fruitctl.domain.recurrence import MAX_PER_DAY
from fruitctl.domain.reminders import PriorityName, SortOrder, Status
from fruitctl.tools.alarms import ALARMS_HELP, AlarmInput
from fruitctl.tools.inputs import CLEARED_BY_NULL, Input
from fruitctl.tools.inputs import parse as parse_input

M = TypeVar("M", bound=BaseModel)


class ListReference(Input):
    """A list named by an object (``{"name": "Groceries"}``) or, as agents often write it, by
    a bare string: ``"Groceries"`` is read as its name."""

    @model_validator(mode="before")
    @classmethod
    def _bare_name(cls, data: object) -> object:
        return {"name": data} if isinstance(data, str) else data


class ListSelector(ListReference):
    """Exactly one of name, id or all."""

    name: str | None = Field(
        None,
        description="List name (case-insensitive match); 'Account/Name' (e.g. "
        "'iCloud/Groceries') when two accounts have a list of that name",
    )
    id: str | None = Field(None, description="Exact list ID")
    all: bool | None = Field(None, description="Set true to search all lists")


class TargetList(ListReference):
    """A list to write into: exactly one of name or id."""

    name: str | None = None
    id: str | None = None


SEARCH_MAX = 200  # a phrase to find, not a document: longer text is a mistake
SEARCH_HELP = (
    "Only reminders whose title or notes contain this text, in any case. "
    "Applied with the list and status filters, before 'query'."
)


class QueryReminders(Input):
    list: ListSelector | None = Field(
        None, description="Which list to search. Omit for default list only."
    )
    status: Status = Field("incomplete", description="Filter by completion status")
    sortBy: SortOrder = Field(
        "newest", description="Sort order. Ignored if 'query' includes sorting."
    )
    query: str | None = Field(
        None,
        description="JMESPath expression for advanced filtering/projection. "
        "Applied after list and status filters.",
    )
    search: str | None = Field(
        None,
        min_length=1,
        max_length=SEARCH_MAX,
        description=SEARCH_HELP,
    )
    limit: int = Field(50, ge=1, le=200, description="Maximum results to return")
    offset: int = Field(
        0,
        ge=0,
        le=1_000_000,
        description="Results to skip before 'limit' counts: page past 200 with offset 200, 400...",
    )


class GetLists(Input):
    pass


class GetReminder(Input):
    id: str = Field(description="Reminder ID")


REPEATS = (
    "Repeat rule (RFC 5545 RRULE), e.g. 'FREQ=WEEKLY;BYDAY=MO' or 'FREQ=MONTHLY;BYMONTHDAY=1;"
    f"COUNT=6'; needs a due date. At most hourly, at most {MAX_PER_DAY} times a day. Completing "
    "a repeating reminder moves it to its next due date and keeps the done one as completed"
)
STARTS = "When to start on it, in ISO 8601 (a date alone stays a date); not when it alerts"


class NewReminderItem(Input):
    title: str = Field(description="Reminder title")
    notes: str | None = Field(None, description="Reminder notes/body text")
    list: TargetList | None = Field(None, description="Target list. Uses default list if omitted.")
    dueDate: str | None = Field(
        None, description="Due date in ISO 8601 format; a date alone (YYYY-MM-DD) stays a date"
    )
    priority: PriorityName | None = Field(None, description="Priority level")
    tags: builtins.list[str] | None = Field(None, description="Tags, e.g. ['@calls', 'next']")
    flagged: bool | None = Field(None, description="Flag the reminder")
    url: str | None = Field(
        None,
        description="A link kept with the reminder (on Apple Reminders: EventKit's URL "
        "field, which the Reminders app does not show)",
    )
    completedDate: str | None = Field(
        None, description="Create it already completed at this ISO 8601 date-time"
    )
    recurrence: str | None = Field(None, description=REPEATS)
    alarms: builtins.list[AlarmInput] | None = Field(
        None, max_length=ALARMS_MAX, description=ALARMS_HELP
    )
    startDate: str | None = Field(None, description=STARTS)


class CreateReminders(Input):
    reminders: list[NewReminderItem] = Field(min_length=1)


class ReminderUpdate(Input):
    id: str = Field(description="Reminder ID to update")
    title: str | None = Field(None, description="New title")
    notes: str | None = Field(
        None, description="New notes. Set to null to clear.", json_schema_extra=CLEARED_BY_NULL
    )
    list: TargetList | None = Field(None, description="Move to this list")
    dueDate: str | None = Field(
        None,
        description="New due date in ISO 8601 format. Set to null to clear.",
        json_schema_extra=CLEARED_BY_NULL,
    )
    priority: PriorityName | None = Field(None, description="New priority level")
    completed: bool | None = Field(None, description="Set true to complete, false to uncomplete")
    completedDate: str | None = Field(
        None,
        description="Completion date in ISO 8601 format. Set to null to uncomplete. "
        "Overrides 'completed' if both provided.",
        json_schema_extra=CLEARED_BY_NULL,
    )
    tags: builtins.list[str] | None = Field(None, description="Replace the tags")
    flagged: bool | None = Field(None, description="Flag or unflag")
    url: str | None = Field(
        None,
        description="New link (on Apple Reminders: EventKit's URL field, which the Reminders "
        "app does not show). Set to null to clear.",
        json_schema_extra=CLEARED_BY_NULL,
    )
    recurrence: str | None = Field(
        None,
        description=REPEATS + ". Set to null to stop it repeating.",
        json_schema_extra=CLEARED_BY_NULL,
    )
    alarms: builtins.list[AlarmInput] | None = Field(
        None,
        max_length=ALARMS_MAX,
        description=ALARMS_HELP + ". Replaces all of them; [] or null clears.",
        json_schema_extra=CLEARED_BY_NULL,
    )
    startDate: str | None = Field(
        None, description=STARTS + ". Set to null to clear.", json_schema_extra=CLEARED_BY_NULL
    )


class UpdateReminders(Input):
    reminders: list[ReminderUpdate] = Field(min_length=1)


class DeleteReminders(Input):
    ids: list[str] = Field(min_length=1, description="Array of reminder IDs to delete")


class OpenReminders(Input):
    limit: int = Field(200, ge=1, le=1000, description="Maximum items to return")
    includeNoDueDate: bool = Field(True, description="Include reminders without a due date")


# The reminders tools speak of their actions the way the reminders contract words its errors
# ("Action 'create' requires 'title' to be specified."), whichever door called them.
ACTIONS = {
    "create_reminders": "create",
    "update_reminders": "update",
    "delete_reminders": "delete",
    "query_reminders": "query",
    "get_reminder": "get",
    "get_lists": "lists",
}


def parse(model: type[M], args: object, action: str) -> M:
    """``tools.inputs.parse``, naming a reminders tool's action as its contract words it."""
    return parse_input(model, args, ACTIONS.get(action, action))
