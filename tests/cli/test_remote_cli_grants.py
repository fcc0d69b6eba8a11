"""Standing grants from another machine: a person's CLI pointed at a real ``fruitctl serve`` by
``FRUITCTL_URL`` and an admin token approves with ``--allow-for``, lists and revokes the grant,
and approves ``--all``; the agent's CLI elsewhere sees its next write run, then wait again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_remote_cli import Gateway, gateway, remote

pytestmark = pytest.mark.slow
__all__ = ["gateway"]  # the fixture, shared with the remote CLI's other tests


def test_a_grant_given_and_revoked_from_elsewhere(gateway: Gateway, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)

    def add(title: str) -> dict[str, object] | list[object]:
        made = remote(
            elsewhere, gateway, "reminders", "add", "--title", title, "--list", "Work", "--json"
        )
        found: dict[str, object] | list[object] = json.loads(made.stdout)
        return found

    first = add("Grant me")
    assert isinstance(first, dict) and first["status"] == "pending"
    approved = remote(
        elsewhere,
        gateway,
        "proposals",
        "approve",
        str(first["proposalId"]),
        "--allow-for",
        "1h",
        "--json",
        token=gateway.admin,
    )
    assert approved.returncode == 0, approved.stderr
    grant = json.loads(approved.stdout)["grant"]
    assert grant["scope"] == ["list:Work"]
    done = add("Granted")
    assert isinstance(done, dict) and done["status"] == "done", done

    listed = remote(elsewhere, gateway, "grants", "list", "--json", token=gateway.admin)
    assert grant["id"] in {g["id"] for g in json.loads(listed.stdout)}
    revoked = remote(elsewhere, gateway, "grants", "revoke", grant["id"], token=gateway.admin)
    assert revoked.returncode == 0, revoked.stderr
    waits = add("Waits again")
    assert isinstance(waits, dict) and waits["status"] == "pending"
    everything = remote(
        elsewhere,
        gateway,
        "proposals",
        "approve",
        "--all",
        "--agent",
        "claude",
        token=gateway.admin,
    )
    assert everything.returncode == 0, everything.stderr
    assert str(waits["proposalId"]) in everything.stdout
