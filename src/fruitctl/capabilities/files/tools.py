"""The filesystem tools: ``read_file``, ``list_directory``, ``write_file``.

Each tool turns the governance rules the gateway was built with into ``PathRules`` on every
call and leaves the path checks to ``services.files``. governance.yaml is read when the gateway
is built: a change applies to the next ``fruitctl`` command, and to a running server (the
daemon, ``fruitctl mcp``) once it restarts.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from fruitctl.capabilities.context import Context
from fruitctl.capabilities.files import outputs
from fruitctl.capabilities.files.changes import WRITE_FILE
from fruitctl.capabilities.files.targets import PATHS_READ, PATHS_WRITE
from fruitctl.domain.errors import InternalError
from fruitctl.domain.path_rules import PathRules
from fruitctl.policy.governance import ToolRules
from fruitctl.policy.targets import path_rules
from fruitctl.tools.inputs import Input
from fruitctl.tools.model import tool

DEFAULT_MAX_MB = 10.0
"""The size cap when governance sets none: a file tool is never unbounded."""
_MB = 1024 * 1024
_PATH = (
    "Absolute path (starting with '/'), inside the folders this tool is allowed to use. "
    "'~', '$HOME' and wildcards are not expanded."
)


class ReadFileInput(Input):
    path: str = Field(description=f"The file to read. {_PATH}")
    max_size_mb: float = Field(
        DEFAULT_MAX_MB,
        gt=0,
        allow_inf_nan=False,
        description="Refuse files larger than this many megabytes (the governance cap still "
        "applies when it is smaller).",
    )


class ListDirectoryInput(Input):
    path: str = Field(description=f"The folder to list. {_PATH}")


class WriteFileInput(Input):
    path: str = Field(
        description=f"The file to create or replace; its folder must already exist. {_PATH}"
    )
    content: str = Field(description="The complete new content of the file, as UTF-8 text.")


@tool(
    returns=outputs.FileRead,
    category="read_only",
    risk="low",
    title="Read a file",
    targets=(PATHS_READ,),
)
def read_file(args: ReadFileInput, ctx: Context) -> dict[str, Any]:
    """Read a UTF-8 text file and return its path, size in bytes and content.

    The path must be absolute and inside the folders this tool is allowed to read; protected
    places (keys, credentials, fruitctl's own files) are refused. Binary files and files over the
    size limit are refused with a message saying so.
    """
    rules = _rules(ctx, "read_file")
    cap = min(args.max_size_mb, rules.max_file_size_mb or args.max_size_mb)
    return ctx.files.read_file(args.path, _path_rules(rules, "read_file"), _bytes(cap))


@tool(
    returns=outputs.Directory,
    category="read_only",
    risk="low",
    title="List a folder",
    targets=(PATHS_READ,),
)
def list_directory(args: ListDirectoryInput, ctx: Context) -> dict[str, Any]:
    """List the entries of a folder, sorted by name.

    Each entry has a name, a type (file, directory, symlink or other), a size in bytes and a
    modification time (ISO 8601 with offset). Symbolic links are shown as links, not followed.
    The path must be absolute and inside the folders this tool is allowed to read; entries in
    protected places are left out.
    """
    rules = _rules(ctx, "list_directory")
    return ctx.files.list_directory(args.path, _path_rules(rules, "list_directory"))


@tool(
    returns=outputs.FileWritten,
    category="system_write",
    risk="high",
    title="Write a file",
    destructive=True,
    idempotent=True,
    change=WRITE_FILE,
    targets=(PATHS_WRITE,),
)
def write_file(args: WriteFileInput, ctx: Context) -> dict[str, Any]:
    """Create a text file, or replace the whole content of an existing one, atomically.

    The path must be absolute and inside the folders this tool may write to, and its folder must
    already exist. Symbolic links and folders are never written. Returns the path, the size written
    in bytes and whether the file was created.
    """
    rules = _rules(ctx, "write_file")
    cap = _bytes(rules.max_file_size_mb or DEFAULT_MAX_MB)
    return ctx.files.write_file(args.path, args.content, _path_rules(rules, "write_file"), cap)


TOOLS = [read_file, list_directory, write_file]


def _rules(ctx: Context, name: str) -> ToolRules:
    rules = ctx.rules(name)
    if not isinstance(rules, ToolRules):
        raise InternalError(f"{name}: the governance rules given to the tool are not ToolRules.")
    return rules


def _path_rules(rules: ToolRules, name: str) -> PathRules:
    """The tool's path rules (``policy.targets.path_rules``: with the places every file tool
    refuses); an unreadable pattern stops the call instead of guessing."""
    try:
        return path_rules(rules)
    except InternalError as exc:
        raise InternalError(f"governance for {name}: {exc.message}") from exc


def _bytes(megabytes: float) -> int:
    return int(megabytes * _MB)
