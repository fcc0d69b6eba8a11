"""The files capability."""
