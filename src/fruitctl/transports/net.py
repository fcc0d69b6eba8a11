"""Listening sockets and host names, shared by the HTTP front doors (the API and MCP)."""

from __future__ import annotations

import errno
import ipaddress
import socket

from fruitctl.startup import CannotListen

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket. Made with ``proto=IPPROTO_TCP`` on purpose: asyncio turns Nagle
    off (TCP_NODELAY) only on connections whose socket says so, and ``socket.create_server``
    says 0 - every response would then wait ~40 ms for the client's delayed ACK."""
    try:
        family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    except OSError as exc:
        raise CannotListen(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(socket.SOMAXCONN)
    except OSError as exc:
        listener.close()
        advice = ""
        if exc.errno == errno.EADDRINUSE:
            advice = (
                " (another program, or another fruitctl, holds the port: pick another with "
                "--port, or [http] port in config.toml; --port 0 takes any free one)"
            )
        raise CannotListen(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}{advice}"
        ) from exc
    return listener


def uri_host(host: str) -> str:
    """``host`` as it appears in a URL or a ``Host`` header (IPv6 in brackets)."""
    host = host.lower()
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
