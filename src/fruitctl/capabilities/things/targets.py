"""Where a Things write reaches: the project or area a to-do lands in and the tags it gives must
be allowed for an agent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fruitctl.capabilities.context import Context
from fruitctl.domain.errors import ListNotAllowed, NotFound
from fruitctl.policy.governance import ToolRules
from fruitctl.tools.model import TargetRule


def things_check(args: Any, rules: ToolRules, ctx: Context) -> None:
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


def _things_home(args: Any, ctx: Context) -> tuple[str, str]:
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


def things_reached(args: Any, ctx: Context) -> Iterator[str]:
    """Where a Things write lands (and, for a move, goes), for a standing grant's scope."""
    homes = [_things_home(args, ctx)]
    if getattr(args, "id", None) is not None and (
        getattr(args, "project", None) is not None or getattr(args, "area", None) is not None
    ):
        homes.append(_things_home(_Destination(args), ctx))
    return (f"{kind}:{name}" for kind, name in homes)


THINGS = TargetRule(things_check, "agents", things_reached)


def things_batch_check(args: Any, rules: ToolRules, ctx: Context) -> None:
    """``things_check`` for every to-do of a batch."""
    for item in args.todos:
        things_check(item, rules, ctx)


def things_batch_reached(args: Any, ctx: Context) -> Iterator[str]:
    for item in args.todos:
        yield from things_reached(item, ctx)


THINGS_BATCH = TargetRule(things_batch_check, "agents", things_batch_reached)


def things_project_check(args: Any, rules: ToolRules, ctx: Context) -> None:
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
