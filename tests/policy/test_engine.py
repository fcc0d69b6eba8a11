"""The policy's decisions: modes, allowlists, rate limits that survive a restart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import InvalidParams
from fruitctl.policy.modes import ModeStore, parse_mode

AGENT = Actor("agent", "a1")
OTHER_AGENT = Actor("agent", "a2")
HUMAN = Actor("human", "me")


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def governance(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "governance.yaml").write_text(text)


def test_mode_defaults_to_normal_and_persists(home: Path) -> None:
    first = bootstrap.build()
    assert first.modes.get() == "NORMAL"
    assert first.modes.describe()["since"] is None
    first.modes.set("degraded", "cli:me")
    first.close()
    again = bootstrap.build()
    assert again.modes.get() == "DEGRADED"
    assert again.modes.describe()["setBy"] == "cli:me"
    again.close()


def test_a_mode_change_is_seen_by_another_process_at_once(home: Path) -> None:
    one, two = bootstrap.build(), bootstrap.build()
    assert two.modes.get() == "NORMAL"
    one.modes.set("LOCKDOWN", "cli:me")
    assert two.modes.get() == "LOCKDOWN"
    one.close()
    two.close()


def test_unknown_modes_are_refused() -> None:
    with pytest.raises(InvalidParams, match="Unknown mode 'PANIC'"):
        parse_mode("PANIC")


def test_every_mode_judges_as_documented(app: bootstrap.App) -> None:
    expected = {
        "NORMAL": ("allow", "propose"),
        "ALERT": ("allow", "propose"),
        "DEGRADED": ("allow", "propose"),
        "RECOVERY": ("allow", "propose"),
        "LOCKDOWN": ("allow", "deny"),
    }
    gateway = app.gateway
    read = gateway.registry.get("get_lists")
    write = gateway.registry.get("create_reminders")
    assert read is not None and write is not None
    args = write.parse({"reminders": [{"title": "x"}]})
    for mode, (for_read, for_write) in expected.items():
        app.modes.set(mode, "test")
        ctx = gateway.context
        assert gateway.policy.judge(read, read.parse({}), AGENT, ctx).verdict == for_read
        decision = gateway.policy.judge(write, args, AGENT, ctx)
        assert decision.verdict == for_write, mode
        assert decision.reason


def test_list_allowlist_binds_agents_writes(home: Path) -> None:
    governance(
        home,
        "tools:\n  create_reminders:\n    allowed_lists: [Inbox]\n"
        "  update_reminders:\n    allowed_lists: [Inbox]\n",
    )
    app = bootstrap.build()
    app.call("get_lists", {})
    inbox = app.backend.create_list("Inbox")
    denied = app.gateway.invoke("create_reminders", {"reminders": [{"title": "x"}]}, AGENT)
    assert (denied.error_code, denied.error) == (
        "list_not_allowed",
        "Writes to list 'Reminders' are not permitted.",
    )
    into_inbox = {"reminders": [{"title": "ok", "list": {"id": inbox.id}}]}
    assert app.gateway.invoke("create_reminders", into_inbox, AGENT).metadata["pending"]
    made = app.call("create_reminders", into_inbox, HUMAN)
    move = {"reminders": [{"id": made[0]["id"], "list": {"name": "Reminders"}}]}
    assert app.gateway.invoke("update_reminders", move, AGENT).error_code == "list_not_allowed"
    assert app.call("get_reminder", {"id": made[0]["id"]})["listName"] == "Inbox"
    # The allowlist is the agents': the person's own writes go anywhere.
    own = app.call("create_reminders", {"reminders": [{"title": "mine"}]}, HUMAN)
    assert own[0]["listName"] == "Reminders"
    assert app.call("update_reminders", move, HUMAN)[0]["listName"] == "Reminders"
    app.close()


def test_rate_limits_hold_per_tool_and_per_actor_across_restarts(home: Path) -> None:
    governance(
        home,
        "tools:\n  get_lists:\n    rate_limit_per_hour: 5\n    rate_limit_per_actor_per_hour: 3\n",
    )
    first = bootstrap.build()
    for _ in range(3):
        assert first.gateway.invoke("get_lists", {}, AGENT).success
    limited = first.gateway.invoke("get_lists", {}, AGENT)
    assert limited.error_code == "rate_limited"
    assert "3 calls an hour for agent:a1" in (limited.error or "")
    assert 3500 <= limited.error_details["retryAfterSeconds"] <= 3600
    assert first.gateway.invoke("get_lists", {}, OTHER_AGENT).success
    first.close()  # records are flushed; a new process counts them

    second = bootstrap.build()
    assert second.gateway.invoke("get_lists", {}, AGENT).error_code == "rate_limited"
    assert second.gateway.invoke("get_lists", {}, OTHER_AGENT).success
    overall = second.gateway.invoke("get_lists", {}, Actor("agent", "a3"))
    assert overall.error_code == "rate_limited"
    assert "5 calls an hour;" in (overall.error or "")
    second.close()


def test_stats_summarise_calls(app: bootstrap.App) -> None:
    app.gateway.invoke("get_lists", {}, AGENT)
    app.gateway.invoke("get_lists", {}, AGENT)
    app.gateway.invoke("query_reminders", {"limit": 0}, AGENT)
    rows = {r["tool"]: r for r in app.stats(0)}
    assert rows["get_lists"]["calls"] == rows["get_lists"]["executed"] == 2
    assert rows["get_lists"]["failed"] == 0
    assert rows["query_reminders"]["rejected"] == 1  # a limit of 0 is the caller's mistake
    assert rows["query_reminders"]["failed"] == rows["query_reminders"]["errorRate"] == 0
    assert rows["get_lists"]["p50Ms"] <= rows["get_lists"]["p95Ms"]


def test_modes_store_survives_a_fresh_store(home: Path) -> None:
    from fruitctl.store import open_database

    engine = open_database(home / "state.db", "state")
    store = ModeStore(engine)
    assert store.set("RECOVERY", "x") == "RECOVERY"
    store.close()
    engine.dispose()
