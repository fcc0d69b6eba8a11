"""Approvals (seed 003): proposals a person approves, executed exactly once, with a diff, an
undo and an append-only, hash-chained audit log."""
