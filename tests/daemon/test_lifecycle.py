"""The daemon's life as separate processes: a 0600 socket in a 0700 directory whatever the umask,
one instance per socket, a dead daemon's socket replaced, SIGTERM draining in-flight requests,
peers of another uid refused, unsafe locations refused."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import stat
import threading
import time
from pathlib import Path

import pytest
from socket_daemon import Raw, answers, running, short_home, spawned, wait_ready

from fruitctl.daemon.lifecycle import (
    UnsafeLocation,
    agents_dir,
    bind_socket,
    lock_holder,
    private_dir,
)
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import PermissionDenied
from fruitctl.transports.rpc.jsonrpc import Session

pytestmark = pytest.mark.slow  # most of its tests take two seconds or more

NOBODY = 65534


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_socket_is_0600_in_a_0700_dir_under_umask_000() -> None:
    with short_home() as home, running(home, umask=0) as daemon:
        run_dir = daemon.socket.parent
        assert stat.S_ISSOCK(daemon.socket.lstat().st_mode)
        assert mode(daemon.socket) == 0o600
        assert mode(run_dir) == 0o700
        assert mode(run_dir / "fruitctl.lock") == 0o600
        assert mode(run_dir / "fruitctl.token") == 0o600
        assert sorted(p.name for p in run_dir.iterdir()) == [
            "fruitctl.lock",
            "fruitctl.sock",
            "fruitctl.token",
        ]  # no staging directory left behind
        assert daemon.stop(signal.SIGINT) == 0  # Ctrl-C stops it cleanly too
        assert not daemon.socket.exists()


def test_binding_never_exposes_a_wider_socket(tmp_path: Path) -> None:
    # Under umask 000 a plain bind() makes a 0777 socket; it must only ever appear inside a 0700
    # staging directory. Watch the directory while binding: the final name, whenever it exists,
    # is already 0600, and nothing else in it is ever reachable by others.
    run_dir = tmp_path / "run"
    old = os.umask(0)
    try:
        private_dir(run_dir)
        target = run_dir / "s.sock"
        seen: list[tuple[str, int]] = []
        stop = threading.Event()

        def watch() -> None:
            while not stop.is_set():
                for entry in os.scandir(run_dir):
                    with contextlib.suppress(FileNotFoundError):
                        seen.append(
                            (entry.name, stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode))
                        )

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            for _ in range(20):
                sock, _inode = bind_socket(target)
                sock.close()
                target.unlink()
        finally:
            stop.set()
            watcher.join()
    finally:
        os.umask(old)
    assert mode(run_dir) == 0o700
    assert {m for name, m in seen if name == "s.sock"} <= {0o600}
    assert {m for name, m in seen if name != "s.sock"} <= {0o700}  # staging dirs only


def test_a_second_instance_is_refused_and_the_live_socket_kept() -> None:
    with short_home() as home, running(home) as first:
        inode = first.socket.stat().st_ino
        with spawned(home) as second:
            assert second.proc.wait(60) == 4
            message = second.stderr()
        assert "already serving" in message and str(first.pid) in message
        assert first.socket.stat().st_ino == inode
        assert answers(first.socket)
        assert lock_holder(first.socket.with_suffix(".lock")) == first.pid


def test_a_killed_daemons_socket_is_replaced() -> None:
    with short_home() as home:
        with running(home) as killed:
            killed.proc.send_signal(signal.SIGKILL)
            killed.proc.wait(30)
            assert killed.socket.exists() and not answers(killed.socket)
            stale = killed.socket.stat().st_ino
        with running(home) as fresh:
            assert fresh.socket.stat().st_ino != stale
            assert answers(fresh.socket)


def test_sigterm_drains_in_flight_requests() -> None:
    with short_home() as home:
        marker = home / "fetch-started"
        slow = {
            "FRUITCTL_REMINDERS__BACKEND": "fake_backends:slow_reminders",
            "FRUITCTL_TEST_SLOW_S": "1.5",
            "FRUITCTL_TEST_MARKER": str(marker),
        }
        with running(home, **slow) as daemon, Raw(daemon.socket) as rpc:
            rpc.send(b'{"jsonrpc": "2.0", "id": "slow", "method": "reminders.open"}\n')
            deadline = time.monotonic() + 30
            while not marker.exists():
                assert time.monotonic() < deadline, "the request never started"
                time.sleep(0.01)
            daemon.proc.send_signal(signal.SIGTERM)
            answer = rpc.answer()  # the in-flight request still gets its answer
            assert answer["id"] == "slow" and answer["result"]["count"] == 0
            assert rpc.line() == b""  # then the connection closes
            assert daemon.proc.wait(30) == 0
            assert not daemon.socket.exists()
            assert not (daemon.socket.parent / "fruitctl.token").exists()
            with pytest.raises(FileNotFoundError):
                Raw(daemon.socket)


def test_a_sigterm_the_moment_the_socket_appears_still_exits_cleanly() -> None:
    # The window between binding the socket and serving (the token, the HTTP port, the event
    # loop): a stop signal there is kept and acted on once serving, never the default death.
    with short_home() as home, spawned(home) as daemon:
        deadline = time.monotonic() + 60
        while not daemon.socket.exists():
            assert daemon.proc.poll() is None, daemon.stderr()
            assert time.monotonic() < deadline, "the socket never appeared"
            time.sleep(0.0005)
        daemon.proc.send_signal(signal.SIGTERM)
        assert daemon.proc.wait(30) == 0, daemon.stderr()
        assert not daemon.socket.exists()
        assert not (daemon.socket.parent / "fruitctl.token").exists()
        assert (
            not (daemon.socket.parent / "fruitctl.lock").exists()
            or lock_holder(daemon.socket.with_suffix(".lock")) is None
        )


def test_a_request_past_its_timeout_leaves_the_daemon_responsive() -> None:
    with short_home() as home:
        slow = {
            "FRUITCTL_REMINDERS__BACKEND": "fake_backends:slow_reminders",
            "FRUITCTL_TEST_SLOW_S": "3",
            "FRUITCTL_SERVER__REQUEST_TIMEOUT_SECONDS": "0.5",
        }
        with running(home, **slow) as daemon, Raw(daemon.socket) as rpc:
            rpc.send(  # one write: both lines are read together, the slow one first
                b'{"jsonrpc": "2.0", "id": "slow", "method": "reminders.open"}\n'
                b'{"jsonrpc": "2.0", "id": "quick", "method": "system.ping"}\n'
            )
            assert rpc.answer()["id"] == "quick"  # answered while the slow one runs
            with Raw(daemon.socket) as other:
                assert other.result("system.ping")["ok"] is True
            timed_out = rpc.answer()
            assert timed_out["id"] == "slow"
            assert timed_out["error"]["code"] == "timeout"
            assert timed_out["error"]["data"] == {"jsonrpcCode": -32002, "retryable": True}
            assert rpc.result("system.ping")["ok"] is True


def test_permission_denied_carries_service_and_instructions() -> None:
    denied = {
        "FRUITCTL_REMINDERS__BACKEND": "fake_backends:denied_reminders",
        "FRUITCTL_CALENDAR__BACKEND": "fake_backends:denied_calendars",
    }
    with short_home() as home, running(home, **denied) as daemon, Raw(daemon.socket) as rpc:
        info = rpc.result("system.info")
        assert info["permissions"] == {"reminders": "denied", "calendar": "denied"}
        for method, service in (("reminders.open", "reminders"), ("calendar.upcoming", "calendar")):
            error = rpc.error(method)
            assert error["code"] == "permission_denied"
            assert error["data"]["service"] == service
            assert error["data"]["instructions"] and all(
                isinstance(step, str) for step in error["data"]["instructions"]
            )
            assert error["data"]["jsonrpcCode"] == -32001


def test_an_unexpected_failure_is_internal_error_without_details() -> None:
    broken = {"FRUITCTL_REMINDERS__BACKEND": "fake_backends:broken_reminders"}
    with short_home() as home, running(home, **broken) as daemon, Raw(daemon.socket) as rpc:
        error = rpc.error("reminders.open")
        assert error["code"] == "internal_error"
        text = json.dumps(error)
        assert "Traceback" not in text and "/root" not in text and "secret" not in text


def test_a_file_in_the_sockets_place_is_refused_and_kept() -> None:
    with short_home() as home:
        run_dir = home / "run"
        run_dir.mkdir(mode=0o700)
        (run_dir / "fruitctl.sock").write_text("not a socket")
        with spawned(home) as daemon:
            assert daemon.proc.wait(60) == 78
            assert "not a socket" in daemon.stderr()
        assert (run_dir / "fruitctl.sock").read_text() == "not a socket"


def test_a_socket_dir_others_can_enter_is_refused() -> None:
    with short_home() as home:
        run_dir = home / "run"
        run_dir.mkdir()
        run_dir.chmod(0o755)
        with spawned(home) as daemon:
            assert daemon.proc.wait(60) == 78
            assert "open to other users" in daemon.stderr()
        assert mode(run_dir) == 0o755  # left as the person made it
        assert not (run_dir / "fruitctl.sock").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user (nobody)")
def test_another_uid_is_refused() -> None:
    with short_home() as home, running(home) as daemon:
        # As created, the 0700 directory keeps another user from even reaching the socket.
        assert as_nobody(daemon.socket) == "PermissionError"
        # With the file permissions opened up (a mistake, or an attack), the peer check still
        # closes the connection before a byte of it is read, and logs who it was.
        home.chmod(0o711)
        daemon.socket.parent.chmod(0o711)
        daemon.socket.chmod(0o666)
        assert as_nobody(daemon.socket) == "closed"
        assert answers(daemon.socket)
        assert NOBODY in refused_uids(home / "logs" / "fruitctl.log")


def refused_uids(log: Path) -> list[int]:
    deadline = time.monotonic() + 30  # the event log is written every quarter second
    while time.monotonic() < deadline:
        events = [json.loads(line) for line in log.read_text().splitlines()]
        refused = [e["peer_uid"] for e in events if e["event"] == "peer_refused"]
        if refused:
            return refused
        time.sleep(0.1)
    return []


def as_nobody(path: Path) -> str:
    """Connect as uid 65534 in a forked child; report what happened."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop to nobody, try, report, leave without cleanup
        outcome = "error"
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(10)
            try:
                sock.connect(str(path))
            except PermissionError:
                outcome = "PermissionError"
            else:
                try:
                    sock.sendall(b'{"jsonrpc": "2.0", "id": 1, "method": "system.ping"}\n')
                    outcome = "answered" if sock.recv(4096) else "closed"
                except (ConnectionResetError, BrokenPipeError):
                    outcome = "closed"
        finally:
            os.write(write_end, outcome.encode())
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        outcome = pipe.read().decode()
    os.waitpid(pid, 0)
    return outcome


def test_a_bad_configuration_stops_serve_with_78() -> None:
    bad = {"FRUITCTL_REMINDERS__BACKEND": "no.such:backend"}
    with (
        short_home() as home,
        spawned(home, **bad) as daemon,
        pytest.raises(AssertionError, match="exited 78"),
    ):
        wait_ready(daemon)


def test_the_agents_folder_is_0711_whatever_the_umask_and_refused_when_others_write(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    old = os.umask(0o077)
    try:
        agents_dir(run / "agents")
    finally:
        os.umask(old)
    assert mode(run / "agents") == 0o711 and mode(run) == 0o700
    agents_dir(run / "agents")  # again: already right, left alone
    os.chmod(run / "agents", 0o777)
    with pytest.raises(UnsafeLocation, match="chmod 711"):
        agents_dir(run / "agents")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o711)
    (run / "linked").symlink_to(elsewhere)
    with pytest.raises(UnsafeLocation, match="symlink"):
        agents_dir(run / "linked")


def test_a_session_of_the_agents_socket_never_becomes_the_person() -> None:
    session = Session(lambda: Actor("agent", "uid:1001"), agents_only=True)
    assert session.actor == Actor("agent", "uid:1001")
    with pytest.raises(PermissionDenied, match="never the person"):
        session.become(Actor("human", "cli"))
    session.become(Actor("agent", "builder"))
    assert session.actor == Actor("agent", "builder")
