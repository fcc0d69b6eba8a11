"""The fast lane's guard (tests/conftest.py): a test that starts a process must say so."""

from __future__ import annotations

import subprocess

import pytest


def test_an_unmarked_test_cannot_start_a_process() -> None:
    with pytest.raises(AssertionError, match=r"mark it @pytest\.mark\.process"):
        subprocess.run(["true"], check=True)


@pytest.mark.process
def test_a_test_marked_process_starts_one() -> None:
    assert subprocess.run(["true"], check=True).returncode == 0
