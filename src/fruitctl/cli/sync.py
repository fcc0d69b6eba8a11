"""``fruitctl sync``: bring the CalDAV mirror up to date now, with a progress bar."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from fruitctl.cli.app import JsonOption, services
from fruitctl.cli.output import emit_json, err, out, reporting


def sync_command(as_json: JsonOption = False) -> None:
    """Sync the CalDAV account now (reads also sync by themselves when the mirror is stale)."""
    app = services(as_json, daemon=False)
    with reporting(as_json), _bar(enabled=not as_json) as step:
        result = app.syncing.sync(step)
    if as_json:
        emit_json(result)
    else:
        _show(result)


@contextmanager
def _bar(enabled: bool) -> Iterator[Any]:
    """A progress callback drawing one bar per calendar (on stderr, so stdout stays clean)."""
    if not enabled:
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        tasks: dict[str, TaskID] = {}

        def step(collection: str, done: int, total: int) -> None:
            if collection not in tasks:
                tasks[collection] = bar.add_task(collection, total=total)
            bar.update(tasks[collection], completed=done, total=total)

        yield step


def _show(result: dict[str, Any]) -> None:
    changed = [name for name, mode in result["modes"].items() if mode != "unchanged"]
    out.print(
        f"Synced {result['collections']} calendars in {result['seconds']:.1f}s: "
        f"{result['fetched']} fetched, {result['deleted']} removed"
        + (f", {result['broken']} unreadable (skipped)" if result["broken"] else "")
        + "."
    )
    if changed:
        out.print("[dim]Changed: " + ", ".join(f"{n} ({result['modes'][n]})" for n in changed))
