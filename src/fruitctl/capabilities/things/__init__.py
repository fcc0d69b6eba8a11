"""The things capability."""
