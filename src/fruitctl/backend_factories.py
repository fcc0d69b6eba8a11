"""Which backend serves each service, by name (the composition root's other half): the
embedded store, a CalDAV account (its reminders and calendar sharing one mirror), EventKit on a
Mac, a third-party plug-in named ``package.module:Factory``; and the web search provider. Each
factory takes the ``Config`` and returns an open backend."""

from __future__ import annotations

import importlib
import os
import sys
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fruitctl.config import Config, ConfigError, WebConfig

if TYPE_CHECKING:  # each backend's modules (and the store's SQLAlchemy) load when it is built
    from fruitctl.domain.hosts import DomainRules
    from fruitctl.ports import CalendarBackend, RemindersBackend


def web_search_service(web: WebConfig, rules: DomainRules) -> Any:
    """The web search ``[web]`` in config.toml describes, under ``rules``; a provider that is
    missing fails each search with what to configure."""
    from fruitctl.backends import search
    from fruitctl.capabilities.web.service import WebSearchService

    return WebSearchService(
        search.provider(web.provider, web.searxng_url, web.timeout_seconds), rules
    )


def backend_name(configured: str) -> str:
    """The backend a configured name means: ``auto`` is Apple's stores through EventKit on a
    Mac that has PyObjC, and the embedded store everywhere else."""
    if configured != "auto":
        return configured
    from fruitctl.backends import eventkit

    return "eventkit" if eventkit.available() else "local"


def reminders_backend_factory(config: Config) -> Callable[[Config], Any]:
    name = backend_name(config.settings.reminders.backend)
    if name == "eventkit":
        _require_eventkit(config, "reminders")
    return BACKENDS.get(name) or _plugin(name)


def local_reminders(config: Config) -> RemindersBackend:
    from fruitctl.backends.local import LocalReminders
    from fruitctl.store import open_database

    return LocalReminders(open_database(config.paths.local_db, "local"))


def _caldav_settings(config: Config) -> Any:
    from fruitctl.backends import caldav

    section = config.settings.caldav
    if not section.url:
        raise ConfigError(
            f"{config.paths.config_file}: the caldav backend needs [caldav] url, username and "
            "a password (password, password_command or FRUITCTL_CALDAV_PASSWORD)"
        )
    return caldav.Settings(
        url=section.url,
        username=section.username,
        password=section.secret(os.environ),
        lists=None if section.lists is None else tuple(section.lists),
        calendars=None if section.calendars is None else tuple(section.calendars),
        staleness_seconds=section.staleness_seconds,
        timeout_seconds=section.timeout_seconds,
        max_response_bytes=section.max_response_bytes,
    )


_MIRRORS: weakref.WeakValueDictionary[tuple[Path, Any], Any] = weakref.WeakValueDictionary()
"""The CalDAV mirror of each account in use, shared by its reminders and calendar backends."""


def _caldav_mirror(config: Config) -> tuple[Any, Any]:
    """The account's settings and its mirror: the one a backend of this process is using, or a
    new one (which syncs before its first read)."""
    from fruitctl.backends import caldav
    from fruitctl.store import open_database

    settings = _caldav_settings(config)  # a bad [caldav] section fails before a file is made
    key = (config.paths.caldav_db, settings)
    mirror = _MIRRORS.get(key)
    if mirror is None or not mirror.in_use:
        mirror = caldav.open_mirror(settings, open_database(config.paths.caldav_db, "local"))
        _MIRRORS[key] = mirror
    return settings, mirror


def _caldav(config: Config) -> RemindersBackend:
    """Reminders on a CalDAV server, read from a mirror file next to local.db."""
    from fruitctl.backends import caldav

    settings, mirror = _caldav_mirror(config)
    return caldav.reminders(settings, mirror.engine, mirror)


PERSONAL_STORES = frozenset({"eventkit"})
"""Backends holding a person's own data, where ``fruitctl demo`` writes no sample."""


def remote_account(config: Config) -> str | None:
    """The host of the server the reminders or the calendar write to (a CalDAV account), where
    ``fruitctl demo`` writes only when told; None when both stay on this machine."""
    settings = config.settings
    names = {backend_name(settings.reminders.backend), backend_name(settings.calendar.backend)}
    if "caldav" not in names:
        return None
    return urlsplit(settings.caldav.url).hostname or settings.caldav.url


def _require_eventkit(config: Config, section: str) -> None:
    from fruitctl.backends import eventkit

    if not eventkit.available():
        where = "this is not a Mac" if sys.platform != "darwin" else "PyObjC's EventKit is missing"
        fix = (
            "use 'local' or 'caldav' here"
            if sys.platform != "darwin"
            else "run `make setup` (it installs pyobjc-framework-EventKit)"
        )
        raise ConfigError(
            f"{config.paths.config_file}: [{section}] backend 'eventkit' reads Apple Reminders "
            f"and Calendar through EventKit, and {where}: {fix}"
        )


def _eventkit_access() -> Any:
    from fruitctl.backends import eventkit

    # The permission prompt only where someone can see it: a terminal, never a background
    # service (launchd, an MCP client's pipes), which gets the instructions instead.
    return eventkit.shared_access(may_prompt=os.isatty(0) and os.isatty(2))


def _eventkit_reminders(config: Config) -> RemindersBackend:
    from fruitctl.backends import eventkit

    section = config.settings.eventkit
    store = Path(section.reminders_store).expanduser() if section.reminders_store else None
    return eventkit.open_reminders(
        _eventkit_access(),
        store,
        fetch_timeout=section.fetch_timeout_seconds,
        cache_seconds=section.cache_seconds,
    )


def _eventkit_calendars(config: Config) -> CalendarBackend:
    from fruitctl.backends import eventkit

    section = config.settings.eventkit
    return eventkit.open_calendars(_eventkit_access(), refresh_seconds=section.cache_seconds)


BACKENDS: dict[str, Callable[[Config], Any]] = {
    "local": local_reminders,
    "caldav": _caldav,
    "eventkit": _eventkit_reminders,
}


def calendar_backend_factory(config: Config) -> Callable[[Config], Any]:
    name = backend_name(config.settings.calendar.backend)
    if name == "eventkit":
        _require_eventkit(config, "calendar")
    return CALENDAR_BACKENDS.get(name) or _plugin(name, "calendar.backend", CALENDAR_BACKENDS)


def local_calendars(config: Config) -> CalendarBackend:
    from fruitctl.backends.local.calendars import LocalCalendars
    from fruitctl.store import open_database

    return LocalCalendars(open_database(config.paths.local_db, "local"))


def _caldav_calendars(config: Config) -> CalendarBackend:
    """Events on a CalDAV server, from the same mirror as its reminders."""
    from fruitctl.backends import caldav

    settings, mirror = _caldav_mirror(config)
    return caldav.calendars(settings, mirror.engine, mirror)


CALENDAR_BACKENDS: dict[str, Callable[[Config], Any]] = {
    "local": local_calendars,
    "caldav": _caldav_calendars,
    "eventkit": _eventkit_calendars,
}


def _plugin(
    name: str,
    key: str = "reminders.backend",
    builtin: dict[str, Callable[[Config], Any]] | None = None,
) -> Callable[[Config], Any]:
    """A third-party backend named ``package.module:Factory``; the factory receives the Config."""
    module_name, _, attribute = name.partition(":")
    if not attribute:
        known = ", ".join(sorted(BACKENDS if builtin is None else builtin))
        raise ConfigError(
            f"{key}: unknown backend '{name}' (choose {known}, "
            "or 'package.module:Factory' for a plug-in)"
        )
    try:
        factory = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"{key}: cannot load '{name}': {exc}") from exc
    if not callable(factory):
        raise ConfigError(f"{key}: '{name}' is not callable")
    return factory  # type: ignore[no-any-return]
