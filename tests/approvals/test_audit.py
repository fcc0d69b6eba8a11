"""The audit log on a real state.db: a hash chain that grows, commits with the change it records,
refuses edits through SQL, and names the row when someone edits the file behind its back."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError
from typer.testing import CliRunner

import fruitctl.approvals.audit as audit_module

# The root app first, as the entry point does: it registers `audit` while it loads, so loading
# fruitctl.cli.audit first would meet it half-initialised.
import fruitctl.cli.app  # noqa: F401
import fruitctl.cli.audit as audit_cli
from fruitctl.approvals.audit import GENESIS, AuditLog
from fruitctl.cli.client import LocalClient
from fruitctl.domain.errors import InvalidParams
from fruitctl.store import open_database
from fruitctl.store.engine import WRITE_OPTION

WRITE = {WRITE_OPTION: True}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "state.db"


@pytest.fixture
def engine(db: Path) -> Iterator[Engine]:
    engine = open_database(db, "state", synchronous="FULL")
    yield engine
    engine.dispose()


@pytest.fixture
def log(engine: Engine) -> AuditLog:
    return AuditLog(engine)


def fill(log: AuditLog, count: int) -> None:
    for i in range(count):
        log.record(
            event="proposal.created", actor="agent:claude", proposal_id=f"p{i}", payload={"i": i}
        )


def tamper(db: Path, *statements: str) -> None:
    """Edit the file as an attacker with the file would: drop the triggers, then write."""
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER IF EXISTS audit_log_no_update")
    conn.execute("DROP TRIGGER IF EXISTS audit_log_no_delete")
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


def messages(log: AuditLog) -> list[str]:
    report = log.verify()
    assert report["ok"] is not bool(report["problems"])
    return [p["message"] for p in report["problems"]]


# --- the chain -------------------------------------------------------------------------------


def test_the_chain_grows_and_verifies(log: AuditLog) -> None:
    assert log.verify() == {"ok": True, "checked": 0, "problems": []}
    first = log.record(
        event="write.direct", actor="cli:me", tool="create_reminders", payload={"notes": "full"}
    )
    fill(log, 4)
    assert first["seq"] == 1 and first["payload"] == {"notes": "full"}  # kept, not redacted
    assert log.verify() == {"ok": True, "checked": 5, "problems": []}
    assert [e["seq"] for e in log.entries()] == [5, 4, 3, 2, 1]


def test_the_hash_is_the_documented_formula(log: AuditLog, engine: Engine) -> None:
    entry = log.record(event="e", actor="a", payload={"b": 1, "a": "è"})
    body = json.dumps(
        [1, entry["at"], "a", "e", None, None, {"a": "è", "b": 1}],
        sort_keys=True,
        separators=(",", ":"),
    )
    assert entry["hash"] == hashlib.sha256(f"{GENESIS}\n{body}".encode()).hexdigest()
    with engine.connect() as conn:
        stored, head = conn.execute(
            text(
                "SELECT payload, (SELECT value FROM config WHERE key = 'audit.head') FROM audit_log"
            )
        ).one()
    assert stored == '{"a":"\\u00e8","b":1}'
    assert json.loads(head) == {"seq": 1, "hash": entry["hash"]}


def test_at_is_iso_8601_with_an_offset(log: AuditLog) -> None:
    at = log.record(event="e", actor="a", payload={})["at"]
    assert datetime.fromisoformat(at).utcoffset() is not None and at[-6] in "+-"


# --- transactions ----------------------------------------------------------------------------


def test_an_entry_commits_with_the_change_it_records(log: AuditLog, engine: Engine) -> None:
    with engine.execution_options(**WRITE).begin() as conn:
        conn.execute(text("INSERT INTO settings VALUES ('x', '1', 'now', 'me')"))
        log.append(conn, event="setting.changed", actor="me", payload={"x": 1})
    assert len(log.entries()) == 1 and log.verify()["ok"]


def test_an_append_in_a_rolled_back_transaction_leaves_nothing(
    log: AuditLog, engine: Engine
) -> None:
    fill(log, 1)
    writer = engine.execution_options(**WRITE)
    with pytest.raises(RuntimeError, match="the change failed"), writer.begin() as conn:
        log.append(conn, event="write.executed", actor="me", payload={})
        raise RuntimeError("the change failed")
    assert [e["seq"] for e in log.entries()] == [1]
    assert log.verify() == {"ok": True, "checked": 1, "problems": []}
    assert log.record(event="next", actor="me", payload={})["seq"] == 2


def test_the_write_option_is_the_stores() -> None:
    assert audit_module.WRITE_OPTION == WRITE_OPTION


def test_append_refuses_a_connection_without_a_write_transaction(
    log: AuditLog, engine: Engine
) -> None:
    with engine.begin() as conn, pytest.raises(RuntimeError, match="write transaction"):
        log.append(conn, event="e", actor="a", payload={})
    assert log.entries() == []


def test_update_and_delete_through_sql_are_refused(log: AuditLog, engine: Engine) -> None:
    fill(log, 2)
    writer = engine.execution_options(**WRITE)
    for statement in ("UPDATE audit_log SET actor = 'someone else'", "DELETE FROM audit_log"):
        with pytest.raises(DBAPIError, match="append-only"), writer.begin() as conn:
            conn.execute(text(statement))
    assert log.verify() == {"ok": True, "checked": 2, "problems": []}


def test_concurrent_writers_each_with_an_engine_keep_one_chain(db: Path, log: AuditLog) -> None:
    # Separate engines, as separate processes would have; IMMEDIATE serialises them.
    engines = [open_database(db, "state", synchronous="FULL") for _ in range(4)]
    start = threading.Barrier(len(engines))
    failures: list[BaseException] = []

    def write(writer: AuditLog, who: int) -> None:
        start.wait()
        try:
            for i in range(10):
                writer.record(event="e", actor=f"w{who}", payload={"i": i})
        except BaseException as exc:  # reported below: a thread's exception is otherwise lost
            failures.append(exc)

    threads = [threading.Thread(target=write, args=(AuditLog(e), n)) for n, e in enumerate(engines)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for e in engines:
        e.dispose()
    assert failures == []
    seqs = [e["seq"] for e in log.entries(limit=1000)]
    assert sorted(seqs) == list(range(1, 41))
    assert log.verify() == {"ok": True, "checked": 40, "problems": []}


# --- tampering -------------------------------------------------------------------------------


def test_an_edited_payload_names_its_row(log: AuditLog, db: Path) -> None:
    fill(log, 4)
    tamper(db, """UPDATE audit_log SET payload = '{"i":99}' WHERE seq = 2""")
    assert messages(log) == ["row 2 was edited (hash mismatch)"]
    assert log.verify()["problems"][0]["seq"] == 2


def test_a_payload_that_is_no_longer_json_counts_as_edited(log: AuditLog, db: Path) -> None:
    fill(log, 2)
    tamper(db, "UPDATE audit_log SET payload = 'not json' WHERE seq = 1")
    assert messages(log) == ["row 1 was edited (hash mismatch)"]


def test_a_removed_middle_row_is_reported(log: AuditLog, db: Path) -> None:
    fill(log, 5)
    tamper(db, "DELETE FROM audit_log WHERE seq IN (2, 3)")
    assert messages(log) == ["seq gap: rows 2..3 are missing"]


def test_a_removed_first_row_is_reported(log: AuditLog, db: Path) -> None:
    fill(log, 3)
    tamper(db, "DELETE FROM audit_log WHERE seq = 1")
    assert messages(log) == ["seq gap: row 1 is missing"]


def test_renumbered_rows_do_not_follow(log: AuditLog, db: Path) -> None:
    fill(log, 4)
    tamper(db, "DELETE FROM audit_log WHERE seq = 2", "UPDATE audit_log SET seq = 2 WHERE seq = 3")
    problems = messages(log)
    assert "row 2 does not follow row 1 (a row was removed or reordered)" in problems
    assert "row 2 was edited (hash mismatch)" in problems  # the seq is hashed too


def test_a_removed_last_row_is_caught_by_the_chain_head(log: AuditLog, db: Path) -> None:
    fill(log, 3)
    tamper(db, "DELETE FROM audit_log WHERE seq = 3")
    assert messages(log) == [
        "the last row's hash does not match the recorded chain head (last row 2, head row 3)"
    ]


def test_a_removed_last_row_stays_reported_after_the_next_append(log: AuditLog, db: Path) -> None:
    # The next row links to the head, not to the table's last row, so it cannot paper over it.
    fill(log, 3)
    tamper(db, "DELETE FROM audit_log WHERE seq = 3")
    assert log.record(event="e", actor="a", payload={})["seq"] == 4
    assert messages(log) == ["seq gap: row 3 is missing"]


def test_removing_every_row_is_caught_by_the_chain_head(log: AuditLog, db: Path) -> None:
    fill(log, 2)
    tamper(db, "DELETE FROM audit_log")
    assert messages(log) == ["the log is empty but the chain head records row 2"]


def test_a_removed_chain_head_is_reported(log: AuditLog, db: Path) -> None:
    fill(log, 2)
    tamper(db, "DELETE FROM config WHERE key = 'audit.head'")
    assert messages(log) == ["the log has rows but no recorded chain head (it is missing)"]


def test_a_forged_row_is_reported(log: AuditLog, db: Path) -> None:
    fill(log, 2)
    last = log.entries(limit=1)[0]["hash"]
    tamper(
        db,
        "INSERT INTO audit_log (seq, at, actor, event, payload, prev_hash, hash) VALUES "
        f"(3, '2026-01-01T00:00:00+01:00', 'me', 'forged', '{{}}', '{last}', '{'f' * 64}')",
    )
    assert messages(log) == [
        "row 3 was edited (hash mismatch)",
        "the last row's hash does not match the recorded chain head (last row 3, head row 2)",
    ]
    # Appending after a forgery neither fails nor hides it: the new row follows the head.
    assert log.record(event="e", actor="a", payload={})["seq"] == 4
    assert "row 4 does not follow row 3 (a row was removed or reordered)" in messages(log)


# --- reading ---------------------------------------------------------------------------------


def test_entries_filter_by_proposal_and_limit(log: AuditLog) -> None:
    fill(log, 5)
    only = log.entries(proposal_id="p3")
    assert [(e["seq"], e["proposalId"], e["payload"]) for e in only] == [(4, "p3", {"i": 3})]
    assert [e["seq"] for e in log.entries(limit=2)] == [5, 4]
    assert set(only[0]) == {"seq", "at", "actor", "event", "proposalId", "tool", "payload", "hash"}


def test_entries_since_compares_instants_across_a_dst_change(
    log: AuditLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Rome falls back at 03:00 on 2026-10-25: 02:30+02:00 is 00:30Z, the later 02:10+01:00 is
    # 01:10Z, yet its text sorts first. Only the instant may decide.
    for stamp in ("2026-10-25T02:30:00+02:00", "2026-10-25T02:10:00+01:00"):
        monkeypatch.setattr(audit_module, "now", lambda s=stamp: datetime.fromisoformat(s))
        log.record(event="e", actor="a", payload={})
    one_am_utc = datetime.fromisoformat("2026-10-25T01:00:00+00:00").timestamp()
    assert [e["seq"] for e in log.entries(since=one_am_utc)] == [2]
    assert [e["seq"] for e in log.entries(since=one_am_utc - 3600)] == [2, 1]


def test_entries_rejects_a_limit_below_one(log: AuditLog) -> None:
    with pytest.raises(InvalidParams, match="at least 1"):
        log.entries(limit=0)


# --- the CLI ---------------------------------------------------------------------------------

runner = CliRunner()


@pytest.fixture
def cli(log: AuditLog, monkeypatch: pytest.MonkeyPatch) -> Any:
    local = LocalClient(SimpleNamespace(audit=log, remote=None))  # type: ignore[arg-type]
    monkeypatch.setattr(audit_cli, "client", lambda as_json=False: local)
    return lambda *args: runner.invoke(audit_cli.audit_app, list(args))


def test_cli_lists_entries_as_a_table(cli: Any, log: AuditLog) -> None:
    log.record(event="write.direct", actor="cli:[bold]me", tool="create_reminders", payload={})
    log.record(event="proposal.created", actor="agent:claude", proposal_id="p1", payload={})
    result = cli()
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["SEQ", "AT", "ACTOR", "EVENT", "PROPOSAL", "TOOL"]
    assert lines[1].split()[2:] == ["agent:claude", "proposal.created", "p1", "-"]
    assert lines[2].split()[2:] == ["cli:[bold]me", "write.direct", "-", "create_reminders"]


def test_cli_json_and_filters(cli: Any, log: AuditLog) -> None:
    fill(log, 3)
    listed = json.loads(cli("--json").stdout)
    assert [e["seq"] for e in listed] == [3, 2, 1] and listed[0]["payload"] == {"i": 2}
    assert [e["seq"] for e in json.loads(cli("--proposal", "p0", "--json").stdout)] == [1]
    assert [e["seq"] for e in json.loads(cli("--limit", "1", "--json").stdout)] == [3]
    assert len(json.loads(cli("--since", "1h", "--json").stdout)) == 3
    assert "No audit entries." in cli("--proposal", "nope").stdout


def test_cli_rejects_a_bad_since(cli: Any) -> None:
    result = cli("--since", "yesterday")
    assert result.exit_code == 2 and "--since must look like" in result.stderr


def test_cli_verify_intact(cli: Any, log: AuditLog) -> None:
    fill(log, 3)
    result = cli("verify")
    assert result.exit_code == 0 and result.stdout.strip() == "ok: 3 entries, chain intact"
    assert json.loads(cli("verify", "--json").stdout) == {"ok": True, "checked": 3, "problems": []}


def test_cli_verify_names_the_tampered_rows(cli: Any, log: AuditLog, db: Path) -> None:
    fill(log, 3)
    tamper(db, "UPDATE audit_log SET actor = 'nobody' WHERE seq = 2")
    result = cli("verify")
    assert result.exit_code == 4 and result.stdout == ""
    assert "row 2 was edited (hash mismatch)" in result.stderr
    as_json = cli("verify", "--json")
    report = json.loads(as_json.stdout)
    assert as_json.exit_code == 4 and report["ok"] is False and report["checked"] == 3
    assert report["problems"] == [{"seq": 2, "message": "row 2 was edited (hash mismatch)"}]
