"""Target rules: where a call would reach, against the rules of its tool; each tool declares
the ones it needs (``tool(targets=...)``) and the policy runs them on every call.

Each check raises the canonical error (``PermissionDenied`` for a path, ``ListNotAllowed`` for
a reminder list, ``CalendarNotAllowed`` for a calendar) before anything runs, so a denial
carries a reason and nothing is touched. The file service checks paths again when it opens
them; this early check is for a clear refusal. Path rules bind everyone; the list and calendar
allowlists bind agents (an agent's write, also when a person approves it), never a person's
own call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from fruitctl.domain.errors import CalendarNotAllowed, InternalError, ListNotAllowed, NotFound
from fruitctl.domain.path_rules import PathRules
from fruitctl.policy.governance import ToolRules
from fruitctl.tools.context import ToolContext
from fruitctl.tools.model import TargetRule

ArgumentCheck = Callable[[Any, ToolRules, ToolContext], None]


def path_check(for_write: bool) -> ArgumentCheck:
    def check(args: Any, rules: ToolRules, ctx: ToolContext) -> None:
        path_rules(rules).check(args.path, for_write=for_write)

    return check


def path_rules(rules: ToolRules) -> PathRules:
    """A file tool's path rules: its allowed and forbidden paths, and the places every file tool
    refuses (``policy.protected``). The one place they are put together, for the policy's check
    and for the service's check at open time alike; a rule that cannot be used stops the call."""
    protected = rules.protected
    try:
        return PathRules.from_patterns(
            rules.allowed_paths,
            rules.forbidden_paths,
            guarded=protected.credentials,
            own=protected.own,
            own_exceptions=[protected.workspace] if protected.workspace else [],
        )
    except ValueError as exc:
        raise InternalError(f"The path rules of this tool cannot be used: {exc}.") from exc


def reminder_lists_check(args: Any, rules: ToolRules, ctx: ToolContext) -> None:
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


def _touched_lists(args: Any, ctx: ToolContext) -> Iterator[str]:
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


def _current_list(reminder_id: str, ctx: ToolContext) -> Iterator[str]:
    try:
        yield ctx.reminders.get_reminder({"id": reminder_id})["listName"]
    except NotFound:
        return  # the service reports unknown ids itself


def _named(selector: Any, by_id: dict[str, str]) -> str:
    if selector.id is not None:
        return by_id.get(selector.id, str(selector.id))
    return str(selector.name)


def calendars_check(args: Any, rules: ToolRules, ctx: ToolContext) -> None:
    """Every calendar an event write touches (where the event is, where it goes) must be
    allowed - by ``allowlist.calendars`` (``fruitctl config``) when set, else governance.yaml."""
    chosen = ctx.allowlists.get("allowlist.calendars")
    names = chosen if chosen is not None else rules.allowed_calendars
    if names is None:
        return
    allowed = {name.casefold() for name in names}
    for name in sorted(set(_touched_calendars(args, ctx))):
        if name.casefold() not in allowed:
            raise CalendarNotAllowed(
                f"Writes to calendar '{name}' are not permitted.", calendar=name
            )


def _touched_calendars(args: Any, ctx: ToolContext) -> Iterator[str]:
    calendars = ctx.calendar.list_calendars()
    if getattr(args, "id", None) is not None:  # an update or delete: where the event is now
        yield from _current_calendar(args.id, ctx)
    elif getattr(args, "calendar", None) is None:  # a create into the default calendar
        yield next((c["name"] for c in calendars if c["isDefault"]), calendars[0]["name"])
    wanted = getattr(args, "calendar", None)
    if wanted is not None:  # a create into, or a move to, a named calendar
        by_id = {c["id"]: c["name"] for c in calendars}
        yield by_id.get(wanted, wanted)


def _current_calendar(event_id: str, ctx: ToolContext) -> Iterator[str]:
    try:
        yield ctx.calendar.get_event({"id": event_id})["calendarName"]
    except NotFound:
        return  # the service reports an unknown id itself


def things_check(args: Any, rules: ToolRules, ctx: ToolContext) -> None:
    """Where a Things write goes - the project or area it is added to, or the one the to-do is
    in now - must be allowed by ``allowlist.things.projects`` / ``.areas`` when set (a to-do
    in neither, the Inbox, only when neither is set), and every tag it gives by
    ``allowlist.things.tags``."""
    projects = ctx.allowlists.get("allowlist.things.projects")
    areas = ctx.allowlists.get("allowlist.things.areas")
    tags = ctx.allowlists.get("allowlist.things.tags")
    if projects is not None or areas is not None:
        homes = [_things_home(args, ctx)]
        if getattr(args, "id", None) is not None and (
            getattr(args, "project", None) is not None or getattr(args, "area", None) is not None
        ):  # a move: where it goes, too
            homes.append(_things_home(_Destination(args), ctx))
        for kind, name in homes:
            allowed = {"project": projects, "area": areas}.get(kind)
            if allowed is None or name.casefold() not in {n.casefold() for n in allowed}:
                where = f"Things {kind} '{name}'" if kind != "inbox" else "the Things Inbox"
                raise ListNotAllowed(f"Writes to {where} are not permitted.", list=name or "Inbox")
    if tags is not None:
        allowed_tags = {n.casefold() for n in tags}
        for tag in getattr(args, "tags", None) or ():
            if tag.casefold() not in allowed_tags:
                raise ListNotAllowed.things_tag(tag)


class _Destination:
    """An update's destination (its project or area), as a create's arguments name one."""

    def __init__(self, args: Any) -> None:
        self.project = getattr(args, "project", None)
        self.area = getattr(args, "area", None)


def _things_home(args: Any, ctx: ToolContext) -> tuple[str, str]:
    """``("project" | "area" | "inbox", its title)`` of where a Things write lands."""
    todo_id = getattr(args, "id", None)
    if todo_id is not None:
        try:
            todo = ctx.things.todo_view(todo_id)
        except NotFound:
            return "inbox", ""  # the service reports an unknown id itself
        home = todo["project"] or todo["area"]
        kind = "project" if todo["project"] else "area"
        return (kind, home["title"]) if home else ("inbox", "")
    for kind, wanted, known in (
        ("project", getattr(args, "project", None), ctx.things.list_projects),
        ("area", getattr(args, "area", None), ctx.things.list_areas),
    ):
        if wanted is not None:
            for item in known():
                if item["id"] == wanted or item["title"].casefold() == wanted.casefold():
                    return kind, str(item["title"])
            return kind, str(wanted)
    return "inbox", ""


PATHS_READ = TargetRule(path_check(for_write=False), "everyone")
PATHS_WRITE = TargetRule(path_check(for_write=True), "everyone")
REMINDER_LISTS = TargetRule(reminder_lists_check, "agents")
CALENDARS = TargetRule(calendars_check, "agents")
THINGS = TargetRule(things_check, "agents")


def things_batch_check(args: Any, rules: ToolRules, ctx: ToolContext) -> None:
    """``things_check`` for every to-do of a batch."""
    for item in args.todos:
        things_check(item, rules, ctx)


THINGS_BATCH = TargetRule(things_batch_check, "agents")


def things_project_check(args: Any, rules: ToolRules, ctx: ToolContext) -> None:
    """A project write: the project (by its title, for a new one) must be in
    ``allowlist.things.projects`` when set, a new one's area in ``.areas``, its tags in
    ``.tags``."""
    projects = ctx.allowlists.get("allowlist.things.projects")
    areas = ctx.allowlists.get("allowlist.things.areas")
    tags = ctx.allowlists.get("allowlist.things.tags")
    project_id = getattr(args, "id", None)
    if project_id is not None:
        try:
            title = str(ctx.things.project_view(project_id)["title"])
        except NotFound:
            return  # the service reports an unknown id itself
    else:
        title = str(args.title)
        if areas is not None and getattr(args, "area", None) is not None:
            things_check(args, rules, ctx)  # the area it is added to
    if projects is not None and title.casefold() not in {n.casefold() for n in projects}:
        raise ListNotAllowed(f"Writes to Things project '{title}' are not permitted.", list=title)
    if tags is not None:
        allowed = {n.casefold() for n in tags}
        for tag in getattr(args, "tags", None) or ():
            if tag.casefold() not in allowed:
                raise ListNotAllowed.things_tag(tag)


THINGS_PROJECTS = TargetRule(things_project_check, "agents")
