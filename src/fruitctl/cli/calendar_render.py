"""Human views of calendars and events: aligned tables, one line per event."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from rich.table import Table
from rich.text import Text

from fruitctl.cli.output import out, show_table
from fruitctl.domain.alarms import alarms_of
from fruitctl.domain.dates import parse_date_or_datetime
from fruitctl.domain.repeat_words import alarms_in_words, rule_in_words

EMPTY_CALENDARS = (
    "No calendars yet. Make a first one with `fruitctl calendars create NAME` "
    "(or fill an empty store with samples: `fruitctl demo`)."
)


def show_calendars(calendars: list[dict[str, Any]]) -> None:
    if not calendars:
        out.print(EMPTY_CALENDARS)
        return
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("NAME", "ACCOUNT", "ID"):
        table.add_column(column)
    for cal in calendars:
        name = Text(cal["name"])
        if cal["isDefault"]:
            name.append(" (default)", style="dim")
        if cal.get("readOnly"):
            name.append(" (read-only)", style="dim")
        table.add_row(name, Text(cal.get("account") or ""), Text(cal["id"], style="dim"))
    out.print(table)


def show_events(events: list[dict[str, Any]], zone: str | None) -> None:
    """A table of events, times in ``zone`` (as given when the answer names none)."""
    rows = []
    for event in events:
        title = Text(event["title"])
        if event.get("seriesId") or event.get("recurrence"):
            title.append(" ↻", style="cyan")
        rows.append(
            (
                when(event["startAt"], event["endAt"], zone),
                title,
                Text(event.get("calendarName", "")),
                Text(event.get("location") or ""),
                Text(event["id"], style="dim"),
            )
        )
    show_table(("WHEN", "TITLE", "CALENDAR", "WHERE", "ID"), rows, empty="No events.")


def show_window(result: dict[str, Any]) -> None:
    """``calendar list``: the events of the range, then the range and the zone of its times."""
    window = result["window"]
    show_events(result["events"], window.get("timezone"))
    counted = _counted(result["count"], "event")
    out.print(f"[dim]{counted} from {window['from']} to {window['to']}{_zone_note(window)}[/]")


def show_upcoming(result: dict[str, Any]) -> None:
    """Seed 000's view: times in the zone asked for, as the result gives them."""
    window = result["window"]
    show_events(result["events"], window.get("timezone"))
    counted = _counted(result["count"], "event")
    out.print(f"[dim]{counted} upcoming until {window['to']}{_zone_note(window)}[/]")


def show_free(result: dict[str, Any]) -> None:
    """``calendar free``: one line per free slot, then the range and the zone of its times."""
    window = result["window"]
    zone = window.get("timezone")
    rows = [
        (when(s["start"], s["end"], zone), Text(_length(s["minutes"]), justify="right"))
        for s in result["slots"]
    ]
    show_table(("FREE", "LENGTH"), rows, empty="No free time.")
    counted = _counted(result["count"], "free slot")
    more = " (more past the limit)" if result.get("more") else ""
    span = f"from {window['from']} to {window['to']}"
    out.print(f"[dim]{counted}{more} {span}{_zone_note(window)}[/]")


def show_conflicts(result: dict[str, Any]) -> None:
    """``calendar conflicts``: the busy events the time overlaps, or that there are none."""
    window = result["window"]
    span = when(window["from"], window["to"], window.get("timezone")).plain
    if not result["conflicts"]:
        out.print(f"No conflicts: {span} is free.")
        return
    show_events(result["conflicts"], window.get("timezone"))
    out.print(f"[dim]{_counted(result['count'], 'conflict')} with {span}{_zone_note(window)}[/]")


def _length(minutes: int) -> str:
    hours, rest = divmod(minutes, 60)
    return f"{hours}h{rest:02d}" if hours else f"{rest} min"


def _zone_note(window: dict[str, Any]) -> str:
    """Every view says the zone of its times the same way: ``; times in Europe/Rome``."""
    zone = window.get("timezone")
    return f"; times in {zone}" if zone else ""


def _counted(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _repeats(rule: str | None) -> str:
    """ "every week (FREQ=WEEKLY)": the words, and the rule an agent would write."""
    return "-" if not rule else f"{rule_in_words(rule)} ({rule})"


def show_event(event: dict[str, Any]) -> None:
    rows = [
        ("Title", event["title"]),
        ("When", when(event["startAt"], event["endAt"], None).plain),
        ("Zone", event.get("timezone") or ("all day" if event["allDay"] else "-")),
        ("Calendar", event["calendarName"]),
        ("Repeats", _repeats(event.get("recurrence"))),
        ("Alerts", alarms_in_words(alarms_of(event.get("alarms") or ()))),
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


def when(start_text: str, end_text: str, zone: str | None) -> Text:
    """``2026-03-02 Mon 09:00-10:00`` in ``zone`` (as given when None); all-day
    ``2026-03-02 Mon (all day)``, several days ``2026-03-07 Sat - 03-08 Sun (all day)`` (the
    stored end is exclusive)."""
    start, end = parse_date_or_datetime(start_text), parse_date_or_datetime(end_text)
    if not isinstance(start, datetime) or not isinstance(end, datetime):
        last = end - timedelta(days=1) if isinstance(end, date) else end
        span = "" if last <= start else f" - {last:%m-%d %a}"
        return Text(f"{start:%Y-%m-%d %a}{span} (all day)")
    if zone is not None:
        start, end = start.astimezone(ZoneInfo(zone)), end.astimezone(ZoneInfo(zone))
    finish = f"{end:%H:%M}" if end.date() == start.date() else f"{end:%m-%d %H:%M}"
    return Text(f"{start:%Y-%m-%d %a %H:%M}-{finish}")
