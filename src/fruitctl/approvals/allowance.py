"""What a person approving may also allow (``Allowance``), read from a door's words: kept apart
from the grants' store so a command line that only parses it loads no database layer."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from fruitctl.domain.errors import InvalidParams

MAX_GRANT_SECONDS = 24 * 3600
"""The longest a grant lasts: a day. Past it the person decides again - a grant is for a stretch
of work ("the next two hours"), not a standing change of the rules (that is governance.yaml)."""
MAX_GRANT_WORDS = "24h"
Scope = Literal["list", "tool"]
SCOPES: tuple[Scope, ...] = ("list", "tool")
OFFERED: tuple[tuple[str, str], ...] = (
    ("1h", "an hour"),
    ("2h", "two hours"),
    ("8h", "eight hours"),
    ("24h", "a day"),
)
"""The lengths a form offers (the page, MCP elicitation): a few to pick from, where a typed one
would be a mistake waiting; the CLI and the API take any length up to the bound."""
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([smhd])\s*")


def parse_duration(given: object) -> float:
    """Seconds from ``2h``, ``30m``, ``1d``, ``90s`` or a number of seconds; positive and at
    most ``MAX_GRANT_SECONDS``, else ``invalid_params`` naming the bound."""
    if isinstance(given, bool):
        raise InvalidParams.grant_duration(given, MAX_GRANT_WORDS)
    if isinstance(given, int | float):
        seconds = float(given)
    else:
        match = _DURATION.fullmatch(str(given))
        if match is None:
            raise InvalidParams.grant_duration(given, MAX_GRANT_WORDS)
        seconds = float(match[1]) * _UNITS[match[2]]
    if not 0 < seconds <= MAX_GRANT_SECONDS:
        raise InvalidParams.grant_duration(given, MAX_GRANT_WORDS)
    return seconds


@dataclass(frozen=True)
class Allowance:
    """What a person approving also allows: the proposal's tool, for its agent, for ``seconds``,
    on the lists, calendars or projects the proposal reaches (``list``) or anywhere the tool
    reaches (``tool``; also what ``list`` means for a tool that names no container)."""

    seconds: float
    scope: Scope = "list"

    @classmethod
    def parse(cls, duration: object, scope: object = None) -> Allowance:
        """From a door's words: ``allowFor`` (``2h``) and ``scope`` (default ``list``)."""
        chosen = "list" if scope is None else str(scope).strip().lower()
        if chosen not in SCOPES:
            raise InvalidParams.grant_scope(scope)
        return cls(parse_duration(duration), chosen)

    @classmethod
    def of(cls, params: Mapping[str, Any]) -> Allowance | None:
        """From a request's ``allowFor`` and ``scope`` (None without ``allowFor``; a scope
        without it is refused rather than dropped)."""
        if params.get("allowFor") is None:
            if params.get("scope") is not None:
                raise InvalidParams.grant_scope_alone()
            return None
        return cls.parse(params["allowFor"], params.get("scope"))

    def wire(self) -> dict[str, Any]:
        """As a request carries it on to another door (``of`` reads it back)."""
        return {"allowFor": self.seconds, "scope": self.scope}
