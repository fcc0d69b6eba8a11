"""On the agents' socket the kernel says who calls: ``uid:<n>``. A name an agent gives itself is
only shown under it, so renaming cannot read another agent's proposals, file writes in its name or
escape a per-agent rate limit (issue 25, item 1). Tested as the attacker would: a client running
as another uid, through the bind-mounted folder (``test_agent_uids`` says how)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from socket_daemon import Daemon, cli, running, seed_demo, short_home
from test_agent_uids import AGENT_UID, CAN_SWITCH, agents_folder, as_uid

pytestmark = [
    pytest.mark.skipif(not CAN_SWITCH, reason="needs to run a client as another uid"),
    pytest.mark.process,
]

PER_AGENT = 2  # create_reminders calls an hour per agent, in this daemon's governance


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with short_home() as home:
        seed_demo(home)
        (home / "governance.yaml").write_text(
            f"tools:\n  create_reminders:\n    rate_limit_per_actor_per_hour: {PER_AGENT}\n"
        )
        with running(home, FRUITCTL_SERVER__AGENT_UIDS=f"[{AGENT_UID}]") as served:
            yield served


def request(n: int, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": n, "method": method, "params": params}


def identify(n: int, name: str) -> dict[str, Any]:
    return request(n, "session.identify", kind="agent", name=name)


def create(n: int, title: str) -> dict[str, Any]:
    reminders = [{"title": title}]
    return request(n, "tools.call", name="create_reminders", arguments={"reminders": reminders})


def get_proposal(n: int, proposal_id: str) -> dict[str, Any]:
    arguments = {"id": proposal_id}
    return request(n, "tools.call", name="get_proposal", arguments=arguments)


def proposals_by_title(daemon: Daemon) -> dict[str, str]:
    listed = json.loads(cli(daemon.home, "proposals", "list", "--json").stdout)
    return {str(p["summary"]).rsplit("'", 2)[-2]: p["actor"] for p in listed}


def test_a_name_is_shown_under_the_uid_and_never_becomes_another_agent(daemon: Daemon) -> None:
    # An agent of the person's own machine files a write as "cli".
    theirs = cli(
        daemon.home,
        "tools",
        "call",
        "create_reminders",
        "--as",
        "agent",
        "--json",
        "--args",
        json.dumps({"reminders": [{"title": "Theirs"}]}),
    )
    their_id = json.loads(theirs.stdout)["proposalId"]
    # The other uid names itself "cli" - the name of that agent - and tries to read its proposal.
    named, filed, peeked = as_uid(
        AGENT_UID,
        agents_folder(daemon),
        [identify(1, "cli"), create(2, "Mine"), get_proposal(3, their_id)],
    )
    assert named["result"] == {"actor": f"agent:uid:{AGENT_UID}/cli"}
    assert peeked["error"]["code"] == "proposal_not_found"
    mine = str(filed["result"]["proposalId"])  # type: ignore[index]
    shown = proposals_by_title(daemon)
    assert shown["Theirs"] == "agent:cli"
    assert shown["Mine"] == f"agent:uid:{AGENT_UID}/cli"  # the uid first: the name only under it
    # Renamed on another connection, it still sees its own proposal: the identity is the uid's.
    renamed, got = as_uid(
        AGENT_UID, agents_folder(daemon), [identify(1, "someone-else"), get_proposal(2, mine)]
    )
    assert renamed["result"] == {"actor": f"agent:uid:{AGENT_UID}/someone-else"}
    assert got["result"]["id"] == mine  # type: ignore[index]


def test_renaming_does_not_escape_the_per_agent_rate_limit(daemon: Daemon) -> None:
    lines: list[dict[str, Any]] = []
    for n in range(PER_AGENT + 2):  # a fresh name before each write
        lines += [identify(2 * n, f"fresh{n}"), create(2 * n + 1, f"Limited {n}")]
    answers = as_uid(AGENT_UID, agents_folder(daemon), lines)[1::2]
    codes = [a["error"]["code"] if "error" in a else "ok" for a in answers]
    # The first test's write counted too: at most PER_AGENT an hour for the uid, whatever its name.
    assert codes.count("ok") <= PER_AGENT
    assert codes[-1] == codes[-2] == "rate_limited"


def test_a_hidden_character_or_separator_in_a_name_is_refused(daemon: Daemon) -> None:
    bidi, slash, kind = as_uid(
        AGENT_UID,
        agents_folder(daemon),
        [identify(1, "cl\u202eaude"), identify(2, "uid:0/admin"), identify(3, "human:me")],
    )
    assert bidi["error"]["code"] == slash["error"]["code"] == "invalid_params"
    # A colon is a letter of a name here, but the name is never read as an identity.
    assert kind["result"] == {"actor": f"agent:uid:{AGENT_UID}/human-me"}
