"""What the web tools answer, as types (their ``returns`` and ``outputSchema``)."""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict


class SearchResult(TypedDict):
    title: str
    url: str
    snippet: str


class SearchAnswer(TypedDict):
    query: str
    provider: str
    results: list[SearchResult]
    count: int


class FetchAnswer(TypedDict):
    url: str
    final_url: str
    redirects: list[str]
    status: int
    content_type: str | None
    title: str | None
    text: str | None
    note: str | None
    cut: bool
    cut_reason: Literal["size", "time"] | None
    bytes_read: int
