"""Where a bad value came from: an environment variable is named as such (any case, a whole
section as JSON or one key), a value from the file names the file; and variables read by
nothing are found, with the spelling meant."""

from __future__ import annotations

from pathlib import Path

import pytest

from fruitctl import config, config_env


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("FRUITCTL_HTTP__PORT", "x"),
        ("fruitctl_http__port", "x"),
        ("FRUITCTL_HTTP", '{"port": "x"}'),
    ],
)
def test_a_bad_value_names_its_environment_variable(
    variable: str, value: str, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FRUITCTL_HTTP__PORT")  # the tests' own, which would win
    monkeypatch.setenv(variable, value)
    with pytest.raises(config.ConfigError) as raised:
        config.load()
    said = str(raised.value)
    assert said.startswith(f"the environment variable {variable} (http.port): ")
    assert said.endswith("(got 'x'): fix or unset it")
    assert "config.toml" not in said  # the file is not where it came from


def test_a_bad_value_in_the_file_and_one_in_the_environment_each_say_where(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("[approvals]\nttl_hours = -1\n")
    monkeypatch.setenv("FRUITCTL_HTTP__PORT", "x")
    with pytest.raises(config.ConfigError) as raised:
        config.load()
    said = str(raised.value)
    assert said.startswith(f"{home / 'config.toml'}: ")
    assert "'approvals.ttl_hours'" in said and "FRUITCTL_HTTP__PORT (http.port)" in said


def test_variables_read_by_nothing() -> None:
    env = {
        "FRUITCTL_CALDAV_URL": "https://x/",  # one underscore: read by nothing
        "FRUITCTL_CALDAV__URL": "https://x/",  # a setting
        "FRUITCTL_CALDAV": "{}",  # a whole section
        "FRUITCTL_HOME": "/tmp/x",  # read by name
        "FRUITCTL_TEST_STRICT": "1",  # read by this project's tests (CI sets it)
        "FRUITCTL_NOTHING": "1",
        "HOME": "/root",
    }
    assert config_env.unread(env) == [
        {"variable": "FRUITCTL_CALDAV_URL", "meant": "FRUITCTL_CALDAV__URL"},
        {"variable": "FRUITCTL_NOTHING"},
    ]
