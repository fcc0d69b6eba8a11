"""The system capability."""
