"""Building fruitctl.app: its Info.plist (read back with plistlib), its layout, when it is kept
and when rebuilt, what a missing or failing compiler says, and what it never replaces.

The build runs here for real (the system's ``cc``); signing is macOS's ``codesign`` alone, so
off macOS the build reports it not signed, and the check of the signature skips with its reason.
"""

from __future__ import annotations

import plistlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from needs import missing

from fruitctl.daemon import bundle, native
from fruitctl.daemon.native import CannotBuild

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

ON_MAC = pytest.mark.skipif(sys.platform != "darwin", reason="codesign and plutil are macOS's")
COMMAND = [sys.executable, "-m", "fruitctl", "serve"]


@pytest.fixture(autouse=True)
def _compiler() -> None:
    if shutil.which("cc") is None:
        missing("a C compiler (cc): on a Mac, xcode-select --install; on Debian, apt install gcc")


@pytest.fixture
def app(tmp_path: Path) -> bundle.App:
    return bundle.app_in(tmp_path / "Applications", COMMAND)


def info(app: bundle.App) -> dict[str, object]:
    loaded = plistlib.loads((app.path / "Contents" / "Info.plist").read_bytes())
    assert isinstance(loaded, dict)
    return loaded


def stand_in_cc(folder: Path, script: str) -> Path:
    """A folder holding only a ``cc`` that runs ``script`` (to put alone on PATH)."""
    folder.mkdir()
    (folder / "cc").write_text(f"#!/bin/sh\n{script}\n")
    (folder / "cc").chmod(0o755)
    return folder


def test_the_info_plist_names_the_app_and_says_why_it_asks(app: bundle.App) -> None:
    bundle.build(app)
    plist = info(app)
    assert plist["CFBundleIdentifier"] == "dev.fruitctl.gateway"
    assert plist["CFBundleName"] == "fruitctl"
    assert plist["CFBundlePackageType"] == "APPL"
    assert plist["LSUIElement"] is True
    assert isinstance(plist["LSMinimumSystemVersion"], str)
    assert (app.path / "Contents" / "MacOS" / str(plist["CFBundleExecutable"])) == app.executable
    for key, subject in [
        ("NSRemindersFullAccessUsageDescription", "reminders"),
        ("NSRemindersUsageDescription", "reminders"),
        ("NSCalendarsFullAccessUsageDescription", "calendars"),
        ("NSCalendarsUsageDescription", "calendars"),
    ]:
        said = plist[key]
        assert isinstance(said, str) and subject in said and "approve" in said, key


def test_a_build_is_an_app_whose_executable_runs(app: bundle.App) -> None:
    done = bundle.build(app)
    assert done == {"path": str(app.path), "built": True, "signed": sys.platform == "darwin"}
    assert app.executable.stat().st_mode & 0o777 == 0o755
    assert (app.path / "Contents" / "PkgInfo").read_bytes() == b"APPL????"
    assert bundle.state(app)["present"] and bundle.state(app)["upToDate"]
    # Nothing but the app is left beside it (the build's folder and sources are gone).
    assert [p.name for p in app.path.parent.iterdir()] == ["fruitctl.app"]
    assert not list(app.path.rglob("*.c")) and not list(app.path.rglob("*.h"))


def test_an_app_that_is_up_to_date_is_kept_a_changed_command_rebuilds_it(
    app: bundle.App, tmp_path: Path
) -> None:
    """A new build is a new signature (macOS may ask again): only what changed is rebuilt."""
    bundle.build(app)
    first = app.executable.stat().st_ino
    assert bundle.build(app)["built"] is False
    assert app.executable.stat().st_ino == first
    assert bundle.build(app, rebuild=True)["built"] is True
    assert app.executable.stat().st_ino != first

    moved = bundle.app_in(app.path.parent, [str(tmp_path / "new-venv" / "python"), *COMMAND[1:]])
    assert bundle.state(moved) | {"signatureValid": None} == {
        "path": str(app.path),
        "present": True,
        "upToDate": False,
        "signatureValid": None,
    }
    assert bundle.build(moved)["built"] is True
    assert bundle.state(moved)["upToDate"] and not bundle.state(app)["upToDate"]


def test_state_sees_a_missing_or_tampered_app(app: bundle.App) -> None:
    assert bundle.state(app) == {
        "path": str(app.path),
        "present": False,
        "upToDate": False,
        "signatureValid": None,
    }
    bundle.build(app)
    stamp = app.path / "Contents" / "Resources" / bundle.STAMP
    stamp.write_bytes(stamp.read_bytes().replace(b"serve", b"other"))
    assert bundle.state(app)["present"] and not bundle.state(app)["upToDate"]
    app.executable.unlink()
    assert not bundle.state(app)["present"]
    assert bundle.build(app)["built"] is True and bundle.state(app)["upToDate"]


def test_no_compiler_says_to_install_apples_command_line_tools(
    app: bundle.App, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(CannotBuild) as raised:
        bundle.build(app)
    said = str(raised.value)
    assert "none was found on PATH" in said and "xcode-select --install" in said
    assert not app.path.exists() and list(app.path.parent.iterdir()) == []


def test_a_failing_compiler_is_reported_and_the_previous_app_is_kept(
    app: bundle.App, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Apple's ``/usr/bin/cc`` without the Command Line Tools is a shim that fails like this."""
    bundle.build(app)
    before = app.executable.read_bytes()
    shim = "echo 'xcrun: error: invalid active developer path (/Library/Developer)' >&2; exit 1"
    monkeypatch.setenv("PATH", str(stand_in_cc(tmp_path / "shim", shim)))
    with pytest.raises(CannotBuild) as raised:
        bundle.build(app, rebuild=True)
    said = str(raised.value)
    assert "invalid active developer path" in said and "(exit 1)" in said
    assert "xcode-select --install" in said
    assert app.executable.read_bytes() == before and bundle.state(app)["upToDate"]
    assert [p.name for p in app.path.parent.iterdir()] == ["fruitctl.app"]


def test_what_is_not_fruitctls_app_is_never_replaced_nor_removed(app: bundle.App) -> None:
    contents = app.path / "Contents"
    contents.mkdir(parents=True)
    theirs = plistlib.dumps({"CFBundleIdentifier": "com.example.other"})
    (contents / "Info.plist").write_bytes(theirs)
    with pytest.raises(CannotBuild, match="is not fruitctl's app"):
        bundle.build(app)
    assert bundle.remove(app) == {
        "path": str(app.path),
        "removed": False,
        "reason": "not fruitctl's app: kept",
    }
    assert (contents / "Info.plist").read_bytes() == theirs


def test_remove_takes_fruitctls_app_away(app: bundle.App) -> None:
    assert bundle.remove(app)["removed"] is False
    bundle.build(app)
    assert bundle.remove(app) == {"path": str(app.path), "removed": True, "reason": None}
    assert not app.path.exists()


def test_the_command_header_holds_bytes_never_c_text() -> None:
    header = native.command_header(["/p/py thon", '"; system("x"); "'])
    assert "py thon" not in header and "system" not in header
    assert "ARG_0[] = {0x2f, 0x70, 0x2f, 0x70, 0x79, 0x20" in header
    with pytest.raises(ValueError, match="NUL"):
        native.command_header(["/bin/python\0-c"])
    with pytest.raises(ValueError, match="program"):
        native.command_header([])


@ON_MAC
def test_on_a_mac_the_app_is_signed_ad_hoc_as_fruitctl(app: bundle.App) -> None:
    assert bundle.build(app)["signed"] is True
    assert bundle.state(app)["signatureValid"] is True
    described = subprocess.run(
        ["codesign", "--display", "--verbose=2", str(app.path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Identifier=dev.fruitctl.gateway" in described.stderr
    assert "Signature=adhoc" in described.stderr
    lint = subprocess.run(["plutil", "-lint", str(app.path / "Contents" / "Info.plist")])
    assert lint.returncode == 0
    # A changed executable breaks the seal: status says so, and install rebuilds.
    app.executable.write_bytes(app.executable.read_bytes() + b"\0")
    assert bundle.state(app)["signatureValid"] is False
    assert bundle.build(app)["built"] is True


def test_off_a_mac_the_build_says_it_is_not_signed(app: bundle.App) -> None:
    if sys.platform == "darwin":
        pytest.skip("on a Mac the app is signed (the test above)")
    assert bundle.build(app)["signed"] is False
    assert bundle.state(app)["signatureValid"] is None
