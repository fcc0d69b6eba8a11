"""The web capability."""
