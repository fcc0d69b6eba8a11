"""Running programs the gateway does not trust to behave (seed 001, section 5.1).

``run_command`` runs one program with no shell, in a session of its own, under kernel resource
limits, with a scrubbed environment, bounded output and a hard deadline. ``run_in_child`` uses it
to run a fruitctl function in a fresh Python process (``python -m fruitctl.sandbox``), so a
tool that hangs, spins or leaks memory takes only its child down.

What the seed's sketch lacks and this adds: a timeout kills the whole process group (helpers a
program started die with it), output cannot fill the gateway's memory, and a child sees none of
the gateway's environment. It is not a container: a program can read what the user can read
(path checks stay the tools' job), and a grandchild that starts a session of its own escapes the
group kill (its CPU limit still ends it).
"""

from fruitctl.sandbox.calls import (
    CHILD_MODULE,
    check_target,
    error_from_reply,
    python_env,
    run_in_child,
)
from fruitctl.sandbox.runner import (
    SAFE_PATH,
    CommandResult,
    Limits,
    find_program,
    run_command,
    scrubbed_env,
)

__all__ = [
    "CHILD_MODULE",
    "SAFE_PATH",
    "CommandResult",
    "Limits",
    "check_target",
    "error_from_reply",
    "find_program",
    "python_env",
    "run_command",
    "run_in_child",
    "scrubbed_env",
]
