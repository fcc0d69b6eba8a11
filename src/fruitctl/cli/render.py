"""Human views: aligned tables of lists and reminders, dates shown in the local zone."""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any

from rich.table import Table
from rich.text import Text

from fruitctl.cli.output import out, show_table, shown
from fruitctl.domain.dates import now, parse_date_or_datetime
from fruitctl.domain.priorities import priority_name
from fruitctl.domain.wording import spoken_when

PRIORITY_MARKS = {"high": "!!!", "medium": "!!", "low": "!", "none": ""}


EMPTY_LISTS = (
    "No lists yet. Make a first one with `fruitctl lists create NAME` "
    "(or fill an empty store with samples: `fruitctl demo`)."
)


def show_lists_or_hint(lists: list[dict[str, Any]]) -> None:
    """``fruitctl lists``: the lists, or how to make a first one."""
    if not lists:
        out.print(EMPTY_LISTS)
        return
    show_lists(lists)


def show_lists(lists: list[dict[str, Any]]) -> None:
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("NAME", "ACCOUNT", "OPEN", "ID"):
        table.add_column(column, justify="right" if column == "OPEN" else "left")
    for lst in lists:
        name = shown(lst["name"]) + (Text(" (default)", style="dim") if lst["isDefault"] else "")
        account = shown(lst.get("account") or "")
        table.add_row(name, account, str(lst.get("count") or 0), Text(lst["id"], style="dim"))
    out.print(table)


def show_reminders(items: Any) -> None:
    """A table when the result is reminders; other JMESPath results as JSON."""
    if not isinstance(items, list) or not all(_is_reminder(i) for i in items):
        out.print(shown(json.dumps(items, ensure_ascii=False, indent=2), keep="\n"))
        return
    marks: set[str] = set()
    rows = [_reminder_row(r, marks) for r in items]
    show_table(("", "TITLE", "LIST", "DUE", "TAGS", "ID"), rows, empty="No reminders.")
    if marks:  # what the marks in the table mean, only those it shows
        legend = " · ".join(mark + words for mark, words in LEGEND.items() if mark in marks)
        out.print(Text(legend, style="dim"))


OVERDUE = "overdue"  # beside a due date that has passed: the red alone is lost in a pipe
# The marks a reminders table may show and what each means, in the order its legend says them.
LEGEND = {
    "!!!": " high",
    "!!": " medium",
    "!": " low priority",
    "⚑": " flagged",
    OVERDUE: ": due date passed, not done",
}


def _reminder_row(r: dict[str, Any], marks: set[str]) -> tuple[str | Text, ...]:
    """One reminder's cells; the marks they show are added to ``marks``."""
    priority, flagged = r.get("priority", 0), r.get("isFlagged", False)
    due = r.get("dueDate") or r.get("dueAt")
    done = r.get("isCompleted", False)
    when = due_text(due, done=done)
    if due and not done and _before_now(parse_date_or_datetime(due)):
        when.append(f" {OVERDUE}", style="bold red")
        marks.add(OVERDUE)
    marks.update(m for m in (PRIORITY_MARKS[priority_name(priority)], "⚑" if flagged else "") if m)
    return (
        "✓" if done else "○",
        _title(r["title"], priority, flagged),
        Text(r.get("listName", "")),
        when,
        Text(" ".join(r.get("tags") or [])),
        Text(r["id"], style="dim"),
    )


def show_reminder(r: dict[str, Any]) -> None:
    # The alarm and repeat models: only one reminder's page needs them, not a listing.
    from fruitctl.domain.alarms import alarms_of
    from fruitctl.domain.repeat_words import alarms_in_words

    rows = [
        ("Title", _title(r["title"], r["priority"], r["isFlagged"])),
        ("List", shown(r["listName"])),
        ("Status", Text("completed " + _when(r["completionDate"]) if r["isCompleted"] else "open")),
        ("Due", due_text(r["dueDate"], done=r["isCompleted"])),
        ("Starts", Text(spoken_when(r["startDate"]) if r.get("startDate") else "-")),
        ("Repeats", shown(_repeats(r.get("recurrence")))),
        ("Alerts", shown(alarms_in_words(alarms_of(r.get("alarms") or ())))),
        ("Priority", Text(priority_name(r["priority"]))),
        ("Tags", shown(" ".join(r["tags"]) or "-")),
        ("URL", shown(r["url"] or "-")),
        ("Notes", shown(r["notes"] or "-", keep="\n\t")),
        ("Created", Text(_when(r["creationDate"]))),
        ("Modified", Text(_when(r["modificationDate"]))),
        ("ID", Text(r["id"], style="dim")),
    ]
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    for label, value in rows:  # each value already shown(): a note keeps its lines
        table.add_row(label, value)
    out.print(table)


def show_open(result: dict[str, Any]) -> None:
    show_reminders(result["items"])
    out.print(f"[dim]{result['count']} open[/]")


def _repeats(rule: str | None) -> str:
    """ "every Monday (FREQ=WEEKLY;BYDAY=MO)": the words, and the rule an agent would write."""
    from fruitctl.domain.repeat_words import rule_in_words

    return "-" if not rule else f"{rule_in_words(rule)} ({rule})"


def due_text(value: str | None, *, done: bool = False) -> Text:
    if not value:
        return Text("")
    due = parse_date_or_datetime(value)
    overdue = not done and _before_now(due)
    return Text(_when(value), style="bold red" if overdue else "")


def _when(value: str | None) -> str:
    """``2026-02-24`` stays a date; a time is shown in the local zone, minutes precision."""
    if not value:
        return ""
    parsed = parse_date_or_datetime(value)
    if isinstance(parsed, datetime):
        return parsed.astimezone().strftime("%Y-%m-%d %H:%M")
    return parsed.isoformat()


def _before_now(due: date | datetime) -> bool:
    current = now()
    if isinstance(due, datetime):
        return due < current
    return due < current.date()


def _title(title: str, priority: int, flagged: bool) -> Text:
    text = shown(title)
    mark = PRIORITY_MARKS[priority_name(priority)]
    if mark:
        text.append(f" {mark}", style="yellow")
    if flagged:
        text.append(" ⚑", style="bold orange3")
    return text


def _is_reminder(item: Any) -> bool:
    return isinstance(item, dict) and {"id", "title", "listName"} <= item.keys()
