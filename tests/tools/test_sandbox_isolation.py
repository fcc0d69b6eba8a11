"""The sandbox holds a program that tries to get out: a grandchild in a session of its own dies
at the deadline, a daemon left behind dies with the call, a fork bomb stops at the process limit,
and the network is off unless the call asks for it. Each runs under this machine's isolation and,
where it makes sense, under the process-tree walk the sandbox falls back to elsewhere."""

from __future__ import annotations

import errno
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandboxed import HOLD, python, released

from fruitctl.sandbox import Limits, isolation, run_command
from fruitctl.sandbox.isolation import CGROUP, NAMESPACES, TREE_WALK, Isolation

pytestmark = pytest.mark.process

CGROUP_ONLY = "cgroup without namespaces"


@pytest.fixture(params=["this machine", CGROUP_ONLY, TREE_WALK])
def level(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test under this machine's isolation, then under each weaker one it falls back to."""
    here = isolation.current()
    if request.param == "this machine":
        return here.containment
    if request.param == CGROUP_ONLY:
        if here.cgroup is None:
            pytest.skip(f"no writable pids cgroup here: {'; '.join(here.reasons)}")
        weaker = Isolation(CGROUP, "pids cgroup", "-", ("forced",), None, here.cgroup)
    else:
        nproc = "none" if os.geteuid() == 0 else "RLIMIT_NPROC"
        weaker = Isolation(TREE_WALK, nproc, "-", ("forced",))
    monkeypatch.setattr(isolation, "current", lambda: weaker)
    return str(request.param)


SESSION_ESCAPE = (
    HOLD
    + """
folder = sys.argv[1]
if os.fork() == 0:
    os.setsid()  # a session of its own: a kill of the program's group misses it
    hold(folder + "/grandchild")
    while True:
        time.sleep(0.01)
hold(folder + "/child")
wait_for(folder + "/grandchild")
print("started", flush=True)
while True:
    time.sleep(0.01)
"""
)

DAEMON = (
    HOLD
    + """
folder = sys.argv[1]
if os.fork() == 0:  # the classic daemon: fork, new session, fork again, first child exits
    os.setsid()
    if os.fork() == 0:
        quiet = os.open(os.devnull, os.O_RDWR)
        for stdio in (0, 1, 2):  # so the call's outputs end with the program
            os.dup2(quiet, stdio)
        hold(folder + "/daemon")
        while True:
            time.sleep(0.01)
    os._exit(0)
wait_for(folder + "/daemon")
print("left a daemon behind", flush=True)
"""
)

FORK_BOMB = """
import os, sys, time
started = 0
try:
    for _ in range(300):
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        started += 1
except OSError as exc:
    print(started, exc.errno, flush=True)
    sys.exit(3)
print(started, 0, flush=True)
"""


def test_a_grandchild_in_a_session_of_its_own_dies_at_the_deadline(
    tmp_path: Path, level: str
) -> None:
    result = run_command(python(SESSION_ESCAPE, str(tmp_path)), timeout=1.5)
    assert result.timed_out and result.stdout == "started\n"
    assert released(tmp_path / "child")
    assert released(tmp_path / "grandchild"), f"the setsid grandchild outlived the call ({level})"


def test_a_daemon_the_program_left_behind_dies_with_the_call(tmp_path: Path, level: str) -> None:
    result = run_command(python(DAEMON, str(tmp_path)), timeout=10)
    assert (result.stdout, result.exit_code, result.timed_out) == (
        "left a daemon behind\n",
        0,
        False,
    )
    assert released(tmp_path / "daemon"), f"the orphaned daemon outlived the call ({level})"


def test_a_fork_bomb_stops_at_the_process_limit(level: str) -> None:
    if isolation.current().process_limit == "none":
        pytest.skip(f"no process limit here: {'; '.join(isolation.current().reasons)}")
    result = run_command(python(FORK_BOMB), timeout=30, limits=Limits(processes=32))
    started, number = map(int, result.stdout.split())
    assert result.exit_code == 3 and number == errno.EAGAIN
    assert 0 < started < 32  # the program itself counts among its 32
    if (
        isolation.current().cgroup is not None
    ):  # only a cgroup tells the gateway, not just the program
        assert result.process_limit_reached


def test_a_modest_program_is_not_said_to_reach_the_limit() -> None:
    result = run_command(python("import os; os.wait() if os.fork() else None"), timeout=10)
    assert result.exit_code == 0 and not result.process_limit_reached


@pytest.fixture
def listener() -> Iterator[int]:
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


CONNECT = """
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
    print("connected")
except OSError as exc:
    print("refused", exc.errno)
"""


def test_the_network_is_off_in_the_child_unless_the_call_asks(listener: int) -> None:
    here = isolation.current()
    if here.containment != NAMESPACES:
        pytest.skip(f"no network namespace here: {'; '.join(here.reasons)}")
    off = run_command(python(CONNECT, str(listener)), timeout=10)
    assert off.stdout.split()[0] == "refused"
    on = run_command(python(CONNECT, str(listener)), timeout=10, limits=Limits(network=True))
    assert on.stdout.strip() == "connected"


def test_inside_the_namespaces_the_program_sees_only_its_own_processes() -> None:
    if isolation.current().containment != NAMESPACES:
        pytest.skip("no PID namespace here")
    code = "import os; print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))"
    result = run_command(python(code), timeout=10)
    assert result.stdout.strip() == "[1, 2]"  # our init and the program itself


def test_the_program_keeps_the_users_identity() -> None:
    result = run_command(python("import os; print(os.getuid(), os.getgid())"), timeout=10)
    if isolation.current().unshare and "--map-root-user" in isolation.current().unshare:
        assert result.stdout.split() == ["0", "0"]
    else:
        assert result.stdout.split() == [str(os.getuid()), str(os.getgid())]


def test_limits_refuse_a_bad_process_count_or_network_flag() -> None:
    from fruitctl.domain.errors import InvalidParams

    with pytest.raises(InvalidParams, match="processes"):
        Limits(processes=0)
    with pytest.raises(InvalidParams, match="network"):
        Limits(network="yes")  # type: ignore[arg-type]


def test_the_isolation_says_what_it_uses_and_why_not_more() -> None:
    said = isolation.current().describe()
    assert said["containment"] in (NAMESPACES, "cgroup", TREE_WALK)
    assert said["processLimit"] and said["network"]
    if said["containment"] != NAMESPACES:
        assert said["reasons"], "a weaker isolation must say why"
