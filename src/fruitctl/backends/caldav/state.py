"""The sync's own bookkeeping in the mirror file (tables of migration ``0004_caldav_mirror``):
which collections are mirrored and how far, and each object's href, UID, ETag and last text."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    ForeignKey,
    Integer,
    MetaData,
    Table,
    Text,
    delete,
    select,
)
from sqlalchemy.dialects.sqlite import insert

from fruitctl.backends.local.rows import execute_many

metadata = MetaData()

collections = Table(
    "caldav_collections",
    metadata,
    Column("id", Text, primary_key=True),
    Column("href", Text, nullable=False, unique=True),
    Column("name", Text, nullable=False),
    Column("components", Text, nullable=False),
    Column("sync_token", Text),
    Column("ctag", Text),
    Column("position", Integer, nullable=False),
)

objects = Table(
    "caldav_objects",
    metadata,
    Column("href", Text, primary_key=True),
    Column(
        "collection_id",
        Text,
        ForeignKey("caldav_collections.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("uid", Text),
    Column("component", Text),
    Column("etag", Text),
    Column("parent_uid", Text),
    Column("ics", Text),
)

meta = Table(
    "caldav_meta",
    metadata,
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),
)

CHUNK = 500


@dataclass(frozen=True)
class Known:
    """A mirrored collection and how far it is synced."""

    id: str
    href: str
    name: str
    components: frozenset[str]
    sync_token: str | None
    ctag: str | None
    position: int

    @property
    def kind(self) -> str:
        return ",".join(sorted(self.components))


@dataclass(frozen=True)
class Stored:
    """One object as last seen on the server."""

    href: str
    collection_id: str
    uid: str | None
    component: str | None
    etag: str | None
    ics: str | None


def known_collections(conn: Connection) -> list[Known]:
    found = conn.execute(select(collections).order_by(collections.c.position)).all()
    return [
        Known(
            id=r.id,
            href=r.href,
            name=r.name,
            components=frozenset(r.components.split(",")) - {""},
            sync_token=r.sync_token,
            ctag=r.ctag,
            position=r.position,
        )
        for r in found
    ]


def save_collection(conn: Connection, known: Known) -> None:
    values = {
        "href": known.href,
        "name": known.name,
        "components": known.kind,
        "sync_token": known.sync_token,
        "ctag": known.ctag,
        "position": known.position,
    }
    statement = insert(collections).values(id=known.id, **values)
    conn.execute(statement.on_conflict_do_update(index_elements=[collections.c.id], set_=values))


def drop_collections(conn: Connection, ids: Collection[str]) -> None:
    if ids:
        conn.execute(delete(objects).where(objects.c.collection_id.in_(list(ids))))
        conn.execute(delete(collections).where(collections.c.id.in_(list(ids))))


def etags(conn: Connection, collection_id: str) -> dict[str, str | None]:
    query = select(objects.c.href, objects.c.etag).where(objects.c.collection_id == collection_id)
    return {href: etag for href, etag in conn.execute(query)}


def untouched(conn: Connection, before: dict[str, str | None], hrefs: Iterable[str]) -> set[str]:
    """Those of ``hrefs`` the mirror holds as ``before`` says it did (href -> ETag; an href
    not in it must still be absent): nothing wrote them since."""
    wanted = sorted(set(hrefs))
    now: dict[str, str | None] = {}
    for start in range(0, len(wanted), CHUNK):
        chunk = wanted[start : start + CHUNK]
        query = select(objects.c.href, objects.c.etag).where(objects.c.href.in_(chunk))
        now.update({href: etag for href, etag in conn.execute(query)})
    absent = object()
    return {h for h in wanted if now.get(h, absent) == before.get(h, absent)}


def put_objects(conn: Connection, items: Sequence[tuple[Stored, str | None]]) -> None:
    """Record objects (each with the UID of its parent, if any) as the server has them now."""
    execute_many(
        conn,
        _UPSERT,
        [
            {
                "href": s.href,
                "collection_id": s.collection_id,
                "uid": s.uid,
                "component": s.component,
                "etag": s.etag,
                "parent_uid": parent,
                "ics": s.ics,
            }
            for s, parent in items
        ],
    )


def _upsert() -> Any:
    statement = insert(objects)
    columns = [c.name for c in objects.columns if c.name != "href"]
    return statement.on_conflict_do_update(
        index_elements=[objects.c.href], set_={name: statement.excluded[name] for name in columns}
    )


_UPSERT = _upsert()


def drop_objects(conn: Connection, hrefs: Iterable[str]) -> list[Stored]:
    """Forget these objects; return what they were."""
    ordered = sorted(hrefs)
    gone: list[Stored] = []
    for start in range(0, len(ordered), CHUNK):
        chunk = ordered[start : start + CHUNK]
        gone += _stored(conn.execute(select(objects).where(objects.c.href.in_(chunk))).all())
        conn.execute(delete(objects).where(objects.c.href.in_(chunk)))
    return gone


def stored(conn: Connection, href: str) -> Stored | None:
    found = conn.execute(select(objects).where(objects.c.href == href)).first()
    return None if found is None else _stored([found])[0]


def by_uid(conn: Connection, uid: str, component: str) -> Stored | None:
    found = conn.execute(
        select(objects)
        .where(objects.c.uid == uid, objects.c.component == component)
        .order_by(objects.c.href)
    ).first()
    return None if found is None else _stored([found])[0]


def parents(conn: Connection) -> dict[str, str]:
    query = select(objects.c.uid, objects.c.parent_uid).where(objects.c.parent_uid.is_not(None))
    return {uid: parent for uid, parent in conn.execute(query) if uid}


def get_meta(conn: Connection, key: str) -> str | None:
    found = conn.execute(select(meta.c.value).where(meta.c.key == key)).scalar()
    return None if found is None else str(found)


def set_meta(conn: Connection, key: str, value: str) -> None:
    statement = insert(meta).values(key=key, value=value)
    conn.execute(
        statement.on_conflict_do_update(index_elements=[meta.c.key], set_={"value": value})
    )


def clear_meta(conn: Connection) -> None:
    """Forget everything the mirror noted about its account."""
    conn.execute(delete(meta))


def _stored(rows: Iterable[Any]) -> list[Stored]:
    return [
        Stored(
            href=r.href,
            collection_id=r.collection_id,
            uid=r.uid,
            component=r.component,
            etag=r.etag,
            ics=r.ics,
        )
        for r in rows
    ]
