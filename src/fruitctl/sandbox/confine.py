"""One call's confinement: how its program is started (inside namespaces, a cgroup, or
marked for the process-tree walk) and how all it started is ended (see ``sandbox.isolation``)."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Callable

from fruitctl.sandbox import seatbelt
from fruitctl.sandbox.isolation import INIT_SCRIPT, NAMESPACES, Isolation
from fruitctl.sandbox.reaping import MARK, CallCgroup, kill_tree

_STATUS_MAX = 64
_WRAPPERS = 2
"""Processes a namespaced call runs besides the program's own: ``unshare`` and the init."""


class Confinement:
    """Start and end one program under this machine's isolation."""

    def __init__(
        self, isolation: Isolation, processes: int, network: bool, paths: tuple[str, ...] = ()
    ) -> None:
        self.isolation = isolation
        self.namespaced = isolation.containment == NAMESPACES
        self.processes, self.network, self.paths = processes, network, paths
        self.token = secrets.token_hex(8)
        extra = _WRAPPERS if self.namespaced else 0
        base = isolation.cgroup
        self.cgroup = CallCgroup(base, processes + extra) if base is not None else None
        self._status: tuple[int, int] | None = os.pipe() if self.namespaced else None
        self.limit_reached = False
        self.exit_code = 0
        """The program's exit status, known once ``end`` ran."""

    # -- starting --------------------------------------------------------------------------------

    def argv(self, program: list[str]) -> list[str]:
        """What to start: ``program`` itself, or ``unshare`` running our init running it, or
        (macOS, for a call that names its folders) ``sandbox-exec`` running it."""
        if self.paths and seatbelt.available():
            return seatbelt.wrap(program, writable=self.paths, network=self.network)
        if self._status is None or self.isolation.unshare is None:
            return program
        prefix = [*self.isolation.unshare, *([] if self.network else ["--net"]), "--"]
        nproc = self.processes + _WRAPPERS if os.geteuid() != 0 else 0
        init = [sys.executable, "-I", "-S", INIT_SCRIPT, str(self._status[1]), str(nproc), "--"]
        return [*prefix, *init, *program]

    def env(self, env: dict[str, str]) -> dict[str, str]:
        """The walk finds orphans by a mark in their environment; namespaces need none."""
        return env if self.namespaced or self.cgroup else {**env, MARK: self.token}

    def pass_fds(self) -> tuple[int, ...]:
        return (self._status[1],) if self._status else ()

    def user_process_limit(self) -> int | None:
        """RLIMIT_NPROC for the program when it runs outside a user namespace, where the kernel
        counts all of this user's processes: what the user runs now plus the call's allowance.
        None where it would do nothing (root) or something else holds the limit."""
        if self.namespaced or self.cgroup is not None or os.geteuid() == 0:
            return None
        return _user_tasks() + self.processes

    def before_exec(self) -> Callable[[], None] | None:
        return self.cgroup.join if self.cgroup is not None else None

    def started(self) -> None:
        """The program holds the status pipe's writing end now; ours goes."""
        if self._status is not None:
            os.close(self._status[1])
            self._status = (self._status[0], -1)

    # -- ending ----------------------------------------------------------------------------------

    def end(self, proc: subprocess.Popen[bytes]) -> None:
        """Kill everything the call started, reap its leader, note whether it hit the limit."""
        if self.cgroup is not None:
            self.cgroup.kill_all()
        elif not self.namespaced:  # the walk, while the leader (alive or a zombie) holds them
            # A leader already reaped (macOS) no longer owns its pid: walk by the mark alone.
            kill_tree(proc.pid if proc.returncode is None else None, self.token)
        # Namespaced: killing unshare kills our init (--kill-child), and the kernel the rest.
        with contextlib.suppress(ProcessLookupError, PermissionError):  # macOS: EPERM for zombies
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        self.exit_code = self._program_exit(proc)
        if self.cgroup is not None:
            self.cgroup.kill_all()
            self.limit_reached = self.cgroup.limit_reached()
            self.cgroup.remove()

    def _program_exit(self, proc: subprocess.Popen[bytes]) -> int:
        """The program's exit status (minus a signal), not the wrappers': our init reports it."""
        if self._status is None:
            return proc.returncode
        reader = self._status[0]
        self._status = None
        try:
            os.set_blocking(reader, False)
            with contextlib.suppress(BlockingIOError):
                said = os.read(reader, _STATUS_MAX)
                if said.strip().isdigit():
                    return os.waitstatus_to_exitcode(int(said))
        finally:
            os.close(reader)
        return proc.returncode

    def close(self) -> None:
        """Release what a call that never started holds."""
        if self._status is not None:
            for fd in self._status:
                with contextlib.suppress(OSError):
                    if fd >= 0:
                        os.close(fd)
            self._status = None
        if self.cgroup is not None:
            self.cgroup.remove()


def _user_tasks() -> int:
    """What RLIMIT_NPROC counts for this user now: threads on Linux, processes elsewhere."""
    import psutil

    me, count = os.getuid(), 0
    for process in psutil.process_iter(["uids", "num_threads"]):
        uids = process.info.get("uids")
        if uids is not None and uids.real == me:
            threads = process.info.get("num_threads") or 1
            count += threads if sys.platform.startswith("linux") else 1
    return count
