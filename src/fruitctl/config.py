"""fruitctl's configuration: one typed schema, loaded once at the edge, immutable after.

Where its files live is ``fruitctl.paths``.

Values come from ``config.toml``, then ``FRUITCTL_<SECTION>__<KEY>`` environment variables
override them (``FRUITCTL_REMINDERS__BACKEND=local``). A bad file or value is a ``ConfigError``
whose message names the file and the key, never a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from fruitctl.config_files import ConfigError as ConfigError
from fruitctl.config_files import read_toml
from fruitctl.domain.dates import zone
from fruitctl.domain.errors import InvalidParams
from fruitctl.paths import SOCKET_ENV, Paths


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


BACKEND_HELP = (
    "'auto' (your Apple {what} on macOS, through EventKit; the embedded store elsewhere), "
    "'eventkit', 'local' (embedded SQLite), 'caldav', or a dotted path "
    "'package.module:Factory' for a third-party backend."
)


class RemindersConfig(Section):
    backend: str = Field(
        "auto", description="Where reminders live: " + BACKEND_HELP.format(what="Reminders")
    )
    notes_preview_chars: int = Field(
        80, ge=0, le=1000, description="Length of notesPreview in the open view; 0 turns it off."
    )


class CalendarConfig(Section):
    backend: str = Field(
        "auto", description="Where calendars live: " + BACKEND_HELP.format(what="Calendar")
    )
    notes_preview_chars: int = Field(
        80, ge=0, le=1000, description="Length of notesPreview in upcoming; 0 turns it off."
    )


class WebConfig(Section):
    provider: Literal["duckduckgo", "searxng", "none"] = Field(
        "duckduckgo", description="Where web_search asks: DuckDuckGo (ddgs) or a SearxNG server."
    )
    searxng_url: str = Field(
        "", description="Base URL of a SearxNG instance with the JSON format enabled."
    )
    timeout_seconds: float = Field(10, gt=0, le=60, description="Per-search network timeout.")


class HealthConfig(Section):
    min_free_disk_mb: int = Field(
        200,
        ge=0,
        description="Below this much free space in fruitctl's data folder the gateway goes "
        "DEGRADED by itself; 0 turns the check off.",
    )
    min_available_memory_mb: int = Field(
        100,
        ge=0,
        description="Below this much available memory the gateway goes DEGRADED by itself; 0 "
        "turns the check off.",
    )
    max_memory_percent: float = Field(
        97,
        gt=0,
        le=100,
        description="Above this share of memory in use the gateway goes DEGRADED by itself; "
        "100 turns the check off.",
    )
    check_every_seconds: float = Field(
        10, gt=0, le=3600, description="How often the disk and memory are looked at."
    )
    recover_after_seconds: float = Field(
        60,
        ge=0,
        le=86400,
        description="How long the cause must stay clear before the gateway returns to the mode "
        "it was in (unless a person changed the mode meanwhile).",
    )


class ApprovalsConfig(Section):
    ttl_hours: float = Field(
        24, gt=0, le=24 * 30, description="How long a proposal waits before it expires."
    )
    mcp_elicitation: bool = Field(
        False,
        description="Ask the person inside the MCP client (elicitation) to approve a write. "
        "Off by default: an agent-controlled client could answer for the person.",
    )


class McpConfig(Section):
    tools: list[str] | None = Field(
        None,
        description="The tools MCP clients are offered, as tool sets (a capability: 'calendar', "
        "'things', 'files', 'system', 'web', 'approvals', 'containers'; 'reminders' is the "
        "Reminders MCP contract's five tools) or tool names. Default: every tool; "
        "`fruitctl mcp --tools` overrides it.",
    )


def _zone_name(name: str) -> str:
    if name:
        try:
            zone(name)
        except InvalidParams:
            raise ValueError(
                f"unknown time zone '{name}': use an IANA name like 'Europe/Rome'"
            ) from None
    return name


class ServerConfig(Section):
    timezone: Annotated[str, AfterValidator(_zone_name)] = Field(
        "",
        description="The zone every date-time is answered in (an IANA name like 'Europe/Rome'); "
        "empty: the host's. One zone makes dates compare in time order.",
    )
    socket_path: str = Field(
        "",
        description="The daemon's Unix socket (default <run dir>/fruitctl.sock); "
        "FRUITCTL_SOCKET_PATH overrides it.",
    )
    agent_uids: list[Annotated[int, Field(ge=0, le=2**32 - 2)]] = Field(
        default_factory=list,
        description="Other users (uids) whose programs may use fruitctl as agents, say a "
        "container's: they connect to the agents' socket (agent_socket), are always agents "
        "(never the person), and are named uid:<n> unless they identify. Empty: no agents' "
        "socket.",
    )
    agent_socket: str = Field(
        "",
        description="The agents' socket for agent_uids (default <run dir>/agents/fruitctl.sock)"
        ": its folder is the one to bind-mount into a container.",
    )
    request_timeout_seconds: float = Field(
        30, gt=0, le=3600, description="How long one socket request may run before 'timeout'."
    )
    agent_idle_seconds: float = Field(
        300,
        gt=0,
        le=86400,
        description="The agents' socket closes a connection that sends no request this long.",
    )
    agent_connections_per_uid: int = Field(
        16, ge=1, le=1024, description="The agents' socket: open connections one uid may hold."
    )
    max_message_bytes: int = Field(
        1_048_576,
        ge=1024,
        le=64 * 1_048_576,
        description="Largest JSON message the socket accepts; a longer one closes the connection.",
    )
    restart_base_seconds: float = Field(
        1, gt=0, le=300, description="--supervise: the first restart delay after a crash."
    )
    restart_max_seconds: float = Field(
        60, gt=0, le=3600, description="--supervise: restart delays double up to this cap."
    )
    restart_reset_seconds: float = Field(
        60, gt=0, le=86400, description="--supervise: a child up this long resets the backoff."
    )


class HttpConfig(Section):
    host: str = Field(
        "127.0.0.1",
        description="Where `fruitctl serve` listens for the HTTP API and /ui. A non-loopback "
        "address (e.g. a Tailscale IP) is refused until a token has been issued.",
    )
    port: int = Field(8765, ge=0, le=65535, description="HTTP port; 0 picks a free one.")
    public_url: str = Field(
        "",
        description="The base URL people open the approval page at (e.g. http://100.64.0.1:8765)"
        "; proposals carry <public_url>/ui/proposals/<id>. Default: the address served.",
    )
    token_ttl_days: float = Field(
        30, gt=0, le=3650, description="Default lifetime of `fruitctl auth token`."
    )
    requests_per_minute: int = Field(
        600,
        ge=1,
        le=100_000,
        description="Requests one API token may make a minute, the API and MCP over HTTP "
        "together (429 beyond).",
    )
    max_body_bytes: int = Field(
        1_048_576, ge=1024, le=64 * 1_048_576, description="Largest request body accepted (413)."
    )
    max_connections: int = Field(
        512,
        ge=8,
        le=65_536,
        description="Most HTTP connections held at once, lowered to half the descriptors left "
        "under the process's limit (96 under a LaunchAgent's 256). Past it, the connection "
        "that has been sending its request the longest is closed.",
    )
    header_timeout_seconds: float = Field(
        10,
        gt=0,
        le=300,
        description="How long a client may take to send a request's headers (408 past it).",
    )
    body_timeout_seconds: float = Field(
        30,
        gt=0,
        le=3600,
        description="How long a client may take to send a request's body once its headers "
        "are in (the connection is closed past it).",
    )
    notifications: bool = Field(
        True,
        description="A desktop notification (notify-send / osascript) when a proposal arrives, "
        "while the HTTP server runs; silent where neither exists.",
    )


def _caldav_url(url: str) -> str:
    """An http(s) URL with a host, or a message naming the fix: without a scheme the HTTP client
    would only say 'MissingSchema' when the server is first asked."""
    if not url:
        return url
    scheme, sep, rest = url.partition("://")
    if not sep:
        # A user and password before the host are left out of the fix (and of the message).
        host, slash, path = url.lstrip("/").partition("/")
        raise ValueError(
            f"a URL needs its scheme: write 'https://{host.rpartition('@')[2]}{slash}{path}'"
        )
    if scheme.lower() not in ("http", "https") or not rest.split("/", 1)[0]:
        raise ValueError("use an https:// URL with a host, like 'https://caldav.example.com/dav'")
    return url


class CaldavConfig(Section):
    """A CalDAV account (Nextcloud, Fastmail, Radicale, iCloud...) for ``backend = "caldav"``."""

    url: Annotated[str, AfterValidator(_caldav_url)] = Field(
        "",
        description="The account's CalDAV URL (its principal or calendar home), with its "
        "scheme: https://cloud.example.com/remote.php/dav/.",
    )
    username: str = Field("", description="The account's user name.")
    password: SecretStr | None = Field(
        None,
        description="The password (or app password). Better kept out of the file: use "
        "password_command or the FRUITCTL_CALDAV_PASSWORD environment variable.",
    )
    password_command: list[str] = Field(
        default_factory=list,
        description="A command whose output is the password, as an argument list (never run "
        'through a shell), e.g. ["pass", "show", "caldav"].',
    )
    lists: list[str] | None = Field(
        None,
        description="Names of the calendars that are reminder lists, the default one first "
        "(default: every calendar that holds to-dos).",
    )
    calendars: list[str] | None = Field(
        None,
        description="Names of the calendars mirrored for events, the default one first "
        "(default: every calendar that holds events).",
    )
    staleness_seconds: float = Field(
        60, ge=0, le=86400, description="A read older than this syncs with the server first."
    )
    timeout_seconds: float = Field(
        10,
        gt=0,
        le=300,
        description="How long one request to the server may take in all, its whole answer "
        "included: a server sending it a byte at a time is cut off then (timeout).",
    )
    max_response_bytes: int = Field(
        64 * 1_048_576,
        ge=65_536,
        le=1024 * 1_048_576,
        description="The largest answer read from the server; a larger one is dropped unread. "
        "A sync then asks for that calendar in pieces (an object larger than this alone is "
        "skipped, like an unreadable one); anything else fails (backend_unavailable).",
    )

    def secret(self, env: Mapping[str, str]) -> str:
        """The password: ``password``, else FRUITCTL_CALDAV_PASSWORD, else the output of
        ``password_command``. Errors never show it."""
        if self.password is not None:
            return self.password.get_secret_value()
        if env.get(CALDAV_PASSWORD_ENV):
            return env[CALDAV_PASSWORD_ENV]
        if self.password_command:
            return _run_password_command(self.password_command, self.timeout_seconds)
        return ""


CALDAV_PASSWORD_ENV = "FRUITCTL_CALDAV_PASSWORD"


class EventKitConfig(Section):
    """Apple Reminders and Calendar on macOS (``backend = "eventkit"``, or ``"auto"`` there)."""

    reminders_store: str = Field(
        "",
        description="The folder of the Reminders app's own database, read (read-only) for tags, "
        "flags and subtasks; needs Full Disk Access for the app running fruitctl. Default: "
        "~/Library/Group Containers/group.com.apple.reminders/Container_v1/Stores.",
    )
    fetch_timeout_seconds: float = Field(
        10, gt=0, le=300, description="How long a fetch from Apple's store may take (timeout)."
    )
    cache_seconds: float = Field(
        2,
        ge=0,
        le=60,
        description="Reads within this many seconds of the last one answer from memory; a "
        "write through fruitctl shows at once, another app's change after at most this long.",
    )


def _run_password_command(argv: list[str], timeout: float) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ConfigError(f"caldav.password_command {argv[0]!r} could not run: {exc}") from None
    if done.returncode != 0:
        raise ConfigError(
            f"caldav.password_command {argv[0]!r} failed with exit status {done.returncode}"
        )
    return done.stdout.rstrip("\r\n")


class ThingsConfig(Section):
    """Things 3 (macOS): its to-dos, read from Things' own database."""

    database: str = Field(
        "",
        description="Things' database (main.sqlite), opened read-only. Default on a Mac: found "
        "in Things' Group Container (ThingsData-*/ or the older place); elsewhere unset.",
    )
    open_command: list[str] = Field(
        default_factory=lambda: (
            [sys.executable, "-m", "fruitctl.backends.things.launch"]
            if sys.platform == "darwin"
            else []
        ),
        description="The program (and its arguments) a things:/// URL is handed to, on its "
        "standard input - never as an argument, which every local user could read while it "
        "runs (an update's URL carries Things' token). Default on a Mac: fruitctl's launcher "
        "(python -m fruitctl.backends.things.launch, opening it as open -g would); elsewhere "
        "unset (writes answer unsupported).",
    )
    confirm_seconds: float = Field(
        5,
        ge=0,
        le=60,
        description="How long to watch Things' database for a write to show; 0 turns it off "
        "(a write is then reported as sent, not confirmed).",
    )


class Settings(BaseSettings):
    """Everything a user can configure."""

    model_config = SettingsConfigDict(
        env_prefix="FRUITCTL_",
        env_nested_delimiter="__",
        extra="forbid",
        frozen=True,
    )

    reminders: RemindersConfig = Field(default_factory=RemindersConfig)
    calendar: CalendarConfig = Field(default_factory=CalendarConfig)
    web: WebConfig = Field(default_factory=WebConfig)
    approvals: ApprovalsConfig = Field(default_factory=ApprovalsConfig)
    health: HealthConfig = Field(default_factory=HealthConfig)
    mcp: McpConfig = Field(default_factory=McpConfig)
    caldav: CaldavConfig = Field(default_factory=CaldavConfig)
    eventkit: EventKitConfig = Field(default_factory=EventKitConfig)
    things: ThingsConfig = Field(default_factory=ThingsConfig)
    server: ServerConfig = Field(default_factory=ServerConfig)
    http: HttpConfig = Field(default_factory=HttpConfig)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The file's values arrive as init values; the environment overrides them.
        return env_settings, init_settings


@dataclass(frozen=True)
class Config:
    settings: Settings
    paths: Paths


def load() -> Config:
    """Read the configuration of this process from its files and environment."""
    paths = Paths.resolve(os.environ)
    data = read_toml(paths.config_file)
    try:
        settings = Settings(**data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, paths.config_file)) from None
    if settings.server.socket_path and not os.environ.get(SOCKET_ENV):  # the environment wins
        paths = replace(paths, socket_file=Path(settings.server.socket_path).expanduser())
    if settings.server.agent_socket:
        paths = replace(paths, agent_socket_setting=Path(settings.server.agent_socket).expanduser())
    return Config(settings=settings, paths=paths)


def _describe(exc: ValidationError, path: Path) -> str:
    """Each problem where its value came from: the file, or the environment variable that
    overrides it (a person looking only at config.toml would never find that one)."""
    problems, in_file = [], False
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"])
        variable = _variable_of(error["loc"], os.environ)
        in_file = in_file or variable is None
        where = f"'{key}'" if variable is None else f"the environment variable {variable} ({key})"
        if error["type"] == "extra_forbidden":
            problems.append(f"unknown key {where}")
            continue
        secret = "password" in key or (key.endswith("url") and "@" in str(error.get("input")))
        shown = "<hidden>" if secret else repr(error.get("input"))
        message = error["msg"].removeprefix("Value error, ")
        fix = "" if variable is None else ": fix or unset it"
        problems.append(f"{where}: {message} (got {shown}){fix}")
    return (f"{path}: " if in_file else "") + "; ".join(problems)


def _variable_of(loc: tuple[int | str, ...], env: Mapping[str, str]) -> str | None:
    """The ``FRUITCTL_…`` variable a value at ``loc`` was read from, if one was (pydantic-
    settings reads them whatever their case, a whole section as JSON or one key of it)."""
    section = f"FRUITCTL_{loc[0]}".upper() if loc else ""
    names = [f"{section}__{loc[1]}".upper()] if len(loc) > 1 else []
    upper = {name.upper(): name for name in env}
    return next((upper[name] for name in [*names, section] if name in upper), None)
