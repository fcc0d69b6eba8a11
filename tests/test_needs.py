"""A missing browser or Inspector skips a test only where make test could not have installed it."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import needs
import pytest

WHAT = "needs Debian's chromium: no `chromium` on PATH"


def machine(monkeypatch: pytest.MonkeyPatch, platform: str, uid: int, apt: bool) -> None:
    monkeypatch.delenv(needs.STRICT, raising=False)
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(needs.os, "geteuid", lambda: uid)
    real_which = shutil.which

    def which(name: str) -> str | None:
        if name == "apt-get":
            return "/usr/bin/apt-get" if apt else None
        return real_which(name)

    monkeypatch.setattr(needs.shutil, "which", which)


@pytest.mark.parametrize(
    ("platform", "uid", "apt"),
    [("darwin", 501, False), ("darwin", 0, False), ("linux", 1000, True), ("linux", 0, False)],
    ids=["a-mac", "a-mac-as-root", "linux-without-root", "linux-without-apt"],
)
def test_where_make_cannot_install_it_the_test_skips_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, platform: str, uid: int, apt: bool
) -> None:
    machine(monkeypatch, platform, uid, apt)
    with pytest.raises(pytest.skip.Exception, match="needs Debian's chromium"):
        needs.missing(WHAT)


def test_on_linux_as_root_with_apt_a_missing_tool_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    machine(monkeypatch, "linux", 0, True)
    with pytest.raises(pytest.fail.Exception, match="required here: Linux as root with apt-get"):
        needs.missing(WHAT)


def test_strict_makes_it_a_failure_anywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    machine(monkeypatch, "darwin", 501, False)
    monkeypatch.setenv(needs.STRICT, "1")
    with pytest.raises(pytest.fail.Exception, match="FRUITCTL_TEST_STRICT=1"):
        needs.missing(WHAT)


def test_ci_runs_make_test_strict() -> None:
    """CI may be a machine where make cannot install chromium: there it must fail, not skip. And
    its property tests run derandomized (``CI=1``), so a run is reproducible."""
    ci = (Path(__file__).parents[1] / ".ci" / "run").read_text()
    assert f"\nCI=1 {needs.STRICT}=1 make test\n" in ci
