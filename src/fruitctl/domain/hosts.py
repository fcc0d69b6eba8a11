"""Which hosts a tool may reach: host names normalised (IDNA, case, trailing dots, IP literals)
and ``DomainRules`` - an allowlist and a denylist of domains, a rule covering its subdomains -
the check ``web_search`` applies to the provider it contacts and to every result it returns."""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import idna

_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")
_NUMERIC_LABEL = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)")


def normalize_host(url_or_host: str) -> str | None:
    """The host of a URL or host text, lower-cased, IDNA-encoded, IPs in canonical form; ``None``
    when there is no valid host (so a caller that governs with it fails closed)."""
    host = _host_of(url_or_host.strip())
    if not host:
        return None
    host = host.removeprefix("[").removesuffix("]").lower()
    host = host[:-1] if host.endswith(".") else host
    if ":" in host:
        return _ip(host)
    if _NUMERIC_LABEL.fullmatch(host.rsplit(".", 1)[-1]):
        # What browsers and resolvers do with "2130706433", "0x7f.1" or "127.1": an IPv4 address.
        return _ipv4(host)
    return _domain(host)


def _host_of(text: str) -> str | None:
    try:
        if "://" in text:
            return urlsplit(text).hostname
        if text.startswith("[") or text.count(":") == 1:  # "[::1]:80", "example.org:8080"
            return urlsplit("//" + text).hostname
    except ValueError:
        return None
    return text


def _ip(host: str) -> str | None:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return str(mapped or address)  # "::ffff:127.0.0.1" is 127.0.0.1


def _ipv4(host: str) -> str | None:
    try:
        return str(ipaddress.IPv4Address(socket.inet_aton(host)))
    except OSError:
        return None


def _domain(host: str) -> str | None:
    if not host.isascii():
        try:
            host = idna.encode(host, uts46=True).decode("ascii")
        except (idna.IDNAError, UnicodeError):
            return None
    labels = host.split(".")
    if len(host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        return None
    return host


def _is_literal(host: str) -> bool:
    """An IP address or ``localhost``: such hosts match only a rule that names them exactly."""
    return host == "localhost" or _ip(host) is not None


class DomainRules:
    """Which hosts ``web_search`` may reach and return.

    A rule ``example.org`` covers ``example.org`` and its subdomains (``a.example.org``), never
    ``badexample.org``; IP addresses and ``localhost`` match only a rule that names them exactly.
    ``allowed=None`` permits every host; a forbidden rule wins over an allowed one.
    """

    __slots__ = ("allowed", "forbidden")

    def __init__(self, allowed: Iterable[str] | None = None, forbidden: Iterable[str] = ()):
        self.allowed = None if allowed is None else _rules(allowed, "allowed_domains")
        self.forbidden = _rules(forbidden, "forbidden_domains")

    @classmethod
    def from_tool_rules(cls, rules: Any) -> DomainRules:
        """The domain part of a ``policy.governance.ToolRules``."""
        return cls(rules.allowed_domains, rules.forbidden_domains)

    def permits(self, url_or_host: str) -> bool:
        return self.refusal(url_or_host) is None

    def refusal(self, url_or_host: str) -> str | None:
        """Why the rules refuse this host, or ``None`` when they permit it."""
        host = normalize_host(url_or_host)
        if host is None:
            return f"'{url_or_host}' has no valid host name"
        if any(_covers(rule, host) for rule in self.forbidden):
            return f"'{host}' is in forbidden_domains"
        if self.allowed is not None and not any(_covers(rule, host) for rule in self.allowed):
            return f"'{host}' is not in allowed_domains"
        return None

    def __repr__(self) -> str:
        return f"DomainRules(allowed={self.allowed!r}, forbidden={self.forbidden!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DomainRules):
            return NotImplemented
        return (self.allowed, self.forbidden) == (other.allowed, other.forbidden)

    def __hash__(self) -> int:
        return hash((self.allowed, self.forbidden))


def _rules(entries: Iterable[str], field: str) -> tuple[str, ...]:
    if isinstance(entries, str):
        raise TypeError(f"{field} must be a list of domains, not the string '{entries}'")
    rules = []
    for entry in entries:
        host = normalize_host(entry.strip().removeprefix("*.").removeprefix("."))
        if host is None:
            raise ValueError(f"{field}: '{entry}' is not a domain name or an IP address")
        rules.append(host)
    return tuple(rules)


def _covers(rule: str, host: str) -> bool:
    if _is_literal(rule) or _is_literal(host):
        return rule == host
    return host == rule or host.endswith("." + rule)
