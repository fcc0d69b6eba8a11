"""The two native steps of building fruitctl.app: compiling its launcher with the system's C
compiler, and signing the bundle ad hoc (macOS only).

The launcher's command is written into a generated header as bytes (``{0x2f, 0x55, …, 0}``),
never as text inside C quotes and never as a shell line, so no character of a path can change
what is compiled. Both tools run from argument lists; their output is reported in a failure.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

from fruitctl.startup import StartupError

HEADER = "fruitctl-command.h"
COMPILE_TIMEOUT_S = 120.0  # a first cc on a Mac may install nothing but still be slow to start
SIGN_TIMEOUT_S = 60.0
NO_COMPILER = (
    "fruitctl needs a C compiler (cc) to build its launcher, and {found}. On a Mac, install "
    "Apple's Command Line Tools with `xcode-select --install`, then run `fruitctl service "
    "install` again."
)


class CannotBuild(StartupError):
    """fruitctl.app cannot be built here (no compiler, a compiler or codesign that failed); the
    message says which and what to do."""


def launcher_source() -> bytes:
    """The launcher's C source, shipped with fruitctl."""
    return (resources.files("fruitctl.daemon") / "launcher" / "fruitctl-launcher.c").read_bytes()


def source_digest() -> str:
    return hashlib.sha256(launcher_source()).hexdigest()


def command_header(command: list[str]) -> str:
    """The C header holding ``command`` as ``COMMAND``, a NULL-ended argument vector."""
    if not command or any("\0" in word for word in command):
        raise ValueError("the launcher's command needs a program and no NUL character")
    lines = ["/* Written by fruitctl service install: the command fruitctl.app starts. */"]
    for index, word in enumerate(command):
        data = ", ".join(f"0x{byte:02x}" for byte in os.fsencode(word))
        lines.append(f"static char ARG_{index}[] = {{{data}{', ' if data else ''}0}};")
    names = ", ".join(f"ARG_{index}" for index in range(len(command)))
    lines.append(f"static char *const COMMAND[] = {{{names}, 0}};")
    return "\n".join(lines) + "\n"


def compile_launcher(command: list[str], output: Path, work: Path) -> None:
    """Compile the launcher for ``command`` into ``output``, using ``work`` for its sources."""
    compiler = shutil.which("cc")
    if compiler is None:
        raise CannotBuild(NO_COMPILER.format(found="none was found on PATH"))
    source = work / "fruitctl-launcher.c"
    source.write_bytes(launcher_source())
    (work / HEADER).write_text(command_header(command), encoding="ascii")
    arguments = [compiler, "-O2", "-Wall", "-I", str(work), "-o", str(output), str(source)]
    said = _run(arguments, COMPILE_TIMEOUT_S, "cc")
    if said is not None:
        raise CannotBuild(NO_COMPILER.format(found=f"cc failed: {said}"))


def can_sign() -> bool:
    """Whether this system can sign a bundle (codesign exists only on macOS)."""
    return sys.platform == "darwin"


def sign(bundle: Path) -> None:
    """Sign ``bundle`` ad hoc: no identity, but a sealed bundle macOS can recognise by its
    identifier and code hash."""
    said = _run(["codesign", "--force", "--sign", "-", str(bundle)], SIGN_TIMEOUT_S, "codesign")
    if said is not None:
        raise CannotBuild(f"codesign could not sign {bundle}: {said}")


def signature_valid(bundle: Path) -> bool | None:
    """Whether the bundle's signature holds (None where there is no codesign to ask)."""
    if not can_sign():
        return None
    said = _run(["codesign", "--verify", "--strict", str(bundle)], SIGN_TIMEOUT_S, "codesign")
    return said is None


def _run(arguments: list[str], timeout: float, name: str) -> str | None:
    """Run a tool; None when it succeeded, else what went wrong in a line."""
    try:
        done = subprocess.run(
            arguments, capture_output=True, text=True, timeout=timeout, check=False
        )
    except FileNotFoundError:
        return f"{name} was not found"
    except subprocess.TimeoutExpired:
        return f"{name} did not finish within {timeout:.0f} s"
    except OSError as exc:
        return f"{name} could not run: {exc.strerror or exc}"
    if done.returncode == 0:
        return None
    said = " ".join((done.stderr or done.stdout).split())
    return f"{said[-400:] or 'no output'} (exit {done.returncode})"
