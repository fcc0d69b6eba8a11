"""Every view of policy or state says so when the daemon runs something its files no longer say:
rules kept because governance.yaml does not load now, or a configuration older than config.toml
(see ``policy.reload`` and ``config_drift``). Said on stderr, so ``--json`` output stays one
document, and with ``!`` in front, like doctor's warnings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fruitctl.cli.output import err
from fruitctl.config_drift import describe as configuration_note
from fruitctl.policy.reload import describe as rules_note


def notes(found: Mapping[str, Any]) -> list[str]:
    """The sentences for ``found`` (``system.info`` or ``tools.describe``: its ``governance``
    and ``configuration``), none when the daemon runs what its files say."""
    said = (
        rules_note(found.get("governance") or {}),
        configuration_note(found.get("configuration") or {}),
    )
    return [note for note in said if note]


def warn(found: Mapping[str, Any]) -> None:
    for note in notes(found):
        err.print(f"! {note}", markup=False)
