"""Which hosts a tool may reach: host names normalised (IDNA, case, trailing dots, IP literals)
and ``DomainRules`` - an allowlist and a denylist of domains, a rule covering its subdomains -
the check ``web_search`` applies to the provider it contacts and to every result it returns, and
``fetch_url`` to every URL it fetches; then ``AddressRules``, which ``fetch_url`` applies to each
address a host resolves to (loopback, private, link-local and metadata addresses refused)."""

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


# -- addresses: where a name resolves, checked before anything connects -----------------------

METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean...
        "169.254.170.2",  # AWS container credentials
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud
        "fd00:ec2::254",  # AWS over IPv6
    )
)
"""Cloud metadata services: they hand out credentials to whoever asks from the machine, so no
rule permits them."""

_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class AddressRules:
    """Which addresses a tool that fetches may connect to, checked after the name is resolved.

    Public (globally routed) unicast addresses are permitted. Loopback, link-local, private,
    shared (carrier-grade NAT), reserved and documentation ranges are refused unless
    ``allowed_private`` names a network holding them (someone's intranet, said on purpose);
    unspecified and multicast addresses and the cloud metadata services are always refused.
    """

    __slots__ = ("allowed_private",)

    def __init__(self, allowed_private: Iterable[str] = ()):
        self.allowed_private = _networks(allowed_private)

    @classmethod
    def from_tool_rules(cls, rules: Any) -> AddressRules:
        """The address part of a ``policy.governance.ToolRules``."""
        return cls(rules.allowed_private_networks)

    def refusal(self, address: str) -> str | None:
        """Why this address is refused, or ``None`` when it may be connected to."""
        try:
            ip = _unmapped(ipaddress.ip_address(address.split("%", 1)[0]))
        except ValueError:
            return f"'{address}' is not an IP address"
        if ip in METADATA_ADDRESSES:
            return f"{ip} is a cloud metadata address"
        if ip.is_unspecified or ip.is_multicast:
            return f"{ip} is an unspecified or multicast address"
        if _public(ip) or any(ip in network for network in self.allowed_private):
            return None
        return (
            f"{ip} is a loopback, link-local, private or reserved address "
            "(allowed_private_networks can permit a network of your own)"
        )

    def __repr__(self) -> str:
        return f"AddressRules(allowed_private={self.allowed_private!r})"


def _networks(entries: Iterable[str]) -> tuple[Network, ...]:
    if isinstance(entries, str):
        raise TypeError(f"allowed_private_networks must be a list, not the string '{entries}'")
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(str(entry).strip(), strict=False))
        except ValueError:
            raise ValueError(
                f"allowed_private_networks: '{entry}' is not an IP address or network "
                "(such as 10.0.0.0/8 or 192.168.1.20)"
            ) from None
    return tuple(networks)


def _unmapped(ip: Address) -> Address:
    """An IPv6 address that only carries an IPv4 one (``::ffff:127.0.0.1``) is that one."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _public(ip: Address) -> bool:
    if not ip.is_global or ip in _SHARED:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            return _public(embedded)
    return True


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address a NAT64 or 6to4 address leads to: judged as that address."""
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip in _SIX_TO_FOUR:
        return ipaddress.IPv4Address((int(ip) >> 80) & 0xFFFFFFFF)
    return None
