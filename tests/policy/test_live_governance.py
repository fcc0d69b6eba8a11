"""``LiveGovernance``: governance.yaml read again when its stamp changes, swapped in whole. The
daemon's side is tested through its socket (``tests/daemon/test_reload.py``); here, what only
many threads at once can show: no reader ever sees half of one file and half of another, and a
changed file is parsed once, not once per reader."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from fruitctl.capabilities import all_tools
from fruitctl.config import load
from fruitctl.policy import governance
from fruitctl.policy.reload import LiveGovernance

DEFINITIONS = [t.definition for t in all_tools()]
# Two files, each setting both tools alike: a mix of them would show one tool of each.
APPROVE = "tools:\n  create_reminders: {}\n  update_reminders: {}\n"
ALLOW = (
    "tools:\n  create_reminders: {requires_approval_in_modes: []}\n"
    "  update_reminders: {requires_approval_in_modes: []}\n"
)
TOOLS = ("create_reminders", "update_reminders")
READERS = 4
SAVES = 60


class Recorded:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def info(self, event: str, **fields: Any) -> None:
        self.events.append((event, fields))

    def warning(self, event: str, **fields: Any) -> None:
        self.events.append((event, fields))


def save(path: Path, text: str) -> None:
    staged = path.with_suffix(".new")
    staged.write_text(text)
    os.replace(staged, path)  # a new inode: the stamp surely changes


def live(home: Path, text: str) -> tuple[LiveGovernance, list[int]]:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "governance.yaml"
    save(path, text)
    paths = load().paths
    loads: list[int] = []

    def counted() -> governance.Governance:
        loads.append(1)
        return governance.load(paths, DEFINITIONS)

    return LiveGovernance(path, counted), loads


def test_readers_see_one_file_or_the_other_never_a_mix(home: Path) -> None:
    rules, _ = live(home, APPROVE)
    mixed: list[tuple[str, ...]] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            now = rules.rules()
            pair = tuple(now.of(name).verdict("NORMAL") for name in TOOLS)
            if pair[0] != pair[1]:
                mixed.append(pair)

    readers = [threading.Thread(target=read) for _ in range(READERS)]
    for reader in readers:
        reader.start()
    path = home / "governance.yaml"
    for n in range(SAVES):
        save(path, ALLOW if n % 2 == 0 else APPROVE)
        rules.rules()
    done.set()
    for reader in readers:
        reader.join()
    assert mixed == []
    assert rules.of("create_reminders").verdict("NORMAL") == "approve"  # the last file saved


def test_a_changed_file_is_parsed_once_and_a_broken_one_is_told_once(home: Path) -> None:
    rules, loads = live(home, APPROVE)
    events = Recorded()
    rules.events = events
    assert len(loads) == 1
    for _ in range(3):
        rules.rules()
    assert len(loads) == 1  # unchanged: a stat, no parse
    save(home / "governance.yaml", "tools:\n  create_reminders: {allowed_in_modes: [NORML]}\n")
    for _ in range(3):
        assert rules.of("create_reminders").verdict("NORMAL") == "approve"  # kept
    assert len(loads) == 2
    assert rules.problem is not None and rules.problem.startswith(f"{home}/governance.yaml:2:")
    assert [event for event, _ in events.events] == ["governance_not_reloaded"]
    save(home / "governance.yaml", ALLOW)
    assert rules.of("create_reminders").verdict("NORMAL") == "allow"
    assert rules.problem is None and events.events[-1][0] == "governance_reloaded"
