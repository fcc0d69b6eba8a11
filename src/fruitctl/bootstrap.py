"""The composition root: the only module that knows every part. It reads the configuration,
opens the stores, loads backends by name, and hands the front doors ready services."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fruitctl import config as config_module
from fruitctl.config import Config, ConfigError
from fruitctl.ports import RemindersBackend
from fruitctl.services.demo import DemoService
from fruitctl.services.reminders import RemindersService


@dataclass(frozen=True)
class App:
    config: Config
    reminders: RemindersService
    demo: DemoService


def build(config: Config | None = None) -> App:
    config = config or config_module.load()
    backend = load_reminders_backend(config)
    service = RemindersService(
        backend, notes_preview_chars=config.settings.reminders.notes_preview_chars
    )
    return App(config=config, reminders=service, demo=DemoService(backend))


def load_reminders_backend(config: Config) -> RemindersBackend:
    name = config.settings.reminders.backend
    factory = BACKENDS.get(name) or _plugin(name)
    backend: RemindersBackend = factory(config)
    return backend


def _local(config: Config) -> RemindersBackend:
    from fruitctl.backends.local import LocalReminders
    from fruitctl.store import open_database

    return LocalReminders(open_database(config.paths.local_db, "local"))


BACKENDS: dict[str, Callable[[Config], Any]] = {"local": _local}


def _plugin(name: str) -> Callable[[Config], Any]:
    """A third-party backend named ``package.module:Factory``; the factory receives the Config."""
    module_name, _, attribute = name.partition(":")
    if not attribute:
        known = ", ".join(sorted(BACKENDS))
        raise ConfigError(
            f"reminders.backend: unknown backend '{name}' (choose {known}, "
            "or 'package.module:Factory' for a plug-in)"
        )
    try:
        factory = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"reminders.backend: cannot load '{name}': {exc}") from None
    if not callable(factory):
        raise ConfigError(f"reminders.backend: '{name}' is not callable")
    return factory  # type: ignore[no-any-return]
