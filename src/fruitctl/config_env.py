"""``FRUITCTL_…`` environment variables fruitctl reads no such thing from.

A setting is overridden by ``FRUITCTL_<SECTION>__<KEY>`` - two underscores between section and
key. A variable spelled with one (``FRUITCTL_CALDAV_URL``), or naming no setting, is read by
nothing and changes nothing: the person believes a value is in force that is not. pydantic-
settings ignores such variables without a word, so ``doctor`` names them, with the spelling
meant when one is clear.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from fruitctl.config import Settings

PREFIX = "FRUITCTL_"
PLAIN = frozenset(
    {
        "FRUITCTL_HOME",  # paths.py: where everything lives
        "FRUITCTL_SOCKET_PATH",  # paths.py: the daemon's socket
        "FRUITCTL_CALDAV_PASSWORD",  # config.py: the CalDAV password
        "FRUITCTL_URL",  # cli/remote.py: a gateway elsewhere
        "FRUITCTL_TOKEN",  # cli/remote.py: its token
        "FRUITCTL_IN_PROCESS",  # cli/app.py: never the daemon
        "FRUITCTL_DEBUG",  # cli/output.py: tracebacks of bugs
        "FRUITCTL_MCP_ALLOW_REMOTE",  # transports/mcp_http.py
        "FRUITCTL_SUPERVISOR_PID",  # daemon/supervisor.py: set by the supervisor itself
    }
)
"""Variables read by name, beside the settings'."""
TEST_SUITE = ("FRUITCTL_TEST_", "FRUITCTL_UPDATE_SNAPSHOTS")
"""Read by this project's own tests and Makefile (``FRUITCTL_TEST_STRICT`` is set by CI)."""


def unread(env: Mapping[str, str]) -> list[dict[str, str]]:
    """``[{"variable", "meant"?}]``: each ``FRUITCTL_`` variable that is read by nothing."""
    found = []
    for name in sorted(env):
        upper = name.upper()
        if not upper.startswith(PREFIX) or upper in PLAIN or upper.startswith(TEST_SUITE):
            continue
        if _setting(upper):
            continue
        meant = _meant(upper)
        found.append({"variable": name} | ({"meant": meant} if meant else {}))
    return found


def _sections() -> dict[str, type[BaseModel]]:
    sections = {}
    for name, field in Settings.model_fields.items():
        if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel):
            sections[name.upper()] = field.annotation
    return sections


def _setting(upper: str) -> bool:
    """Whether ``upper`` names a section (as JSON) or one of its keys, as pydantic-settings
    reads them (``FRUITCTL_<SECTION>`` or ``FRUITCTL_<SECTION>__<KEY>``, any case)."""
    section, sep, key = upper.removeprefix(PREFIX).partition("__")
    model = _sections().get(section)
    if model is None:
        return False
    return not sep or key in {field.upper() for field in model.model_fields}


def _meant(upper: str) -> str | None:
    """``FRUITCTL_CALDAV__URL`` for ``FRUITCTL_CALDAV_URL``: a section and a key of it joined by
    one underscore instead of two."""
    rest = upper.removeprefix(PREFIX)
    for section, model in _sections().items():
        key = rest.removeprefix(section + "_")
        if key != rest and key in {field.upper() for field in model.model_fields}:
            return f"{PREFIX}{section}__{key}"
    return None


def describe(found: list[dict[str, str]]) -> list[str]:
    """One sentence for each variable read by nothing."""
    return [
        f"{item['variable']} is set but fruitctl reads no such variable, so it changes nothing"
        + (f": did you mean {item['meant']}?" if item.get("meant") else ".")
        for item in found
    ]
