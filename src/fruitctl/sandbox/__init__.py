"""Running programs the gateway does not trust to behave (seed 001, section 5.1).

``run_command`` runs one program with no shell, in a session of its own, under kernel resource
limits, with a scrubbed environment, bounded output and a hard deadline. ``run_in_child`` uses it
to run a fruitctl function in a fresh Python process (``python -m fruitctl.sandbox``), so a
tool that hangs, spins or leaks memory takes only its child down.

What the seed's sketch lacks and this adds: at the deadline, and when the program ends, every
process it started dies - a grandchild in a session of its own and a daemon it left behind too -
by the strongest means the machine has (new PID, user, mount and network namespaces; a pids
cgroup; else a walk of the process tree: ``fruitctl.sandbox.isolation``, which ``fruitctl
doctor`` shows); the number of processes is limited; the network is off unless the call asks
for it (where namespaces exist); output cannot fill the gateway's memory; and a child sees none
of the gateway's environment. It is not a container: a program can read what the user can read
(path checks stay the tools' job).
"""

from fruitctl.sandbox.calls import (
    CHILD_MODULE,
    check_target,
    error_from_reply,
    python_env,
    run_in_child,
)
from fruitctl.sandbox.isolation import SAFE_PATH
from fruitctl.sandbox.runner import (
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
