"""Things' part in the write tests: run as ``[things] open_command`` (``python things_recorder.py
DB LOG MODE``), it reads the URL from its standard input as fruitctl's launcher does, records it
(and, in ``LOG.argv``, the arguments it was run with: the URL must never be one) and, in mode
``apply``, does what Things would: ``add`` inserts the to-do, ``update`` (with the right auth
token) changes it. Mode ``cut`` applies like Things does past its limits (notes cut at 10,000
characters, checklists at 100 items); ``no-reminder`` applies a ``when`` without its ``@HH:MM``,
``without:A,B`` all but the parameters A and B; ``ignore`` records only (a Things
that never acts), ``fail`` exits 1. A mode ``@FILE`` is read from FILE at each launch (a Things
whose behaviour a test changes between writes)."""

from __future__ import annotations

import datetime
import json
import sqlite3
import sys
import time
import uuid
from urllib.parse import parse_qsl, urlsplit


def main(database: str, log: str, mode: str) -> int:
    url = sys.stdin.read().removesuffix("\n")
    if mode.startswith("@"):
        with open(mode[1:], encoding="utf-8") as chosen:
            mode = chosen.read().strip()
    with open(log + ".argv", "a", encoding="utf-8") as out:
        out.write(json.dumps(_command_line()) + "\n")
    with open(log, "a", encoding="utf-8") as out:
        out.write(url + "\n")
    if mode == "fail":
        return 1
    if mode not in ("apply", "cut", "no-reminder") and not mode.startswith("without:"):
        return 0
    parts = urlsplit(url)
    assert parts.scheme == "things" and parts.netloc == "", url
    params = _as_taken(
        mode, dict(parse_qsl(parts.query, keep_blank_values=True, strict_parsing=True))
    )
    with sqlite3.connect(database) as db:
        if parts.path == "/json":
            _json(db, params["data"], cut=mode == "cut")
        elif parts.path == "/add":
            _add(db, params, cut=mode == "cut")
        elif parts.path == "/add-project":
            _add(db, {**params, "list-id": ""}, kind=1)
            project = db.execute("SELECT uuid FROM TMTask ORDER BY rowid DESC").fetchone()[0]
            for title in params.get("to-dos", "").splitlines():
                _add(db, {"title": title, "list-id": project})
        elif parts.path in ("/update", "/update-project"):
            _update(db, params)
    return 0


def _as_taken(mode: str, params: dict[str, str]) -> dict[str, str]:
    """What of ``params`` the Things of ``mode`` acts on."""
    if mode == "no-reminder" and "when" in params:  # a Things that sets the day, not the time
        params["when"] = params["when"].partition("@")[0]
    if mode.startswith("without:"):  # a Things that acts on all but these parameters
        for name in mode.removeprefix("without:").split(","):
            params.pop(name, None)
    return params


def _json(db: sqlite3.Connection, data: str, cut: bool) -> None:
    """The ``json`` command's to-dos and projects, in order."""
    for item in json.loads(data):
        if item["type"] == "project":
            _add_project(db, item["attributes"])
            continue
        assert item["type"] == "to-do", item
        attributes = item["attributes"]
        checklist = [c["attributes"]["title"] for c in attributes.get("checklist-items", [])]
        given = {k: v for k, v in attributes.items() if isinstance(v, str)}
        _add(db, {**given, "checklist-items": "\n".join(checklist)}, cut=cut)


def _add_project(db: sqlite3.Connection, attributes: dict[str, object]) -> None:
    """A project of the ``json`` command, with its items: to-dos, then headings, in order."""
    _add(db, {"title": str(attributes["title"]), "list-id": str(attributes.get("area-id", ""))}, 1)
    project = db.execute("SELECT uuid FROM TMTask ORDER BY rowid DESC").fetchone()[0]
    for index, item in enumerate(attributes.get("items", [])):  # type: ignore[arg-type]
        title = item["attributes"]["title"]
        if item["type"] == "to-do":
            _add(db, {"title": title, "list-id": project})
        else:
            assert item["type"] == "heading", item
            db.execute(
                'INSERT INTO TMTask (uuid, type, status, trashed, title, project, "index", start) '
                "VALUES (?, 2, 0, 0, ?, ?, ?, 1)",
                (uuid.uuid4().hex, title.strip(), project, index),
            )


def _command_line() -> list[str]:
    """What ``ps`` shows every local user: the kernel's copy where there is one."""
    try:
        with open("/proc/self/cmdline", "rb") as seen:
            return seen.read().decode().split("\0")
    except OSError:
        return sys.argv


def _packed(day: str) -> int:
    year, month, date_ = (int(part) for part in day.split("-"))
    return year << 16 | month << 12 | date_ << 7


def _schedule(db: sqlite3.Connection, task: str, when: str) -> None:
    """``when`` as Things applies it: a day (a word or a date) is the start date, Anytime up to
    today and Someday after it, ``@HH:MM`` its reminder (``hour << 26 | minute << 20``)."""
    day, _, time = when.partition("@")
    today = datetime.date.today()
    if day in ("anytime", "someday"):
        start, start_date = (1 if day == "anytime" else 2), None
    else:
        words = {"today": today, "evening": today, "tomorrow": today + datetime.timedelta(days=1)}
        chosen = words.get(day) or datetime.date.fromisoformat(day)
        start, start_date = (1 if chosen <= today else 2), _packed(chosen.isoformat())
    hour, _, minute = time.partition(":")
    reminder = int(hour) << 26 | int(minute) << 20 if time else None
    db.execute(
        "UPDATE TMTask SET start = ?, startDate = ?, reminderTime = ? WHERE uuid = ?",
        (start, start_date, reminder, task),
    )


def _add_checklist(db: sqlite3.Connection, task: str, titles: list[str], at_end: bool) -> None:
    """Items before (``at_end`` False) or after those the to-do has, as Things orders them."""
    (low, high) = db.execute(
        'SELECT MIN("index"), MAX("index") FROM TMChecklistItem WHERE task = ?', (task,)
    ).fetchone()
    first = (high + 1 if high is not None else 0) if at_end else (low or 0) - len(titles)
    db.executemany(
        'INSERT INTO TMChecklistItem (uuid, task, title, status, "index") VALUES (?, ?, ?, 0, ?)',
        [(uuid.uuid4().hex, task, t.strip(), first + n) for n, t in enumerate(titles)],
    )


NOTES_KEPT, CHECKLIST_KEPT = 10_000, 100  # what Things keeps of longer values


def _add(db: sqlite3.Connection, params: dict[str, str], kind: int = 0, cut: bool = False) -> None:
    now = time.time()
    home = params.get("list-id") or params.get("area-id", "")
    notes = params.get("notes", "")
    checklist = [line for line in params.get("checklist-items", "").split("\n") if line]
    if cut:
        notes, checklist = notes[:NOTES_KEPT], checklist[:CHECKLIST_KEPT]
    task = ("proj-" if kind == 1 else "") + uuid.uuid4().hex
    db.execute(
        "INSERT INTO TMTask (uuid, type, status, trashed, title, notes, start, "
        'creationDate, userModificationDate, project, area, "index", todayIndex) '
        "VALUES (?, ?, 0, 0, ?, ?, ?, ?, ?, ?, ?, 0, 0)",
        (
            task,
            kind,
            params["title"].strip(),  # Things trims a title of surrounding blanks
            notes,
            0 if not home and "when" not in params else 1,
            now,
            now,
            home if home.startswith("proj") else None,
            home if home.startswith("area") else None,
        ),
    )
    db.executemany(
        'INSERT INTO TMChecklistItem (uuid, task, title, status, "index") VALUES (?, ?, ?, 0, ?)',
        [(uuid.uuid4().hex, task, title, index) for index, title in enumerate(checklist)],
    )
    if params.get("when"):
        _schedule(db, task, params["when"])


def _update(db: sqlite3.Connection, params: dict[str, str]) -> None:
    (token,) = db.execute("SELECT uriSchemeAuthenticationToken FROM TMSettings").fetchone()
    if params.get("auth-token") != token:
        return  # Things ignores an update without the right token
    title = params.get("title")
    fields = {"title": None if title is None else title.strip(), "notes": params.get("notes")}
    home = params.get("list-id", "")
    if home:
        db.execute(
            "UPDATE TMTask SET project = ?, area = ?, heading = NULL WHERE uuid = ?",
            (
                home if home.startswith("proj") else None,
                home if home.startswith("area") else None,
                params["id"],
            ),
        )
    _update_more(db, params)
    if "deadline" in params:
        db.execute(
            "UPDATE TMTask SET deadline = ? WHERE uuid = ?",
            (_packed(params["deadline"]) if params["deadline"] else None, params["id"]),
        )
    for name, value in fields.items():
        if value is not None:
            db.execute(f"UPDATE TMTask SET {name} = ? WHERE uuid = ?", (value, params["id"]))
    if params.get("completed") == "true":
        db.execute(
            "UPDATE TMTask SET status = 3, stopDate = ? WHERE uuid = ?",
            (time.time(), params["id"]),
        )
    if params.get("completed") == "false":
        db.execute("UPDATE TMTask SET status = 0, stopDate = NULL WHERE uuid = ?", (params["id"],))
    if params.get("canceled") == "true":
        db.execute(
            "UPDATE TMTask SET status = 2, stopDate = ? WHERE uuid = ?",
            (time.time(), params["id"]),
        )
    db.execute(
        "UPDATE TMTask SET userModificationDate = ? WHERE uuid = ?",
        (time.time(), params["id"]),
    )


def _update_more(db: sqlite3.Connection, params: dict[str, str]) -> None:
    """An update's heading, schedule and checklist additions."""
    if params.get("heading-id"):
        db.execute(
            "UPDATE TMTask SET heading = ?, project = NULL WHERE uuid = ?",
            (params["heading-id"], params["id"]),
        )
    if params.get("when"):
        _schedule(db, params["id"], params["when"])
    for name, at_end in (("prepend-checklist-items", False), ("append-checklist-items", True)):
        if params.get(name):
            _add_checklist(db, params["id"], params[name].split("\n"), at_end)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
