"""What the reminder writes change (``tools.model.Change``, declared with each write
tool): a one-line summary, a before-snapshot, a conflict check against that snapshot at
execution, the before -> after diff, the inverse that undoes it, and - for a proposal - which
items of a batch can work at all (fail fast)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fruitctl.approvals.readable import (
    NAMES,
    added,
    changed,
    container,
    fields_of,
    lost,
    names_again,
    names_in,
    with_names,
)
from fruitctl.capabilities.context import Context
from fruitctl.domain.alarms import alarms_of
from fruitctl.domain.errors import FruitctlError, NotFound
from fruitctl.domain.reminders import priority_name
from fruitctl.domain.repeat_words import repeat_and_alarms
from fruitctl.domain.wording import counted
from fruitctl.tools.model import Args, Change, Snapshot

Failed = list[dict[str, Any]]


def _reminders(ids: list[str], ctx: Context) -> Snapshot:
    found: Snapshot = {}
    for reminder_id in ids:
        try:
            found[reminder_id] = ctx.reminders.get_reminder({"id": reminder_id})
        except NotFound:
            found[reminder_id] = None
    return found


def _kept(before: Snapshot) -> dict[str, Any]:
    """The reminders of a snapshot, without the names kept beside them."""
    return {key: old for key, old in before.items() if key != NAMES}


def _list_names(ids: Iterable[str], ctx: Context) -> dict[str, str]:
    wanted = set(ids)
    if not wanted:
        return {}
    return {lst["id"]: lst["name"] for lst in ctx.reminders.get_lists() if lst["id"] in wanted}


def _named(args: Args, ctx: Context) -> Snapshot:
    """The names of the lists the items go to by id (``approvals.readable``)."""
    refs = (item.get("list") for item in args.get("reminders", []))
    ids = {ref["id"] for ref in refs if isinstance(ref, dict) and ref.get("id")}
    return with_names({}, _list_names(ids, ctx))


def _titles(items: list[Args]) -> str:
    names = ", ".join(f"'{i.get('title', '?')}'{_repeats(i)}" for i in items[:3])
    return names + (f" and {len(items) - 3} more" if len(items) > 3 else "")


def _repeats(item: Args) -> str:
    """ " (every Monday, alert 15 minutes before)" of an item that repeats or alerts."""
    said = repeat_and_alarms(item.get("recurrence"), alarms_of(item.get("alarms") or ()))
    return f" ({said})" if said else ""


def _titled(before: Snapshot, ids: list[str]) -> list[Args]:
    return [{"title": (before.get(rid) or {}).get("title", rid)} for rid in ids]


# -- create_reminders ------------------------------------------------------------------------


def _create_summary(args: Args, ctx: Context) -> str:
    items = args["reminders"]
    names = names_in(_named(args, ctx))
    lists = sorted({container(i.get("list"), names) or "the default list" for i in items})
    return f"Create {counted(len(items), 'reminder')} in {', '.join(lists)}: {_titles(items)}"


def _create_inverse(args: Args, before: Snapshot, result: Any) -> dict[str, Any] | None:
    created = result["created"] if isinstance(result, dict) else result
    ids = [r["id"] for r in created or []]
    return {"tool": "delete_reminders", "args": {"ids": ids}} if ids else None


def _create_diff(args: Args, before: Snapshot) -> list[dict[str, Any]]:
    names = names_in(before)
    return [
        row
        for n, item in enumerate(args["reminders"])
        for row in added(f"new reminder {n + 1}", item, names)
    ]


# -- update_reminders ------------------------------------------------------------------------


def _update_snapshot(args: Args, ctx: Context) -> Snapshot:
    return {**_reminders(_reminder_ids(args), ctx), **_named(args, ctx)}


def _update_summary(args: Args, ctx: Context) -> str:
    items = args["reminders"]
    before = _update_snapshot(args, ctx)
    fields = fields_of(_update_diff(args, before))
    titled = _titled(before, [i["id"] for i in items])
    return f"Change {fields} of {counted(len(items), 'reminder')}: {_titles(titled)}"


def _update_inverse(args: Args, before: Snapshot, result: Any) -> dict[str, Any] | None:
    restore = [_restore(old) for old in _kept(before).values() if old is not None]
    return {"tool": "update_reminders", "args": {"reminders": restore}} if restore else None


def _restore(old: dict[str, Any]) -> dict[str, Any]:
    item: dict[str, Any] = {"id": old["id"], "list": {"id": old["listId"]}}
    item.update({k: old[k] for k in ("title", "notes", "dueDate", "url", "tags", *_REPEATS)})
    item["priority"] = priority_name(old["priority"])
    item["flagged"] = old["isFlagged"]
    item["completedDate"] = old["completionDate"]
    return item


# A reminder's timing beyond its due: restored by undo, recreated with it, lost with it.
_REPEATS = ("recurrence", "startDate", "alarms")


# Where a reminder keeps what each argument sets (the rest keep the argument's name).
_HELD_IN = {
    "completed": "isCompleted",
    "completedDate": "completionDate",
    "flagged": "isFlagged",
    "list": "listName",
}


def _update_diff(args: Args, before: Snapshot) -> list[dict[str, Any]]:
    names = names_in(before)
    rows = []
    for item in args["reminders"]:
        old = before.get(item["id"]) or {}
        target = old.get("title", item["id"])
        for key, value in item.items():
            if key == "id":
                continue
            row = changed(target, key, old.get(_HELD_IN.get(key, key)), value, names)
            rows += [row] if row else []
    return rows


# -- delete_reminders ------------------------------------------------------------------------

# What a deleted reminder takes with it, as the person calls it -> where the reminder keeps it.
_LOST = {
    "list": "listName",
    "dueDate": "dueDate",
    "priority": "priority",
    "flagged": "isFlagged",
    "tags": "tags",
    "url": "url",
    "notes": "notes",
    **{name: name for name in _REPEATS},
}


def _delete_summary(args: Args, ctx: Context) -> str:
    titled = _titled(_reminders(args["ids"], ctx), args["ids"])
    return f"Delete {counted(len(args['ids']), 'reminder')}: {_titles(titled)}"


def _delete_inverse(args: Args, before: Snapshot, result: Any) -> dict[str, Any] | None:
    deleted = set(result.get("deleted", [])) if isinstance(result, dict) else set()
    kept = _kept(before)
    again = [_recreate(old) for rid, old in kept.items() if old is not None and rid in deleted]
    return {"tool": "create_reminders", "args": {"reminders": again}} if again else None


def _recreate(old: dict[str, Any]) -> dict[str, Any]:
    item: dict[str, Any] = {"title": old["title"], "list": {"id": old["listId"]}}
    for key in ("notes", "dueDate", "url", *_REPEATS):
        if old.get(key):
            item[key] = old[key]
    if old["tags"]:
        item["tags"] = old["tags"]
    item["priority"] = priority_name(old["priority"])
    item["flagged"] = old["isFlagged"]
    if old["completionDate"] is not None:
        item["completedDate"] = old["completionDate"]
    return item


def _delete_diff(args: Args, before: Snapshot) -> list[dict[str, Any]]:
    rows = []
    for rid, old in _kept(before).items():
        target = (old or {}).get("title", rid)
        was = "exists" if old else "missing"
        rows.append({"target": target, "field": "reminder", "before": was, "after": "deleted"})
        rows += lost(target, old or {}, _LOST)
    return rows


def _reminder_ids(args: Args) -> list[str]:
    return [i["id"] for i in args.get("reminders", [])] or list(args.get("ids", []))


def _reminders_now(before: Snapshot, ctx: Context) -> Snapshot:
    now = _reminders(list(_kept(before)), ctx)
    return {**now, **names_again(before, lambda ids: _list_names(ids, ctx))}


# -- failing fast --------------------------------------------------------------------------------


def nothing_can_work(failed: Failed) -> FruitctlError:
    """The error of a batch none of whose items can work: their messages, each said once."""
    messages = dict.fromkeys(str(item["error"]) for item in failed)
    return NotFound(" ".join(messages), failed=failed)


def _keep(args: Args, key: str, failed: Failed, dropped: Callable[[int, Any], bool]) -> Args:
    kept = [item for n, item in enumerate(args[key]) if not dropped(n, item)]
    if not kept:
        raise nothing_can_work(failed)
    return {**args, key: kept}


def _resolve_create(args: Args, ctx: Context) -> tuple[Args, Failed]:
    failed = ctx.reminders.precheck_create(args)
    bad = {item["index"] for item in failed}
    return _keep(args, "reminders", failed, lambda n, _: n in bad), failed


def _resolve_update(args: Args, ctx: Context) -> tuple[Args, Failed]:
    failed = ctx.reminders.precheck_update(args)
    bad = {item["id"] for item in failed}
    return _keep(args, "reminders", failed, lambda _, item: item["id"] in bad), failed


def _resolve_delete(args: Args, ctx: Context) -> tuple[Args, Failed]:
    failed = ctx.reminders.precheck_delete(args)
    bad = {item["id"] for item in failed}
    return _keep(args, "ids", failed, lambda _, rid: rid in bad), failed


# -- the declarations ----------------------------------------------------------------------------

CREATE_REMINDERS = Change(
    _create_summary, _named, _reminders_now, _create_inverse, _create_diff, _resolve_create
)
UPDATE_REMINDERS = Change(
    _update_summary,
    _update_snapshot,
    _reminders_now,
    _update_inverse,
    _update_diff,
    _resolve_update,
)
DELETE_REMINDERS = Change(
    _delete_summary,
    lambda a, c: _reminders(_reminder_ids(a), c),
    _reminders_now,
    _delete_inverse,
    _delete_diff,
    _resolve_delete,
)
