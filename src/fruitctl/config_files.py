"""Reading the person's configuration files (config.toml, governance.yaml) so that they cannot be
misread: text that is not UTF-8, or TOML that says one thing twice, stops the load with the file,
the line and what to do - a ``ConfigError`` (exit 78), never an internal error.

TOML already refuses a key or a table given twice; ``tomllib`` only puts the place in its
message, so it is taken from there and put first, ``file:line:`` like every other error here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    """The configuration cannot be used; the message says where and why."""


_TOML_PLACE = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_TWICE = ("Cannot overwrite a value", "Cannot declare")


def read_text(path: Path) -> str | None:
    """The UTF-8 text of ``path``, or None when there is no such file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    return decoded(path, data)


def decoded(path: Path, data: bytes) -> str:
    """``data`` as UTF-8, or a ConfigError naming the line and column of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column}); "
            "save the file as UTF-8"
        ) from None


def read_toml(path: Path) -> dict[str, Any]:
    """The tables of a TOML file, ``{}`` when there is none."""
    text = read_text(path)
    if text is None:
        return {}
    import tomllib  # only when there is a file: a command that finds none does not load it

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_toml_problem(path, str(exc))) from None


def _toml_problem(path: Path, message: str) -> str:
    place = _TOML_PLACE.search(message)
    if place is None:
        return f"{path}: not valid TOML: {message}"
    problem = message[: place.start()]
    if problem.startswith(_TWICE):
        problem += " (a key or table is given twice; keep one)"
    return f"{path}:{place[1]}: not valid TOML: {problem} at column {place[2]}"


Stamp = tuple[int, int, int] | None
"""What a file is as the filesystem tells it: inode, size, modification time (ns); None when
there is no file. A file saved in place or replaced (an editor's rename) changes its stamp."""


def stamp(path: Path) -> Stamp:
    """The file's stamp now: one ``stat``, cheap enough to take at every call."""
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)
