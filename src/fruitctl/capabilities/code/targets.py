"""Where a code tool reaches: its path, against the tool's path rules (``policy.targets``, as a
file tool's read) - for everyone, a person's own call too."""

from __future__ import annotations

from fruitctl.policy.targets import path_check
from fruitctl.tools.model import TargetRule

PATHS_READ = TargetRule(path_check(for_write=False), "everyone")
