"""What the Things writes change, for proposals: summary, before-snapshot, diff, inverse.

The snapshot of an update or a completion is the to-do as it is when the agent asks; if Things
shows it different when the person approves, the proposal is a conflict. Undo puts back what
Things' URL scheme can set again: the title, notes, deadline and tags, the project, area or
heading it was in, and the status (a completed or canceled to-do or project can be opened
again). A created to-do or project has no undo: the scheme cannot delete (cancel it instead);
nor have checklist items added: the scheme cannot remove one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fruitctl.approvals import readable
from fruitctl.approvals.readable import NAMES, names_in
from fruitctl.capabilities.context import Context
from fruitctl.domain.errors import FruitctlError, NotFound
from fruitctl.domain.wording import counted
from fruitctl.tools.model import Args, Change, Snapshot

_RESTORED = ("title", "notes", "deadline", "tags")
_HOMES = ("project", "area")  # a move: undone by moving it back where it was
_CHECKLIST_ADDS = ("prependChecklist", "appendChecklist")  # no undo: nothing removes an item
_HELD_IN = {"when": "startDate"}  # where a to-do keeps what an argument sets, if not by its name


def _todo(todo_id: str, ctx: Context) -> dict[str, Any] | None:
    """The to-do as Things has it, without its view (which moves with the date alone)."""
    try:
        found = ctx.things.todo_view(todo_id)
    except FruitctlError:
        return None
    found.pop("view", None)
    return found


def _home_names(ids: Iterable[str], ctx: Context) -> dict[str, str]:
    """The titles of the projects and areas among ``ids`` (a title given is shown as given)."""
    wanted = set(ids)
    if not wanted:
        return {}
    homes = [*ctx.things.list_projects(), *ctx.things.list_areas()]
    return {home["id"]: home["title"] for home in homes if home["id"] in wanted}


def _named(args: Args, ctx: Context) -> Snapshot:
    refs = [str(args[key]) for key in _HOMES if args.get(key)]
    return readable.with_names({}, _home_names(refs, ctx))


def _names_now(before: Snapshot, ctx: Context) -> Snapshot:
    return readable.names_again(before, lambda ids: _home_names(ids, ctx))


def _snapshot(args: Args, ctx: Context) -> Snapshot:
    return {str(args["id"]): _todo(str(args["id"]), ctx), **_named(args, ctx)}


def _current(before: Snapshot, ctx: Context) -> Snapshot:
    now = {key: _todo(key, ctx) for key in before if key != NAMES}
    return {**now, **_names_now(before, ctx)}


def _old(before: Snapshot) -> tuple[str, dict[str, Any] | None]:
    ((todo_id, old),) = [(key, value) for key, value in before.items() if key != NAMES]
    return todo_id, old


def _resolve(args: Args, ctx: Context) -> tuple[Args, list[dict[str, Any]]]:
    ctx.things.todo_view(str(args["id"]))  # NotFound now, not when it is approved
    return args, []


# -- create_todo -----------------------------------------------------------------------------


def _create_summary(args: Args, ctx: Context) -> str:
    names = names_in(_named(args, ctx))
    where = readable.container(args.get("project") or args.get("area"), names) or "the Inbox"
    when = f", {args['when']}" if args.get("when") else ""
    return f"Add to-do '{args['title']}' to {where}{when} in Things"


def _create_diff(args: Args, before: Snapshot) -> list[dict[str, Any]]:
    return readable.added("new to-do", args, names_in(before))


def _create_resolve(args: Args, ctx: Context) -> tuple[Args, list[dict[str, Any]]]:
    ctx.things.check_create(args)  # an unknown project, area or tag fails when proposed
    return args, []


CREATE_TODO = Change(
    _create_summary,
    _named,
    _names_now,
    lambda a, b, r: None,
    _create_diff,
    _create_resolve,
)


# -- create_todos ----------------------------------------------------------------------------


def _titles(items: list[Args]) -> str:
    names = ", ".join(f"'{i.get('title', '?')}'" for i in items[:3])
    return names + (f" and {len(items) - 3} more" if len(items) > 3 else "")


def _batch_summary(args: Args, ctx: Context) -> str:
    items = args["todos"]
    return f"Add {counted(len(items), 'to-do')} to Things: {_titles(items)}"


def _batch_diff(args: Args, before: Snapshot) -> list[dict[str, Any]]:
    return [
        row
        for n, item in enumerate(args["todos"])
        for row in readable.added(f"new to-do {n + 1}", item, {})
    ]


def _batch_resolve(args: Args, ctx: Context) -> tuple[Args, list[dict[str, Any]]]:
    failed = ctx.things.precheck_create_many(args)
    bad = {item["index"] for item in failed}
    kept = [item for n, item in enumerate(args["todos"]) if n not in bad]
    if not kept:
        messages = dict.fromkeys(str(item["error"]) for item in failed)
        raise NotFound(" ".join(messages), failed=failed)
    return {**args, "todos": kept}, failed


CREATE_TODOS = Change(
    _batch_summary,
    lambda a, c: {},
    lambda b, c: {},
    lambda a, b, r: None,
    _batch_diff,
    _batch_resolve,
)


# -- update_todo -----------------------------------------------------------------------------


def _update_summary(args: Args, ctx: Context) -> str:
    before = _snapshot(args, ctx)
    todo_id, old = _old(before)
    fields = readable.fields_of(_update_diff(args, before))
    return f"Change {fields} of to-do '{(old or {}).get('title', todo_id)}' in Things"


def _update_inverse(args: Args, before: Snapshot, result: Any) -> dict[str, Any] | None:
    todo_id, old = _old(before)
    if old is None or not _confirmed(result) or any(args.get(k) for k in _CHECKLIST_ADDS):
        return None
    restore: dict[str, Any] = {"id": todo_id}
    if args.get("heading") is not None:
        if old.get("heading") is None:
            return None  # it was under none: the scheme moves to a heading, not out of one
        restore["heading"] = old["heading"]["id"]
    for key in _RESTORED:
        if key in args:
            value = old.get(key)
            restore[key] = value if value is not None else ("" if key != "tags" else [])
    if any(key in args for key in _HOMES):
        home = old.get("project") or old.get("area")
        if home is None:
            return None  # it was in the Inbox: the scheme cannot move it back there
        restore["project" if old.get("project") else "area"] = home["id"]
    return {"tool": "update_todo", "args": restore} if len(restore) > 1 else None


def _update_diff(args: Args, before: Snapshot) -> list[dict[str, Any]]:
    todo_id, old = _old(before)
    target, names = (old or {}).get("title", todo_id), names_in(before)
    rows = [
        readable.changed(target, key, (old or {}).get(_HELD_IN.get(key, key)), value, names)
        for key, value in args.items()
        if key != "id"
    ]
    return [row for row in rows if row]


def _update_resolve(args: Args, ctx: Context) -> tuple[Args, list[dict[str, Any]]]:
    ctx.things.check_update(args)  # an unknown to-do or heading, a bad when, fail when proposed
    return args, []


UPDATE_TODO = Change(
    _update_summary, _snapshot, _current, _update_inverse, _update_diff, _update_resolve
)


# -- complete_todo ---------------------------------------------------------------------------


def _status(args: Args) -> str:
    if args.get("reopen"):
        return "open"
    return "canceled" if args.get("canceled") else "completed"


def _complete_summary(args: Args, ctx: Context) -> str:
    todo_id, old = _old(_snapshot(args, ctx))
    verb = {"open": "Reopen", "canceled": "Cancel", "completed": "Complete"}[_status(args)]
    return f"{verb} to-do '{(old or {}).get('title', todo_id)}' in Things"


def _complete_inverse(args: Args, before: Snapshot, result: Any) -> dict[str, Any] | None:
    todo_id, old = _old(before)
    if old is None or not _confirmed(result):
        return None
    was = old.get("status")
    if was == "open":
        return {"tool": "complete_todo", "args": {"id": todo_id, "reopen": True}}
    return {"tool": "complete_todo", "args": {"id": todo_id, "canceled": was == "canceled"}}


def _complete_diff(args: Args, before: Snapshot) -> list[dict[str, Any]]:
    todo_id, old = _old(before)
    return [
        {
            "target": (old or {}).get("title", todo_id),
            "field": "status",
            "before": (old or {}).get("status"),
            "after": _status(args),
        }
    ]


COMPLETE_TODO = Change(
    _complete_summary, _snapshot, _current, _complete_inverse, _complete_diff, _resolve
)


# -- create_project / update_project ---------------------------------------------------------


def _project(project_id: str, ctx: Context) -> dict[str, Any] | None:
    try:
        found = ctx.things.project_view(project_id)
    except FruitctlError:
        return None
    found.pop("openCount", None)  # moves as its to-dos are done, not a change to the project
    return found


def _project_snapshot(args: Args, ctx: Context) -> Snapshot:
    return {str(args["id"]): _project(str(args["id"]), ctx)}


def _project_current(before: Snapshot, ctx: Context) -> Snapshot:
    return {key: _project(key, ctx) for key in before}


def _new_project_summary(args: Args, ctx: Context) -> str:
    where = f" in {args['area']}" if args.get("area") else ""
    parts = [counted(len(args[key]), noun) for key, noun in _ITEMS if args.get(key)]
    items = f" with {' and '.join(parts)}" if parts else ""
    return f"Add project '{args['title']}'{where}{items} to Things"


_ITEMS = (("todos", "to-do"), ("headings", "heading"))


def _new_project_resolve(args: Args, ctx: Context) -> tuple[Args, list[dict[str, Any]]]:
    ctx.things.check_project(args)
    return args, []


def _project_summary(args: Args, ctx: Context) -> str:
    before = _project_snapshot(args, ctx)
    project_id, old = _old(before)
    fields = readable.fields_of(_update_diff(args, before))
    return f"Change {fields} of project '{(old or {}).get('title', project_id)}' in Things"


def _project_inverse(args: Args, before: Snapshot, result: Any) -> dict[str, Any] | None:
    project_id, old = _old(before)
    if old is None or not _confirmed(result):
        return None
    restore: dict[str, Any] = {"id": project_id}
    for key in (*_RESTORED, "status"):
        if key in args:
            value = old.get(key)
            restore[key] = value if value is not None else ("" if key != "tags" else [])
    return {"tool": "update_project", "args": restore} if len(restore) > 1 else None


def _project_resolve(args: Args, ctx: Context) -> tuple[Args, list[dict[str, Any]]]:
    ctx.things.project_view(str(args["id"]))
    return args, []


CREATE_PROJECT = Change(
    _new_project_summary,
    lambda a, c: {},
    lambda b, c: {},
    lambda a, b, r: None,
    _create_diff,
    _new_project_resolve,
)
UPDATE_PROJECT = Change(
    _project_summary,
    _project_snapshot,
    _project_current,
    _project_inverse,
    _update_diff,
    _project_resolve,
)


def _confirmed(result: Any) -> bool:
    return isinstance(result, dict) and result.get("status") == "confirmed"
