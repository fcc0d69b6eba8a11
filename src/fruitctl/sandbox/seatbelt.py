"""macOS: a ``sandbox-exec`` profile that lets a program write only the call's folders.

The profile is built from data: every path becomes a Scheme string literal through
``sbpl_string`` (backslashes and quotes escaped, control characters refused), never pasted into
the text, so a folder named ``x") (allow default) ("`` stays a folder name. It is handed to
``sandbox-exec -p`` as one argument, with no shell in between. Reading is allowed for the system,
the interpreter and its import path, and the call's folders; writing, only for the call's folders
and the null device; the network only when the call asks for it.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable

from fruitctl.domain.errors import InvalidParams

SANDBOX_EXEC = "/usr/bin/sandbox-exec"
SYSTEM_READABLE = (
    "/System",
    "/usr",
    "/bin",
    "/sbin",
    "/Library",
    "/private/etc",
    "/private/var/db/timezone",
    "/dev",
    "/opt/homebrew",
)


def sbpl_string(text: str) -> str:
    """``text`` as a string literal of the profile language: what it says, nothing more."""
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in text):
        raise InvalidParams(f"A sandbox path cannot hold control characters: {text[:80]!r}.")
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def profile(*, readable: Iterable[str], writable: Iterable[str], network: bool) -> str:
    """The profile text: deny by default, then the few allowances listed here."""
    write = _real_paths(writable)
    read = _real_paths([*SYSTEM_READABLE, *readable]) + write
    lines = [
        "(version 1)",
        "(deny default)",
        '(import "bsd.sb")',
        "(allow process-fork)",
        "(allow process-exec)",
        "(allow signal (target same-sandbox))",
        "(allow sysctl-read)",
        "(allow file-read-metadata)",
        _rule("file-read*", read),
        _rule("file-write*", write, '(literal "/dev/null")'),
    ]
    if network:
        lines.append("(allow network*)")
    return "\n".join(lines) + "\n"


def runtime_readable() -> list[str]:
    """What a Python child must read to start: the interpreter and its import path."""
    found = [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)]
    found += [entry for entry in sys.path if entry and os.path.isabs(entry)]
    return list(dict.fromkeys(found))


def available() -> bool:
    return sys.platform == "darwin" and shutil.which(SANDBOX_EXEC) is not None


def wrap(program: list[str], *, writable: Iterable[str], network: bool) -> list[str]:
    """``program`` under ``sandbox-exec`` with the profile of the call's folders."""
    text = profile(readable=runtime_readable(), writable=writable, network=network)
    return [SANDBOX_EXEC, "-p", text, *program]


def _rule(action: str, paths: list[str], *extra: str) -> str:
    """``(allow ACTION (subpath "...") ...)``; with nothing to allow, an allowance of nothing."""
    filters = [f"(subpath {sbpl_string(path)})" for path in paths] + list(extra)
    if not filters:
        return f";; no {action} allowed"
    return f"(allow {action}\n    " + "\n    ".join(filters) + ")"


def _real_paths(paths: Iterable[str]) -> list[str]:
    """Absolute paths with symlinks resolved: the kernel checks the real path (/tmp is
    /private/tmp on macOS), so a rule on the link would never match."""
    found: list[str] = []
    for path in paths:
        if not isinstance(path, str) or not os.path.isabs(path):
            raise InvalidParams(f"A sandbox path must be absolute: {str(path)[:80]!r}.")
        sbpl_string(path)  # refuse control characters before resolving anything
        found.append(os.path.realpath(path))
    return list(dict.fromkeys(found))
