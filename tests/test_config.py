"""Configuration: where files live, TOML then environment, and errors that name the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from fruitctl import bootstrap, config
from fruitctl.config import ConfigError


def test_fruitctl_home_holds_everything(home: Path) -> None:
    paths = config.load().paths
    assert paths.config_file == home / "config.toml"
    assert paths.governance_file == home / "governance.yaml"
    assert (paths.state_db, paths.local_db) == (home / "state.db", home / "local.db")
    assert (paths.run_dir, paths.log_dir) == (home / "run", home / "logs")


def test_without_fruitctl_home_the_platform_dirs_are_used(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("FRUITCTL_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    paths = config.load().paths
    assert paths.run_dir == tmp_path / "run" / "fruitctl"
    assert paths.config_file == tmp_path / "cfg" / "fruitctl" / "config.toml"
    assert paths.local_db == tmp_path / "data" / "fruitctl" / "local.db"


def test_defaults_without_a_file() -> None:
    settings = config.load().settings
    assert settings.reminders.backend == "auto"
    assert settings.reminders.notes_preview_chars == 80


def test_file_values_and_env_overrides(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home.mkdir()
    (home / "config.toml").write_text("[reminders]\nnotes_preview_chars = 20\n")
    assert config.load().settings.reminders.notes_preview_chars == 20
    monkeypatch.setenv("FRUITCTL_REMINDERS__NOTES_PREVIEW_CHARS", "0")
    assert config.load().settings.reminders.notes_preview_chars == 0


@pytest.mark.parametrize(
    ("content", "names"),
    [
        ("[reminders]\nnotes_preview_chars = -1\n", "'reminders.notes_preview_chars'"),
        ("[reminders]\nnotes_preview_chars = 'many'\n", "'reminders.notes_preview_chars'"),
        ("[reminder]\nbackend = 'local'\n", "unknown key 'reminder'"),
        ("[reminders]\nbakend = 'local'\n", "unknown key 'reminders.bakend'"),
        ("reminders = [\n", "not valid TOML"),
    ],
)
def test_a_bad_file_is_a_clear_error(home: Path, content: str, names: str) -> None:
    home.mkdir()
    (home / "config.toml").write_text(content)
    with pytest.raises(ConfigError) as raised:
        config.load()
    assert names in str(raised.value)
    assert str(home / "config.toml") in str(raised.value)


def test_an_unknown_backend_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRUITCTL_REMINDERS__BACKEND", "icloud")
    with pytest.raises(ConfigError, match="unknown backend 'icloud'"):
        bootstrap.build()
    monkeypatch.setenv("FRUITCTL_REMINDERS__BACKEND", "no_such_module:Factory")
    with pytest.raises(ConfigError, match="cannot load 'no_such_module:Factory'"):
        bootstrap.build()


def test_a_third_party_backend_loads_by_dotted_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # A plug-in factory receives the Config; here it is the local backend under another name.
    monkeypatch.setenv("FRUITCTL_REMINDERS__BACKEND", "fruitctl.backend_factories:local_reminders")
    app = bootstrap.build()
    assert app.reminders.get_lists()[0]["name"] == "Reminders"


def test_without_a_runtime_dir_the_socket_dir_stays_private(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("FRUITCTL_HOME")
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert config.load().paths.run_dir == tmp_path / "data" / "fruitctl" / "run"
