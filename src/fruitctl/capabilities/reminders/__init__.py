"""The reminders capability."""
