"""How doctor and info say whether the Reminders store's tags can be read: a store skipped
among several is named, not hidden behind "readable"."""

from __future__ import annotations

from fruitctl.cli.output import tags_state


def test_readable_unavailable_and_skipped_stores_are_each_said() -> None:
    assert tags_state({"readable": True, "reason": None, "skipped": []}) == "readable"
    assert tags_state({"readable": False, "reason": "no Full Disk Access"}) == (
        "unavailable: no Full Disk Access"
    )
    partly = {"readable": True, "skipped": ["Data-X.sqlite is not a database"]}
    assert tags_state(partly) == "readable (skipped: Data-X.sqlite is not a database)"
