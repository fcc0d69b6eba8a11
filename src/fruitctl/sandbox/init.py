"""PID 1 of a sandbox's PID namespace: ``python -I -S init.py STATUS_FD NPROC -- PROGRAM...``.

It sets the process limit (inside the user namespace, where RLIMIT_NPROC counts only this
namespace's processes), starts the program as PID 2 in a session of its own, reaps every orphan
that falls to it, and when the program ends writes its wait status to STATUS_FD and exits - and
the kernel then kills whatever else is left in the namespace. The program is not PID 1 itself
because PID 1 ignores signals it has no handler for (SIGXFSZ, SIGTERM...), which would change
how limits end it. Standard library only, no fruitctl import: it runs with ``-I -S``.
"""

import os
import resource
import signal
import sys


def main(argv: list[str]) -> int:
    status_fd, nproc, separator, *program = argv
    if separator != "--" or not program:
        os.write(2, b"sandbox init: usage: STATUS_FD NPROC -- PROGRAM...\n")
        return 127
    if int(nproc) > 0:
        resource.setrlimit(resource.RLIMIT_NPROC, (int(nproc), int(nproc)))
    os.set_inheritable(int(status_fd), False)
    child = os.fork()
    if child == 0:
        _become(program)
    while True:  # PID 1 inherits every orphan: reap them all until the program itself ends
        reaped, status = os.wait()
        if reaped == child:
            os.write(int(status_fd), str(status).encode())
            return 0


def _become(program: list[str]) -> None:
    try:
        for ignored_by_python in (signal.SIGPIPE, signal.SIGXFSZ):  # as subprocess restores them
            signal.signal(ignored_by_python, signal.SIG_DFL)
        os.setsid()
        os.execve(program[0], program, os.environ)
    except OSError as exc:
        os.write(2, f"sandbox init: cannot run {program[0]!r}: {exc.strerror}\n".encode())
    os._exit(127)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
