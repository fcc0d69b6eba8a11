"""Refreshing a mirrored backend now (``fruitctl sync``), rather than when a read finds the
mirror older than its staleness bound. Only mirroring backends (CalDAV) can; the others need not."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from fruitctl.domain.errors import Unsupported

SyncProgress = Callable[[str, int, int], None]
"""Called as a sync goes: (collection name, objects done, objects to do)."""


@runtime_checkable
class Syncable(Protocol):
    """A backend that mirrors a server: ``sync`` brings the mirror up to date and reports it."""

    def sync(self, progress: Callable[[Any], None] | None = None) -> Any: ...


class SyncService:
    def __init__(self, backends: Mapping[str, Callable[[], object]]) -> None:
        """``backends``: what each capability (reminders, calendar) is served by, built on use."""
        self._backends = backends

    def sync(self, progress: SyncProgress | None = None) -> dict[str, Any]:
        """Sync the first mirroring backend (one mirror holds a whole account, reminders and
        events alike); ``Unsupported`` when none mirrors anything."""
        for capability, build in self._backends.items():
            backend = build()
            if isinstance(backend, Syncable):
                report = backend.sync(None if progress is None else _relay(progress))
                return {
                    "backend": getattr(backend, "name", "?"),
                    "for": capability,
                    **report.to_wire(),
                }
        raise Unsupported(
            "Nothing to sync: reminders and calendars are read where they live. Syncing is for "
            'a CalDAV account: set backend = "caldav" under [reminders] (or [calendar]) and fill '
            "in [caldav] url, username and password in config.toml."
        )


def _relay(progress: SyncProgress) -> Callable[[Any], None]:
    return lambda step: progress(step.collection, step.done, step.total)
