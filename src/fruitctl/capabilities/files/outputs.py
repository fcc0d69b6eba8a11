"""What the file tools answer, as types (their ``returns`` and ``outputSchema``)."""

from __future__ import annotations

from typing_extensions import TypedDict


class FileRead(TypedDict):
    path: str
    size: int
    content: str


class Entry(TypedDict):
    name: str
    type: str
    size: int
    modified: str


class Directory(TypedDict):
    path: str
    entries: list[Entry]
    count: int


class FileWritten(TypedDict):
    path: str
    size: int
    created: bool


class FileDeleted(TypedDict):
    path: str
    size: int
    kept: bool
    keptId: str | None
    keptUntil: str | None


class FileRestored(TypedDict):
    path: str
    size: int
    mode: str
