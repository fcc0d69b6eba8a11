"""JSON from a peer, read strictly: RFC 8259's JSON and no deeper than any input of ours nests.

Python's ``json`` reads ``NaN`` and ``Infinity`` (not JSON: a peer's NaN would reach the tools
as a float that equals nothing), and nests as deep as the interpreter's recursion allows - past
that a ``RecursionError``, short of it a value that every later recursive step (validation,
copies, the audit's canonical form) has to survive. ``loads`` refuses all of it as ``ParseError``
(``parse_error``), which each door renders as its own refusal - never an internal error.
"""

from __future__ import annotations

import json
from typing import Any

from fruitctl.domain.errors import ParseError

MAX_DEPTH = 64
"""Nesting of arrays and objects. The deepest input a tool takes nests under ten levels (a batch
of reminders, each with its tags); 64 leaves room for any of them and for what a future tool
needs, and keeps every recursion over a value far from Python's limit of 1,000."""


def loads(raw: bytes | str) -> Any:
    """The JSON value in ``raw`` (UTF-8); ``ParseError`` naming what is wrong with it."""
    try:
        value = json.loads(raw, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ParseError(f"Invalid JSON: {exc.msg} (character {exc.pos}).") from exc
    except UnicodeDecodeError as exc:
        raise ParseError("The JSON is not valid UTF-8.") from exc
    except RecursionError as exc:
        raise ParseError.too_deep(MAX_DEPTH) from exc
    except ValueError as exc:  # NaN or Infinity (below), a number of thousands of digits
        raise ParseError(f"Invalid JSON: {exc}.") from exc
    if _deeper_than(value, MAX_DEPTH):
        raise ParseError.too_deep(MAX_DEPTH)
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects in ``value`` nest past ``limit``: walked with a list, not
    recursion, so any depth ``json`` could read is measured safely."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False
