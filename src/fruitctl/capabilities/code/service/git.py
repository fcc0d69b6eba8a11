"""A repository's status from ``git status --porcelain=v2 --branch -z``, read as data.

git runs as a program with an argument list (no shell), under the sandbox's limits and deadline,
with a clean environment: none of the gateway's ``GIT_*`` variables, no system or global
configuration (so neither can name a program to run), no pager, no optional locks (a status never
writes the index) and ``core.fsmonitor`` off (a repository's own configuration could otherwise
name a program git starts). A repository owned by someone else is refused by git itself
("dubious ownership"); the user's ``safe.directory`` list is not read, being global configuration.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from fruitctl.capabilities.code.service.paths import checked, folder_of
from fruitctl.domain.errors import ExecutionFailed, InvalidParams, PermissionDenied, Unsupported
from fruitctl.domain.path_rules import PathRules
from fruitctl.sandbox import CommandResult, Limits, find_program, run_command

GIT_TIMEOUT = 20.0
GIT_LIMITS = Limits(cpu_seconds=20, memory_mb=1024, file_size_mb=0, open_files=512)
GIT_OUTPUT_MAX = 8_000_000
GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_PAGER": "cat",
    "HOME": os.devnull,
}
GIT_OPTIONS = ["-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "--no-pager"]
_STATUS = {
    "M": "modified",
    "T": "type_changed",
    "A": "added",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "U": "unmerged",
}
_LISTS = ("staged", "unstaged", "untracked", "conflicted")


def git_status(path: str, rules: PathRules, max_files: int) -> dict[str, Any]:
    """The status of the repository ``path`` is in, whose top folder the rules must allow too."""
    git = find_program("git")
    if git is None:
        raise Unsupported("git is not installed (looked for 'git' in the system folders).")
    where = folder_of(checked(path))
    top = Path(_git(git, where, ["rev-parse", "--show-toplevel"], path).rstrip("\n"))
    real_top = Path(os.path.realpath(top))
    if not rules.allows(real_top):
        raise PermissionDenied(
            f"Cannot use '{path}': its repository starts at '{real_top}', outside the folders "
            "this tool may use.",
            path=path,
        )
    raw = _git(git, real_top, ["status", "--porcelain=v2", "--branch", "-z"], path)
    return {"repository": str(real_top), **parse_status(raw, max_files)}


def _git(git: str, where: Path, args: list[str], shown: str) -> str:
    argv = [git, *GIT_OPTIONS, "-C", str(where), *args]
    result = run_command(
        argv, timeout=GIT_TIMEOUT, limits=GIT_LIMITS, env=GIT_ENV, max_output_bytes=GIT_OUTPUT_MAX
    )
    _check(result, shown)
    return result.stdout


def _check(result: CommandResult, shown: str) -> None:
    if result.timed_out:
        raise ExecutionFailed(f"git did not answer within {GIT_TIMEOUT:g} s for '{shown}'.")
    if result.truncated:
        raise ExecutionFailed(
            f"The status of '{shown}' is longer than {GIT_OUTPUT_MAX} bytes; git was stopped."
        )
    if result.exit_code == 0:
        return
    said = result.stderr.strip().splitlines()
    first = said[0][:300] if said else f"exit status {result.exit_code}"
    if "not a git repository" in result.stderr:
        raise InvalidParams(f"'{shown}' is not inside a git repository.", path=shown)
    if "dubious ownership" in result.stderr:
        raise PermissionDenied(
            f"git refuses '{shown}': the repository belongs to another user.", path=shown
        )
    raise ExecutionFailed(f"git could not read the status of '{shown}': {first}")


# -- reading porcelain v2 --------------------------------------------------------------------------


def parse_status(raw: str, max_files: int) -> dict[str, Any]:
    """The branch headers and the four file lists of ``git status --porcelain=v2 --branch -z``;
    each list keeps its full count and at most ``max_files`` entries."""
    head: dict[str, Any] = {"commit": None, "branch": None, "upstream": None, "ab": None}
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in _LISTS}
    records = iter(raw.split("\0"))
    for record in records:
        if record.startswith("# "):
            _header(record[2:], head)
        elif record[:2] in ("1 ", "2 ", "u "):
            original = next(records, None) if record[0] == "2" else None
            _changed(record, original, found)
        elif record.startswith("? "):
            found["untracked"].append(_file(record[2:], "untracked"))
    branch = head["branch"]
    ahead, behind = head["ab"] if head["ab"] else (None, None)
    return {
        "branch": None if branch == "(detached)" else branch,
        "detached": branch == "(detached)",
        "commit": None if head["commit"] in (None, "(initial)") else head["commit"],
        "upstream": head["upstream"],
        "ahead": ahead,
        "behind": behind,
        "clean": not any(found.values()),
        **{name: _bounded(files, max_files) for name, files in found.items()},
    }


def _header(text: str, head: dict[str, Any]) -> None:
    key, _, value = text.partition(" ")
    if key == "branch.oid":
        head["commit"] = value
    elif key == "branch.head":
        head["branch"] = value
    elif key == "branch.upstream":
        head["upstream"] = value
    elif key == "branch.ab":
        ahead, _, behind = value.partition(" ")
        head["ab"] = (int(ahead.lstrip("+")), int(behind.lstrip("-")))


def _changed(record: str, original: str | None, found: dict[str, list[dict[str, Any]]]) -> None:
    """An ordinary (``1``), renamed or copied (``2``) or unmerged (``u``) entry: its path is
    the last field, after a fixed number of spaces (a path may hold spaces itself)."""
    kind, xy = record[0], record[2:4]
    fields = {"1": 8, "2": 9, "u": 10}[kind]
    path = record.split(" ", fields)[fields]
    if kind == "u":
        found["conflicted"].append(_file(path, "unmerged"))
        return
    index, worktree = xy[0], xy[1]
    if index != ".":
        found["staged"].append(_file(path, _STATUS.get(index, index), original))
    if worktree != ".":
        found["unstaged"].append(_file(path, _STATUS.get(worktree, worktree)))


def _file(path: str, status: str, original: str | None = None) -> dict[str, Any]:
    return {"path": path, "status": status, "original_path": original}


def _bounded(files: list[dict[str, Any]], max_files: int) -> dict[str, Any]:
    return {"count": len(files), "truncated": len(files) > max_files, "files": files[:max_files]}
