"""Where a file tool reaches: its path, against the tool's path rules (``policy.targets``) -
for everyone, a person's own call too."""

from __future__ import annotations

import os
from typing import Any

from fruitctl.policy.governance import ToolRules
from fruitctl.policy.targets import path_check
from fruitctl.tools.context import ToolContext
from fruitctl.tools.model import TargetRule

_write_check = path_check(for_write=True)


def _deletable(args: Any, rules: ToolRules, ctx: ToolContext) -> None:
    """A write's path rules, and a link or a folder refused before anything is proposed (the
    service refuses them again when it opens the folder: this is for a clear early answer)."""
    _write_check(args, rules, ctx)
    try:
        mode = os.stat(args.path, follow_symlinks=False).st_mode
    except OSError:  # nothing there (or no access): the deletion itself says so
        return
    from fruitctl.capabilities.files.service import not_deletable  # what runs the tool

    refused = not_deletable(mode, args.path)
    if refused is not None:
        raise refused


PATHS_READ = TargetRule(path_check(for_write=False), "everyone")
PATHS_WRITE = TargetRule(_write_check, "everyone")
PATHS_DELETE = TargetRule(_deletable, "everyone")
