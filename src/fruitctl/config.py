"""fruitctl's configuration: one typed schema, loaded once at the edge, immutable after.

Where files live: with ``FRUITCTL_HOME`` set, everything is inside it (``config.toml``,
``governance.yaml``, ``state.db``, ``local.db``, ``run/``, ``logs/``); otherwise the platform's
conventional config, data, runtime and log directories are used.

Values come from ``config.toml``, then ``FRUITCTL_<SECTION>__<KEY>`` environment variables
override them (``FRUITCTL_REMINDERS__BACKEND=local``). A bad file or value is a ``ConfigError``
whose message names the file and the key, never a traceback.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

APP = "fruitctl"


class ConfigError(Exception):
    """The configuration cannot be used; the message says where and why."""


@dataclass(frozen=True)
class Paths:
    config_file: Path
    governance_file: Path
    state_db: Path
    local_db: Path
    run_dir: Path
    log_dir: Path

    @classmethod
    def resolve(cls, env: Mapping[str, str]) -> Paths:
        home = env.get("FRUITCTL_HOME")
        if home:
            root = Path(home).expanduser().resolve()
            config, data, run, logs = root, root, root / "run", root / "logs"
        else:
            config = Path(platformdirs.user_config_dir(APP))
            data = Path(platformdirs.user_data_dir(APP))
            run = _runtime_dir(env, data)
            logs = Path(platformdirs.user_log_dir(APP))
        return cls(
            config_file=config / "config.toml",
            governance_file=config / "governance.yaml",
            state_db=data / "state.db",
            local_db=data / "local.db",
            run_dir=run,
            log_dir=logs,
        )


def _runtime_dir(env: Mapping[str, str], data: Path) -> Path:
    # Without XDG_RUNTIME_DIR (servers, containers) platformdirs falls back to a directory in the
    # shared /tmp; the socket and lock belong somewhere only this user can write: the data dir.
    if sys.platform.startswith("linux") and not env.get("XDG_RUNTIME_DIR"):
        return data / "run"
    return Path(platformdirs.user_runtime_dir(APP))


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RemindersConfig(Section):
    backend: str = Field(
        "local",
        description="Where reminders live: 'local' (embedded SQLite) or a dotted path "
        "'package.module:Factory' for a third-party backend.",
    )
    notes_preview_chars: int = Field(
        80, ge=0, le=1000, description="Length of notesPreview in the open view; 0 turns it off."
    )


class WebConfig(Section):
    provider: Literal["duckduckgo", "searxng", "none"] = Field(
        "duckduckgo", description="Where web_search asks: DuckDuckGo (ddgs) or a SearxNG server."
    )
    searxng_url: str = Field(
        "", description="Base URL of a SearxNG instance with the JSON format enabled."
    )
    timeout_seconds: float = Field(10, gt=0, le=60, description="Per-search network timeout.")


class ApprovalsConfig(Section):
    ttl_hours: float = Field(
        24, gt=0, le=24 * 30, description="How long a proposal waits before it expires."
    )
    mcp_elicitation: bool = Field(
        False,
        description="Ask the person inside the MCP client (elicitation) to approve a write. "
        "Off by default: an agent-controlled client could answer for the person.",
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
    web: WebConfig = Field(default_factory=WebConfig)
    approvals: ApprovalsConfig = Field(default_factory=ApprovalsConfig)

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
    data = _read_toml(paths.config_file)
    try:
        settings = Settings(**data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, paths.config_file)) from None
    return Config(settings=settings, paths=paths)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror}") from None


def _describe(exc: ValidationError, path: Path) -> str:
    problems = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"])
        if error["type"] == "extra_forbidden":
            problems.append(f"unknown key '{key}'")
        else:
            problems.append(f"'{key}': {error['msg']} (got {error.get('input')!r})")
    return f"{path}: " + "; ".join(problems)
