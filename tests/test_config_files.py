"""config.toml and governance.yaml cannot be misread: a key given twice, or bytes that are not
UTF-8, stop the load with the file and the line (exit 78 at the CLI), never a silent override or
an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fruitctl import config
from fruitctl.capabilities import all_tools
from fruitctl.cli.app import app
from fruitctl.config import ConfigError
from fruitctl.policy import governance
from fruitctl.policy.governance import GovernanceError

runner = CliRunner()
DEFINITIONS = [t.definition for t in all_tools()]


def _write(home: Path, name: str, content: bytes) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / name
    path.write_bytes(content)
    return path


def _governance(home: Path, content: bytes) -> governance.Governance:
    _write(home, "governance.yaml", content)
    return governance.load(config.load().paths, DEFINITIONS)


# -- config.toml ----------------------------------------------------------------------------------

TOML_CASES = [
    pytest.param(
        b"[reminders]\nnotes_preview_chars = 20\nnotes_preview_chars = 30\n",
        ":3: not valid TOML: Cannot overwrite a value (a key or table is given twice",
        id="key twice",
    ),
    pytest.param(
        b"[http]\nport = 1\n\n[http]\nhost = 'x'\n",
        ":4: not valid TOML: Cannot declare",
        id="table twice",
    ),
    pytest.param(
        b"[reminders]\n# caff\xe8\nbackend = 'local'\n",
        ":2: not UTF-8 text (byte 0xe8 at column 7); save the file as UTF-8",
        id="latin-1 byte",
    ),
    pytest.param(b"reminders = [\n", ": not valid TOML: ", id="cut short"),
]


@pytest.mark.parametrize(("content", "expected"), TOML_CASES)
def test_config_toml_names_file_and_line(home: Path, content: bytes, expected: str) -> None:
    path = _write(home, "config.toml", content)
    with pytest.raises(ConfigError) as raised:
        config.load()
    assert f"{path}{expected}" in str(raised.value)


@pytest.mark.parametrize(("content", "expected"), TOML_CASES)
def test_config_toml_mistakes_exit_78(home: Path, content: bytes, expected: str) -> None:
    path = _write(home, "config.toml", content)
    result = runner.invoke(app, ["tools", "list"])
    assert result.exit_code == 78, result.output
    assert f"{path}{expected}" in " ".join(result.stderr.split())


# -- governance.yaml ------------------------------------------------------------------------------

YAML_CASES = [
    pytest.param(
        b"tools:\n  read_file: {max_file_size_mb: 1}\n  read_file: {max_file_size_mb: 50}\n",
        ":3: not valid YAML: 'read_file' is given twice (first on line 2)",
        id="tool twice",
    ),
    pytest.param(
        b"tools:\n  read_file:\n    forbidden_paths: ['/srv/a/**']\n"
        b"    max_file_size_mb: 2\n    forbidden_paths: []\n",
        ":5: not valid YAML: 'forbidden_paths' is given twice (first on line 3)",
        id="key twice",
    ),
    pytest.param(
        b"tools: {}\ntools:\n  read_file: {max_file_size_mb: 1}\n",
        ":2: not valid YAML: 'tools' is given twice (first on line 1)",
        id="top level twice",
    ),
    pytest.param(
        b"tools:\n  read_file:\n    # r\xe9sum\xe9\n    max_file_size_mb: 1\n",
        ":3: not UTF-8 text (byte 0xe9 at column 8); save the file as UTF-8",
        id="latin-1 byte",
    ),
    pytest.param(
        b"tools:\n  read_file:\n    max_file_size_mb: 1\x00\n",
        ":3: not valid YAML: the character U+0000 is not allowed in YAML",
        id="NUL",
    ),
    pytest.param(
        b"tools:\n  read_file: {protected: {own: []}}\n",
        ":2: tools.read_file.protected: unknown key (fruitctl's own files",
        id="protection is not the file's",
    ),
]


@pytest.mark.parametrize(("content", "expected"), YAML_CASES)
def test_governance_yaml_names_file_and_line(home: Path, content: bytes, expected: str) -> None:
    with pytest.raises(GovernanceError) as raised:
        _governance(home, content)
    assert f"{home / 'governance.yaml'}{expected}" in str(raised.value)


@pytest.mark.parametrize(("content", "expected"), YAML_CASES)
def test_governance_yaml_mistakes_exit_78(home: Path, content: bytes, expected: str) -> None:
    _write(home, "governance.yaml", content)
    result = runner.invoke(app, ["tools", "list"])
    assert result.exit_code == 78, result.output
    assert f"{home / 'governance.yaml'}{expected}" in " ".join(result.stderr.split())


def test_a_merged_key_may_be_overridden(home: Path) -> None:
    rules = _governance(
        home,
        b"tools:\n"
        b"  read_file: &files {max_file_size_mb: 1, forbidden_in_modes: [LOCKDOWN]}\n"
        b"  write_file:\n"
        b"    <<: *files\n"
        b"    max_file_size_mb: 2\n",
    )
    assert rules.of("write_file").max_file_size_mb == 2
    assert rules.of("read_file").max_file_size_mb == 1


def test_the_same_key_in_two_mappings_is_no_duplicate(home: Path) -> None:
    rules = _governance(
        home,
        b"tools:\n  read_file: {max_file_size_mb: 1}\n  write_file: {max_file_size_mb: 1}\n",
    )
    assert rules.of("read_file").max_file_size_mb == rules.of("write_file").max_file_size_mb == 1


def test_utf8_text_with_accents_loads(home: Path) -> None:
    rules = _governance(
        home, "tools:\n  create_reminders: {allowed_lists: [Caffè, Ménage]}\n".encode()
    )
    assert rules.of("create_reminders").allowed_lists == ["Caffè", "Ménage"]
