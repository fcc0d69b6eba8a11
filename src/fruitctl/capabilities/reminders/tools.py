"""Reminder tools: seed 002's five operations, plus get_reminder and seed 000's open view."""

from __future__ import annotations

from functools import partial
from typing import Any

from fruitctl.capabilities.context import Context
from fruitctl.capabilities.reminders import changes, inputs, outputs
from fruitctl.capabilities.reminders import schemas as seed_schemas
from fruitctl.capabilities.reminders.targets import REMINDER_LISTS
from fruitctl.tools import model

# A refusal by the store behind these tools names the reminders as the service refused.
tool = partial(model.tool, service="reminders")


def asks_the_store(args: Any, ctx: Context) -> bool:
    """Whether the reminders store answers this read at once (``Tool.at_once``)."""
    return ctx.reminders.answers_at_once(args)


@tool(
    returns=outputs.QueryReminders,
    category="read_only",
    risk="low",
    title="Query reminders",
    parse=inputs.parse,
    schema=seed_schemas.QUERY_REMINDERS,
    at_once=asks_the_store,
)
def query_reminders(args: inputs.QueryReminders, ctx: Context) -> Any:
    """Find reminders. With no arguments: the open reminders of the default list, newest first,
    at most $(limit.default).

    list: {"name": "Work"} (any case), {"id": "..."} or {"all": true}; omit for the default list.
    status: $(status).
    sortBy: "newest" (default), "oldest", "priority" (high first, none last) or "dueDate"
    (soonest first, undated last); ignored when query is given.
    search: a text; only reminders whose title or notes contain it, in any case.
    query: a JMESPath expression run on the list of reminders after the list, status and search
    filters; it decides the order. Use == for equality and backticks for numbers.
    limit: $(limit), applied last. offset: how many results to skip first
    (default $(offset.default)), to page through more than 200: {"limit": 200, "offset": 200}
    is the second page.

    Examples: {} · {"list": {"name": "Work"}} · {"list": {"all": true}, "status": "completed"}
    · {"list": {"all": true}, "search": "dentist"}
    · {"query": "[?priority != `0`]"} (any priority set) · {"query": "[?priority == `1`]"}
    · {"query": "[?contains(title, 'meeting')]"}
    · {"list": {"all": true}, "query": "reverse(sort_by(@, &creationDate))[:10]"}
    · {"query": "reverse(sort_by(@, &modificationDate))[:5]"} (the five last modified)
    · {"query": "[*].{title: title, due: dueDate}"}
    · {"query": "[?creationDate >= '2024-01-01' && creationDate < '2025-01-01']"}
    · {"query": "[?contains(tags, 'next')]"}

    Fields: id, title, notes, listId, listName, isCompleted, priority (0 none, 1 high, 5 medium,
    9 low), dueDate, completionDate, creationDate, modificationDate, isFlagged, url, parentId,
    recurrence, tags. Dates are ISO 8601 with an offset (2026-02-24T18:00:00+01:00), every one in
    the person's zone, so they compare as text in time order; a due date without a time is a
    plain date (2026-02-24).
    """
    return ctx.reminders.query_reminders(args)


@tool(
    returns=outputs.Lists,
    category="read_only",
    risk="low",
    title="List reminder lists",
    parse=inputs.parse,
    schema=seed_schemas.GET_LISTS,
    at_once=asks_the_store,
)
def get_lists(args: inputs.GetLists, ctx: Context) -> Any:
    """All reminder lists: id, name, the account it is in (account), whether it is the
    default list, and how many open reminders it holds. Call it to learn the list names before
    querying; a name two accounts share is named "Account/Name". No parameters: {}"""
    return ctx.reminders.get_lists(args)


@tool(
    returns=outputs.OneReminder,
    category="read_only",
    risk="low",
    title="Get a reminder",
    parse=inputs.parse,
    at_once=asks_the_store,
)
def get_reminder(args: inputs.GetReminder, ctx: Context) -> Any:
    """One reminder by its id, with every field. Example: {"id": "..."}"""
    return ctx.reminders.get_reminder(args)


@tool(
    returns=outputs.OpenReminders,
    category="read_only",
    risk="low",
    title="Open reminders (GTD)",
    parse=inputs.parse,
    at_once=asks_the_store,
    alias="reminders.open",
)
def open_reminders(args: inputs.OpenReminders, ctx: Context) -> Any:
    """Open reminders across every list for a GTD review: soonest due first (undated last),
    flagged first on the same date, then by title. Each item has listName, tags and a short
    notesPreview. limit: $(limit). includeNoDueDate: $(includeNoDueDate)."""
    return ctx.reminders.open_reminders(args)


@tool(
    returns=outputs.CreateReminders,
    category="pim_write",
    risk="medium",
    title="Create reminders",
    parse=inputs.parse,
    schema=seed_schemas.CREATE_REMINDERS,
    change=changes.CREATE_REMINDERS,
    targets=(REMINDER_LISTS,),
)
def create_reminders(args: inputs.CreateReminders, ctx: Context) -> Any:
    """Create one or more reminders; they come back in the order given.

    Each reminder: title (required); notes; list as {"name": "..."} or {"id": "..."} (the
    default list when omitted); dueDate (2026-02-24 for a day, 2026-02-24T09:00:00-05:00 for
    a time); priority "none", "low", "medium" or "high"; tags (list of strings); flagged; url.
    If some fail (an unknown list), the answer is {"created": [...], "failed": [{"index": i,
    "error": "..."}]}; a malformed item fails the whole call and nothing is created.

    Examples: {"reminders": [{"title": "Buy milk"}]}
    · {"reminders": [{"title": "Call dentist", "list": {"name": "Personal"},
    "dueDate": "2024-01-20T09:00:00-05:00", "priority": "high"}]}
    """
    return ctx.reminders.create_reminders(args)


@tool(
    returns=outputs.UpdateReminders,
    category="pim_write",
    risk="medium",
    title="Update reminders",
    parse=inputs.parse,
    schema=seed_schemas.UPDATE_REMINDERS,
    change=changes.UPDATE_REMINDERS,
    targets=(REMINDER_LISTS,),
)
def update_reminders(args: inputs.UpdateReminders, ctx: Context) -> Any:
    """Change one or more reminders; only the fields given change. Also completes them.

    Each update: id (required); title; notes (null clears); list to move it, {"name": "..."}
    or {"id": "..."}; dueDate (null clears); priority; completed true/false; completedDate
    (an ISO date-time, or null to reopen; wins over completed); tags (replaces them);
    flagged; url (null clears). Unknown ids come back as {"updated": [...], "failed":
    [{"id": "...", "error": "..."}]}.

    Examples: {"reminders": [{"id": "...", "completed": true}]}
    · {"reminders": [{"id": "...", "list": {"name": "Groceries"}}]}
    · {"reminders": [{"id": "...", "dueDate": null}]}
    """
    return ctx.reminders.update_reminders(args)


@tool(
    returns=outputs.Deleted,
    category="pim_write",
    risk="high",
    title="Delete reminders",
    destructive=True,
    parse=inputs.parse,
    schema=seed_schemas.DELETE_REMINDERS,
    change=changes.DELETE_REMINDERS,
    targets=(REMINDER_LISTS,),
)
def delete_reminders(args: inputs.DeleteReminders, ctx: Context) -> Any:
    """Delete reminders permanently. Answers {"deleted": [ids], "failed": [{"id", "error"}]}.
    Example: {"ids": ["abc123", "def456"]}"""
    return ctx.reminders.delete_reminders(args)


TOOLS = [
    query_reminders,
    get_lists,
    get_reminder,
    open_reminders,
    create_reminders,
    update_reminders,
    delete_reminders,
]
