"""What another client puts in a shared CalDAV calendar, and ``fruitctl sync`` run on it in a
process of its own (cut off at a deadline: a sync wedged by an unbounded expansion fails the
test instead of hanging it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from caldav_server import Account


def vevent(uid: str, *lines: str) -> str:
    """A VEVENT as another client writes it, Mondays 09:00 UTC, half an hour; ``lines`` besides."""
    body = "\r\n".join(
        [f"UID:{uid}", f"SUMMARY:{uid}", "DTSTART:20260302T090000Z", "DURATION:PT30M", *lines]
    )
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//someone//EN\r\nBEGIN:VEVENT\r\n"
        f"{body}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )


def calendar_on(home: Path, account: Account, timeout_seconds: float | None = None) -> None:
    """The home's calendar is the account's (its password comes with ``sync_in_a_process``)."""
    home.mkdir(exist_ok=True)
    timeout = "" if timeout_seconds is None else f"timeout_seconds = {timeout_seconds:g}\n"
    (home / "config.toml").write_text(
        '[calendar]\nbackend = "caldav"\n'
        f'[caldav]\nurl = "{account.home}"\nusername = "{account.username}"\n{timeout}'
    )


def sync_in_a_process(account: Account, deadline: float) -> dict[str, object]:
    """``fruitctl sync --json``'s report; fails if it is not done within ``deadline`` seconds."""
    env = {**os.environ, "FRUITCTL_CALDAV_PASSWORD": account.password, "FRUITCTL_IN_PROCESS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "fruitctl", "sync", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=deadline,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    return report
