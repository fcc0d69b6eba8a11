"""``web_search``: ask a search provider, under the tool's domain rules.

Two places are governed by the same ``DomainRules``: the provider's own host (the outbound gate:
a host the rules do not permit is never contacted) and the URL of every result (a result whose
host the rules do not permit is dropped). The provider (``fruitctl.ports.SearchProvider``) is
chosen by the composition root from ``[web]`` in config.toml (``fruitctl.backends.search``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from fruitctl.domain.errors import InvalidParams, PermissionDenied
from fruitctl.domain.hosts import DomainRules
from fruitctl.ports import SearchProvider, SearchResult

QUERY_MAX = 500
RESULTS_MAX = 50
TITLE_MAX = 300
SNIPPET_MAX = 1_000
URL_MAX = 2_048


@dataclass(frozen=True)
class WebSearchService:
    provider: SearchProvider
    rules: DomainRules = field(default_factory=DomainRules)

    def search(
        self, query: str, max_results: int = 10, *, rules: DomainRules | None = None
    ) -> dict[str, Any]:
        """Search, under this service's rules and, when given, the caller's rules as well."""
        text = _check_query(query)
        limit = _check_max_results(max_results)
        gates = (self.rules,) if rules is None else (self.rules, rules)
        self._check_outbound(gates)
        found = self.provider.search(text, limit)
        results = [_wire(r) for r in found if _publishable(r.url, gates)][:limit]
        return {
            "query": text,
            "provider": self.provider.name,
            "results": results,
            "count": len(results),
        }

    def _check_outbound(self, gates: Sequence[DomainRules]) -> None:
        for host in self.provider.hosts:
            for gate in gates:
                reason = gate.refusal(host)
                if reason is not None:
                    raise PermissionDenied(
                        f"web_search may not contact {self.provider.name} at '{host}': {reason} "
                        "in the web_search rules of governance.yaml.",
                        host=host,
                    )


def _check_query(query: str) -> str:
    text = query.strip() if isinstance(query, str) else ""
    if not text:
        raise InvalidParams("'query' must not be empty.", field="query")
    if len(text) > QUERY_MAX:
        raise InvalidParams(
            f"'query' is {len(text)} characters; at most {QUERY_MAX} are accepted.", field="query"
        )
    if any(unicodedata.category(ch) == "Cc" for ch in text):
        raise InvalidParams("'query' must not contain control characters.", field="query")
    return text


def _check_max_results(max_results: int) -> int:
    if isinstance(max_results, bool) or not isinstance(max_results, int):
        raise InvalidParams("'max_results' must be an integer.", field="max_results")
    if not 1 <= max_results <= RESULTS_MAX:
        raise InvalidParams(
            f"'max_results' must be between 1 and {RESULTS_MAX} (got {max_results}).",
            field="max_results",
        )
    return max_results


def _publishable(url: str, gates: Sequence[DomainRules]) -> bool:
    if len(url) > URL_MAX or any(ch.isspace() or ch == "\\" or not ch.isprintable() for ch in url):
        return False  # parsers disagree on such URLs: the host we check may not be the one opened
    if urlsplit(url).scheme.lower() not in ("http", "https"):
        return False
    return all(gate.permits(url) for gate in gates)


def _wire(result: SearchResult) -> dict[str, str]:
    return {
        "title": _clip(result.title, TITLE_MAX),
        "url": result.url,
        "snippet": _clip(result.snippet, SNIPPET_MAX),
    }


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
