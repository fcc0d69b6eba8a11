"""Places file tools refuse whatever governance.yaml says, and may not be talked out of.

- fruitctl's own files and folders (``Paths.owned``: its configuration - all of it -, stores,
  secrets, logs, run folder, the daemon's socket, lock, pid and token, the agents' socket
  folder), on every platform's layout, compared by their resolved paths: refused to every
  caller, a person's own call and an approved proposal too. The workspace, inside the data
  folder, is the one part of them that is not fruitctl's.
- ``CREDENTIAL_STORES``: where well-known programs keep keys, tokens and passwords. Refused
  unless governance's ``allowed_paths`` name a place inside one - ``$HOME/.config/myapp/**``
  opens that folder, ``$HOME/**`` opens none of them.

A person adds places with ``forbidden_paths``; neither list here can be emptied from the file.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from fruitctl.paths import Paths

CREDENTIAL_STORES = [
    # Keys, and the credentials of developer and cloud tools.
    "$HOME/.ssh/**",
    "$HOME/.gnupg/**",
    "$HOME/.aws/**",
    "$HOME/.azure/**",
    "$HOME/.kube/**",
    "$HOME/.docker/config.json",
    "$HOME/.git-credentials",
    "$HOME/.netrc",
    "$HOME/.npmrc",
    "$HOME/.pypirc",
    "$HOME/.pgpass",
    "$HOME/.vault-token",
    "$HOME/.cargo/credentials*",
    "$HOME/.terraform.d/credentials.tfrc.json",
    # Every other program's settings and tokens (gh, gcloud, browsers, password managers...):
    # all of ~/.config, each folder opened only by naming it in allowed_paths.
    "$HOME/.config/**",
    # Password stores and keyrings; a KeePass database wherever it is in the home.
    "$HOME/.password-store/**",
    "$HOME/.local/share/keyrings/**",
    "$HOME/*.kdbx",
    # Browser profiles (cookies, saved passwords) outside ~/.config: Firefox, snaps, flatpaks.
    "$HOME/.mozilla/**",
    "$HOME/snap/firefox/**",
    "$HOME/snap/chromium/**",
    "$HOME/.var/app/**",
    # macOS: keychains, browsers, password managers, and what runs at login.
    "$HOME/Library/Keychains/**",
    "/Library/Keychains/**",
    "$HOME/Library/Cookies/**",
    "$HOME/Library/Safari/**",
    "$HOME/Library/Containers/com.apple.Safari/**",
    "$HOME/Library/Application Support/Google/Chrome/**",
    "$HOME/Library/Application Support/Chromium/**",
    "$HOME/Library/Application Support/BraveSoftware/**",
    "$HOME/Library/Application Support/Microsoft Edge/**",
    "$HOME/Library/Application Support/Firefox/**",
    "$HOME/Library/Application Support/1Password/**",
    "$HOME/Library/Group Containers/2BUA8C4S2C.com.1password/**",
    "$HOME/Library/Application Support/Bitwarden/**",
    "$HOME/Library/Containers/com.bitwarden.desktop/**",
    "$HOME/Library/Application Support/KeePassXC/**",
    "$HOME/Library/LaunchAgents/**",
    # Seed 004's descriptors: they tell agent platforms what to run.
    "$HOME/.aai/**",
]
"""Refused to file tools unless ``allowed_paths`` name a place inside one (see the docstring)."""


class Protected(BaseModel):
    """What file tools refuse whatever governance.yaml says; set by fruitctl, never by the file.

    ``own``: fruitctl's own files and folders (literal absolute paths), but ``workspace``.
    ``credentials``: ``CREDENTIAL_STORES``, expanded."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    own: tuple[str, ...] = ()
    workspace: str | None = None
    credentials: tuple[str, ...] = ()


def protected_places(paths: Paths, expand: Callable[[str], str]) -> Protected:
    """The protected places of this layout; ``expand`` turns ``$HOME`` into the home."""
    return Protected(
        own=tuple(str(place) for place in paths.owned()),
        workspace=str(paths.workspace),
        credentials=tuple(expand(pattern) for pattern in CREDENTIAL_STORES),
    )
