"""``fruitctl proposals approve`` with a daemon running: the daemon takes the decision and runs
the write (the process that holds the data), never the CLI's own process.

The proof: the CLI is started with a reminders backend it cannot reach (CalDAV on a closed
port), the daemon with the local store - an approval run in the CLI's process would fail."""

from __future__ import annotations

import getpass
import json
from collections.abc import Iterator

import pytest
from socket_daemon import Daemon, Raw, cli, demo_daemon

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

UNREACHABLE = {
    "FRUITCTL_REMINDERS__BACKEND": "caldav",
    "FRUITCTL_CALDAV__URL": "http://127.0.0.1:9/",  # the discard port: nothing listens
}


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with demo_daemon() as served:
        yield served


def proposed(daemon: Daemon, title: str) -> str:
    with Raw(daemon.socket) as agent:
        agent.result("session.identify", {"kind": "agent", "name": "codex"})
        pending = agent.result(
            "tools.call",
            {"name": "create_reminders", "arguments": {"reminders": [{"title": title}]}},
        )
    proposal_id: str = pending["proposalId"]
    return proposal_id


def test_an_approval_from_the_cli_runs_in_the_daemon(daemon: Daemon) -> None:
    proposal_id = proposed(daemon, "approved from the CLI")
    done = cli(daemon.home, "proposals", "approve", proposal_id, "--json", **UNREACHABLE)
    assert done.returncode == 0, done.stderr
    decided = json.loads(done.stdout)
    assert decided["status"] == "EXECUTED"
    assert decided["resolvedBy"] == f"human:cli:{getpass.getuser()}"
    assert decided["result"][0]["title"] == "approved from the CLI"


def test_a_rejection_from_the_cli_is_the_daemons_too(daemon: Daemon) -> None:
    proposal_id = proposed(daemon, "rejected from the CLI")
    done = cli(daemon.home, "proposals", "reject", proposal_id, "--json", **UNREACHABLE)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "REJECTED"
