"""Seed 002's reminder operations (and seed 000's open view) on any ``RemindersBackend``.

Every public method takes the wire arguments (a mapping) and returns JSON-ready data, so each
front door only moves bytes. Malformed input fails the whole call before anything is written;
per-item problems found while writing (an unknown list or reminder) become the seed's partial
failure shapes.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, cast

from pydantic import BaseModel

from fruitctl.capabilities.reminders import drafts, inputs
from fruitctl.capabilities.reminders.inputs import ListSelector, TargetList, parse
from fruitctl.domain import accounts
from fruitctl.domain.calendar import check_rrule
from fruitctl.domain.dates import format_datetime, now, parse_date_or_datetime, parse_datetime
from fruitctl.domain.errors import FruitctlError, InvalidParams, NotFound
from fruitctl.domain.query import compile_query
from fruitctl.domain.reminders import (
    NOTES_MAX,
    Reminder,
    ReminderList,
    check_tags,
    check_text,
    check_title,
    priority_value,
)
from fruitctl.ports import (
    NewReminder,
    ReminderChanges,
    ReminderQuery,
    RemindersBackend,
    ReminderScope,
    ReminderSearch,
    answering_at_once,
)
from fruitctl.tools.alarms import domain_alarms

Args = Mapping[str, Any] | BaseModel | None
URL_MAX = 2_048


@dataclass(frozen=True)
class RemindersService:
    backend: RemindersBackend
    notes_preview_chars: int = 80
    pushdown: bool = True
    """Let a backend that can run JMESPath in its store do so (off only to measure and compare)."""
    _last: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Per read (``"query"``, ``"open"``): the reminders it fetched last and the items made of
    them. A backend whose read cache hands back the very same (frozen) reminders - nothing
    changed since - gets the same items without the dicts built again. Items are shared
    between answers: results are read-only."""

    # -- reads ---------------------------------------------------------------------------------

    def get_lists(self, args: Args = None) -> list[dict[str, Any]]:
        parse(inputs.GetLists, args, "lists")
        return [lst.to_wire() for lst in self.backend.lists()]

    def get_reminder(self, args: Args) -> dict[str, Any]:
        request = parse(inputs.GetReminder, args, "get")
        return self.backend.get(request.id).to_wire()

    def query_reminders(self, args: Args = None) -> Any:
        request = parse(inputs.QueryReminders, args, "query")
        scope = ReminderScope(self._scope_lists(request.list), request.status, request.search)
        if request.query is None:
            found = self.backend.fetch(_plain_query(scope, request))
            return self._items("query", found, Reminder.to_wire)
        query = compile_query(request.query)
        if self.pushdown and isinstance(self.backend, ReminderSearch):
            return self.backend.search(scope, query, request.limit, request.offset)
        data = [r.to_wire() for r in self.backend.fetch(ReminderQuery(scope, "newest"))]
        result = query.evaluate(data)
        if not isinstance(result, list):
            return result
        return result[request.offset : request.offset + request.limit]

    def open_reminders(self, args: Args = None) -> dict[str, Any]:
        request = parse(inputs.OpenReminders, args, "open")
        found = self.backend.fetch(_open_query(request))
        items = self._items("open", found, self._open_item)
        return {"generatedAt": format_datetime(now()), "items": items, "count": len(items)}

    def answers_at_once(self, request: BaseModel) -> bool:
        """Whether the store answers this read (the parsed arguments of one of the reads
        above) with a few bounded reads in this process - so a front door may run it on its
        event loop. A store that cannot tell (``AnswersAtOnce``) never does."""
        backend = answering_at_once(self.backend)
        if backend is None:
            return False
        match request:
            case inputs.GetLists() | inputs.GetReminder():
                return backend.answers_at_once(None)
            case inputs.OpenReminders():
                return backend.answers_at_once(_open_query(request))
            case inputs.QueryReminders(query=None) if backend.answers_at_once(None):
                try:  # naming the list is itself a lookup the store answers at once
                    scope = ReminderScope(
                        self._scope_lists(request.list), request.status, request.search
                    )
                except FruitctlError:
                    return False  # the call reports it, wherever it runs
                return backend.answers_at_once(_plain_query(scope, request))
        return False  # an expression to evaluate, or a write

    # -- writes --------------------------------------------------------------------------------

    def create_reminders(self, args: Args) -> Any:
        ready, failed = self._plan_create(parse(inputs.CreateReminders, args, "create"))
        created = self.backend.create(ready) if ready else []
        wire = [r.to_wire() for r in created]
        return {"created": wire, "failed": failed} if failed else wire

    def update_reminders(self, args: Args) -> Any:
        request = parse(inputs.UpdateReminders, args, "update")
        changes = [self._changes(item) for item in request.reminders]  # all valid, or nothing
        lists = self.backend.lists(with_counts=False)
        updated: list[dict[str, Any]] = []
        failed: list[dict[str, Any]] = []
        for item, change in zip(request.reminders, changes, strict=True):
            try:
                updated.append(self._update_one(item, change, lists).to_wire())
            except NotFound as exc:
                failed.append({"id": item.id, "error": exc.message})
        return {"updated": updated, "failed": failed} if failed else updated

    def delete_reminders(self, args: Args) -> dict[str, Any]:
        request = parse(inputs.DeleteReminders, args, "delete")
        deleted: list[str] = []
        failed: list[dict[str, Any]] = []
        for reminder_id in request.ids:
            try:
                self.backend.delete(reminder_id)
                deleted.append(reminder_id)
            except NotFound as exc:
                failed.append({"id": reminder_id, "error": exc.message})
        return {"deleted": deleted, "failed": failed}

    # -- what a write would fail on, without writing (a proposal fails fast) -------------------
    # Each raises what the write raises for a malformed call, and answers the items the write
    # would report in ``failed``, with the same messages.

    def precheck_create(self, args: Args) -> list[dict[str, Any]]:
        return self._plan_create(parse(inputs.CreateReminders, args, "create"))[1]

    def precheck_update(self, args: Args) -> list[dict[str, Any]]:
        request = parse(inputs.UpdateReminders, args, "update")
        for item in request.reminders:
            self._changes(item)
        lists = self.backend.lists(with_counts=False)
        failed: list[dict[str, Any]] = []
        for item in request.reminders:
            try:
                self.backend.get(item.id)
                if item.list is not None:
                    self._target(item.list, lists)
            except NotFound as exc:
                failed.append({"id": item.id, "error": exc.message})
        return failed

    def precheck_delete(self, args: Args) -> list[dict[str, Any]]:
        failed: list[dict[str, Any]] = []
        for reminder_id in parse(inputs.DeleteReminders, args, "delete").ids:
            try:
                self.backend.get(reminder_id)
            except NotFound as exc:
                failed.append({"id": reminder_id, "error": exc.message})
        return failed

    def _plan_create(
        self, request: inputs.CreateReminders
    ) -> tuple[list[NewReminder], list[dict[str, Any]]]:
        drafts = [self._draft(item) for item in request.reminders]  # all valid, or nothing
        lists = self.backend.lists(with_counts=False)
        ready: list[NewReminder] = []
        failed: list[dict[str, Any]] = []
        for index, (item, draft) in enumerate(zip(request.reminders, drafts, strict=True)):
            try:
                target = self._target(item.list, lists)
            except NotFound as exc:
                failed.append({"index": index, "error": exc.message})
                continue
            ready.append(NewReminder(list_id=target.id, **draft))
        return ready, failed

    # -- list selection ------------------------------------------------------------------------

    def _scope_lists(self, selector: ListSelector | None) -> tuple[str, ...] | None:
        lists = self.backend.lists(with_counts=False)
        if selector is None:
            return (_default(lists).id,)
        chosen = [selector.id is not None, selector.name is not None, selector.all is True]
        if sum(chosen) != 1:
            raise InvalidParams(
                "List selector must specify exactly one of: 'id', 'name', or 'all'."
            )
        if selector.all:
            return None
        return (find_list(lists, selector.name, selector.id).id,)

    def _target(self, selector: TargetList | None, lists: list[ReminderList]) -> ReminderList:
        if selector is None:
            return _default(lists)
        return find_list(lists, selector.name, selector.id)

    # -- building writes -----------------------------------------------------------------------

    def _draft(self, item: inputs.NewReminderItem) -> dict[str, Any]:
        _check_target(item.list)
        draft: dict[str, Any] = {
            "title": check_title(item.title),
            "notes": _notes(item.notes),
            "priority": priority_value(item.priority or "none"),
            "due": _moment(item.dueDate),
            "completion": _completed_at(item.completedDate),
            "tags": check_tags(item.tags or ()),
            "is_flagged": bool(item.flagged),
            "url": _url(item.url),
            "recurrence": None if item.recurrence is None else check_rrule(item.recurrence),
            "start": _moment(item.startDate),
            "alarms": domain_alarms(item.alarms or []),
        }
        drafts.check_timing(draft["due"], draft["recurrence"], draft["alarms"], draft["start"])
        return draft

    def _changes(self, item: inputs.ReminderUpdate) -> ReminderChanges:
        _check_target(item.list)
        changes: dict[str, Any] = {}
        for name in sorted(item.model_fields_set):
            value = getattr(item, name)
            if value is None and name not in _CLEARABLE:
                raise InvalidParams.null(name)
            if name in _CONVERT:
                key, convert = _CONVERT[name]
                changes[key] = None if value is None else convert(value)
        if changes.get("alarms", ()) is None:
            changes["alarms"] = ()  # null clears them, as [] does
        return cast(ReminderChanges, changes)

    def _update_one(
        self, item: inputs.ReminderUpdate, changes: ReminderChanges, lists: list[ReminderList]
    ) -> Reminder:
        if item.list is not None:
            changes["listId"] = self._target(item.list, lists).id
        if item.completed is not None and "completionDate" not in changes:
            changes["completionDate"] = _completion(item.completed)
        return drafts.update(self.backend, item.id, changes)

    def _items(
        self, read: str, found: list[Reminder], item: Callable[[Reminder], dict[str, Any]]
    ) -> list[dict[str, Any]]:
        memo = self._last.get(read)  # one read of one slot: threads may replace it meanwhile
        if memo is not None and _same_objects(memo[0], found):
            return list(memo[1])
        items = [item(r) for r in found]
        self._last[read] = (found, items)  # holding them keeps their identities unique
        return list(items)

    def _open_item(self, r: Reminder) -> dict[str, Any]:
        # A reminder holds its dates as canonical wire text already: no to_wire() copy needed
        # (the open view is the socket's hot read, 200 of these per call).
        return {
            "id": r.id,
            "listName": r.listName,
            "title": r.title,
            "dueAt": r.dueDate,
            "priority": r.priority,
            "isFlagged": r.isFlagged,
            "tags": list(r.tags),
            "notesPreview": self._preview(r.notes),
        }

    def _preview(self, notes: str | None) -> str | None:
        if not notes or self.notes_preview_chars <= 0:
            return None
        flat = " ".join(notes.split())
        limit = self.notes_preview_chars
        return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


# update field -> (change key, converter); `completedDate` wins over `completed` (see _update_one).
_CONVERT: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "title": ("title", check_title),
    "notes": ("notes", lambda v: _notes(v)),
    "dueDate": ("dueDate", parse_date_or_datetime),
    "priority": ("priority", priority_value),
    "completedDate": ("completionDate", parse_datetime),
    "tags": ("tags", check_tags),
    "flagged": ("isFlagged", bool),
    "url": ("url", lambda v: _url(v)),
    "recurrence": ("recurrence", check_rrule),
    "startDate": ("startDate", parse_date_or_datetime),
    "alarms": ("alarms", domain_alarms),
}
_CLEARABLE = frozenset(
    {"notes", "dueDate", "completedDate", "url", "recurrence", "startDate", "alarms"}
)


def _same_objects(old: list[Reminder], new: list[Reminder]) -> bool:
    return len(old) == len(new) and all(map(operator.is_, old, new))


def _moment(text: str | None) -> date | datetime | None:
    return None if text is None else parse_date_or_datetime(text)


def _completed_at(text: str | None) -> datetime | None:
    return None if text is None else parse_datetime(text)


def _check_target(selector: TargetList | None) -> None:
    if selector is not None and (selector.id is None) == (selector.name is None):
        raise InvalidParams("List selector must specify exactly one of: 'id' or 'name'.")


def _default(lists: list[ReminderList]) -> ReminderList:
    for lst in lists:
        if lst.isDefault:
            return lst
    raise NotFound("No default list found.")


def find_list(lists: list[ReminderList], name: str | None, list_id: str | None) -> ReminderList:
    """The list an id, a name or an ``Account/Name`` names (``domain.accounts``): ``NotFound``
    for none, ``Ambiguous`` for a name two accounts share."""
    if list_id is not None:
        for lst in lists:
            if lst.id == list_id:
                return lst
        raise NotFound.reminder_list(list_id)
    found = accounts.resolve(lists, name or "", "list")
    if found is not None:
        return found
    available = ", ".join(accounts.shown(lst, lists) for lst in lists)
    raise NotFound(f"No list found with name: '{name}'. Available lists: {available}.")


def _completion(completed: bool) -> datetime | None:
    # Seed 002: `true` stamps the current time (even when already completed), `false` clears.
    return now() if completed else None


def _notes(notes: str | None) -> str | None:
    return None if notes is None else check_text("notes", notes, limit=NOTES_MAX, multiline=True)


def _url(url: str | None) -> str | None:
    return None if url is None else check_text("url", url.strip(), limit=URL_MAX) or None


def _plain_query(scope: ReminderScope, request: inputs.QueryReminders) -> ReminderQuery:
    return ReminderQuery(scope, request.sortBy, request.limit, request.offset)


def _open_query(request: inputs.OpenReminders) -> ReminderQuery:
    return ReminderQuery(
        ReminderScope(None, "incomplete"),
        "open",
        request.limit,
        include_no_due=request.includeNoDueDate,
    )
