"""Running one program the gateway does not trust: no shell, a session of its own, kernel
resource limits, a scrubbed environment, bounded output and a hard deadline that kills every
process it started, under the strongest isolation the machine offers (see ``fruitctl.sandbox``)."""

from __future__ import annotations

import os
import resource
import select
import selectors
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO

from fruitctl.domain.errors import (
    ExecutionFailed,
    InvalidParams,
    Unsupported,
)
from fruitctl.sandbox import isolation
from fruitctl.sandbox.confine import Confinement
from fruitctl.sandbox.isolation import SAFE_PATH

_READ_CHUNK = 65_536
_MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Ceilings the kernel enforces on the program (and on anything it starts)."""

    cpu_seconds: int = 30
    memory_mb: int = 1024
    """Address space; not enforced on macOS, whose kernel ignores RLIMIT_AS."""
    file_size_mb: int = 64
    """The largest file the program may write (0: none at all)."""
    open_files: int = 256
    processes: int = 128
    """How many processes (threads count too, on Linux) the program may run at once, itself
    included: a fork past it fails."""
    network: bool = False
    """Whether the program may reach the network; off, it gets none where the machine has
    network namespaces (``fruitctl doctor`` says whether it has)."""
    paths: tuple[str, ...] = ()
    """The folders the call works in (absolute). On macOS, naming them runs the program under
    ``sandbox-exec`` with a profile that lets it write there and nowhere else."""

    def __post_init__(self) -> None:
        if not isinstance(self.network, bool):
            raise InvalidParams(f"Limits.network must be true or false, got {self.network!r}.")
        if not isinstance(self.paths, tuple) or not all(
            isinstance(path, str) and os.path.isabs(path) for path in self.paths
        ):
            raise InvalidParams("Limits.paths must be a tuple of absolute paths.")
        for name in ("cpu_seconds", "memory_mb", "open_files", "file_size_mb", "processes"):
            value = getattr(self, name)
            low = 0 if name == "file_size_mb" else 1
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidParams(f"Limits.{name} must be an integer >= {low}, got {value!r}.")


@dataclass(frozen=True)
class CommandResult:
    stdout: str
    stderr: str
    exit_code: int
    """The program's exit status, or minus the number of the signal that ended it (-9: killed)."""
    timed_out: bool
    truncated: bool
    """An output passed ``max_output_bytes``: the program was killed and the rest dropped."""
    duration_ms: float
    process_limit_reached: bool = False
    """A fork was refused because the program ran ``Limits.processes`` processes (known where
    a pids cgroup holds the call; elsewhere the program only sees its fork fail)."""


# -- running a program ---------------------------------------------------------------------------


def run_command(
    argv: list[str],
    *,
    timeout: float,
    limits: Limits = Limits(),
    env: dict[str, str] | None = None,
    max_output_bytes: int = 1_000_000,
) -> CommandResult:
    """Run ``argv`` (no shell: each item is one argument, never parsed) and collect its output.

    A program that outlives ``timeout`` is killed with every process it started and the result
    says ``timed_out``; one that prints more than ``max_output_bytes`` on either stream is killed
    the same way and the result says ``truncated``. A missing program is ``Unsupported``.
    """
    return execute(argv, timeout, limits, scrubbed_env(env), max_output_bytes, stdin_data=None)


def scrubbed_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a sandboxed program: a fixed PATH and locale, the zone, and ``extra``.

    Nothing else of the gateway's environment crosses (tokens, proxies, LD_PRELOAD...)."""
    env = {"PATH": SAFE_PATH, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    if os.environ.get("TZ"):
        env["TZ"] = os.environ["TZ"]
    for key, value in (extra or {}).items():
        _check_env_item(key, value)
        env[key] = value
    return env


def find_program(name: str) -> str | None:
    """Where ``name`` is on the sandbox's PATH, or None: what ``run_command`` would run."""
    return shutil.which(name, path=SAFE_PATH)


def _check_env_item(key: object, value: object) -> None:
    if not (isinstance(key, str) and isinstance(value, str)):
        raise InvalidParams("Environment names and values must be strings.")
    if not key or "=" in key or "\0" in key or "\0" in value:
        raise InvalidParams(f"Invalid environment variable name or value: {key[:64]!r}.")


def execute(
    argv: list[str],
    timeout: float,
    limits: Limits,
    env: dict[str, str],
    max_output_bytes: int,
    stdin_data: bytes | None,
) -> CommandResult:
    _check_call(argv, timeout, max_output_bytes)
    program = [_resolve(argv[0], env), *argv[1:]]
    confinement = Confinement(isolation.current(), limits.processes, limits.network, limits.paths)
    started = time.monotonic()
    deadline = started + timeout
    try:
        plan = _rlimit_plan(limits, confinement.user_process_limit())
        proc = _spawn(program, confinement, env, plan, piped_stdin=stdin_data is not None)
    except BaseException:
        confinement.close()
        raise
    try:
        captured = _pump(proc, stdin_data, deadline, max_output_bytes)
        if not (captured.timed_out or captured.truncated):
            captured.timed_out = not _await_leader(proc, deadline)
    finally:
        confinement.end(proc)
        _close_pipes(proc)
    return CommandResult(
        stdout=captured.stdout.decode("utf-8", errors="replace"),
        stderr=captured.stderr.decode("utf-8", errors="replace"),
        exit_code=confinement.exit_code,
        timed_out=captured.timed_out,
        truncated=captured.truncated,
        duration_ms=round((time.monotonic() - started) * 1000, 1),
        process_limit_reached=confinement.limit_reached,
    )


def _resolve(name: str, env: Mapping[str, str]) -> str:
    """The program's full path (a wrapper starts it by path): a missing one is ``Unsupported``."""
    found = shutil.which(name, path=env.get("PATH", SAFE_PATH)) if "/" not in name else name
    if found is None or not os.path.exists(found):
        raise Unsupported.not_installed(name, env.get("PATH", SAFE_PATH))
    if not os.access(found, os.X_OK) or os.path.isdir(found):
        raise Unsupported.not_executable(name)
    return os.path.abspath(found)


def _check_call(argv: list[str], timeout: float, max_output_bytes: int) -> None:
    if not argv or not all(isinstance(arg, str) and "\0" not in arg for arg in argv):
        raise InvalidParams("A command is a non-empty list of strings without NUL characters.")
    if not timeout > 0:
        raise InvalidParams(f"A command needs a positive timeout, got {timeout!r}.")
    if max_output_bytes < 0:
        raise InvalidParams("max_output_bytes cannot be negative.")


# -- starting the child: session, limits, environment ---------------------------------------------

RlimitPlan = list[tuple[int, int, int]]


def _rlimit_plan(limits: Limits, user_processes: int | None) -> RlimitPlan:
    """The (resource, soft, hard) triples the child applies, worked out here in the parent so the
    code that runs between fork and exec does nothing but call setrlimit."""
    wanted = [
        # The soft CPU limit sends SIGXCPU; the hard one, a second later, SIGKILL.
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1),
        (resource.RLIMIT_FSIZE, limits.file_size_mb * _MB, limits.file_size_mb * _MB),
        (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    if user_processes is not None:  # else namespaces, a cgroup or nothing holds the count
        wanted.append((resource.RLIMIT_NPROC, user_processes, user_processes))
    if sys.platform != "darwin":  # macOS accepts RLIMIT_AS but never enforces it
        wanted.append((resource.RLIMIT_AS, limits.memory_mb * _MB, limits.memory_mb * _MB))
    return [(res, *_within_hard_limit(res, soft, hard)) for res, soft, hard in wanted]


def _within_hard_limit(res: int, soft: int, hard: int) -> tuple[int, int]:
    """An unprivileged process can only lower a hard limit: never ask for more than there is."""
    current = resource.getrlimit(res)[1]
    if current != resource.RLIM_INFINITY:
        hard = min(hard, current)
        soft = min(soft, hard)
    return soft, hard


def _limiter(plan: RlimitPlan, join: Callable[[], None] | None) -> Callable[[], None]:
    # Runs in the forked child before exec: keep it to system calls on precomputed values.
    def apply() -> None:
        if join is not None:
            join()
        for res, soft, hard in plan:
            resource.setrlimit(res, (soft, hard))

    return apply


def _spawn(
    argv: list[str],
    confinement: Confinement,
    env: dict[str, str],
    plan: RlimitPlan,
    *,
    piped_stdin: bool,
) -> subprocess.Popen[bytes]:
    try:
        proc = subprocess.Popen(
            confinement.argv(argv),
            stdin=subprocess.PIPE if piped_stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=confinement.env(env),
            bufsize=0,
            close_fds=True,
            pass_fds=confinement.pass_fds(),
            start_new_session=True,  # its own session and process group: killable as a whole
            # Only system calls on precomputed values: fork-safe enough.
            preexec_fn=_limiter(plan, confinement.before_exec()),
        )
    except FileNotFoundError as exc:
        raise Unsupported.not_installed(argv[0], SAFE_PATH) from exc
    except PermissionError as exc:
        raise Unsupported.not_executable(argv[0]) from exc
    except subprocess.SubprocessError as exc:  # setrlimit refused in the child
        raise ExecutionFailed(f"Could not apply resource limits to '{argv[0]}'.") from exc
    except OSError as exc:
        raise ExecutionFailed(f"Could not start '{argv[0]}': {exc.strerror}.") from exc
    confinement.started()
    return proc


# -- moving bytes: stdin in, stdout and stderr out, all at once ------------------------------------


@dataclass
class _Captured:
    stdout: bytearray = field(default_factory=bytearray)
    stderr: bytearray = field(default_factory=bytearray)
    timed_out: bool = False
    truncated: bool = False


@dataclass
class _Feed:
    """What is left to write to the child's stdin."""

    stream: IO[bytes]
    data: memoryview
    offset: int = 0


def _pump(
    proc: subprocess.Popen[bytes], stdin_data: bytes | None, deadline: float, cap: int
) -> _Captured:
    """Read both outputs (and write stdin) until they end, time runs out or an output passes
    ``cap``. Reading them together is what keeps a child blocked on a full stderr pipe from
    looking like a hang."""
    captured = _Captured()
    with selectors.DefaultSelector() as selector:
        assert proc.stdout is not None and proc.stderr is not None
        selector.register(proc.stdout, selectors.EVENT_READ, captured.stdout)
        selector.register(proc.stderr, selectors.EVENT_READ, captured.stderr)
        _start_feed(selector, proc.stdin, stdin_data)
        while selector.get_map() and not captured.truncated:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                captured.timed_out = True
                break
            for key, _ in selector.select(remaining):
                if isinstance(key.data, _Feed):
                    _feed(selector, key.data)
                else:
                    _drain(selector, key, cap, captured)
    return captured


def _start_feed(
    selector: selectors.BaseSelector, stream: IO[bytes] | None, data: bytes | None
) -> None:
    if stream is None:
        return
    if data:
        selector.register(stream, selectors.EVENT_WRITE, _Feed(stream, memoryview(data)))
    else:
        stream.close()


def _feed(selector: selectors.BaseSelector, feed: _Feed) -> None:
    # At most PIPE_BUF bytes: a write that small never blocks on a pipe reported writable.
    chunk = feed.data[feed.offset : feed.offset + select.PIPE_BUF]
    try:
        feed.offset += os.write(feed.stream.fileno(), chunk)
    except BrokenPipeError:  # the child stopped reading: what it does next is its business
        feed.offset = len(feed.data)
    if feed.offset >= len(feed.data):
        selector.unregister(feed.stream)
        feed.stream.close()


def _drain(
    selector: selectors.BaseSelector, key: selectors.SelectorKey, cap: int, captured: _Captured
) -> None:
    chunk = os.read(key.fd, _READ_CHUNK)
    if not chunk:
        selector.unregister(key.fileobj)
        return
    buffer: bytearray = key.data
    room = cap - len(buffer)
    buffer += chunk[:room]
    if len(chunk) > room:
        captured.truncated = True


# -- ending: wait for the leader (the confinement kills whatever it left) -------------------------


def _await_leader(proc: subprocess.Popen[bytes], deadline: float) -> bool:
    """Wait (until ``deadline``) for the program itself to exit; True when it did.

    Its outputs closing is not enough: a program can close them and go on running."""
    delay = 0.001
    while not _has_exited(proc):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, 0.05)
    return True


def _has_exited(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the leader exited, leaving it unreaped where the platform allows: while it is a
    zombie its pid cannot be reused, so killing its group afterwards cannot hit a stranger."""
    if proc.returncode is not None:
        return True
    if sys.platform == "darwin":  # no waitid there before Python 3.13: reap, the race is tiny
        return proc.poll() is not None
    try:
        flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
        return os.waitid(os.P_PID, proc.pid, flags) is not None
    except ChildProcessError:  # already reaped elsewhere
        return True


def _close_pipes(proc: subprocess.Popen[bytes]) -> None:
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
