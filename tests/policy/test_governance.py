"""governance.yaml: defaults, key-by-key overrides that say what they mean, and errors naming
file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from fruitctl import bootstrap
from fruitctl.capabilities import all_tools
from fruitctl.config import load
from fruitctl.domain.actors import Actor
from fruitctl.policy import governance
from fruitctl.policy.governance import GovernanceError

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
    assert f"{Path.home()}/.ssh/**" in write.protected.credentials
    assert write.forbidden_paths == []  # the person's own additions
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
        (
            "tools:\n  fetch_url:\n    allowed_private_networks: ['intranet']\n",
            ":3: tools.fetch_url.allowed_private_networks: allowed_private_networks: 'intranet'",
        ),
    ],
)
def test_unreadable_paths_and_domains_fail_at_load(home: Path, text: str, expected: str) -> None:
    with pytest.raises(GovernanceError) as raised:
        rules_with(home, text)
    assert expected in str(raised.value)


def test_no_approval_means_allowed_where_the_tool_ran(home: Path) -> None:
    rules = rules_with(home, "tools:\n  create_reminders: {requires_approval_in_modes: []}\n")
    create = rules.of("create_reminders")
    assert create.allowed_in_modes == ["NORMAL", "ALERT", "DEGRADED", "RECOVERY"]
    assert create.verdicts() == {
        "NORMAL": "allow",
        "ALERT": "allow",
        "DEGRADED": "allow",
        "LOCKDOWN": "deny",
        "RECOVERY": "allow",
    }
    definition = next(d for d in DEFINITIONS if d.name == "create_reminders")
    applied = rules.apply(definition)
    assert applied.requires_approval is False
    assert applied.allowed_modes == ["NORMAL", "ALERT", "DEGRADED", "RECOVERY"]


def test_approval_in_some_modes_allows_the_others(home: Path) -> None:
    rules = rules_with(home, "tools:\n  write_file:\n    requires_approval_in_modes: [ALERT]\n")
    verdicts = rules.of("write_file").verdicts()
    assert [verdicts[m] for m in governance.MODES] == ["allow", "approve", "allow", "deny", "allow"]


def test_allowed_modes_alone_leave_the_approval_set(home: Path) -> None:
    rules = rules_with(home, "tools:\n  create_reminders:\n    allowed_in_modes: [NORMAL]\n")
    create = rules.of("create_reminders")
    assert create.requires_approval_in_modes == ["ALERT", "DEGRADED", "RECOVERY"]
    assert create.verdict("NORMAL") == "allow" and create.verdict("ALERT") == "approve"


def test_a_tool_turned_off_on_purpose(home: Path) -> None:
    every = ", ".join(governance.MODES)
    rules = rules_with(home, f"tools:\n  web_search:\n    forbidden_in_modes: [{every}]\n")
    assert set(rules.of("web_search").verdicts().values()) == {"deny"}
    definition = next(d for d in DEFINITIONS if d.name == "web_search")
    assert rules.apply(definition).allowed_modes == []


def test_the_definition_agrees_with_the_verdicts(home: Path) -> None:
    rules = rules_with(home, "tools:\n  write_file: {allowed_in_modes: [NORMAL, ALERT]}\n")
    for definition in DEFINITIONS:
        verdicts = rules.of(definition.name).verdicts()
        applied = rules.apply(definition)
        assert applied.allowed_modes == [m for m, v in verdicts.items() if v != "deny"]
        assert applied.requires_approval == ("approve" in verdicts.values())


def test_an_agent_writes_at_once_without_approval(home: Path) -> None:
    home.mkdir(parents=True)
    (home / "governance.yaml").write_text(
        "tools:\n  create_reminders: {requires_approval_in_modes: []}\n"
    )
    app = bootstrap.build()
    agent = Actor("agent", "x")
    args = {"reminders": [{"title": "at once"}]}
    made = app.gateway.invoke("create_reminders", args, agent)
    assert made.success and not made.metadata.get("pending"), made
    assert made.output[0]["title"] == "at once"
    assert app.approvals.recent("PENDING") == []
    app.modes.set("LOCKDOWN", "test")
    refused = app.gateway.invoke("create_reminders", args, agent)
    assert refused.error_code == "mode_forbidden"
    app.close()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "tools:\n  write_file:\n    allowed_in_modes: [NORMAL, ALERT]\n"
            "    requires_approval_in_modes: [ALERT]\n",
            ":4: tools.write_file.requires_approval_in_modes: ALERT also in allowed_in_modes "
            "(line 3)",
        ),
        (
            "tools:\n  get_lists:\n    allowed_in_modes: []\n",
            ":3: tools.get_lists.allowed_in_modes: leaves get_lists refused in every mode",
        ),
        (
            "tools:\n  create_reminders:\n\n"
            "    forbidden_in_modes: [NORMAL, ALERT, DEGRADED, RECOVERY]\n",
            ":4: tools.create_reminders.forbidden_in_modes: leaves create_reminders refused",
        ),
        (
            "tools:\n  create_reminders: {allowed_in_modes: [], requires_approval_in_modes: []}\n",
            ":2: tools.create_reminders.allowed_in_modes: leaves create_reminders refused",
        ),
    ],
)
def test_rules_that_contradict_themselves_are_refused(home: Path, text: str, expected: str) -> None:
    with pytest.raises(GovernanceError) as raised:
        rules_with(home, text)
    message = str(raised.value)
    assert f"{home / 'governance.yaml'}{expected}" in message
    if "refused in every mode" in message:
        assert "list every mode in forbidden_in_modes: [NORMAL, ALERT" in message


def test_fetch_url_reaches_no_private_address_unless_told(home: Path) -> None:
    assert rules_with(home, "").of("fetch_url").allowed_private_networks == []
    text = "tools:\n  fetch_url:\n    allowed_private_networks: ['10.0.0.0/8', '127.0.0.1']\n"
    assert rules_with(home, text).of("fetch_url").allowed_private_networks == [
        "10.0.0.0/8",
        "127.0.0.1",
    ]
