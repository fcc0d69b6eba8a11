"""The MCP messages tests send by hand, as a client would write them."""

from __future__ import annotations

from typing import Any

INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
"""What a client sends once ``initialize`` is answered."""


def initialize(
    client: str = "test", version: str = "1", protocol: str = "2025-06-18"
) -> dict[str, Any]:
    """The first request of an MCP session over HTTP or a pipe, from ``client``."""
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": protocol,
            "capabilities": {},
            "clientInfo": {"name": client, "version": version},
        },
    }
