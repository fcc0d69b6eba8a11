"""The CLI as a client of a gateway elsewhere: where it is, the token, and the calls.

A gateway is elsewhere when ``FRUITCTL_URL`` is set (with ``FRUITCTL_TOKEN``), or after
``fruitctl auth login URL``, which keeps both in ``credentials.json`` in fruitctl's config
folder (``$FRUITCTL_HOME`` when set): the file 0600 in a folder 0700, written atomically, never
followed through a symlink, and refused when others could read it. The environment wins over
the file. A remote CLI builds nothing local: no store, no state database, no socket.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fruitctl.config_files import ConfigError
from fruitctl.domain.actors import Actor
from fruitctl.paths import Paths
from fruitctl.private import NotPrivate, private_folder, read_private, write_private

if TYPE_CHECKING:
    from fruitctl.approvals.allowance import Allowance
    from fruitctl.gateway import Action
    from fruitctl.transports.http.client import ApiClient

URL_ENV = "FRUITCTL_URL"
TOKEN_ENV = "FRUITCTL_TOKEN"
FILE_NAME = "credentials.json"


@dataclass(frozen=True)
class Remote:
    url: str
    token: str
    source: str
    """Where it was configured: the environment, or the credentials file's path."""


def credentials_file(env: Mapping[str, str] = os.environ) -> Path:
    return Paths.resolve(env).config_file.parent / FILE_NAME


def configured(env: Mapping[str, str] = os.environ) -> Remote | None:
    """The gateway this CLI is pointed at, or None when it is the local one."""
    url = env.get(URL_ENV, "").strip()
    token = env.get(TOKEN_ENV, "").strip()
    if url:
        if not token:
            stored = _read(credentials_file(env))
            if stored is None or stored.url.rstrip("/") != url.rstrip("/"):
                raise ConfigError(
                    f"{URL_ENV} is set but there is no token for it: set {TOKEN_ENV}, or run "
                    f"fruitctl auth login {url}"
                )
            token = stored.token
        return Remote(url, token, URL_ENV)
    if token:
        raise ConfigError(f"{TOKEN_ENV} is set without {URL_ENV}: set both, or neither.")
    return _read(credentials_file(env))


def save(url: str, token: str, env: Mapping[str, str] = os.environ) -> Path:
    path = credentials_file(env)
    try:
        private_folder(path.parent, "the stored token")
    except NotPrivate as exc:
        raise ConfigError(str(exc)) from exc
    if path.is_symlink():
        raise ConfigError(f"{path} is a symlink; remove it and log in again.")
    write_private(path, json.dumps({"url": url, "token": token}, indent=2) + "\n")
    return path


def remove(env: Mapping[str, str] = os.environ) -> Path | None:
    """Forget the stored credentials; the file's path, or None when there was none."""
    path = credentials_file(env)
    if not path.exists() and not path.is_symlink():
        return None
    path.unlink()
    return path


def _read(path: Path) -> Remote | None:
    try:
        text = read_private(path)
    except NotPrivate as exc:
        raise ConfigError(f"{exc} It holds a token: log in again if in doubt.") from exc
    if text is None:
        return None
    try:
        data = json.loads(text)
        url, token = data["url"], data["token"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{path} is not fruitctl credentials; log in again.") from exc
    if not isinstance(url, str) or not isinstance(token, str):
        raise ConfigError(f"{path} is not fruitctl credentials; log in again.")
    return Remote(url, token, str(path))


class RemoteClient:
    """A gateway elsewhere, over its HTTP API (``cli.client.Client``)."""

    def __init__(self, api: ApiClient) -> None:
        self.api = api
        self.where = f"gateway at {api.url}"

    def call(
        self,
        tool: str,
        args: dict[str, Any] | None,
        actor: Actor | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        """The tool's output; the token, not ``actor``, says who calls."""
        from fruitctl.transports.http.client import segment

        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else None
        _, output = self.api.request(
            "POST", f"/tools/{segment(tool)}", body=args or {}, headers=headers
        )
        return output

    def decide(
        self,
        proposal_id: str,
        action: Action,
        reason: str | None = None,
        allow: Allowance | None = None,
    ) -> dict[str, Any]:
        from fruitctl.transports.http.client import segment

        body: dict[str, Any] | None = {"reason": reason} if reason else None
        if allow is not None:
            body = {**(body or {}), **allow.wire()}
        path = f"/proposals/{segment(proposal_id)}/{action}"
        decided: dict[str, Any] = self.api.request("POST", path, body=body)[1]
        return decided

    def grants(self, every: bool) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.api.get("/grants", {"all": every})
        return found

    def revoke_grant(self, grant_id: str) -> dict[str, Any]:
        from fruitctl.transports.http.client import segment

        path = f"/grants/{segment(grant_id)}/revoke"
        revoked: dict[str, Any] = self.api.request("POST", path)[1]
        return revoked

    def proposals(self, status: str | None, limit: int) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.api.get("/proposals", {"status": status, "limit": limit})
        return found

    def proposal(self, proposal_id: str) -> dict[str, Any]:
        from fruitctl.transports.http.client import segment

        found: dict[str, Any] = self.api.get(f"/proposals/{segment(proposal_id)}")
        return found

    def config(self) -> dict[str, Any]:
        found: dict[str, Any] = self.api.get("/config")
        return found

    def set_config(self, key: str, value: Any) -> Any:
        from fruitctl.transports.http.client import segment

        path = f"/config/{segment(key)}"
        return self.api.request("PUT", path, body={"value": value})[1]["value"]

    def audit(self, since: float | None, limit: int, proposal: str | None) -> list[dict[str, Any]]:
        query = {"since": since, "limit": limit, "proposal": proposal}
        found: list[dict[str, Any]] = self.api.get("/audit", query)
        return found

    def verify_audit(self) -> dict[str, Any]:
        found: dict[str, Any] = self.api.get("/audit/verify")
        return found

    def describe_tools(self, category: str | None) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.api.get("/tools", {"category": category})
        return found

    def describe_tool(self, name: str) -> dict[str, Any]:
        from fruitctl.transports.http.client import segment

        found: dict[str, Any] = self.api.get(f"/tools/{segment(name)}")
        return found

    def mode(self) -> dict[str, Any]:
        found: dict[str, Any] = self.api.get("/mode")
        return found

    def stats(self, seconds: float) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.api.get("/stats", {"since": seconds})
        return found

    def ping(self) -> dict[str, Any]:
        health = self.api.get("/health")
        ok = health.get("status") == "ok"
        return {"ok": ok, "service": health.get("service"), "version": health.get("version")}

    def info(self) -> dict[str, Any]:
        found: dict[str, Any] = self.api.get("/info")
        return found

    def close(self) -> None:
        self.api.close()
