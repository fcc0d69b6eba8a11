"""The Makefile as a Mac developer meets it, run with the real ``make`` on a private .venv.

Every run points VENV (and the Inspector's folder) into tmp_path and gets a PATH of its own, so
the checkout's .venv is never touched. The Pythons on that PATH are small Python scripts that
report another version: ``--version`` answers like python3 would, and ``-c`` runs the code it is
given with ``sys.version_info`` set to that version, so whatever the Makefile asks is answered as
that interpreter would. One that may make a .venv writes a copy of itself into it, which records
the pip installs it is asked for instead of fetching anything.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAKE = shutil.which("make")
TIMEOUT_S = 120  # make plus a few Python starts: well under a second when healthy
# What the recipes under test call besides bash's builtins and the Pythons.
TOOLS = ("rm", "touch", "awk", "mkdir", "uname", "id")

pytestmark = [
    pytest.mark.skipif(MAKE is None, reason="needs GNU make on PATH"),
    pytest.mark.process,
]

FAKE_PYTHON = """#!{python}
import shutil, sys
from pathlib import Path

VERSION = {version!r}
MAKES_VENVS = {makes_venvs!r}
LOG = Path({log!r})
here = Path(__file__)
args = sys.argv[1:]
with LOG.open("a") as log:
    log.write(f"{{here}} {{' '.join(args)}}\\n")
if args == ["--version"]:
    print("Python %d.%d.%d" % VERSION)
elif args[:1] == ["-c"]:
    sys.argv = ["-c", *args[2:]]
    sys.version_info = (*VERSION, "final", 0)
    exec(compile(args[1], "<string>", "exec"), {{"__name__": "__main__"}})
elif args[:2] == ["-m", "venv"] and MAKES_VENVS:
    venv = Path(args[2])
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("made by a test\\n")
    shutil.copy(here, venv / "bin" / "python")
elif args[:2] == ["-m", "pip"] and (here.parents[1] / "pyvenv.cfg").exists():
    pass  # recorded above: the test reads what would have been installed
else:
    sys.exit(3)
"""


def fake_python(
    where: Path, name: str, version: tuple[int, int, int], *, makes_venvs: bool = False
) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    path = where / name
    log = str(where.parent / "calls.log")
    path.write_text(
        FAKE_PYTHON.format(python=sys.executable, version=version, makes_venvs=makes_venvs, log=log)
    )
    path.chmod(0o755)
    return path


def fake_tool(where: Path, name: str, script: str) -> None:
    where.mkdir(parents=True, exist_ok=True)
    path = where / name
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)


def make(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``make -C <checkout> VENV=<tmp> args`` with only tmp_path/shims and the TOOLS on PATH."""
    tools = tmp_path / "tools"
    tools.mkdir(exist_ok=True)
    for name in TOOLS:
        found = shutil.which(name)
        if found and not (tools / name).exists() and not (tmp_path / "shims" / name).exists():
            (tools / name).symlink_to(found)
    path = f"{tmp_path / 'shims'}:{tools}"
    command = [str(MAKE), "--no-print-directory", "-C", str(ROOT), f"VENV={tmp_path / 'venv'}"]
    return subprocess.run(
        [*command, *args],
        env={"PATH": path, "HOME": str(tmp_path), "LANG": "C", **env},
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def said(done: subprocess.CompletedProcess[str]) -> list[str]:
    """What the recipes printed on stderr, without make's own closing 'Error 1' line."""
    return [line for line in done.stderr.splitlines() if not line.startswith("make: ")]


def calls(tmp_path: Path) -> str:
    log = tmp_path / "calls.log"
    return log.read_text() if log.exists() else ""


def test_an_old_python_named_by_PYTHON_stops_make_run_with_one_line(tmp_path: Path) -> None:
    old = fake_python(tmp_path / "elsewhere", "python3", (3, 9, 6), makes_venvs=True)
    done = make(tmp_path, "run", f"PYTHON={old}")
    assert done.returncode != 0
    (line,) = said(done)
    assert line.startswith("fruitctl needs Python 3.11 or newer; found ")
    assert f"{old} 3.9.6" in line
    assert "brew install python@3.12" in line and "apt-get install python3.11" in line
    assert "PYTHON=" in line
    assert not (tmp_path / "venv").exists()
    assert "-m venv" not in calls(tmp_path) and "-m pip" not in calls(tmp_path)


def test_with_only_an_old_python3_on_path_make_setup_names_it(tmp_path: Path) -> None:
    fake_python(tmp_path / "shims", "python3", (3, 9, 6), makes_venvs=True)
    done = make(tmp_path, "setup")
    assert done.returncode != 0
    (line,) = said(done)
    assert "found python3 3.9.6." in line and "brew install python@3.12" in line
    assert not (tmp_path / "venv").exists()


def test_with_no_python_at_all_make_setup_says_so(tmp_path: Path) -> None:
    done = make(tmp_path, "setup")
    assert done.returncode != 0
    (line,) = said(done)
    assert "fruitctl needs Python 3.11 or newer; found no python3." in line


def test_a_versioned_python_is_picked_before_python3(tmp_path: Path) -> None:
    shims = tmp_path / "shims"
    fake_python(shims, "python3", (3, 9, 6), makes_venvs=True)
    fake_python(shims, "python3.11", (3, 11, 9), makes_venvs=True)
    fake_python(shims, "python3.12", (3, 12, 4), makes_venvs=True)
    done = make(tmp_path, "setup")
    assert done.returncode == 0, done.stderr
    assert "==> making" in done.stdout and "with Python 3.12.4 (python3.12)" in done.stdout
    venv_python = tmp_path / "venv" / "bin" / "python"
    assert f"{shims / 'python3.12'} -m venv {tmp_path / 'venv'}" in calls(tmp_path)
    assert f"{venv_python} -m pip install" in calls(tmp_path)
    assert "-c constraints.txt -e ." in calls(tmp_path)
    assert (tmp_path / "venv" / ".installed").exists()


@pytest.mark.parametrize("made_by", ["an-old-python", "a-python-gone"])
def test_a_venv_made_by_an_old_or_missing_python_is_made_again(
    tmp_path: Path, made_by: str
) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    if made_by == "an-old-python":
        fake_python(venv / "bin", "python", (3, 9, 6))
        expected = "was made by Python 3.9.6, too old for fruitctl: making it again"
    else:
        (venv / "bin" / "python").symlink_to(tmp_path / "uninstalled" / "python3.12")
        expected = "was made by a Python that no longer runs: making it again"
    # Installed after the last change to pyproject.toml: only the version check can notice.
    (venv / ".installed").touch()
    (venv / "left-behind").touch()
    fake_python(tmp_path / "shims", "python3.12", (3, 12, 4), makes_venvs=True)
    done = make(tmp_path, "setup")
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout, done.stdout
    assert not (venv / "left-behind").exists()
    version = subprocess.run(
        [venv / "bin" / "python", "--version"], capture_output=True, text=True, check=True
    )
    assert version.stdout.strip() == "Python 3.12.4"


@pytest.mark.skipif(sys.platform == "darwin", reason="on a Mac make test-mac runs the live tests")
def test_make_test_mac_elsewhere_says_it_needs_a_mac_before_installing(tmp_path: Path) -> None:
    fake_python(tmp_path / "shims", "python3.12", (3, 12, 4), makes_venvs=True)
    done = make(tmp_path, "test-mac")
    assert done.returncode != 0
    (line,) = said(done)
    assert line.startswith("make test-mac needs a Mac: it runs the live EventKit")
    assert not (tmp_path / "venv").exists()


def pretend(tmp_path: Path, system: str, uid: int) -> None:
    """``uname -s`` and ``id -u`` answer as on another machine; apt-get only records its calls."""
    shims = tmp_path / "shims"
    fake_tool(shims, "uname", f"echo {system}")
    fake_tool(shims, "id", f"echo {uid}")
    fake_tool(shims, "apt-get", f'echo "apt-get $*" >> {tmp_path / "calls.log"}')


def test_make_browser_on_a_mac_goes_on_and_says_the_test_will_skip(tmp_path: Path) -> None:
    pretend(tmp_path, "Darwin", 501)
    done = make(tmp_path, "browser")
    assert done.returncode == 0, done.stderr
    assert "no chromium: the approval page's browser test will skip" in done.stdout
    assert calls(tmp_path) == ""


def test_make_browser_where_strict_stops_without_chromium(tmp_path: Path) -> None:
    pretend(tmp_path, "Linux", 1000)
    done = make(tmp_path, "browser", FRUITCTL_TEST_STRICT="1")
    assert done.returncode != 0
    assert "make test needs chromium" in done.stdout


def test_make_browser_as_root_on_debian_installs_chromium(tmp_path: Path) -> None:
    pretend(tmp_path, "Linux", 0)
    done = make(tmp_path, "browser")
    assert done.returncode == 0, done.stderr
    assert "apt-get install -y -qq chromium" in calls(tmp_path)


def inspector_folder(tmp_path: Path) -> str:
    folder = tmp_path / "inspector"
    folder.mkdir()
    for name in ("package.json", "package-lock.json"):
        shutil.copy(ROOT / "tests" / "inspector" / name, folder / name)
    return f"INSPECTOR_DIR={folder}"


@pytest.mark.parametrize("strict", [False, True], ids=["a-mac", "strict"])
def test_make_without_npm_skips_the_inspector_only_where_allowed(
    tmp_path: Path, strict: bool
) -> None:
    pretend(tmp_path, "Darwin", 501)
    folder = inspector_folder(tmp_path)
    target = f"{folder.split('=')[1]}/node_modules/.installed"
    done = make(tmp_path, folder, target, **({"FRUITCTL_TEST_STRICT": "1"} if strict else {}))
    assert not Path(target).exists()
    if strict:
        assert done.returncode != 0 and "make test needs node and npm" in done.stdout
    else:
        assert done.returncode == 0, done.stderr
        assert "no npm: the MCP Inspector test will skip (macOS: brew install node" in done.stdout
