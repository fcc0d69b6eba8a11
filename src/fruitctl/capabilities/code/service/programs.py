"""How the code tools start a Python tool on a project: which interpreter, in what environment.

The interpreter is the project's own when it has one (``.venv/bin/python`` in the folder the
tool works on), so its tests and types see the packages the project installed; otherwise the
Python fruitctl runs on. Either way the program gets a scrubbed environment (the sandbox's PATH
and locale), a home folder of its own that is thrown away (no user configuration, no caches left
in the project) and no bytecode files written.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

PROJECT_PYTHON = (".venv", "bin", "python")


@dataclass(frozen=True)
class Python:
    executable: str
    source: str
    """project_venv or fruitctl."""
    venv: Path | None

    def has(self, module: str) -> bool:
        """Whether ``module`` is installed for this interpreter (looked up without running it)."""
        if self.venv is None:
            return importlib.util.find_spec(module) is not None
        packages = self.venv.glob("lib/python*/site-packages")
        return any((site / module).is_dir() for site in packages)


def python_for(folder: Path) -> Python:
    """The project's own Python when ``folder`` has a ``.venv``, else fruitctl's."""
    candidate = folder.joinpath(*PROJECT_PYTHON)
    if os.access(candidate, os.X_OK) and candidate.is_file():
        return Python(str(candidate), "project_venv", folder / PROJECT_PYTHON[0])
    return Python(sys.executable, "fruitctl", None)


def program_env(home: Path) -> dict[str, str]:
    """What a linter or a test run is given on top of ``scrubbed_env``."""
    return {
        "HOME": str(home),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "NO_COLOR": "1",
    }
