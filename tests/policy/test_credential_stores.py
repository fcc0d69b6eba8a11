"""The well-known stores of keys and credentials are refused to the file tools by default, on Linux
and macOS alike; governance.yaml extends the list (forbidden_paths) and can open one place inside
it (allowed_paths naming it), never fruitctl's own files."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.tools.model import ToolResult

AGENT = Actor("agent", "probe")
STORES = [
    ".ssh/id_ed25519",
    ".SSH/id_rsa",
    ".gnupg/private-keys-v1.d/key.key",
    ".aws/credentials",
    ".azure/msal_token_cache.json",
    ".git-credentials",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".docker/config.json",
    ".kube/config",
    ".config/gh/hosts.yml",
    ".config/gcloud/credentials.db",
    ".config/google-chrome/Default/Login Data",
    ".config/BraveSoftware/Brave-Browser/Default/Cookies",
    ".config/Bitwarden/data.json",
    ".mozilla/firefox/abc.default/logins.json",
    ".password-store/mail.gpg",
    ".local/share/keyrings/login.keyring",
    "Documents/vault.kdbx",
    "Library/Keychains/login.keychain-db",
    "Library/Cookies/Cookies.binarycookies",
    "Library/Safari/History.db",
    "Library/Application Support/Google/Chrome/Default/Login Data",
    "Library/Application Support/Firefox/Profiles/x.default/key4.db",
    "Library/Application Support/Microsoft Edge/Default/Cookies",
    "Library/Group Containers/2BUA8C4S2C.com.1password/Library/data.sqlite",
    "Library/Application Support/KeePassXC/keepassxc.ini",
    "Library/LaunchAgents/com.example.plist",
]
SECRET = "secret-value\n"


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "user"
    for relative in STORES:
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text(SECRET)
    (home / "Documents" / "notes.txt").write_text("shareable\n")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def gateway(home: Path, user_home: Path) -> Iterator[Callable[..., ToolResult]]:
    """Calls as an agent, on a gateway built with the governance.yaml in the test's home."""
    apps: list[bootstrap.App] = []

    def call(tool: str, governance: str | None = None, **args: str) -> ToolResult:
        if not apps:
            if governance is not None:
                home.mkdir(parents=True, exist_ok=True)
                (home / "governance.yaml").write_text(governance)
            apps.append(bootstrap.build())
        return apps[0].gateway.invoke(tool, args, AGENT)

    yield call
    for app in apps:
        app.close()


@pytest.mark.parametrize("relative", STORES)
def test_a_credential_store_is_refused_by_default(
    gateway: Callable[..., ToolResult], user_home: Path, relative: str
) -> None:
    result = gateway("read_file", path=str(user_home / relative))
    assert result.error_code == "permission_denied", result.output
    assert "protected location" in (result.error or "")
    assert SECRET.strip() not in str(result.model_dump())


def test_the_rest_of_the_home_is_readable(
    gateway: Callable[..., ToolResult], user_home: Path
) -> None:
    read = gateway("read_file", path=str(user_home / "Documents" / "notes.txt"))
    assert read.success, read.error


def test_a_link_to_a_store_is_refused(gateway: Callable[..., ToolResult], user_home: Path) -> None:
    (user_home / "Documents" / "key").symlink_to(user_home / ".ssh" / "id_ed25519")
    result = gateway("read_file", path=str(user_home / "Documents" / "key"))
    assert result.error_code == "permission_denied"


def test_listing_the_home_leaves_the_stores_out(
    gateway: Callable[..., ToolResult], user_home: Path
) -> None:
    listed = gateway("list_directory", path=str(user_home))
    names = {entry["name"] for entry in listed.output["entries"]}
    assert names == {"Documents", "Library", ".local", ".docker"}  # the rest: only stores
    docker = gateway("list_directory", path=str(user_home / ".docker"))
    assert docker.success and docker.output["entries"] == []  # config.json left out
    inner = gateway("list_directory", path=str(user_home / "Library"))
    assert {e["name"] for e in inner.output["entries"]} == {
        "Application Support",
        "Group Containers",
    }


def test_forbidden_paths_add_to_the_list(
    gateway: Callable[..., ToolResult], user_home: Path
) -> None:
    (user_home / "Private").mkdir()
    (user_home / "Private" / "diary.txt").write_text("dear diary\n")
    extended = "tools:\n  read_file: {forbidden_paths: ['$HOME/Private/**']}\n"
    mine = gateway("read_file", extended, path=str(user_home / "Private" / "diary.txt"))
    assert mine.error_code == "permission_denied"
    default = gateway("read_file", path=str(user_home / ".ssh" / "id_ed25519"))
    assert default.error_code == "permission_denied"  # not replaced by the file's list


def test_an_allowed_path_inside_a_store_opens_that_place_only(
    gateway: Callable[..., ToolResult], user_home: Path
) -> None:
    (user_home / ".config" / "myapp").mkdir()
    (user_home / ".config" / "myapp" / "settings.toml").write_text("theme = 'dark'\n")
    opened = "tools:\n  read_file: {allowed_paths: ['$HOME/**', '$HOME/.config/myapp/**']}\n"
    settings = gateway("read_file", opened, path=str(user_home / ".config/myapp/settings.toml"))
    assert settings.success, settings.error
    other = gateway("read_file", path=str(user_home / ".config" / "gh" / "hosts.yml"))
    assert other.error_code == "permission_denied"


def test_opening_all_of_config_still_leaves_fruitctls_own_shut(
    gateway: Callable[..., ToolResult], user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FRUITCTL_HOME")  # the platform's layout: ~/.config/fruitctl
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    config = user_home / ".config" / "fruitctl"
    config.mkdir(mode=0o700)
    (config / "governance.yaml").write_text(
        "tools:\n  read_file: {allowed_paths: ['$HOME/**', '$HOME/.config/**']}\n"
    )
    (config / "credentials.json").write_text('{"token": "x"}\n')
    gh = gateway("read_file", path=str(user_home / ".config" / "gh" / "hosts.yml"))
    assert gh.success, gh.error  # the person opened all of ~/.config
    for name in ("governance.yaml", "credentials.json"):
        own = gateway("read_file", path=str(config / name))
        assert own.error_code == "permission_denied"
        assert "fruitctl's own files" in (own.error or "")
