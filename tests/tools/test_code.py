"""The code tools on real projects: a git repository made here, ruff and mypy on a package with
one finding each, pytest on a suite with one passing and one failing test."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from code_projects import git, make_lint_project, make_repo, make_test_project

from fruitctl import bootstrap
from fruitctl.capabilities.code.service import git as git_service
from fruitctl.capabilities.code.service.git import parse_status
from fruitctl.capabilities.code.service.lint import run_linters
from fruitctl.capabilities.code.service.testrun import run_pytest, summarize
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import Unsupported
from fruitctl.domain.path_rules import PathRules

AGENT = Actor("agent", "test")


@pytest.fixture
def workspace(home: Path) -> Path:
    place = home / "workspace"
    place.mkdir(parents=True)
    return place


@pytest.fixture
def app(home: Path) -> Any:
    built = bootstrap.build()
    yield built
    built.close()


def call(app: bootstrap.App, name: str, args: dict[str, Any]) -> Any:
    return app.gateway.invoke(name, args, AGENT)


# -- git_status ------------------------------------------------------------------------------------


@pytest.mark.process
def test_git_status_reads_branch_upstream_and_every_list(
    app: bootstrap.App, workspace: Path
) -> None:
    repo = make_repo(workspace)
    result = call(app, "git_status", {"path": str(repo)})
    assert result.success, result.error
    status = result.output
    assert status["repository"] == str(repo.resolve())
    assert (status["branch"], status["detached"], status["upstream"]) == ("main", False, "base")
    assert (status["ahead"], status["behind"]) == (1, 1)
    assert status["commit"] == git(repo, "rev-parse", "HEAD").strip()
    assert status["staged"]["files"] == [
        {"path": "staged.txt", "status": "added", "original_path": None}
    ]
    assert status["unstaged"]["files"] == [
        {"path": "tracked.txt", "status": "modified", "original_path": None}
    ]
    assert [f["path"] for f in status["untracked"]["files"]] == ["new file.txt"]
    assert status["conflicted"]["count"] == 0 and status["clean"] is False
    refused = call(app, "run_linter", {"path": "/etc"})
    assert refused.error_code == "permission_denied"
    rows = {row["tool"]: row for row in app.stats(0)}  # the gateway's telemetry, as every tool's
    assert rows["git_status"]["calls"] == 1 and rows["git_status"]["failed"] == 0
    assert rows["run_linter"]["calls"] == 1


@pytest.mark.process
def test_git_status_of_a_detached_head_and_a_bounded_list(
    app: bootstrap.App, workspace: Path
) -> None:
    repo = make_repo(workspace)
    for number in range(5):
        (repo / f"extra{number}.txt").write_text("x")
    git(repo, "stash", "-q")  # keep the untracked files, leave the staged and changed ones
    git(repo, "switch", "-q", "--detach", "HEAD~1")
    status = call(app, "git_status", {"path": str(repo), "max_files": 2}).output
    assert status["detached"] is True and status["branch"] is None
    assert status["upstream"] is None and status["ahead"] is None
    assert status["untracked"]["count"] == 6
    assert len(status["untracked"]["files"]) == 2 and status["untracked"]["truncated"] is True


@pytest.mark.process
def test_git_status_runs_no_program_the_repository_names(
    app: bootstrap.App, workspace: Path
) -> None:
    repo = make_repo(workspace)
    marker = workspace / "ran"
    hook = workspace / "monitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(hook))
    git(repo, "status", "--porcelain")  # plain git does run it: the check below can fail
    assert marker.exists()
    marker.unlink()
    assert call(app, "git_status", {"path": str(repo)}).success
    assert not marker.exists()


@pytest.mark.process
def test_git_status_refusals_name_what_is_wrong(
    app: bootstrap.App, workspace: Path, tmp_path: Path
) -> None:
    plain = workspace / "plain"
    plain.mkdir()
    not_repo = call(app, "git_status", {"path": str(plain)})
    assert not_repo.error_code == "invalid_params" and "not inside a git repository" in (
        not_repo.error or ""
    )
    link = workspace / "link"
    link.symlink_to(make_repo(workspace))
    linked = call(app, "git_status", {"path": str(link)})
    assert linked.error_code == "permission_denied" and "symbolic link" in (linked.error or "")
    outside = call(app, "git_status", {"path": "/etc"})
    assert outside.error_code == "permission_denied"
    git(tmp_path, "init", "-q")  # a repository around the home: its top is not allowed
    above = call(app, "git_status", {"path": str(plain)})
    assert above.error_code == "permission_denied" and "outside the folders" in (above.error or "")


def test_a_missing_git_is_said(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(git_service, "find_program", lambda name: None)
    with pytest.raises(Unsupported, match="git is not installed"):
        git_service.git_status(str(tmp_path), PathRules.from_patterns([f"{tmp_path}/**"], []), 5)


def test_porcelain_renames_conflicts_and_a_first_commit_are_read() -> None:
    raw = "\0".join(
        [
            "# branch.oid (initial)",
            "# branch.head main",
            "2 R. N... 100644 100644 100644 abc abc R100 new name.txt",
            "old name.txt",
            "u UU N... 100644 100644 100644 100644 a b c both.txt",
            "1 .D N... 100644 100644 000000 abc abc gone.txt",
            "",
        ]
    )
    status = parse_status(raw, 10)
    assert status["commit"] is None and status["branch"] == "main"
    assert status["staged"]["files"] == [
        {"path": "new name.txt", "status": "renamed", "original_path": "old name.txt"}
    ]
    assert status["conflicted"]["files"][0]["path"] == "both.txt"
    assert status["unstaged"]["files"] == [
        {"path": "gone.txt", "status": "deleted", "original_path": None}
    ]


# -- run_linter ------------------------------------------------------------------------------------


@pytest.mark.process
def test_the_linters_find_one_problem_each(app: bootstrap.App, workspace: Path) -> None:
    project = make_lint_project(workspace)
    result = call(app, "run_linter", {"path": str(project)})
    assert result.success, result.error
    report = result.output
    assert [(r["linter"], r["status"], r["count"]) for r in report["linters"]] == [
        ("ruff", "ran", 1),
        ("mypy", "ran", 1),
    ]
    ruff, mypy = report["findings"]
    bad = str(project.resolve() / "bad.py")
    assert (ruff["tool"], ruff["file"], ruff["line"], ruff["column"], ruff["code"]) == (
        "ruff",
        bad,
        1,
        8,
        "F401",
    )
    assert (mypy["tool"], mypy["file"], mypy["line"], mypy["code"]) == (
        "mypy",
        bad,
        5,
        "return-value",
    )
    assert "Incompatible return value" in mypy["message"]
    assert not list(project.glob(".*cache*"))  # nothing written into the project


@pytest.mark.process
def test_the_caller_chooses_the_linters_and_the_bound(workspace: Path) -> None:
    project = make_lint_project(workspace)
    only = run_linters(str(project), ["ruff"], 200)
    assert [r["linter"] for r in only["linters"]] == ["ruff"] and only["count"] == 1
    bounded = run_linters(str(project), ["ruff", "mypy"], 1)
    assert bounded["count"] == 2 and len(bounded["findings"]) == 1 and bounded["truncated"]


@pytest.mark.process
@pytest.mark.slow
def test_a_project_venv_is_used_and_a_missing_linter_said(workspace: Path) -> None:
    project = make_lint_project(workspace)
    venv = [sys.executable, "-m", "venv", "--without-pip", str(project / ".venv")]
    subprocess.run(venv, check=True)
    report = run_linters(str(project), ["ruff", "mypy"], 10)
    assert [r["status"] for r in report["linters"]] == ["missing", "missing"]
    assert report["linters"][0]["python"] == str(project / ".venv" / "bin" / "python")
    assert "ruff is not installed in the project's .venv" in report["linters"][0]["error"]
    with pytest.raises(Unsupported, match=r"pytest is not installed in the project's \.venv"):
        run_pytest(str(project), 30, 512, 5, 500)


# -- run_tests -------------------------------------------------------------------------------------


@pytest.mark.process
@pytest.mark.slow
def test_the_tests_pass_and_fail_with_the_failures_output(
    app: bootstrap.App, workspace: Path
) -> None:
    project = make_test_project(workspace)
    result = call(app, "run_tests", {"path": str(project), "output_chars": 200})
    assert result.success, result.error
    report = result.output
    assert (report["passed"], report["failed"], report["errors"], report["total"]) == (1, 1, 0, 2)
    assert (report["python"], report["python_source"]) == (sys.executable, "fruitctl")
    assert report["exit_code"] == 1 and report["timed_out"] is False
    [failure] = report["failures"]
    assert failure["node_id"] == "test_things.py::test_fails" and failure["outcome"] == "failed"
    assert "apple" in failure["output"] and len(failure["output"]) == 200
    assert failure["output_truncated"] is True
    full = run_pytest(str(project), 60, 1024, 5, 20000)["failures"][0]["output"]
    assert "said before failing" in full and "AssertionError" in full


@pytest.mark.process
@pytest.mark.slow
def test_the_time_and_memory_caps_hold(workspace: Path) -> None:
    project = workspace / "heavy"
    project.mkdir()
    (project / "test_heavy.py").write_text(
        "def test_memory():\n    block = bytearray(1500 * 1024 * 1024)\n    assert block\n"
    )
    capped = run_pytest(str(project), 60, 512, 5, 2000)
    assert capped["failed"] == 1 and "MemoryError" in capped["failures"][0]["output"]
    slow_test = "import time\n\n\ndef test_slow():\n    time.sleep(60)\n"
    (project / "test_heavy.py").write_text(slow_test)
    slow = run_pytest(str(project), 5, 512, 5, 2000)
    assert slow["timed_out"] is True and slow["total"] == 0


def test_an_error_in_setup_is_counted_once() -> None:
    root = ElementTree.fromstring(
        '<testsuites><testsuite><testcase classname="test_x" name="test_a">'
        '<failure message="boom">trace</failure><error message="teardown">t2</error>'
        '</testcase><testcase classname="test_x" name="test_b"><skipped/></testcase>'
        "</testsuite></testsuites>"
    )
    counts, failures = summarize(root, 5, 100)
    assert counts == {"passed": 0, "failed": 0, "errors": 1, "skipped": 1, "total": 2}
    assert failures[0]["outcome"] == "error" and failures[0]["message"] == "teardown"


def test_the_path_must_be_absolute() -> None:
    from fruitctl.domain.errors import InvalidParams

    with pytest.raises(InvalidParams, match="not an absolute path"):
        run_pytest("relative/place", 30, 512, 5, 500)
    assert os.path.isabs(sys.executable)


def test_the_child_checks_the_path_against_the_rules_in_force(home: Path, workspace: Path) -> None:
    from fruitctl.capabilities.code.tools import lint_in_child, tests_in_child
    from fruitctl.domain.errors import PermissionDenied

    (workspace / "other").mkdir()
    (home / "governance.yaml").write_text(
        "tools:\n  run_tests:\n    allowed_paths: ['$WORKSPACE/allowed/**']\n"
    )
    with pytest.raises(PermissionDenied, match="outside the folders"):
        tests_in_child({"path": str(workspace / "other")})
    with pytest.raises(PermissionDenied, match="outside the folders"):
        lint_in_child({"path": "/etc"})
