"""``fruitctl doctor``: what this installation can reach and why not, for a person or a bug
report - the backends and their permission, tags, and (``write_test``) a live round trip.

Only what the backends say through their ports and a few optional methods is used:
``request_access()`` (ask macOS for access once, here, where the person can see the prompt),
``tags_status()`` (where tags come from and why they may not), ``access_holder()`` (the app
macOS asks about), ``delete_list()`` (so the write test leaves nothing behind). fruitctl's own
databases are checked by ``stores`` (the composition root's: this layer opens no database), so
a broken one is reported here instead of ending the check.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fruitctl.domain.errors import FruitctlError
from fruitctl.ports import CalendarBackend, NewReminder, RemindersBackend

WRITE_TEST_BACKENDS = frozenset({"eventkit"})


@dataclass(frozen=True)
class DoctorService:
    reminders: Callable[[], RemindersBackend]
    calendar: Callable[[], CalendarBackend]
    names: dict[str, str]
    """Service -> ``{configured} -> {used}``, e.g. ``{"reminders": "auto -> eventkit"}``."""
    stores: Callable[[], dict[str, dict[str, Any]]] = dict
    """Name -> ``{"file", "state": ok | not created yet | broken, "error"?}`` of each database."""
    unusable: tuple[type[Exception], ...] = ()
    """What opening a backend raises when its configuration cannot be used (the composition
    root's ``ConfigError``): that service's check fails with the message, the others go on."""

    def report(self, *, ask: bool = True, write_test: bool = False) -> dict[str, Any]:
        report: dict[str, Any] = {
            "stores": self.stores(),
            "reminders": self._service("reminders", self.reminders, ask),
            "calendar": self._service("calendar", self.calendar, ask),
        }
        if write_test:
            report["writeTest"] = self.write_test()
        return report

    @staticmethod
    def against_daemon(report: dict[str, Any], info: dict[str, Any]) -> list[str]:
        """Where this process (``report``) and the running daemon (its ``system.info``)
        differ, in words (see ``against_daemon``)."""
        return against_daemon(report, info)

    def _service(self, service: str, opener: Callable[[], Any], ask: bool) -> dict[str, Any]:
        found: dict[str, Any] = {"backend": self.names[service]}
        try:
            backend = opener()
        except FruitctlError as exc:
            return {**found, "state": "unavailable", "error": exc.to_dict()}
        except self.unusable as exc:
            error = {"code": "config_error", "message": str(exc)}
            return {**found, "state": "unavailable", "error": error}
        request = getattr(backend, "request_access", None)
        if ask and callable(request):
            found["permission"] = request()
        else:
            found["permission"] = backend.permission_status()
        holder = getattr(backend, "access_holder", None)
        if callable(holder):
            found["accessHolder"] = holder()
        tags = getattr(backend, "tags_status", None)
        if callable(tags):
            found["tags"] = tags()
        found["state"] = "ok" if found["permission"] == "authorized" else "no access"
        found.update(self._probe(service, backend))
        return found

    @staticmethod
    def _probe(service: str, backend: Any) -> dict[str, Any]:
        """Read something, so a problem shows here and not in an agent's first call. A backend
        that mirrors a server (``sync``: CalDAV) asks the server now, however fresh its mirror:
        reads would answer from the mirror for a while, and a server that is down is a failing
        check whatever the mirror still holds."""
        try:
            sync = getattr(backend, "sync", None)
            if callable(sync):
                sync()
            if service == "reminders":
                return {"lists": len(backend.lists(with_counts=False))}
            return {"calendars": len(backend.calendars())}
        except FruitctlError as exc:
            return {"state": "failing", "error": exc.to_dict()}

    def write_test(self) -> dict[str, Any]:
        """Create a list and a reminder in it, read it back, delete both: the whole path (in
        the process that runs this - the daemon, when ``doctor`` asks it)."""
        used = self.names["reminders"].rsplit(" ", 1)[-1]
        if used not in WRITE_TEST_BACKENDS:
            return {"ran": False, "reason": f"only for Apple Reminders (this is '{used}')"}
        backend: Any = self.reminders()
        steps: list[str] = []
        try:
            made = backend.create_list(f"fruitctl doctor {secrets.token_hex(3)}")
            steps.append(f"created list '{made.name}'")
            (reminder,) = backend.create([NewReminder(list_id=made.id, title="doctor check")])
            steps.append("created a reminder")
            if backend.get(reminder.id).title != "doctor check":
                return {"ran": True, "ok": False, "steps": steps, "error": "read back differs"}
            steps.append("read it back")
            backend.delete(reminder.id)
            steps.append("deleted it")
            remove = getattr(backend, "delete_list", None)
            if callable(remove):
                remove(made.id)
                steps.append("deleted the list")
        except FruitctlError as exc:
            return {"ran": True, "ok": False, "steps": steps, "error": exc.to_dict()}
        return {"ran": True, "ok": True, "steps": steps}


PANES = {"reminders": "Reminders", "calendar": "Calendar"}
READS = {"reminders": "lists", "calendar": "calendars"}  # a read forwarded to the daemon


def against_daemon(report: dict[str, Any], info: dict[str, Any]) -> list[str]:
    """Where this process and the running daemon differ, in words: the daemon is the one that
    agents and every forwarded ``fruitctl`` command use, so this process's access proves
    nothing about it (macOS grants access per app: a terminal's grant is not the daemon's)."""
    said: list[str] = []
    for service, pane in PANES.items():
        own, theirs = report[service], _daemon_side(info, service)
        used = str(own.get("backend", "")).rsplit(" ", 1)[-1]
        if theirs["backend"] not in (None, used):
            said.append(
                f"The daemon serves {pane} from '{theirs['backend']}' but this configuration "
                f"says '{used}': restart the daemon so that it reads the configuration again."
            )
        said.extend(_access_differs(pane, service, own, theirs))
    return said


def _daemon_side(info: dict[str, Any], service: str) -> dict[str, Any]:
    def of(key: str) -> Any:
        found = info.get(key)
        return found.get(service) if isinstance(found, dict) else None

    return {
        "backend": of("backends"),
        "permission": of("permissions"),
        "accessHolder": of("accessHolders"),
    }


def _access_differs(
    pane: str, service: str, own: dict[str, Any], theirs: dict[str, Any]
) -> list[str]:
    mine, its = own.get("permission"), theirs["permission"]
    if its == "authorized" or its is None:
        return []
    here = own.get("accessHolder") or "This process"
    holder = theirs["accessHolder"]
    there = f"the daemon ({holder})" if holder else "the daemon"
    if mine == "authorized":
        return [
            f"{here} has access to {pane} but {there} does not "
            f"({its.replace('_', ' ')}): the daemon is the one agents and fruitctl commands "
            f"use. Run `fruitctl {READS[service]}`: it goes through the daemon, and its answer "
            "says what the daemon needs."
        ]
    return [f"T{there[1:]} has no access to {pane} ({its.replace('_', ' ')})."]
