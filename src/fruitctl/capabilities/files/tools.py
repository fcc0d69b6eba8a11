"""The filesystem tools: ``read_file``, ``list_directory``, ``write_file``, ``delete_file`` and
its undo, ``restore_file``.

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
from fruitctl.capabilities.files.changes import DELETE_FILE, RESTORE_FILE, WRITE_FILE
from fruitctl.capabilities.files.kept import DEFAULT_MAX_MB, KEEP_HOURS, KEPT_ID, keep_limit
from fruitctl.capabilities.files.targets import PATHS_DELETE, PATHS_READ, PATHS_WRITE
from fruitctl.domain.errors import InternalError
from fruitctl.domain.path_rules import PathRules
from fruitctl.policy.governance import ToolRules
from fruitctl.policy.targets import path_rules
from fruitctl.tools.inputs import Input
from fruitctl.tools.model import tool

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


class DeleteFileInput(Input):
    path: str = Field(description=f"The file to delete (never a folder or a link). {_PATH}")


class RestoreFileInput(Input):
    path: str = Field(description=f"Where the deleted file was. {_PATH}")
    kept: str = Field(
        pattern=KEPT_ID.pattern,
        description="The id of the copy delete_file kept (its answer's keptId).",
    )


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


@tool(
    returns=outputs.FileDeleted,
    category="system_write",
    risk="high",
    title="Delete a file",
    destructive=True,
    change=DELETE_FILE,
    targets=(PATHS_DELETE,),
)
def delete_file(args: DeleteFileInput, ctx: Context) -> dict[str, Any]:
    """Delete one file. Folders and symbolic links are never deleted.

    The path must be absolute and inside the folders this tool may write to. The proposal shows
    the file's size, mode, modification time and first lines; if the file changes before
    approval, the proposal fails instead of deleting it. A file no larger than the size limit is
    kept, bytes and mode, for a while after the deletion so that undoing the proposal puts it
    back; a larger file cannot be undone, and the proposal says so. Returns the path, the size
    and whether (and until when) a copy is kept.
    """
    rules = _rules(ctx, "delete_file")
    keep = keep_limit(rules.max_file_size_mb)
    paths = _path_rules(rules, "delete_file")
    return ctx.files.delete_file(args.path, paths, keep, KEEP_HOURS * 3600.0)


@tool(
    returns=outputs.FileRestored,
    category="system_write",
    risk="high",
    title="Restore a deleted file",
    change=RESTORE_FILE,
    targets=(PATHS_WRITE,),
)
def restore_file(args: RestoreFileInput, ctx: Context) -> dict[str, Any]:
    """Put back a file delete_file deleted, bytes and mode, from the copy it kept.

    This is how a deletion is undone (undoing the delete proposal files this call). The path must
    be absolute and inside the folders this tool may write to. The copy is
    kept only for a while after the deletion; something that now exists at the path is never
    replaced. Returns the path, the size and the mode restored.
    """
    paths = _path_rules(_rules(ctx, "restore_file"), "restore_file")
    return ctx.files.restore_file(args.path, args.kept, paths)


TOOLS = [read_file, list_directory, write_file, delete_file, restore_file]


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
