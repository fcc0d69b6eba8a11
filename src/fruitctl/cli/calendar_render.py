"""Human views of calendars and events: aligned tables, one line per event."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from rich.table import Table
from rich.text import Text

from fruitctl.cli.output import out, show_table
from fruitctl.domain.dates import parse_date_or_datetime


def show_calendars(calendars: list[dict[str, Any]]) -> None:
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("NAME", "ID"):
        table.add_column(column)
    for cal in calendars:
        name = Text(cal["name"])
        if cal["isDefault"]:
            name.append(" (default)", style="dim")
        if cal.get("readOnly"):
            name.append(" (read-only)", style="dim")
        table.add_row(name, Text(cal["id"], style="dim"))
    out.print(table)


def show_events(events: list[dict[str, Any]], *, local: bool = True) -> None:
    """A table of events; times in the local zone unless ``local`` is off (then as given)."""
    rows = []
    for event in events:
        title = Text(event["title"])
        if event.get("seriesId") or event.get("recurrence"):
            title.append(" ↻", style="cyan")
        rows.append(
            (
                when(event["startAt"], event["endAt"], local=local),
                title,
                Text(event.get("calendarName", "")),
                Text(event.get("location") or ""),
                Text(event["id"], style="dim"),
            )
        )
    show_table(("WHEN", "TITLE", "CALENDAR", "WHERE", "ID"), rows, empty="No events.")


def show_window(result: dict[str, Any]) -> None:
    """``calendar list``: the events of the range, then the range itself."""
    show_events(result["events"])
    window = result["window"]
    out.print(f"[dim]{result['count']} event(s) from {window['from']} to {window['to']}[/]")


def show_upcoming(result: dict[str, Any]) -> None:
    """Seed 000's view: times in the zone asked for, as the result gives them."""
    show_events(result["events"], local=False)
    window = result["window"]
    out.print(f"[dim]{result['count']} upcoming, {window['timezone']}, until {window['to']}[/]")


def show_event(event: dict[str, Any]) -> None:
    rows = [
        ("Title", event["title"]),
        ("When", when(event["startAt"], event["endAt"], local=False).plain),
        ("Zone", event.get("timezone") or ("all day" if event["allDay"] else "-")),
        ("Calendar", event["calendarName"]),
        ("Repeats", event.get("recurrence") or "-"),
        ("Series", event.get("seriesId") or "-"),
        ("Location", event.get("location") or "-"),
        ("URL", event.get("url") or "-"),
        ("Notes", event.get("notes") or "-"),
        ("ID", event["id"]),
    ]
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    for label, value in rows:
        table.add_row(label, Text(str(value)))
    out.print(table)


def when(start_text: str, end_text: str, *, local: bool = True) -> Text:
    """``2026-03-02 Mon 09:00-10:00``; all-day ``2026-03-02 Mon (all day)``, several days
    ``2026-03-07 Sat - 03-08 Sun (all day)`` (the stored end is exclusive)."""
    start, end = parse_date_or_datetime(start_text), parse_date_or_datetime(end_text)
    if not isinstance(start, datetime) or not isinstance(end, datetime):
        last = end - timedelta(days=1) if isinstance(end, date) else end
        span = "" if last <= start else f" - {last:%m-%d %a}"
        return Text(f"{start:%Y-%m-%d %a}{span} (all day)")
    if local:
        start, end = start.astimezone(), end.astimezone()
    finish = f"{end:%H:%M}" if end.date() == start.date() else f"{end:%m-%d %H:%M}"
    return Text(f"{start:%Y-%m-%d %a %H:%M}-{finish}")
