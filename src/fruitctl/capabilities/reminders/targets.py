"""Where a reminder write reaches: every list it touches (where a reminder is, where it goes)
must be allowed for an agent.

A list is named as the service names it (``service.find_list``: an id, a name, or
``Account/Name``), and an allowlist entry as ``domain.accounts.allowed`` reads it: a name two
accounts share allows neither until it says which."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from fruitctl.capabilities.context import Context
from fruitctl.domain import accounts
from fruitctl.domain.errors import ListNotAllowed, NotFound
from fruitctl.domain.reminders import ReminderList
from fruitctl.policy.governance import ToolRules
from fruitctl.tools.model import TargetRule

ALLOWLIST = "allowlist.reminders.lists"
GOVERNED = "allowed_lists (governance.yaml)"


def reminder_lists_check(args: Any, rules: ToolRules, ctx: Context) -> None:
    """Every list a reminder write touches (source and destination) must be allowed - by
    ``allowlist.reminders.lists`` (``fruitctl config``) when set, else by governance.yaml."""
    chosen = ctx.allowlists.get(ALLOWLIST)
    names = chosen if chosen is not None else rules.allowed_lists
    if names is None:
        return
    where = ALLOWLIST if chosen is not None else GOVERNED
    lists = ctx.reminders.backend.lists(with_counts=False)
    accounts.refuse_unallowed(names, _touched_lists(args, ctx, lists), lists, where, _refused)


def _refused(name: str) -> ListNotAllowed:
    return ListNotAllowed(f"Writes to list '{name}' are not permitted.", list=name)


def _touched_lists(
    args: Any, ctx: Context, lists: Sequence[ReminderList]
) -> Iterator[ReminderList | str]:
    default = next((lst for lst in lists if lst.isDefault), None)
    for item in getattr(args, "reminders", ()):
        if getattr(item, "id", None) is not None:  # an update: the list it is in now
            yield from _current_list(item.id, ctx, lists)
            if item.list is not None:
                yield _named(item.list, lists)
        else:
            yield from _named_or(item.list, lists, default)
    for reminder_id in getattr(args, "ids", ()):  # a delete
        yield from _current_list(reminder_id, ctx, lists)


def _current_list(
    reminder_id: str, ctx: Context, lists: Sequence[ReminderList]
) -> Iterator[ReminderList | str]:
    try:
        list_id = ctx.reminders.get_reminder({"id": reminder_id})["listId"]
    except NotFound:
        return  # the service reports unknown ids itself
    yield _named_id(list_id, lists)


def _named(selector: Any, lists: Sequence[ReminderList]) -> ReminderList | str:
    """The list a selector names (``Ambiguous`` for a shared name: nothing is guessed), or
    what it says when no list answers to it."""
    try:
        from fruitctl.capabilities.reminders.service import find_list  # with the first write

        return find_list(list(lists), selector.name, selector.id)
    except NotFound:
        return str(selector.id if selector.id is not None else selector.name)


def _named_or(
    selector: Any, lists: Sequence[ReminderList], default: ReminderList | None
) -> Iterator[ReminderList | str]:
    if selector is not None:
        yield _named(selector, lists)
    elif default is not None:  # a create into the default list
        yield default


def _named_id(list_id: str, lists: Sequence[ReminderList]) -> ReminderList | str:
    return next((lst for lst in lists if lst.id == list_id), list_id)


def reminder_lists_reached(args: Any, ctx: Context) -> Iterator[str]:
    """The lists a reminder write reaches, for a standing grant's scope."""
    lists = ctx.reminders.backend.lists(with_counts=False)
    return (f"list:{accounts.label(x, lists)}" for x in _touched_lists(args, ctx, lists))


REMINDER_LISTS = TargetRule(reminder_lists_check, "agents", reminder_lists_reached)
