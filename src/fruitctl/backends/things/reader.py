"""Reading Things 3's own database: read-only, briefly, with fruitctl's own SQL.

Why not ``things.py``: it opens a connection and runs a query per to-do for tags, checklist and
its project's area, and answers dictionaries in its own shape; fruitctl reads a whole view in
five queries on one short read-only connection and answers the domain's models. The facts it
rests on (tables, packed dates, how the app builds its views) are the same, from
``macos/THINGS.md``.

The database is never written and never held: every read opens it with ``mode=ro`` (WAL
respected: the app's latest commits are seen), checks the columns it needs with ``PRAGMA
table_info``, reads, and closes.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fruitctl.backends.things.place import locate, unreachable
from fruitctl.backends.things.rows import (
    CANCELED,
    COMPLETED,
    STATUSES,
    TYPE_HEADING,
    TYPE_PROJECT,
    TYPE_TODO,
    Rows,
    day,
    moment,
    ordered,
    ref,
    tags_of,
    titles,
    view_columns,
    view_of,
)
from fruitctl.backends.things.schema import check_schema, packed_only, unreadable
from fruitctl.backends.things.urls import Secret
from fruitctl.domain.errors import (
    BackendUnavailable,
    InvalidParams,
    NotFound,
    PermissionDenied,
)
from fruitctl.domain.things import (
    Area,
    Heading,
    Project,
    Ref,
    Tag,
    ThingsView,
    ToDo,
    ToDoPage,
    ToDoQuery,
    pack_date,
)

BUSY_MS = 500
# A repeating to-do's rule lives on a hidden *template* row (``rt1_recurrenceRule`` set, in
# Someday with a deadline in the year 4001) that the app never shows; it makes the instances.
RULE = "rt1_recurrenceRule"
# Every task that is not in the Trash, directly or through its project or its heading's project,
# and is not a repeating to-do's template.
_VISIBLE = f"""
FROM TMTask t
LEFT JOIN TMTask h ON h.uuid = t.heading
LEFT JOIN TMTask p ON p.uuid = COALESCE(t.project, h.project)
WHERE t.trashed = 0 AND COALESCE(h.trashed, 0) = 0 AND COALESCE(p.trashed, 0) = 0
AND t.{RULE} IS NULL
"""
_TASK_COLUMNS = """
t.uuid, t.title, t.notes, t.status, t.start, t.startDate, t.deadline, t.stopDate,
t.creationDate, t.userModificationDate, t.area, COALESCE(t.project, h.project), t.heading,
t."index", t.todayIndex, p.area, {suppressed}, t.rt1_repeatingTemplate, p.start, p.startDate,
{bucket}, {reminder}
"""
# A superset of each view's to-dos, in SQL, so only those rows are read in full ("?" = today); a
# project not yet started (``p.start = 2``) keeps its to-dos in Someday or Upcoming.
VIEW_SQL: dict[str, tuple[str, tuple[str, ...]]] = {
    "inbox": ("AND t.status = 0 AND t.start = 0", ()),
    "today": (
        "AND t.status = 0 AND t.start != 0 AND (t.startDate <= ? OR (t.startDate IS NULL "
        "AND t.deadline <= ?))",
        ("now", "now"),
    ),
    "upcoming": (
        "AND t.status = 0 AND t.start != 0 AND (t.startDate > ? OR p.startDate > ?)",
        ("now", "now"),
    ),
    "anytime": ("AND t.status = 0 AND t.start = 1 AND t.startDate IS NULL", ()),
    "someday": (
        "AND t.status = 0 AND t.start != 0 AND ((t.start = 2 AND t.startDate IS NULL) "
        "OR (p.start = 2 AND p.startDate IS NULL))",
        (),
    ),
    "logbook": ("AND t.status IN (2, 3)", ()),
}
# Not in every version: read where they exist.
SUPPRESSED = "deadlineSuppressionDate"
BUCKET = "startBucket"  # 1: in Today's "This Evening"
REMINDER = "reminderTime"  # packed HH:MM (``domain.things.unpack_time``); not before Things 3.15
# A search matches title or notes, any case (Unicode's, not SQLite's ASCII-only LIKE), in SQL:
# ``fold`` is Python's casefold registered on the connection, the pattern a parameter.
SEARCH = "AND (fold(t.title) LIKE ? ESCAPE '\\' OR fold(t.notes) LIKE ? ESCAPE '\\')"


def _task_columns(db: sqlite3.Connection) -> str:
    have = {row[1] for row in db.execute("PRAGMA table_info(TMTask)")}
    return _TASK_COLUMNS.format(
        suppressed=f"t.{SUPPRESSED}" if SUPPRESSED in have else "NULL",
        bucket=f"t.{BUCKET}" if BUCKET in have else "0",
        reminder=f"t.{REMINDER}" if REMINDER in have else "NULL",
    )


# Where a task row keeps its area, its project (directly or through its heading) and that
# project's area.
AREA, PROJECT, PROJECT_AREA = 10, 11, 15


def _view_rows(
    db: sqlite3.Connection,
    today: date,
    view: ThingsView | None,
    search: str | None,
    *,
    logbook: bool = True,
) -> list[tuple[Any, ...]]:
    """The task rows of the to-dos outside the Trash in ``view`` (every view when None, the
    Logbook's only if ``logbook``), matching ``search``, in the order the app shows them."""
    now = pack_date(today)
    narrow, params = VIEW_SQL.get(view, ("", ())) if view else ("", ())
    if view is None and not logbook:
        narrow = f"AND t.status NOT IN ({CANCELED}, {COMPLETED})"
    found: tuple[str, ...] = (_pattern(search),) * 2 if search else ()
    if search:
        db.create_function("fold", 1, _fold, deterministic=True)
    rows = db.execute(
        f"SELECT {_task_columns(db)} {_VISIBLE} AND t.type = ? {narrow} "
        f'{SEARCH if search else ""} ORDER BY t."index"',
        (TYPE_TODO, *(now for _ in params), *found),
    ).fetchall()
    if view is not None:  # the SQL narrows; the app's rule (``view_of``) decides
        rows = [r for r in rows if view_of(*view_columns(r), today) == view]
    return ordered(rows, view)


def _tagged(db: sqlite3.Connection, tag: str) -> set[str]:
    """The ids of the tasks that carry the tag titled ``tag``."""
    query = "SELECT l.tasks FROM TMTaskTag l JOIN TMTag g ON g.uuid = l.tags WHERE g.title = ?"
    return {task for (task,) in db.execute(query, (tag,))}


def _fold(text: str | None) -> str | None:
    return None if text is None else text.casefold()


def _pattern(text: str) -> str:
    """A LIKE pattern matching ``text`` anywhere, its own ``%``, ``_`` and ``\\`` literal."""
    escaped = text.casefold().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class ThingsDatabase:
    """The Things database at ``path`` (``main.sqlite`` in ``Things Database.thingsdatabase``),
    or the one found at each read in Things' Group Container when ``path`` is that folder (what
    ``default_database`` gives when macOS keeps fruitctl out of it)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    # -- reads -----------------------------------------------------------------------------------

    def todos(
        self, today: date, view: ThingsView | None = None, search: str | None = None
    ) -> list[ToDo]:
        """Every to-do outside the Trash, in the order the app shows ``view`` (all when None);
        with ``search``, only those whose title or notes contain it (any case)."""
        with self._connection() as db:
            rows = packed_only(_view_rows(db, today, view, search), self.path)
            return Rows(db, rows).todos(today)

    def query(self, today: date, wanted: ToDoQuery) -> ToDoPage:
        """The to-dos ``wanted`` asks for, narrowed on their rows; only the page answered is
        built (tags, checklists, titles and models cost per to-do, the rows do not)."""
        with self._connection() as db:
            rows = _view_rows(db, today, wanted.view, wanted.search, logbook=False)
            packed_only(rows, self.path)
            if wanted.project is not None:
                rows = [r for r in rows if r[PROJECT] == wanted.project]
            if wanted.area is not None:
                rows = [r for r in rows if (r[AREA] or r[PROJECT_AREA]) == wanted.area]
            if wanted.tag is not None:
                tagged = _tagged(db, wanted.tag)
                rows = [r for r in rows if r[0] in tagged]
            shown = rows if wanted.limit is None else rows[: wanted.limit]
            return ToDoPage(Rows(db, shown).todos(today), len(rows))

    def todo(self, todo_id: str, today: date) -> ToDo:
        """One to-do by id; one in the Trash too (its ``view`` is None)."""
        with self._connection() as db:
            row = db.execute(
                f"SELECT {_task_columns(db)} FROM TMTask t "
                "LEFT JOIN TMTask h ON h.uuid = t.heading "
                "LEFT JOIN TMTask p ON p.uuid = COALESCE(t.project, h.project) "
                "WHERE t.uuid = ? AND t.type = ?",
                (todo_id, TYPE_TODO),
            ).fetchone()
            if row is None:
                raise NotFound(f"No to-do found with ID: '{todo_id}'.")
            packed_only([row], self.path)
            template = f"SELECT 1 FROM TMTask t WHERE t.uuid = ? AND t.{RULE} IS NOT NULL"
            if db.execute(template, (todo_id,)).fetchone():
                raise _template(todo_id)
            visible = db.execute(f"SELECT 1 {_VISIBLE} AND t.uuid = ?", (todo_id,)).fetchone()
            (found,) = Rows(db, [row]).todos(today)
        return found if visible else found.model_copy(update={"view": None})

    def projects(self) -> list[Project]:
        """Projects outside the Trash, in the app's order."""
        return self._projects("t.trashed = 0")

    def project(self, project_id: str) -> Project:
        """One project (outside the Trash), or ``NotFound``."""
        found = self._projects("t.trashed = 0 AND t.uuid = ?", (project_id,))
        if not found:
            raise NotFound(f"No project found with ID: '{project_id}'.")
        return found[0]

    def _projects(self, where: str, params: tuple[str, ...] = ()) -> list[Project]:
        with self._connection() as db:
            rows = db.execute(
                "SELECT t.uuid, t.title, t.notes, t.status, t.area, t.startDate, t.deadline, "
                "t.creationDate, t.userModificationDate, t.stopDate, "
                "(SELECT COUNT(*) FROM TMTask c LEFT JOIN TMTask ch ON ch.uuid = c.heading "
                " WHERE COALESCE(c.project, ch.project) = t.uuid AND c.type = 0 "
                f" AND c.status = 0 AND c.trashed = 0 AND c.{RULE} IS NULL) "
                f'FROM TMTask t WHERE t.type = {TYPE_PROJECT} AND {where} ORDER BY t."index"',
                params,
            ).fetchall()
            areas = titles(db, "TMArea")
            tags = tags_of(db, "TMTaskTag", "tasks", [r[0] for r in rows])
        return [
            Project(
                id=uuid,
                title=title or "",
                notes=notes or None,
                status=STATUSES.get(status, "open"),
                area=ref(area, areas),
                tags=tuple(tags.get(uuid, ())),
                startDate=day(start_date),
                deadline=day(deadline),
                openCount=count,
                creationDate=moment(created),
                modificationDate=moment(modified),
                completionDate=moment(stop) if status in (CANCELED, COMPLETED) else None,
            )
            for (
                uuid,
                title,
                notes,
                status,
                area,
                start_date,
                deadline,
                created,
                modified,
                stop,
                count,
            ) in rows
        ]

    def headings(self, project_id: str) -> list[Heading]:
        """The headings of a project outside the Trash, in the app's order, each with its open
        to-dos counted; ``NotFound`` for a project that is not there."""
        project = self.project(project_id)
        with self._connection() as db:
            rows = db.execute(
                "SELECT h.uuid, h.title, (SELECT COUNT(*) FROM TMTask c WHERE c.heading = h.uuid "
                f" AND c.type = {TYPE_TODO} AND c.status = 0 AND c.trashed = 0 "
                f" AND c.{RULE} IS NULL) "
                f"FROM TMTask h WHERE h.type = {TYPE_HEADING} AND h.trashed = 0 "
                'AND h.project = ? ORDER BY h."index"',
                (project.id,),
            ).fetchall()
        home = Ref(id=project.id, title=project.title)
        return [Heading(id=u, title=t or "", project=home, openCount=n) for u, t, n in rows]

    def areas(self) -> list[Area]:
        with self._connection() as db:
            rows = db.execute('SELECT uuid, title FROM TMArea ORDER BY "index"').fetchall()
            tags = tags_of(db, "TMAreaTag", "areas", [r[0] for r in rows])
        return [Area(id=u, title=t or "", tags=tuple(tags.get(u, ()))) for u, t in rows]

    def tags(self) -> list[Tag]:
        with self._connection() as db:
            rows = db.execute('SELECT uuid, title, parent FROM TMTag ORDER BY "index"').fetchall()
        titles = {uuid: title for uuid, title, _ in rows}
        return [Tag(id=u, title=t or "", parent=titles.get(p)) for u, t, p in rows]

    def auth_token(self) -> Secret:
        """The token Things' ``update`` command needs (Things > Settings > General > Enable
        Things URLs > Manage), hidden from every text but the URL."""
        with self._connection() as db:
            have = {row[1] for row in db.execute("PRAGMA table_info(TMSettings)")}
            row = (
                db.execute("SELECT uriSchemeAuthenticationToken FROM TMSettings").fetchone()
                if "uriSchemeAuthenticationToken" in have
                else None
            )
        if row is None or not row[0]:
            raise PermissionDenied(
                "Things has no URL-scheme token yet: in Things, open Settings > General, turn "
                "on 'Enable Things URLs' and retry.",
                service="things",
            )
        return Secret(str(row[0]))

    def status(self) -> dict[str, Any]:
        """Whether the database can be read, and if not, why (for ``fruitctl doctor``)."""
        try:
            with self._connection() as db:
                count = db.execute("SELECT COUNT(*) FROM TMTask WHERE type = 0").fetchone()[0]
        except (BackendUnavailable, PermissionDenied) as exc:
            return {"database": str(self.path), "readable": False, "reason": exc.message}
        return {"database": str(self.path), "readable": True, "todos": count}

    # -- what a writer watches for ----------------------------------------------------------------

    def created_since(self, seconds: float, today: date) -> list[ToDo]:
        """The to-dos outside the Trash created at ``seconds`` or later (``creationDate``), read
        as any to-do is: a poll after a launch costs those rows, not the whole library."""
        with self._connection() as db:
            rows = db.execute(
                f"SELECT {_task_columns(db)} {_VISIBLE} AND t.type = ? AND t.creationDate >= ?",
                (TYPE_TODO, seconds),
            ).fetchall()
            packed_only(rows, self.path)
            return Rows(db, rows).todos(today)

    def modified_at(self, item_id: str) -> float | None:
        """A to-do's or project's ``userModificationDate``, as Things stores it."""
        with self._connection() as db:
            row = db.execute(
                "SELECT userModificationDate FROM TMTask WHERE uuid = ?", (item_id,)
            ).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    # -- the connection --------------------------------------------------------------------------

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        path = self._file()
        uri = f"file:{quote(os.path.realpath(path))}?mode=ro"
        try:
            db = sqlite3.connect(uri, uri=True, timeout=BUSY_MS / 1000, check_same_thread=False)
        except sqlite3.Error as exc:
            raise unreadable(path, str(exc)) from exc
        with closing(db):
            try:
                db.execute("PRAGMA query_only = ON")
                check_schema(db, path)
                yield db
            except sqlite3.Error as exc:
                raise unreadable(path, str(exc)) from exc

    def _file(self) -> Path:
        """The database file: ``path``, or the one in it when ``path`` is Things' Group
        Container (looked for at each read, so access given later is seen). macOS's refusal
        is met here, by name, before SQLite turns it into "unable to open database file"."""
        try:
            path = locate(self.path) if self.path.is_dir() else self.path
            if path is None:
                raise unreadable(self.path, "Things keeps no database in it")
            if path.is_symlink():
                raise unreadable(path, "it is a symbolic link; fruitctl opens only the real file")
            if not path.is_file():
                raise unreadable(path, "there is no such file")
            with open(path, "rb"):  # under macOS's privacy protection stat works, open fails
                pass
        except OSError as exc:
            raise unreachable(self.path, exc) from exc
        return path


def _template(todo_id: str) -> InvalidParams:
    # Every read and write of a to-do by id comes here, so no change ever reaches a template.
    return InvalidParams(
        f"'{todo_id}' is the hidden template of a repeating to-do in Things, not a to-do: "
        "Things makes each repetition from it, and a change to it would change every future "
        f"one. Update or complete one of its to-dos (those whose repeating.template is "
        f"'{todo_id}'), or change the repeat in Things itself.",
        id=todo_id,
    )
