"""The code tools' work: ``git`` for a repository's status (``git``), ruff and mypy
(``lint``), pytest (``pytest``), each run as a program with an argument list, never a shell."""
