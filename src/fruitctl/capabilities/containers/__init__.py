"""The containers capability."""
