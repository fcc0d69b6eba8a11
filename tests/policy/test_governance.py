"""governance.yaml: defaults, key-by-key overrides, and errors naming file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from fruitctl.config import load
from fruitctl.policy import governance
from fruitctl.policy.governance import GovernanceError
from fruitctl.tools.catalog import all_tools

DEFINITIONS = [t.definition for t in all_tools()]


def rules_with(home: Path, text: str | None) -> governance.Governance:
    if text is not None:
        home.mkdir(parents=True, exist_ok=True)
        (home / "governance.yaml").write_text(text)
    return governance.load(load().paths, DEFINITIONS)


def test_documented_defaults(home: Path) -> None:
    rules = rules_with(home, None)
    assert rules.of("query_reminders").allowed_in_modes == list(governance.MODES)
    create = rules.of("create_reminders")
    assert create.requires_approval_in_modes == ["NORMAL", "ALERT", "DEGRADED", "RECOVERY"]
    assert create.forbidden_in_modes == ["LOCKDOWN"]
    write = rules.of("write_file")
    assert (write.allowed_in_modes, write.forbidden_in_modes) == (["NORMAL"], ["LOCKDOWN"])
    assert write.requires_approval_in_modes == ["ALERT", "DEGRADED", "RECOVERY"]
    assert write.allowed_paths == [f"{home}/workspace/**"]
    assert f"{Path.home()}/.ssh/**" in write.forbidden_paths
    assert rules.of("web_search").rate_limit_per_hour == 120


def test_a_file_overrides_key_by_key(home: Path) -> None:
    rules = rules_with(
        home,
        "tools:\n  write_file:\n    allowed_paths: ['/srv/agent/**']\n"
        "  create_reminders:\n    allowed_lists: [Inbox]\n",
    )
    write = rules.of("write_file")
    assert write.allowed_paths == ["/srv/agent/**"]
    assert write.allowed_in_modes == ["NORMAL"]  # not mentioned: default kept
    assert rules.of("create_reminders").allowed_lists == ["Inbox"]
    assert rules.of("create_reminders").forbidden_in_modes == ["LOCKDOWN"]


def test_apply_shapes_the_definition(home: Path) -> None:
    rules = rules_with(home, "tools:\n  read_file:\n    forbidden_in_modes: [LOCKDOWN]\n")
    definition = next(d for d in DEFINITIONS if d.name == "read_file")
    assert "LOCKDOWN" not in rules.apply(definition).allowed_modes
    create = next(d for d in DEFINITIONS if d.name == "create_reminders")
    assert rules.apply(create).requires_approval is True


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "tools:\n  write_file:\n    allowed_in_modes: [NORMALL]\n",
            ":3: tools.write_file.allowed_in_modes.0: 'NORMALL' is not one of",
        ),
        ("tools:\n  write_file:\n    max_size: 3\n", ":3: tools.write_file.max_size: unknown key"),
        ("tools:\n  write_fle:\n    allowed_in_modes: []\n", ":2: tools.write_fle: no such tool"),
        (
            "tools:\n  read_file:\n    max_file_size_mb: -1\n",
            ":3: tools.read_file.max_file_size_mb:",
        ),
        ("tools:\n  read_file: [\n", "not valid YAML"),
        ("rules: {}\n", ":1: rules: unknown key"),
    ],
)
def test_a_malformed_file_names_file_line_and_key(home: Path, text: str, expected: str) -> None:
    with pytest.raises(GovernanceError) as raised:
        rules_with(home, text)
    assert str(home / "governance.yaml") in str(raised.value)
    assert expected in str(raised.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "tools:\n  write_file:\n    allowed_paths: ['relative/dir/**']\n",
            ":3: tools.write_file.allowed_paths:",
        ),
        (
            "tools:\n  read_file:\n\n    allowed_paths: ['/a/*.txt']\n",
            ":4: tools.read_file.allowed_paths:",
        ),
        (
            "tools:\n  web_search:\n    forbidden_domains: ['not a host']\n",
            ":3: tools.web_search.forbidden_domains:",
        ),
    ],
)
def test_unreadable_paths_and_domains_fail_at_load(home: Path, text: str, expected: str) -> None:
    with pytest.raises(GovernanceError) as raised:
        rules_with(home, text)
    assert expected in str(raised.value)
