"""The daemon's runtime files: a private directory, the instance lock, the socket, the token.

- The directory is 0700 and ours; one that others can enter is refused, never loosened or fixed
  behind the user's back (it may be a directory they chose, like ``$HOME``).
- The lock (``fcntl.flock`` on ``<name>.lock``) decides who serves: a second instance fails with
  ``AlreadyRunning`` and touches nothing. The kernel drops the lock when its holder dies, even by
  ``kill -9``, so a socket found while holding the lock is a dead daemon's and is replaced.
- The socket is bound inside a fresh ``mkdtemp`` directory (0700 whatever the umask), chmod-ed
  0600 there, then renamed into place. ``rename`` is atomic and keeps the inode's mode, so at no
  moment is a wider socket reachable by anyone: inside the temporary directory only we can reach
  it, and at its final path it is already 0600.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fruitctl.private import NotPrivate, private_folder
from fruitctl.startup import AlreadyRunning, UnsafeLocation

BACKLOG = 128


def already_running(socket_path: Path, pid: int | None) -> AlreadyRunning:
    holder = f" (pid {pid})" if pid else ""
    return AlreadyRunning(
        f"fruitctl is already serving on {socket_path}{holder}; "
        "stop it with `fruitctl server stop` first.",
        pid,
    )


@dataclass(frozen=True)
class RuntimeFiles:
    """The socket and its siblings, named after it: ``fruitctl.sock`` → ``fruitctl.lock`` …"""

    socket: Path

    @property
    def lock(self) -> Path:
        return self.socket.with_suffix(".lock")

    @property
    def pid(self) -> Path:
        return self.socket.with_suffix(".pid")

    @property
    def token(self) -> Path:
        return self.socket.with_suffix(".token")


def private_dir(path: Path, holds: str = "the socket") -> None:
    """Make ``path`` (and any missing parent, each 0700) or check that it is private to us;
    ``holds`` names what it is for, in the refusal."""
    try:
        private_folder(path, holds)
    except NotPrivate as exc:
        raise UnsafeLocation(str(exc)) from exc


def agents_dir(path: Path) -> None:
    """The folder of the agents' socket: made 0711 when missing (other users may reach a name
    in it, not list it), else ours and writable by nobody else. Its parents are left alone: a
    container sees only this folder, bind-mounted."""
    if not path.exists():
        private_dir(path.parent, "the agents' socket")
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=0o700)
        os.chmod(path, 0o711)  # made just now, by us: whatever the umask took
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise UnsafeLocation(f"{path} is not a folder (a symlink?); the agents' socket needs one.")
    if info.st_uid != os.geteuid():
        raise UnsafeLocation(
            f"{path} belongs to another user; the agents' socket needs a folder of your own."
        )
    if stat.S_IMODE(info.st_mode) & 0o022:
        mode = oct(stat.S_IMODE(info.st_mode))
        raise UnsafeLocation(
            f"{path} can be written by other users (mode {mode}), who could replace the agents' "
            f"socket: chmod 711 {path}"
        )


class InstanceLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self, socket_path: Path) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(fd)
            raise already_running(socket_path, read_pid(self.path)) from exc
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        # The file stays: unlinking it would let a newcomer lock a fresh inode while a third
        # process still waits on this one.
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def lock_holder(path: Path) -> int | None:
    """The pid holding the lock at ``path``, or None when nobody serves."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return read_pid(path) or -1
    finally:
        os.close(fd)  # also drops the shared lock if we got it
    return None


def read_pid(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def bind_socket(path: Path, mode: int = 0o600) -> tuple[socket.socket, int]:
    """A listening socket at ``path``, ``mode`` (0600: only us) from its first moment there; a
    dead daemon's socket is replaced, anything else at that path refused. Returns the socket and
    its inode."""
    _check_replaceable(path)
    staging = Path(tempfile.mkdtemp(prefix=".b", dir=path.parent))
    staged = staging / "s"  # no longer than the final path: AF_UNIX paths are short
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(staged))
        os.chmod(staged, mode)
        os.rename(staged, path)
        sock.listen(BACKLOG)
    except BaseException:
        sock.close()
        staged.unlink(missing_ok=True)
        raise
    finally:
        staging.rmdir()
    sock.setblocking(False)
    return sock, path.stat().st_ino


def _check_replaceable(path: Path) -> None:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise UnsafeLocation(f"{path} exists and is not a socket; refusing to replace it.")
    if answers(path):  # alive without holding our lock (say, an older fruitctl): leave it be
        raise already_running(path, None)


def answers(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def remove_if_ours(path: Path, inode: int) -> None:
    """Unlink the socket unless another daemon's socket has taken its place."""
    with contextlib.suppress(FileNotFoundError):
        if path.lstat().st_ino == inode:
            path.unlink()
