"""What every proposal has whatever its tool: the description of one whose tool is gone, and
the differences between a before-snapshot and the target as it is now (a conflict)."""

from __future__ import annotations

from typing import Any

from fruitctl.approvals.readable import NAMES
from fruitctl.tools.model import Change, Snapshot


def _nothing(*_: Any) -> Snapshot:
    return {}


def unknown_change(tool: str) -> Change:
    """A description for a proposal whose tool is no longer registered: it can be listed and
    read, never executed."""
    return Change(
        lambda a, c: f"{tool} with {', '.join(sorted(a))}",
        _nothing,
        _nothing,
        lambda a, b, r: None,
        lambda a, b: [],
    )


def differences(before: Snapshot, now: Snapshot) -> list[dict[str, Any]]:
    """Field by field, what changed between the snapshot and now."""
    found = []
    for key in sorted(set(before) | set(now)):
        old, new = before.get(key), now.get(key)
        if old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict):
            found += [
                # A renamed list or calendar: its id is the target, its name what changed.
                {"target": f, "field": "name", "before": old.get(f), "after": new.get(f)}
                if key == NAMES
                else {"target": key, "field": f, "before": old.get(f), "after": new.get(f)}
                for f in sorted(set(old) | set(new))
                if old.get(f) != new.get(f)
            ]
        else:
            found.append({"target": key, "field": "*", "before": old, "after": new})
    return found
