"""How strongly this machine lets the sandbox hold a program, found out once per process.

Three ways to make sure every process a program started dies with it, strongest first:

- **namespaces** (Linux): the program runs in new user, PID, mount and (unless the call asks for
  the network) network namespaces, started by util-linux ``unshare``. A small init of ours is
  PID 1 there; when it goes, the kernel kills everything else in the namespace, a process that
  started a session of its own included. The process limit is RLIMIT_NPROC, which inside a user
  namespace counts only that namespace's processes.
- **cgroup**: a writable pids cgroup (v1, or v2 with the controller delegated): each call gets a
  cgroup of its own whose ``pids.max`` is the process limit, and whose members are all killed
  at the end - no process can leave it. Used beside namespaces when present (the kernel does not
  apply RLIMIT_NPROC to root, a cgroup limit applies to everyone).
- **process-tree walk**: the program's descendants are found (and stopped, then killed) while
  its leader still holds them, plus any process of this user still carrying the call's mark in
  its environment (an orphan re-parented to init). RLIMIT_NPROC then counts all the user's
  processes, so the limit is what the user runs now plus the call's allowance.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SAFE_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"
"""The only PATH a sandboxed program gets: system directories, nothing a user can write to."""

INIT_SCRIPT = str(Path(__file__).with_name("init.py"))
"""PID 1 of the namespace (standard library only: it runs as ``python -I -S``)."""

NAMESPACES = "namespaces"
CGROUP = "cgroup"
TREE_WALK = "process-tree walk"
_PROBE_TIMEOUT = 10.0


@dataclass(frozen=True)
class Isolation:
    """What the sandbox uses on this machine, and why nothing stronger."""

    containment: str
    """How every descendant dies at the end: ``namespaces``, ``cgroup`` or ``process-tree walk``."""
    process_limit: str
    network: str
    reasons: tuple[str, ...]
    """Why a stronger way is not used, in words."""
    unshare: tuple[str, ...] | None = None
    """The ``unshare`` command that opens the namespaces (``--net`` is added per call)."""
    cgroup: Path | None = None
    """Where a call's pids cgroup is made."""

    def describe(self) -> dict[str, object]:
        """The doctor's view of it."""
        return {
            "containment": self.containment,
            "processLimit": self.process_limit,
            "network": self.network,
            "reasons": list(self.reasons),
        }


@functools.cache
def current() -> Isolation:
    """This machine's isolation (probed once: it starts one short process)."""
    unshare, ns_reason = probe_namespaces()
    cgroup, cg_reason = find_pids_cgroup()
    reasons = [reason for reason in (ns_reason, cg_reason) if reason]
    root = os.geteuid() == 0
    if cgroup is not None:
        limit = "pids cgroup"
    elif unshare is not None and not root:
        limit = "RLIMIT_NPROC inside the user namespace"
    elif sys.platform == "win32" or root:
        limit = "none"
        reasons.append("the kernel does not apply RLIMIT_NPROC to root")
    else:
        limit = "RLIMIT_NPROC over all of this user's processes"
    if unshare is not None:
        containment, network = NAMESPACES, "off unless the call asks for it (network namespace)"
    else:
        containment = CGROUP if cgroup is not None else TREE_WALK
        network = "not restricted (no network namespace)"
    return Isolation(containment, limit, network, tuple(reasons), unshare, cgroup)


# -- namespaces ------------------------------------------------------------------------------------


def probe_namespaces() -> tuple[tuple[str, ...] | None, str]:
    """The ``unshare`` command that works here, or None and why not."""
    if not sys.platform.startswith("linux"):
        return None, f"namespaces are Linux only (this is {sys.platform})"
    tool, true = shutil.which("unshare", path=SAFE_PATH), shutil.which("true", path=SAFE_PATH)
    if tool is None or true is None:
        return None, "util-linux 'unshare' is not installed"
    said = ""
    # --map-current-user keeps the user's own uid inside (util-linux 2.38); older ones map root.
    for mapping in ("--map-current-user", "--map-root-user"):
        command: tuple[str, ...] = (tool, "--user", mapping, "--pid", "--fork", "--kill-child")
        command += ("--mount", "--mount-proc", "--propagation", "private")
        said = _try((*command, "--net", "--", true))
        if not said:
            return command, ""
    return None, f"new namespaces are refused here ({said})"


def _try(argv: tuple[str, ...]) -> str:
    """'' when ``argv`` ran and exited 0, else the last line it wrote on stderr."""
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            timeout=_PROBE_TIMEOUT,
            env={"PATH": SAFE_PATH, "LC_ALL": "C"},
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    if done.returncode == 0:
        return ""
    lines = done.stderr.decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else f"exit status {done.returncode}"


# -- a pids cgroup ---------------------------------------------------------------------------------


def find_pids_cgroup() -> tuple[Path | None, str]:
    """A cgroup directory this process may make pids-limited children in, or None and why not."""
    if not sys.platform.startswith("linux"):
        return None, "cgroups are Linux only"
    try:
        own = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError as exc:
        return None, f"cgroups cannot be read ({exc.strerror})"
    for base in _candidates(own, mounts):
        if _can_make_children(base):
            return base, ""
    return None, "no writable pids cgroup (none is delegated to this user)"


def _candidates(own: list[str], mounts: list[str]) -> list[Path]:
    """This process's cgroup in each hierarchy that has the pids controller."""
    found: list[Path] = []
    for line in mounts:
        fields, _, tail = line.partition(" - ")
        parts, kind = fields.split(), tail.split()
        if len(parts) < 5 or len(kind) < 3 or kind[0] not in ("cgroup", "cgroup2"):
            continue
        root, point = parts[3], parts[4]
        if kind[0] == "cgroup" and "pids" not in kind[2].split(","):
            continue
        path = _own_path(own, v2=kind[0] == "cgroup2")
        if path is None or not path.startswith(root):
            continue
        base = Path(point) / path[len(root) :].lstrip("/")
        if kind[0] == "cgroup" or _delegates_pids(base):
            found.append(base)
    return found


def _own_path(own: list[str], *, v2: bool) -> str | None:
    for line in own:
        _, controllers, path = line.split(":", 2)
        if (v2 and controllers == "") or (not v2 and "pids" in controllers.split(",")):
            return path
    return None


def _delegates_pids(base: Path) -> bool:
    try:
        return "pids" in (base / "cgroup.subtree_control").read_text().split()
    except OSError:
        return False


def _can_make_children(base: Path) -> bool:
    probe = base / f"fruitctl-probe-{os.getpid()}-{secrets.token_hex(3)}"
    try:
        probe.mkdir()
    except OSError:
        return False
    with contextlib.suppress(OSError):
        probe.rmdir()
    return True
