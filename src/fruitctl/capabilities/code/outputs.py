"""What the code tools answer, as types (their ``returns`` and ``outputSchema``)."""

from __future__ import annotations

from typing_extensions import TypedDict


class ChangedFile(TypedDict):
    path: str
    status: str
    """modified, added, deleted, renamed, copied, type_changed, unmerged or untracked."""
    original_path: str | None
    """For a rename or a copy: where the file came from."""


class FileList(TypedDict):
    count: int
    truncated: bool
    files: list[ChangedFile]


class GitStatus(TypedDict):
    repository: str
    branch: str | None
    detached: bool
    commit: str | None
    upstream: str | None
    ahead: int | None
    behind: int | None
    clean: bool
    staged: FileList
    unstaged: FileList
    untracked: FileList
    conflicted: FileList


class Finding(TypedDict):
    tool: str
    file: str | None
    line: int | None
    column: int | None
    code: str | None
    severity: str
    message: str


class LinterRun(TypedDict):
    linter: str
    status: str
    """ran, missing (not installed for the chosen Python) or failed (it could not check)."""
    python: str | None
    count: int
    error: str | None


class LintReport(TypedDict):
    path: str
    linters: list[LinterRun]
    count: int
    truncated: bool
    findings: list[Finding]


class FailedTest(TypedDict):
    node_id: str
    outcome: str
    """failed or error."""
    message: str | None
    output: str
    output_truncated: bool


class PytestReport(TypedDict):
    path: str
    python: str
    python_source: str
    """project_venv (the path's own .venv) or fruitctl (the Python fruitctl runs on)."""
    exit_code: int
    timed_out: bool
    passed: int
    failed: int
    errors: int
    skipped: int
    total: int
    duration_seconds: float
    failures: list[FailedTest]
    failures_truncated: bool
    output_tail: str | None
    """When pytest ran no test: the end of what it printed, to say why."""
