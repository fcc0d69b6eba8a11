"""Things' URL scheme (``things:///add?…``): every value percent-encoded by ``urllib``, never
joined by hand, and the auth token ``update`` needs kept out of every text but the URL itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal
from urllib.parse import quote, urlencode

Command = Literal["add", "add-project", "update", "update-project", "json"]
Value = str | bool | Sequence[str] | None


class Secret:
    """A value that must not be shown: its ``str`` and ``repr`` say so instead."""

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __str__(self) -> str:
        return "<hidden>"

    __repr__ = __str__


def things_url(command: Command, params: Mapping[str, Value | Secret]) -> str:
    """``things:///<command>?…``. ``None`` leaves a parameter out, ``""`` sends it empty (which
    clears the field in an update); lists are joined as the scheme wants (tags by commas,
    checklist items by newlines); booleans are ``true``/``false``."""
    pairs = [(name, _text(name, value)) for name, value in params.items() if value is not None]
    return f"things:///{command}?{urlencode(pairs, quote_via=quote, safe='')}"


NEWLINE_LISTS = frozenset(
    {"checklist-items", "prepend-checklist-items", "append-checklist-items", "to-dos", "titles"}
)


def _text(name: str, value: Value | Secret) -> str:
    if isinstance(value, Secret):
        return value.reveal()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    assert value is not None
    return ("\n" if name in NEWLINE_LISTS else ",").join(value)
