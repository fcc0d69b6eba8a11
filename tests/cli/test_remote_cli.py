"""The CLI on another machine: a real ``fruitctl serve`` on a free port, and ``fruitctl`` run
as separate processes in a second, empty ``FRUITCTL_HOME`` pointed at it by ``FRUITCTL_URL`` /
``FRUITCTL_TOKEN`` (or ``auth login``). What an agent elsewhere may and may not do, what a
person elsewhere may, and the one-line errors of a bad token, a server that is down and a TLS
mistake. The CLI elsewhere runs in this process (typer's runner, the same environment a separate
process is given), except where the separate process is the point: ``serve`` and ``auth login``.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from socket_daemon import (
    FRUITCTL,
    Daemon,
    Raw,
    cli,
    cli_here,
    daemon_env,
    running,
    seed_demo,
    short_home,
)

pytestmark = pytest.mark.slow  # most of its tests take two seconds or more


@dataclass
class Gateway:
    daemon: Daemon
    url: str
    agent: str
    admin: str


@pytest.fixture(scope="module")
def gateway() -> Iterator[Gateway]:
    with short_home() as home:
        seed_demo(home)
        agent = _token(home, "agent", "claude")
        admin = _token(home, "admin", "person")
        with running(home) as served:
            with Raw(served.socket) as rpc:
                url = rpc.result("system.info")["httpUrl"]
            yield Gateway(served, url, agent, admin)


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """The other machine's fruitctl home: empty, and it must stay without a store."""
    home = tmp_path / "elsewhere"
    home.mkdir(mode=0o700)
    return home


def _token(home: Path, scope: str, name: str) -> str:
    made = cli(home, "auth", "token", "--scope", scope, "--name", name)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


def remote(
    home: Path, gateway: Gateway, *args: str, token: str | None = None, url: str | None = None
) -> subprocess.CompletedProcess[str]:
    return cli_here(
        home,
        *args,
        FRUITCTL_URL=url or gateway.url,
        FRUITCTL_TOKEN=token if token is not None else gateway.agent,
    )


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: "), lines
    return lines[0]


def _settled(output: str) -> object:
    """The answer without the moment it was made (two calls a second apart differ there)."""
    found = json.loads(output)
    if isinstance(found, dict):
        found.pop("generatedAt", None)
        if "timezone" in found.get("window", {}):  # calendar upcoming: a window from now
            found["window"] = {"timezone": found["window"]["timezone"]}
    return found


def nothing_local(home: Path) -> None:
    made = {p.name for p in home.rglob("*")}
    assert made <= {"credentials.json"}, made


def test_reads_answer_as_they_do_on_the_gateway(gateway: Gateway, elsewhere: Path) -> None:
    for command in (
        ["lists", "--json"],
        ["reminders", "open", "--json"],
        ["reminders", "list", "--all", "--json"],
        ["calendar", "upcoming", "--json"],
        ["tools", "show", "create_reminders", "--json"],
        ["mode", "--json"],
    ):
        there = remote(elsewhere, gateway, *command)
        here = cli(gateway.daemon.home, *command)  # the person, on the gateway's machine
        assert there.returncode == 0, (command, there.stderr)
        assert _settled(there.stdout) == _settled(here.stdout), command
    listed = remote(elsewhere, gateway, "tools", "list", "--json")
    assert [t["name"] for t in json.loads(listed.stdout)] == [
        t["name"] for t in json.loads(cli(gateway.daemon.home, "tools", "list", "--json").stdout)
    ]
    text = remote(elsewhere, gateway, "reminders", "open")
    assert (
        text.returncode == 0 and text.stdout == cli(gateway.daemon.home, "reminders", "open").stdout
    )
    nothing_local(elsewhere)


def test_ping_and_info_name_the_gateway(gateway: Gateway, elsewhere: Path) -> None:
    ping = remote(elsewhere, gateway, "ping")
    assert ping.returncode == 0 and f"(gateway at {gateway.url})" in ping.stdout
    info = json.loads(remote(elsewhere, gateway, "info", "--json").stdout)
    assert info["daemon"] is True and info["pid"] == gateway.daemon.pid
    assert info["httpUrl"] == gateway.url and info["permissions"]["reminders"] == "authorized"
    nothing_local(elsewhere)


def test_an_agents_write_waits_for_a_person_who_may_approve_it_from_elsewhere(
    gateway: Gateway, elsewhere: Path
) -> None:
    added = remote(
        elsewhere, gateway, "reminders", "add", "--title", "Buy stamps", "--list", "Errands"
    )
    assert added.returncode == 6, added.stderr  # approval required: not done yet
    assert "Waiting for a person's approval: " in added.stdout
    assert "fruitctl proposals approve " in added.stdout
    as_json = remote(elsewhere, gateway, "reminders", "add", "--title", "Post the letter", "--json")
    pending = json.loads(as_json.stdout)
    assert pending["status"] == "pending" and as_json.returncode == 6
    proposal = pending["proposalId"]

    # The agent sees its own proposal, and may not approve it: one clear line, exit 5.
    mine = json.loads(remote(elsewhere, gateway, "proposals", "list", "--json").stdout)
    assert proposal in {p["id"] for p in mine}
    refused = remote(elsewhere, gateway, "proposals", "approve", proposal)
    assert refused.returncode == 5
    assert "admin token" in one_line_error(refused)

    def titles() -> set[str]:
        listed = cli(gateway.daemon.home, "reminders", "list", "--all", "--json")
        return {r["title"] for r in json.loads(listed.stdout)}

    assert "Post the letter" not in titles()

    # A person elsewhere, with an admin token, approves it: it runs once, on the gateway.
    approved = remote(elsewhere, gateway, "proposals", "approve", proposal, token=gateway.admin)
    assert approved.returncode == 0, approved.stderr
    assert "EXECUTED" in approved.stdout
    assert "Post the letter" in titles()
    again = remote(elsewhere, gateway, "proposals", "approve", proposal, token=gateway.admin)
    assert again.returncode == 4  # decided already: a conflict
    audit = json.loads(
        remote(
            elsewhere, gateway, "audit", "--proposal", proposal, "--json", token=gateway.admin
        ).stdout
    )
    assert {"proposal_created", "approved"} <= {e["event"] for e in audit}
    nothing_local(elsewhere)


def test_an_agent_cannot_read_the_audit_or_change_the_config(
    gateway: Gateway, elsewhere: Path
) -> None:
    for command in (["audit"], ["config", "set", "allowlist.calendars", "Work"], ["stats"]):
        refused = remote(elsewhere, gateway, *command)
        assert refused.returncode == 5, command
        assert "admin token" in one_line_error(refused)
    person = remote(elsewhere, gateway, "config", "get", "--json", token=gateway.admin)
    assert person.returncode == 0 and "allowlist.calendars" in json.loads(person.stdout)


def test_gateway_only_commands_say_where_they_run(gateway: Gateway, elsewhere: Path) -> None:
    for command in (["demo"], ["serve"], ["mode", "set", "LOCKDOWN"], ["auth", "token"]):
        if command == ["serve"]:  # a process of its own: were it not refused, it would serve on
            env = {"FRUITCTL_URL": gateway.url, "FRUITCTL_TOKEN": gateway.agent}
            refused = cli(elsewhere, *command, **env)
        else:
            refused = remote(elsewhere, gateway, *command)
        assert refused.returncode == 10, (command, refused.stderr)
        assert "works on the gateway's own machine" in one_line_error(refused)
    nothing_local(elsewhere)


def test_a_bad_token_a_server_that_is_down_and_a_tls_mistake_are_one_line_each(
    gateway: Gateway, elsewhere: Path
) -> None:
    bad = remote(elsewhere, gateway, "lists", token="not-a-token")
    assert bad.returncode == 5
    assert "refused the token" in one_line_error(bad)
    assert "not-a-token" not in bad.stderr

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    down = remote(elsewhere, gateway, "lists", url=closed)
    assert down.returncode == 9
    assert f"Cannot reach the gateway at {closed}" in one_line_error(down)

    tls = remote(elsewhere, gateway, "lists", url=gateway.url.replace("http://", "https://"))
    assert tls.returncode == 9
    assert "TLS to https://" in one_line_error(tls)

    no_token = cli(elsewhere, "lists", FRUITCTL_URL=gateway.url)
    assert no_token.returncode == 78 and "FRUITCTL_TOKEN" in no_token.stderr
    nothing_local(elsewhere)


def test_auth_login_keeps_the_token_private_and_logout_forgets_it(
    gateway: Gateway, elsewhere: Path
) -> None:
    env = daemon_env(elsewhere)
    login = subprocess.run(
        [*FRUITCTL, "auth", "login", gateway.url],
        input=gateway.agent + "\n",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert login.returncode == 0, login.stderr
    stored = elsewhere / "credentials.json"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o700
    assert gateway.agent not in login.stdout + login.stderr

    lists = cli(elsewhere, "lists", "--json")  # no FRUITCTL_URL: the stored login is used
    assert lists.returncode == 0, lists.stderr
    assert json.loads(lists.stdout) == json.loads(
        cli(gateway.daemon.home, "lists", "--json").stdout
    )

    os.chmod(stored, 0o644)  # readable by others: refused until it is private again
    exposed = cli(elsewhere, "lists")
    assert exposed.returncode == 78 and "chmod 600" in exposed.stderr
    os.chmod(stored, 0o600)

    wrong = subprocess.run(
        [*FRUITCTL, "auth", "login", gateway.url],
        input="wrong\n",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert wrong.returncode == 5 and "refused the token" in wrong.stderr
    assert json.loads(stored.read_text())["token"] == gateway.agent  # a failed login keeps the old

    logout = cli(elsewhere, "auth", "logout")
    assert logout.returncode == 0 and not stored.exists()
    nothing_local(elsewhere)
