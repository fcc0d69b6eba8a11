"""delete_file and its undo through the gateway, on real files and the real approval store: the
proposal shows what a person needs, approval deletes and keeps a copy, undo puts back bytes and
mode, and every refusal (link, folder, outside, fruitctl's own files, changed meanwhile) leaves
the file where it was."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fruitctl import bootstrap
from fruitctl.capabilities.files.kept import KeptFiles
from fruitctl.capabilities.files.service import FileService
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import Conflict, InvalidParams, NotFound, PermissionDenied
from fruitctl.domain.path_rules import PathRules

AGENT = Actor("agent", "test-agent")
HUMAN = Actor("human", "tester")


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


@pytest.fixture
def workspace(home: Path) -> Path:
    folder = home / "workspace"
    folder.mkdir(parents=True)
    return folder


def propose(app: bootstrap.App, path: Path | str) -> dict[str, Any]:
    result = app.gateway.invoke("delete_file", {"path": str(path)}, AGENT)
    assert result.success, result.error
    assert result.output["status"] == "pending"
    return dict(result.output)


def rows(view: dict[str, Any]) -> dict[str, Any]:
    return {row["field"]: row for row in view["diff"]}


def test_a_deletion_waits_for_a_person_shows_the_file_and_can_be_undone(
    app: bootstrap.App, home: Path, workspace: Path
) -> None:
    target = workspace / "notes.txt"
    target.write_text("".join(f"line {n}\n" for n in range(1, 30)))
    target.chmod(0o640)
    pending = propose(app, target)
    assert target.exists()  # nothing happens before approval
    view = app.approvals.get(pending["proposalId"])
    shown = rows(view)
    assert shown["file"]["before"].startswith(f"{target.stat().st_size} bytes, mode 0640")
    assert "modified 20" in shown["file"]["before"] and shown["file"]["after"] == "deleted"
    assert shown["first lines"]["before"] == "".join(f"line {n}\n" for n in range(1, 11))
    assert shown["undo"]["after"] == "possible for 24 hours (a copy is kept)"
    assert view["summary"] == f"Delete {target} ({target.stat().st_size} bytes)"

    done = app.gateway.decide(pending["proposalId"], "approve", HUMAN)
    assert done["status"] == "EXECUTED" and done["result"]["kept"] is True
    assert not target.exists()
    kept = home / "kept"
    assert (kept.stat().st_mode & 0o777) == 0o700
    assert len(list(kept.glob("*.bin"))) == 1

    undo = app.gateway.decide(pending["proposalId"], "undo", HUMAN)
    assert not target.exists()  # an undo is a proposal too
    assert rows(app.approvals.get(undo["proposalId"]))["file"]["before"] == "no file"
    restored = app.gateway.decide(undo["proposalId"], "approve", HUMAN)
    assert restored["status"] == "EXECUTED", restored
    assert target.read_text().startswith("line 1\nline 2\n")
    assert (target.stat().st_mode & 0o777) == 0o640
    assert list(kept.iterdir()) == []  # the copy goes once the file is back


def test_undo_never_replaces_what_now_exists(app: bootstrap.App, workspace: Path) -> None:
    target = workspace / "a.txt"
    target.write_text("old\n")
    pending = propose(app, target)
    app.gateway.decide(pending["proposalId"], "approve", HUMAN)
    undo = app.gateway.decide(pending["proposalId"], "undo", HUMAN)
    target.write_text("new\n")
    failed = app.gateway.invoke(
        "restore_file", {"path": str(target), "kept": _kept_id(app, pending)}, HUMAN
    )
    assert failed.error_code == "conflict" and "exists" in (failed.error or "")
    with pytest.raises(Conflict):
        app.gateway.decide(undo["proposalId"], "approve", HUMAN)
    assert app.approvals.get(undo["proposalId"])["status"] == "FAILED"
    assert target.read_text() == "new\n"


def _kept_id(app: bootstrap.App, pending: dict[str, Any]) -> str:
    return str(app.approvals.get(pending["proposalId"])["result"]["keptId"])


def test_a_file_too_large_to_keep_says_so_before_approval(home: Path, workspace: Path) -> None:
    (home / "governance.yaml").write_text("tools:\n  delete_file: {max_file_size_mb: 0.001}\n")
    built = bootstrap.build()
    try:
        target = workspace / "big.bin"
        target.write_bytes(b"\0\1" * 1000)  # 2000 bytes, over 1048
        pending = propose(built, target)
        view = built.approvals.get(pending["proposalId"])
        assert "cannot be undone" in view["summary"]
        shown = rows(view)
        assert shown["undo"]["after"].startswith("not possible: the file is over the size limit")
        assert shown["first lines"]["before"] == "(a binary file: not shown)"
        done = built.gateway.decide(pending["proposalId"], "approve", HUMAN)
        assert done["status"] == "EXECUTED" and done["result"]["kept"] is False
        assert not target.exists()
        assert not (home / "kept").exists() or list((home / "kept").iterdir()) == []
        undo = built.gateway.invoke("delete_file", {"path": str(target)}, HUMAN)
        assert undo.error_code == "not_found"
        with pytest.raises(InvalidParams, match="cannot be undone"):
            built.gateway.decide(pending["proposalId"], "undo", HUMAN)
    finally:
        built.close()


def test_a_file_changed_after_the_proposal_is_not_deleted(
    app: bootstrap.App, workspace: Path
) -> None:
    target = workspace / "a.txt"
    target.write_text("first\n")
    pending = propose(app, target)
    target.write_text("second\n")
    with pytest.raises(Conflict, match="changed since it was filed"):
        app.gateway.decide(pending["proposalId"], "approve", HUMAN)
    assert app.approvals.get(pending["proposalId"])["status"] == "FAILED"
    assert target.read_text() == "second\n"


@pytest.mark.parametrize("who", [AGENT, HUMAN], ids=["agent", "person"])
def test_refusals_leave_everything_in_place(
    app: bootstrap.App, home: Path, workspace: Path, tmp_path: Path, who: Actor
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n")
    (workspace / "link").symlink_to(outside)
    (workspace / "folder").mkdir()
    state = home / "notes.txt"  # in fruitctl's data folder, outside the workspace: its own
    state.write_text("ours\n")

    def refused(path: Path) -> tuple[str | None, str]:
        result = app.gateway.invoke("delete_file", {"path": str(path)}, who)
        assert not result.success
        return result.error_code, result.error or ""

    assert refused(outside)[0] == "permission_denied"
    assert refused(workspace / "link")[0] == "permission_denied"
    assert refused(state)[0] == "permission_denied"
    assert refused(home / "governance.yaml")[0] == "permission_denied"
    code, message = refused(workspace / "folder")
    assert code == "invalid_params" and "is a folder" in message
    assert "symbolic link" in refused(workspace / "link")[1]
    assert outside.read_text() == "keep\n" and (workspace / "link").is_symlink()
    assert (workspace / "folder").is_dir() and state.exists()


def test_a_file_swapped_for_a_folder_or_link_after_the_proposal_stays(
    app: bootstrap.App, workspace: Path, tmp_path: Path
) -> None:
    # Judged again at approval: the path rules refuse the swap before anything is touched.
    for swapped, refusal in (("folder", InvalidParams), ("link", PermissionDenied)):
        target = workspace / swapped
        target.write_text("x\n")
        pending = propose(app, target)
        target.unlink()
        if swapped == "folder":
            target.mkdir()
        else:
            target.symlink_to(tmp_path)
        with pytest.raises(refusal):
            app.gateway.decide(pending["proposalId"], "approve", HUMAN)
        assert target.is_dir() and (swapped == "folder" or target.is_symlink())


def test_lockdown_forbids_it_and_every_other_mode_asks(app: bootstrap.App) -> None:
    rules = app.gateway.context.rules("delete_file")
    assert rules.verdicts() == {
        "NORMAL": "approve",
        "ALERT": "approve",
        "DEGRADED": "approve",
        "RECOVERY": "approve",
        "LOCKDOWN": "deny",
    }
    assert app.gateway.context.rules("restore_file").verdicts() == rules.verdicts()


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_copies_past_their_window_are_swept_and_cannot_be_restored(tmp_path: Path) -> None:
    root = Path(os.path.realpath(tmp_path)) / "root"
    root.mkdir()
    clock = Clock()
    kept = KeptFiles(tmp_path / "kept", clock)
    service = FileService(kept)
    rules = PathRules.from_patterns([f"{root}/**"], [])
    (root / "a.txt").write_text("a\n")
    first = service.delete_file(str(root / "a.txt"), rules, 1024, 60)
    assert first["kept"] and len(list((tmp_path / "kept").glob("*.json"))) == 1
    clock.now += 61
    with pytest.raises(NotFound, match="gone"):
        service.restore_file(str(root / "a.txt"), first["keptId"], rules)
    (root / "b.txt").write_text("b\n")
    second = service.delete_file(str(root / "b.txt"), rules, 1024, 60)  # sweeps the first
    names = sorted(p.name for p in (tmp_path / "kept").iterdir())
    assert names == [f"{second['keptId']}.bin", f"{second['keptId']}.json"]
    with pytest.raises(Exception, match="not of"):
        service.restore_file(str(root / "a.txt"), second["keptId"], rules)
    assert service.restore_file(str(root / "b.txt"), second["keptId"], rules)["size"] == 2
    assert (root / "b.txt").read_text() == "b\n" and not (root / "a.txt").exists()
