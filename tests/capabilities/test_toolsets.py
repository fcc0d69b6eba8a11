"""Tool sets: what ``[mcp] tools``, ``fruitctl mcp --tools`` and ``auth token --tools`` name -
capabilities' sets (``reminders``: the Reminders MCP contract's five) and tools by name; an entry
that names nothing is refused with the choices; and a bad ``[mcp] tools`` stops the start."""

from __future__ import annotations

from pathlib import Path

import pytest

from fruitctl import bootstrap
from fruitctl.capabilities import all_tools, subject_of, toolsets
from fruitctl.config import ConfigError
from fruitctl.domain.errors import InvalidParams

CONTRACT = {"query_reminders", "get_lists", "create_reminders", "update_reminders"}
CONTRACT |= {"delete_reminders"}


def test_reminders_is_the_contracts_five_tools_and_no_more() -> None:
    assert toolsets.resolve(["reminders"]) == CONTRACT
    # The capability has more: those are offered by name.
    reminders = {t.name for t in all_tools() if subject_of(t) == "reminders"}
    assert reminders > CONTRACT
    assert toolsets.resolve(["reminders", "get_reminder"]) == CONTRACT | {"get_reminder"}


def test_a_capabilitys_name_is_every_tool_it_declares() -> None:
    calendar = {t.name for t in all_tools() if subject_of(t) == "calendar"}
    assert "query_events" in calendar
    assert toolsets.resolve(["calendar"]) == calendar
    assert toolsets.parse(" reminders , calendar,") == CONTRACT | calendar


def test_code_is_the_three_code_tools() -> None:
    code = {"git_status", "run_linter", "run_tests"}
    assert toolsets.resolve(["code"]) == code
    assert toolsets.parse("code,read_file") == code | {"read_file"}


@pytest.mark.parametrize("entry", ["remindrs", "Reminders", "query_reminder", ""])
def test_an_entry_naming_nothing_is_refused_with_the_choices(entry: str) -> None:
    with pytest.raises(InvalidParams) as caught:
        toolsets.resolve(["calendar", entry])
    message = caught.value.message
    assert f"'{entry}' is neither a tool set nor a tool" in message
    assert "Tool sets: reminders, calendar, containers, things, approvals, files" in message
    assert "get_reminder" in message  # the tools, by name


def test_a_set_naming_no_tool_is_refused() -> None:
    with pytest.raises(InvalidParams, match="at least one"):
        toolsets.resolve([])
    with pytest.raises(InvalidParams, match="at least one"):
        toolsets.parse(" , ")


def test_narrowing_keeps_what_both_offer() -> None:
    both = frozenset({"get_lists", "query_events"})
    assert toolsets.narrow(None, None) is None
    assert toolsets.narrow(both, None) == both
    assert toolsets.narrow(None, both) == both
    assert toolsets.narrow(both, frozenset({"get_lists"})) == {"get_lists"}
    assert toolsets.offers(None, "anything")
    assert not toolsets.offers(both, "create_event")


def write_config(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text)


def test_mcp_tools_in_the_config_are_resolved(home: Path) -> None:
    write_config(home, '[mcp]\ntools = ["reminders", "query_events"]\n')
    app = bootstrap.build()
    try:
        assert app.mcp_tools == CONTRACT | {"query_events"}
    finally:
        app.close()


def test_without_mcp_tools_every_tool_is_offered(home: Path) -> None:
    app = bootstrap.build()
    try:
        assert app.mcp_tools is None
    finally:
        app.close()


def test_a_bad_mcp_tools_entry_is_a_config_error_naming_it_and_the_choices(home: Path) -> None:
    write_config(home, '[mcp]\ntools = ["reminders", "calender"]\n')
    with pytest.raises(ConfigError) as caught:
        bootstrap.build()
    message = str(caught.value)
    assert message.startswith(f"{home / 'config.toml'}: mcp.tools: 'calender' is neither")
    assert "Tool sets: reminders, calendar" in message


def test_mcp_tools_must_be_a_list_of_names(home: Path) -> None:
    write_config(home, '[mcp]\ntools = "reminders"\n')
    with pytest.raises(ConfigError, match=r"mcp\.tools"):
        bootstrap.build()
