"""fruitctl.app: an app identity macOS can ask about for the daemon.

macOS asks for Reminders and Calendars access on behalf of the responsible process, and only
when that process is an app whose Info.plist says why it asks; a Python that launchd starts is
neither, so it is denied without a prompt, and those Privacy panes have no "+" to add it by
hand. The LaunchAgent therefore runs this bundle's executable, a small native launcher that
starts ``python -m fruitctl serve`` as its child: the daemon's requests are the app's.

    fruitctl.app/Contents/Info.plist               bundle id, LSUIElement, the four usage strings
    fruitctl.app/Contents/MacOS/fruitctl           the launcher (compiled here, command built in)
    fruitctl.app/Contents/Resources/fruitctl-build.json   what it was built from

A build happens in a temporary folder beside the app and is swapped in whole. An app that is
already what would be built is kept: a new build is a new signature, and macOS may ask again.
"""

from __future__ import annotations

import hashlib
import json
import os
import plistlib
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fruitctl.daemon import native
from fruitctl.private import make_dirs

BUNDLE_ID = "dev.fruitctl.gateway"
APP_NAME = "fruitctl"
EXECUTABLE = "fruitctl"
STAMP = "fruitctl-build.json"
# The oldest macOS the supported Pythons (3.11+ from python.org) run on; the app is built on the
# Mac that runs it, so this only keeps Finder from refusing it.
MINIMUM_MACOS = "10.13"
_REMINDERS = (
    "fruitctl lets the AI agents you connect read your reminders, and change them only as your "
    "fruitctl policy allows or after you approve."
)
_CALENDARS = (
    "fruitctl lets the AI agents you connect read your calendars, and change events only as "
    "your fruitctl policy allows or after you approve."
)
USAGE_STRINGS = {
    "NSRemindersFullAccessUsageDescription": _REMINDERS,  # macOS 14 and later
    "NSCalendarsFullAccessUsageDescription": _CALENDARS,
    "NSRemindersUsageDescription": _REMINDERS,  # before macOS 14
    "NSCalendarsUsageDescription": _CALENDARS,
}


@dataclass(frozen=True)
class App:
    """Where fruitctl.app is, and the command its launcher starts."""

    path: Path
    command: tuple[str, ...]

    @property
    def executable(self) -> Path:
        return self.path / "Contents" / "MacOS" / EXECUTABLE


def app_in(folder: Path, command: Sequence[str]) -> App:
    return App(folder / f"{APP_NAME}.app", tuple(command))


def info_plist() -> bytes:
    info = {
        "CFBundleIdentifier": BUNDLE_ID,
        "CFBundleName": APP_NAME,
        "CFBundleDisplayName": APP_NAME,
        "CFBundleExecutable": EXECUTABLE,
        "CFBundlePackageType": "APPL",
        "CFBundleInfoDictionaryVersion": "6.0",
        # Not fruitctl's version: upgrading fruitctl must not change the app (macOS may ask again).
        "CFBundleVersion": "1",
        "CFBundleShortVersionString": "1",
        "LSUIElement": True,  # no Dock icon, no menu bar: it is a background holder
        "LSMinimumSystemVersion": MINIMUM_MACOS,
        **USAGE_STRINGS,
    }
    return plistlib.dumps(info, sort_keys=True)


def stamp(app: App) -> bytes:
    """What the app is built from: ``service status`` compares it with the installed one."""
    made_of = {
        "command": list(app.command),
        "launcher": native.source_digest(),
        "infoPlist": hashlib.sha256(info_plist()).hexdigest(),
    }
    return json.dumps(made_of, indent=1, sort_keys=True).encode()


def state(app: App) -> dict[str, Any]:
    """Whether the app is there, built from what would be built now, and (on macOS) signed."""
    present = is_ours(app.path) and os.access(app.executable, os.X_OK)
    try:
        built_from = (app.path / "Contents" / "Resources" / STAMP).read_bytes()
    except OSError:
        built_from = b""
    return {
        "path": str(app.path),
        "present": present,
        "upToDate": present and built_from == stamp(app),
        "signatureValid": native.signature_valid(app.path) if present else None,
    }


def build(app: App, *, rebuild: bool = False) -> dict[str, Any]:
    """Build the app (unless it is up to date and ``rebuild`` is not asked), sign it where
    macOS's codesign is, and put it in place."""
    signed = native.can_sign()
    current = state(app)
    if not rebuild and current["upToDate"] and current["signatureValid"] is not False:
        return {"path": str(app.path), "built": False, "signed": signed}
    make_dirs(app.path.parent)
    work = Path(tempfile.mkdtemp(prefix=".fruitctl-app-", dir=app.path.parent))
    try:
        staged = work / app.path.name
        _assemble(app, staged, work)
        if signed:
            native.sign(staged)
        _swap_in(staged, app.path, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"path": str(app.path), "built": True, "signed": signed}


def grant_notes(app: App) -> list[str]:
    """What the person will be asked, and the one grant they must give by hand."""
    return [
        f'macOS asks once, as "{APP_NAME}", the first time the daemon reads your reminders or '
        "calendars: allow it. The answer holds across restarts; a rebuilt app (another Python, a "
        "new launcher, --rebuild) may be asked about again.",
        "Things' database and the Reminders store for tags need Full Disk Access for the same "
        "app: System Settings > Privacy & Security > Full Disk Access > + > "
        f"{app.path}",
    ]


def remove(app: App) -> dict[str, Any]:
    """Remove the app, when it is fruitctl's (anything else at that path is left alone)."""
    if not app.path.exists():
        return {"path": str(app.path), "removed": False, "reason": "not there"}
    if not is_ours(app.path):
        return {"path": str(app.path), "removed": False, "reason": "not fruitctl's app: kept"}
    shutil.rmtree(app.path)
    return {"path": str(app.path), "removed": True, "reason": None}


def is_ours(path: Path) -> bool:
    """A real folder (not a symlink) whose Info.plist names fruitctl's bundle id."""
    if path.is_symlink() or not path.is_dir():
        return False
    try:
        info = plistlib.loads((path / "Contents" / "Info.plist").read_bytes())
    except (OSError, plistlib.InvalidFileException, ValueError):
        return False
    return isinstance(info, dict) and info.get("CFBundleIdentifier") == BUNDLE_ID


def _assemble(app: App, staged: Path, work: Path) -> None:
    contents = staged / "Contents"
    for folder in (contents / "MacOS", contents / "Resources", work / "source"):
        folder.mkdir(parents=True)
    (contents / "Info.plist").write_bytes(info_plist())
    (contents / "PkgInfo").write_bytes(b"APPL????")
    executable = contents / "MacOS" / EXECUTABLE
    native.compile_launcher(list(app.command), executable, work / "source")
    executable.chmod(0o755)
    (contents / "Resources" / STAMP).write_bytes(stamp(app))


def _swap_in(staged: Path, target: Path, work: Path) -> None:
    """Put ``staged`` at ``target``; a previous fruitctl.app goes to ``work`` (removed with it)."""
    if target.exists() or target.is_symlink():
        if not is_ours(target):
            raise native.CannotBuild(
                f"{target} exists and is not fruitctl's app; move it away, or build the app "
                "elsewhere with --app-folder"
            )
        target.rename(work / "previous.app")
    staged.rename(target)
