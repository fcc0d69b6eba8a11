"""``fruitctl auth token | list | revoke``: the bearer tokens of the HTTP API and the /ui page;
``fruitctl auth login URL | logout``: this CLI pointed at a gateway elsewhere, with such a token.

``auth token`` prints the token alone on stdout (``TOKEN=$(fruitctl auth token)``) and what it
is on stderr; the token is shown this once and kept nowhere - only its id is recorded, which is
what ``list`` shows and ``revoke`` takes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from fruitctl.capabilities import toolsets
from fruitctl.cli.app import JsonOption, services
from fruitctl.cli.output import emit_json, err, out, reporting
from fruitctl.domain.dates import format_datetime
from fruitctl.domain.errors import ExecutionFailed, InvalidParams, NotFound

if TYPE_CHECKING:  # PyJWT and cryptography load only when a token command runs
    from fruitctl.transports.http.tokens import TokenStore

auth_app = typer.Typer(
    help="Bearer tokens for the HTTP API and the approval page.", no_args_is_help=True
)
UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class Scope(StrEnum):
    agent = "agent"
    admin = "admin"


@auth_app.command("token")
def token_command(
    scope: Annotated[
        Scope, typer.Option(help="agent: read and propose. admin: a person, who approves.")
    ] = Scope.agent,
    ttl: Annotated[
        str | None, typer.Option(help="Lifetime: 30m, 12h, 30d, 8w (default [http] ttl).")
    ] = None,
    name: Annotated[str, typer.Option(help="Who holds it (shows in the audit as the actor).")] = "",
    tools: Annotated[
        str | None,
        typer.Option(
            metavar="SETS",
            help="The only tools its bearer sees and calls, over the API and MCP: tool sets "
            "(reminders, calendar, things, ...) or tool names, comma-separated (default: all).",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Make a token; it is printed once and never stored."""
    with _tokens(as_json) as (store, settings):
        seconds = _ttl(ttl) if ttl else settings.token_ttl_days * 86400
        holder = _name(name or ("person" if scope is Scope.admin else "agent"))
        offered = None if tools is None else toolsets.parse(tools)
        token, claims = store.issue(scope.value, seconds, holder, offered)
    expires = _when(claims.expires_at)
    offers = None if claims.tools is None else sorted(claims.tools)
    if as_json:
        emit_json(
            {
                "token": token,
                "id": claims.token_id,
                "scope": scope.value,
                "expiresAt": expires,
                "tools": offers,
            }
        )
        return
    out.print(token, markup=False, soft_wrap=True)
    only = "" if offers is None else f" Its tools: {', '.join(offers)}."
    err.print(
        f"{scope.value} token {claims.token_id} for '{holder}', expires {expires}.{only} Send it "
        f"as 'Authorization: Bearer <token>'; revoke: fruitctl auth revoke {claims.token_id}",
        markup=False,
    )


@auth_app.command("list")
def list_command(as_json: JsonOption = False) -> None:
    """Tokens issued and not expired (ids only: tokens are never stored)."""
    with _tokens(as_json) as (store, _):
        tokens = store.tokens()
    if as_json:
        emit_json([{**t, "expiresAt": _when(t["expiresAt"])} for t in tokens])
        return
    if not tokens:
        out.print("No tokens. Make one with: fruitctl auth token", markup=False)
        return
    from rich.table import Table

    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("ID", "SCOPE", "NAME", "EXPIRES", "STATE", "TOOLS"):
        table.add_column(column)
    for t in tokens:
        state = "active" if t["active"] else "revoked"
        offers = "all" if t.get("tools") is None else ", ".join(t["tools"])
        expires = _when(t["expiresAt"])
        table.add_row(t["id"], t["scope"], escape(t["name"]), expires, state, offers)
    out.print(table)


@auth_app.command("revoke")
def revoke_command(
    token_id: Annotated[
        str | None, typer.Argument(help="The token id (fruitctl auth list).")
    ] = None,
    revoke_all: Annotated[
        bool, typer.Option("--all", help="Revoke every token issued so far.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Revoke one token (and the page sessions it opened), or all of them; at once."""
    with _tokens(as_json) as (store, _):
        if revoke_all == (token_id is not None):
            raise InvalidParams("Give a token id, or --all.")
        if revoke_all:
            store.revoke_all()
            result: dict[str, Any] = {"revoked": "all"}
        elif store.revoke(str(token_id)):
            result = {"revoked": token_id}
        else:
            raise NotFound(f"No token with id '{token_id}' (see fruitctl auth list).")
    if as_json:
        emit_json(result)
    else:
        what = "every token" if revoke_all else f"token {token_id}"
        out.print(f"Revoked {what}.", markup=False)


@auth_app.command("login")
def login_command(
    url: Annotated[str, typer.Argument(help="The gateway's address, e.g. http://mac-mini:8765.")],
    as_json: JsonOption = False,
) -> None:
    """Point this CLI at a gateway elsewhere: the token is read from standard input (or asked
    for), checked against the gateway, and kept with the URL in credentials.json (0600)."""
    from fruitctl.cli import remote
    from fruitctl.transports.http.client import ApiClient, check_url

    with reporting(as_json):
        address = check_url(url)
        token = _read_token()
        api = ApiClient(address, token)
        try:
            mode = api.get("/mode")  # any valid token may read it: proves URL and token
        finally:
            api.close()
        path = remote.save(address, token)
    if as_json:
        emit_json({"url": address, "credentials": str(path), "mode": mode.get("mode")})
        return
    out.print(f"Logged in to {address} (mode {mode.get('mode')}); saved in {path}.", markup=False)
    out.print("Every command now runs there; `fruitctl auth logout` undoes this.", markup=False)


@auth_app.command("logout")
def logout_command(as_json: JsonOption = False) -> None:
    """Forget the gateway `auth login` stored: commands use this machine's gateway again."""
    from fruitctl.cli import remote

    with reporting(as_json):
        path = remote.remove()
    if as_json:
        emit_json({"removed": None if path is None else str(path)})
    elif path is None:
        out.print("Not logged in to any gateway.", markup=False)
    else:
        out.print(f"Logged out: removed {path}.", markup=False)


def _read_token() -> str:
    import sys

    if sys.stdin.isatty():
        token = str(typer.prompt("Token", hide_input=True, err=True))
    else:
        token = sys.stdin.readline()
    token = token.strip()
    if not token:
        raise InvalidParams(
            "No token given: pipe it in (fruitctl auth login URL < token-file) or type it at "
            "the prompt. A person makes one on the gateway with `fruitctl auth token`."
        )
    if any(ch.isspace() or not ch.isprintable() for ch in token):
        raise InvalidParams("The token has spaces or control characters: paste it alone.")
    return token


@contextmanager
def _tokens(as_json: bool) -> Iterator[tuple[TokenStore, Any]]:
    from fruitctl.transports.http.tokens import SecretError, TokenError, TokenStore, secrets_dir

    with reporting(as_json):
        app = services(as_json, daemon=False)
        try:
            yield TokenStore(secrets_dir(app)), app.config.settings.http
        except (SecretError, TokenError) as exc:
            raise ExecutionFailed(str(exc)) from None


def _ttl(text: str) -> float:
    match = re.fullmatch(r"\s*(\d+)\s*([mhdw])\s*", text)
    if not match or int(match[1]) == 0:
        raise InvalidParams(f"--ttl must look like 30m, 12h, 30d or 8w, not '{text}'.")
    return int(match[1]) * UNITS[match[2]]


def _name(text: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_.@-]{1,64}", text):
        raise InvalidParams("--name takes letters, digits and _ . @ - (at most 64).")
    return text


def _when(epoch: float) -> str:
    from datetime import datetime

    return format_datetime(datetime.fromtimestamp(epoch).astimezone())
