"""How ``fruitctl proposals list`` and ``show`` draw proposals: apart from the commands (Typer),
so the short way to a daemon (``cli.fast``) draws them exactly as the full CLI does."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text

from fruitctl.approvals.hidden import HIDDEN_WARNING, hides_text
from fruitctl.cli.output import err, out, show_table, shown
from fruitctl.domain.wording import spoken_when

HIDDEN_MARK = "⚠"
EMPTY = "Nothing is waiting for you (all of them: --status all)."


def show_list(rows: list[dict[str, Any]]) -> None:
    show_table(
        ("ID", "STATUS", "TOOL", "SUMMARY", "BY", "CREATED"),
        (
            (
                r["id"],
                status_text(r["status"]),
                r["tool"],
                summary(r),
                shown(r["actor"]),
                when(r["createdAt"]),
            )
            for r in rows
        ),
        empty=EMPTY,
    )
    if any(hides_text(r) for r in rows):
        legend = "marks a proposal that holds invisible or direction-changing characters"
        err.print(Text(f"{HIDDEN_MARK} {legend}, shown as [U+…]: read it carefully.", "yellow"))


def summary(row: dict[str, Any]) -> Text:
    """The summary, after a mark (first, so a narrow terminal cannot wrap it out of sight)
    when the proposal holds hidden characters anywhere."""
    if not hides_text(row):
        return shown(row["summary"])
    return Text(f"{HIDDEN_MARK} ", "bold yellow") + shown(row["summary"])


def when(moment: str | None) -> str:
    return spoken_when(moment) if moment else "-"


def show_one(p: dict[str, Any]) -> None:
    # Summary, actor, diff, error and reason hold what agents and other apps wrote: shown().
    out.print(
        Text.assemble((p["id"], "bold"), "  ", status_text(p["status"]), "  ", shown(p["summary"]))
    )
    if hides_text(p):
        out.print(Text(f"{HIDDEN_MARK} {HIDDEN_WARNING}", "bold yellow"))
    out.print(
        Text("by ")
        + shown(p["actor"])
        + Text(f" · created {when(p['createdAt'])} · expires {when(p['expiresAt'])}")
    )
    if p["resolvedBy"]:
        decided = Text(f" at {when(p['resolvedAt'])}")
        out.print(Text("decided by ") + shown(p["resolvedBy"]) + decided)
    if p["diff"]:
        _show_diff(p["diff"])
    if p["error"] and not failed_items(p):
        err.print(Text("error: ", "bold red") + shown(str(p["error"].get("message"))))
    if p["reason"]:
        out.print(Text("reason: ") + shown(p["reason"]))


def _show_diff(diff: list[dict[str, Any]]) -> None:
    from rich.table import Table

    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("TARGET", "FIELD", "BEFORE", "AFTER"):
        table.add_column(column)
    for row in diff:
        table.add_row(
            shown(str(row["target"])),
            shown(str(row["field"])),
            _value(row["before"]),
            _value(row["after"]),
        )
    out.print(table)


def failed_items(proposal: dict[str, Any]) -> list[dict[str, Any]]:
    """The items of an executed batch that failed (seed 002's partial-failure answer)."""
    result = proposal.get("result")
    failed = result.get("failed") if isinstance(result, dict) else None
    return list(failed) if isinstance(failed, list) else []


def _value(value: Any) -> Text:
    """A diff value; a note keeps its lines (never a carriage return, which would let the
    text after it overwrite the line on a terminal)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return shown("-" if value is None else text, keep="\n\t")


def status_text(status: str) -> Text:
    colour = {"PENDING": "yellow", "EXECUTED": "green", "FAILED": "red", "REJECTED": "red"}
    return Text(status, style=colour.get(status, ""))
