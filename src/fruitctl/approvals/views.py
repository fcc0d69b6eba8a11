"""Proposals as callers see them: the pending answer a write gets (how to approve it, where
its page is) and the whole proposal with its diff, result, error and whether it can be undone."""

from __future__ import annotations

import json
from typing import Any

from fruitctl.domain.dates import format_epoch
from fruitctl.tools.model import Change


def moment(epoch: float | None) -> str | None:
    return None if epoch is None else format_epoch(epoch)


def pending(row: dict[str, Any], url: str | None) -> dict[str, Any]:
    """What a write filed as a proposal answers."""
    return {
        "status": "pending",
        "proposalId": row["id"],
        "summary": row["summary"],
        "expiresAt": moment(row["expires_at"]),
        "approve": f"fruitctl proposals approve {row['id']}",
        "url": url,
    }


def proposal(row: dict[str, Any], change: Change) -> dict[str, Any]:
    """The whole proposal, its arguments shown as ``change`` describes them."""
    args = json.loads(row["args"])
    before = json.loads(row["before"])
    return {
        "id": row["id"],
        "tool": row["tool"],
        "status": row["status"],
        "summary": row["summary"],
        "actor": row["actor"],
        "createdAt": moment(row["created_at"]),
        "expiresAt": moment(row["expires_at"]),
        "resolvedAt": moment(row["resolved_at"]),
        "resolvedBy": row["resolved_by"],
        "reason": row["reason"],
        "args": args,
        "diff": change.diff(args, before),
        "result": json.loads(row["result"]) if row["result"] else None,
        "error": json.loads(row["error"]) if row["error"] else None,
        "canUndo": row["status"] == "EXECUTED" and bool(json.loads(row["inverse"] or "null")),
        "undoOf": row["undo_of"],
        "idempotencyKey": row["idempotency_key"],
    }
