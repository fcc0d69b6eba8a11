"""The proposals capability."""
