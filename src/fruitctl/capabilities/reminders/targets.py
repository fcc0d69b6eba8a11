"""Where a reminder write reaches: every list it touches (where a reminder is, where it goes)
must be allowed for an agent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fruitctl.capabilities.context import Context
from fruitctl.domain.errors import ListNotAllowed, NotFound
from fruitctl.policy.governance import ToolRules
from fruitctl.tools.model import TargetRule


def reminder_lists_check(args: Any, rules: ToolRules, ctx: Context) -> None:
    """Every list a reminder write touches (source and destination) must be allowed - by
    ``allowlist.reminders.lists`` (``fruitctl config``) when set, else by governance.yaml."""
    chosen = ctx.allowlists.get("allowlist.reminders.lists")
    names = chosen if chosen is not None else rules.allowed_lists
    if names is None:
        return
    allowed = {name.casefold() for name in names}
    for name in sorted(set(_touched_lists(args, ctx))):
        if name.casefold() not in allowed:
            raise ListNotAllowed(f"Writes to list '{name}' are not permitted.", list=name)


def _touched_lists(args: Any, ctx: Context) -> Iterator[str]:
    lists = ctx.reminders.get_lists()
    by_id = {lst["id"]: lst["name"] for lst in lists}
    default = next(lst["name"] for lst in lists if lst["isDefault"])
    for item in getattr(args, "reminders", ()):
        if getattr(item, "id", None) is not None:  # an update: the list it is in now
            yield from _current_list(item.id, ctx)
            if item.list is not None:
                yield _named(item.list, by_id)
        else:
            yield _named(item.list, by_id) if item.list is not None else default
    for reminder_id in getattr(args, "ids", ()):  # a delete
        yield from _current_list(reminder_id, ctx)


def _current_list(reminder_id: str, ctx: Context) -> Iterator[str]:
    try:
        yield ctx.reminders.get_reminder({"id": reminder_id})["listName"]
    except NotFound:
        return  # the service reports unknown ids itself


def _named(selector: Any, by_id: dict[str, str]) -> str:
    if selector.id is not None:
        return by_id.get(selector.id, str(selector.id))
    return str(selector.name)


def reminder_lists_reached(args: Any, ctx: Context) -> Iterator[str]:
    """The lists a reminder write reaches, for a standing grant's scope."""
    return (f"list:{name}" for name in _touched_lists(args, ctx))


REMINDER_LISTS = TargetRule(reminder_lists_check, "agents", reminder_lists_reached)
