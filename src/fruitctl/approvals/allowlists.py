"""The allowlists a person sets with ``fruitctl config``, enforced before a proposal is even
filed. Values are JSON; every change is audited. They live in the ``config`` table of state.db
(its name since seed 003; renaming it would take a migration)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Engine, text

from fruitctl.approvals.audit import AuditLog
from fruitctl.domain.dates import format_datetime, now
from fruitctl.domain.errors import InvalidParams

# key -> what it holds. An unset allowlist means "no restriction beyond governance.yaml".
KEYS: dict[str, str] = {
    "allowlist.reminders.lists": "reminder lists agents may write to",
    "allowlist.calendars": "calendars agents may write to",
    "allowlist.things.projects": "Things projects agents may write to",
    "allowlist.things.areas": "Things areas agents may write to",
    "allowlist.things.tags": "Things tags agents may use",
}


class Allowlists:
    """The allowlists, by key (``KEYS``); an unset one restricts nothing beyond governance.yaml."""

    def __init__(self, engine: Engine, audit: AuditLog) -> None:
        self._reader = engine
        self._writer = engine.execution_options(fruitctl_write=True)
        self._audit = audit

    def get(self, key: str) -> Any:
        _known(key)
        with self._reader.connect() as conn:
            found = conn.execute(
                text("SELECT value FROM config WHERE key = :key"), {"key": key}
            ).scalar()
        return None if found is None else json.loads(found)

    def items(self) -> dict[str, Any]:
        return {key: self.get(key) for key in KEYS}

    def set(self, key: str, value: Any, actor: str) -> Any:
        _known(key)
        value = _allowlist(key, value)
        with self._writer.begin() as conn:
            if value is None:
                conn.execute(text("DELETE FROM config WHERE key = :key"), {"key": key})
            else:
                conn.execute(
                    text(
                        "INSERT INTO config (key, value, updated, updated_by) VALUES "
                        "(:key, :value, :at, :by) ON CONFLICT (key) DO UPDATE SET "
                        "value = excluded.value, updated = excluded.updated, "
                        "updated_by = excluded.updated_by"
                    ),
                    {
                        "key": key,
                        "value": json.dumps(value),
                        "at": format_datetime(now()),
                        "by": actor,
                    },
                )
            self._audit.append(
                conn, event="config_changed", actor=actor, payload={"key": key, "value": value}
            )
        return value


def parse_value(text_value: str) -> Any:
    """``none`` clears; JSON is taken as JSON; anything else is a comma-separated list."""
    if text_value.strip().lower() in ("none", "null", ""):
        return None
    try:
        return json.loads(text_value)
    except json.JSONDecodeError:
        return [part.strip() for part in text_value.split(",") if part.strip()]


def _known(key: str) -> None:
    if key not in KEYS:
        raise InvalidParams.config_key(key, KEYS)


def _allowlist(key: str, value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InvalidParams(f"'{key}' takes a list of names, e.g. Inbox,Errands.")
    return [v.strip() for v in value]
