"""delete_file over the HTTP API (``POST /tools/delete_file``): an agent's call is a 202
proposal showing the file, an admin approves, and ``/undo`` files the restore."""

from __future__ import annotations

from pathlib import Path

from conftest import Client


def test_delete_and_undo_over_http(agent: Client, admin: Client, home: Path) -> None:
    workspace = home / "workspace"
    workspace.mkdir(parents=True)
    target = workspace / "report.csv"
    target.write_text("a,b\n1,2\n")
    target.chmod(0o600)
    proposed = agent.post("/tools/delete_file", json={"path": str(target)})
    assert proposed.status_code == 202, proposed.text
    proposal = proposed.json()["proposalId"]
    shown = agent.get(f"/proposals/{proposal}").json()
    fields = {row["field"]: row for row in shown["diff"]}
    assert fields["first lines"]["before"] == "a,b\n1,2\n"
    assert fields["file"]["before"].startswith("8 bytes, mode 0600")
    assert agent.post(f"/proposals/{proposal}/approve").status_code == 403
    assert target.exists()

    approved = admin.post(f"/proposals/{proposal}/approve")
    assert approved.json()["status"] == "EXECUTED" and not target.exists()
    undo = admin.post(f"/proposals/{proposal}/undo")
    assert undo.status_code == 202
    restored = admin.post(f"/proposals/{undo.json()['proposalId']}/approve")
    assert restored.json()["status"] == "EXECUTED"
    assert target.read_text() == "a,b\n1,2\n" and (target.stat().st_mode & 0o777) == 0o600


def test_http_refuses_a_folder_and_outside_paths(agent: Client, home: Path) -> None:
    workspace = home / "workspace"
    (workspace / "sub").mkdir(parents=True)
    folder = agent.post("/tools/delete_file", json={"path": str(workspace / "sub")})
    assert folder.status_code == 422 and "is a folder" in folder.text
    outside = agent.post("/tools/delete_file", json={"path": "/etc/hostname"})
    assert outside.status_code == 403
    assert (workspace / "sub").is_dir()
