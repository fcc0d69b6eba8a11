"""Where the daemon's socket and the AAI descriptor go, and the [server] settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from fruitctl import config


def test_defaults_live_in_the_home(home: Path) -> None:
    loaded = config.load()
    assert loaded.paths.socket_file == home.resolve() / "run" / "fruitctl.sock"
    assert loaded.paths.aai_dir == home.resolve() / "aai"
    server = loaded.settings.server
    assert (server.request_timeout_seconds, server.max_message_bytes) == (30, 1_048_576)


def test_the_file_moves_the_socket_and_the_environment_wins(
    home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home.mkdir()
    (home / "config.toml").write_text(f'[server]\nsocket_path = "{tmp_path / "file.sock"}"\n')
    assert config.load().paths.socket_file == tmp_path / "file.sock"
    monkeypatch.setenv("FRUITCTL_SOCKET_PATH", str(tmp_path / "env.sock"))
    assert config.load().paths.socket_file == tmp_path / "env.sock"


def test_a_bad_server_value_names_its_key(home: Path) -> None:
    home.mkdir()
    (home / "config.toml").write_text("[server]\nmax_message_bytes = 10\n")
    with pytest.raises(config.ConfigError, match=r"server\.max_message_bytes"):
        config.load()
