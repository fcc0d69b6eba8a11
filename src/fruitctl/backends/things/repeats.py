"""A repeating to-do's rule in words, read from the template's ``rt1_recurrenceRule``.

Things keeps the rule as a property list. Its keys are not documented by Cultured Code; what is
read here is what rules made in the app were seen to hold: ``fu``, the unit, as Foundation's
``NSCalendarUnit`` (4 year, 8 month, 16 day, 256 week); ``fa``, how many of them; ``tp`` 0, a
fixed schedule. Other ``tp`` values (counted from the last completion, it seems, but never seen
made) and the offsets (which weekday, which day of the month) are not said: "every week", never
a wrong day. Anything else gives no words (``None``), never a guess.
"""

from __future__ import annotations

import plistlib
from typing import Any

UNITS: dict[int, tuple[str, str]] = {
    4: ("year", "years"),
    8: ("month", "months"),
    16: ("day", "days"),
    256: ("week", "weeks"),
}
FIXED = 0


def rule_in_words(blob: Any) -> str | None:
    """``every day``, ``every 2 weeks``; ``None`` for a rule not understood."""
    rule = _plist(blob)
    if rule is None:
        return None
    unit, amount, kind = rule.get("fu"), rule.get("fa"), rule.get("tp")
    if not (_count(unit) in UNITS and _count(amount) >= 1 and _count(kind) == FIXED):
        return None
    one, many = UNITS[_count(unit)]
    return f"every {one}" if amount == 1 else f"every {amount} {many}"


def _count(value: Any) -> int:
    """An integer of the plist, or -1 (``True`` is not one)."""
    return value if type(value) is int else -1


def _plist(blob: Any) -> dict[str, Any] | None:
    if not isinstance(blob, bytes):
        return None
    try:
        rule = plistlib.loads(blob)
    except (plistlib.InvalidFileException, ValueError, TypeError, OverflowError):
        return None
    return rule if isinstance(rule, dict) else None
