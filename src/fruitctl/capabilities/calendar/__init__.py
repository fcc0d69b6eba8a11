"""The calendar capability."""
