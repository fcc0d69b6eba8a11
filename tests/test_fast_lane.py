"""The fast lane's guard (tests/conftest.py): a test that starts a process must say so."""

from __future__ import annotations

import subprocess

import process_guard
import pytest


def test_an_unmarked_test_cannot_start_a_process() -> None:
    with pytest.raises(AssertionError, match=r"mark it @pytest\.mark\.process"):
        subprocess.run(["true"], check=True)
    # Kept for the test's end, where a start the code under test swallowed still fails it.
    assert process_guard.refused_starts == ["['true']"]
    process_guard.refused_starts.clear()


@pytest.mark.process
def test_a_test_marked_process_starts_one() -> None:
    assert subprocess.run(["true"], check=True).returncode == 0
