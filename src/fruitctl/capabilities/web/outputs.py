"""What web search answers, as a type (its ``returns`` and ``outputSchema``)."""

from __future__ import annotations

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
