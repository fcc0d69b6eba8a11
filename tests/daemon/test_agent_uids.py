"""Agents of another user on the socket (``[server] agent_uids``), as a container runs them.

The daemon runs as this test's user (root here: creating a second uid's process needs it). Its
agents' socket folder is bind-mounted somewhere else in a private mount namespace - what
``docker run -v <folder>:/run/fruitctl`` does - and a client runs there as uid 65534 (nobody)
with the system's Python and nothing of fruitctl: a plain socket, as any container has. The same
uid outside the mount cannot even reach the socket, and a uid not listed is dropped unread.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from socket_daemon import Daemon, cli, running, seed_demo, short_home

AGENT_UID = 65534  # nobody
OTHER_UID = 65533  # listed nowhere
SYSTEM_PYTHON = Path("/usr/bin/python3")  # the venv's Python lives where nobody may read

CAN_SWITCH = (
    os.geteuid() == 0
    and shutil.which("unshare") is not None
    and shutil.which("setpriv") is not None
    and SYSTEM_PYTHON.exists()
)
pytestmark = [
    pytest.mark.skipif(
        not CAN_SWITCH,
        reason="needs root, unshare, setpriv and /usr/bin/python3 to run a client as another uid "
        "through a bind mount (CI runs as root on Debian)",
    ),
    pytest.mark.process,  # one daemon for the module
]

# The container's client: send each line of argv[2], print each answer (or what happened).
CLIENT = """
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(20)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print(json.dumps({"connect": e.strerror}))
    sys.exit(0)
reader = s.makefile("rb")
for line in json.loads(sys.argv[2]):
    try:
        s.sendall(line.encode() + b"\\n")
        got = reader.readline()
    except OSError:  # dropped before it was read: a reset or a broken pipe
        got = b""
    print(got.decode().strip() if got else json.dumps({"closed": True}))
"""


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with short_home() as home:
        seed_demo(home)
        with running(home, FRUITCTL_SERVER__AGENT_UIDS=f"[{AGENT_UID}]") as served:
            yield served


def agents_folder(daemon: Daemon) -> Path:
    return daemon.socket.parent / "agents"


def as_uid(
    uid: int, folder: Path, lines: list[dict[str, object]], client: str = CLIENT
) -> list[dict[str, object]]:
    """Run ``client`` as ``uid``, the agents' folder bind-mounted at a fresh path; its argv: the
    socket's path and ``lines`` (JSON); what it prints: one JSON value a line."""
    mount = Path(tempfile.mkdtemp(prefix="frtc", dir="/tmp"))
    try:
        script = (
            f'mount --bind "$1" "$2" && exec setpriv --reuid={uid} --regid={uid} '
            f'--clear-groups {SYSTEM_PYTHON} -c "$3" "$2/fruitctl.sock" "$4"'
        )
        sent = json.dumps([json.dumps(m) for m in lines])
        namespace = ["unshare", "--mount", "--propagation", "private"]
        done = subprocess.run(
            [*namespace, "sh", "-c", script, "sh", str(folder), str(mount), client, sent],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        mount.rmdir()
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_the_agents_socket_is_reachable_only_through_its_folder(daemon: Daemon) -> None:
    folder = agents_folder(daemon)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o711
    assert stat.S_IMODE((folder / "fruitctl.sock").stat().st_mode) == 0o666
    assert stat.S_IMODE(daemon.socket.parent.stat().st_mode) == 0o700  # the person's: unchanged
    # The same uid without the mount: the run folder is the person's alone.
    switch = ["setpriv", f"--reuid={AGENT_UID}", f"--regid={AGENT_UID}", "--clear-groups"]
    direct = subprocess.run(
        [*switch, str(SYSTEM_PYTHON), "-c", CLIENT, str(folder / "fruitctl.sock"), "[]"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(direct.stdout) == {"connect": "Permission denied"}


def test_a_listed_uid_is_an_agent_and_cannot_become_the_person(daemon: Daemon) -> None:
    ping = {"jsonrpc": "2.0", "id": 1, "method": "system.ping"}
    write = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools.call",
        "params": {"name": "create_reminders", "arguments": {"reminders": [{"title": "Boxes"}]}},
    }
    human = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "session.identify",
        "params": {"kind": "human", "name": "me", "token": "0" * 64},
    }
    named = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "session.identify",
        "params": {"kind": "agent", "name": "builder"},
    }
    envelope = {"version": "1.0", "request_id": "r1", "tool": "get_lists", "params": {}}
    pinged, wrote, refused, identified, aai = as_uid(
        AGENT_UID, agents_folder(daemon), [ping, write, human, named, envelope]
    )
    assert pinged["result"]["ok"] is True
    assert wrote["result"]["status"] == "pending"  # an agent's write: a proposal
    assert refused["error"]["code"] == "permission_denied"
    assert "never the person" in refused["error"]["message"]
    assert identified["result"] == {"actor": f"agent:uid:{AGENT_UID}/builder"}
    assert aai["status"] == "success"

    # The person, on the gateway, sees who proposed it: the uid, as it had not identified yet.
    listed = cli(daemon.home, "proposals", "list", "--json")
    boxes = [p for p in json.loads(listed.stdout) if str(p["summary"]).endswith("'Boxes'")]
    assert [p["actor"] for p in boxes] == [f"agent:uid:{AGENT_UID}"]


def test_a_uid_not_listed_is_dropped_unread(daemon: Daemon) -> None:
    ping = {"jsonrpc": "2.0", "id": 1, "method": "system.ping"}
    assert as_uid(OTHER_UID, agents_folder(daemon), [ping]) == [{"closed": True}]
