"""The code tools: ``git_status``, ``run_linter`` and ``run_tests``."""
