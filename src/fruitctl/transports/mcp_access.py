"""Who may reach MCP over HTTP, apart from the MCP SDK: the ``Host`` and ``Origin`` values
that name this server, and the server's own bearer token (made, 0600, on first use).

The daemon binds its HTTP port with these before any MCP request arrives (a client reads the
token file as soon as the daemon answers), while the SDK behind ``/mcp`` (``mcp_http``) is loaded
only when the first request for it comes: most daemons serve their socket and never MCP over
HTTP, and loading the SDK is about a third of a daemon's start."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from fruitctl.private import NotPrivate, private_folder, read_or_create
from fruitctl.startup import StartupError
from fruitctl.transports import net
from fruitctl.transports.http.tokens import secrets_dir

if TYPE_CHECKING:
    from fruitctl.bootstrap import App

MCP_PATH = "/mcp"


def allowed_hosts(host: str, port: int, public_url: str = "") -> list[str]:
    """The ``Host`` values that name this server: the loopback names, the bound address, and
    the host of ``public_url`` (``[http] public_url``: as typed, and with the bound port)."""
    names = [f"{name}:{port}" for name in (*net.LOOPBACK_NAMES, net.uri_host(host))]
    if public_url:
        netloc = urlsplit(public_url).netloc.lower()
        names += [netloc, f"{netloc.rsplit(':', 1)[0]}:{port}"]
    return list(dict.fromkeys(names))


def allowed_origins(hosts: list[str], public_url: str = "") -> list[str]:
    """The ``Origin`` values a browser on this server's pages sends: http on each host name,
    and ``public_url``'s own scheme and host (https when a proxy adds TLS)."""
    origins = [f"http://{name}" for name in hosts]
    if public_url:
        parts = urlsplit(public_url)
        origins.append(f"{parts.scheme}://{parts.netloc}".lower())
    return list(dict.fromkeys(origins))


# --- the token ----------------------------------------------------------------------------------


def token_path(app: App) -> Path:
    return secrets_dir(app) / "mcp_token"


def ensure_token(app: App) -> str:
    """The bearer token for HTTP clients, made (and kept, 0600) on first use."""
    return read_or_create_token(token_path(app))[0]


def read_or_create_token(path: Path) -> tuple[str, bool]:
    """The token in ``path`` and whether it was made just now."""
    try:
        private_folder(path.parent, "the MCP token")
        text, created = read_or_create(path, lambda: secrets.token_urlsafe(32) + "\n")
    except NotPrivate as exc:
        raise StartupError(str(exc)) from exc
    token = text.strip()
    if not token or not token.isascii() or not token.isprintable():
        raise StartupError(f"{path} holds no usable token: delete it and a new one is made")
    return token, created
