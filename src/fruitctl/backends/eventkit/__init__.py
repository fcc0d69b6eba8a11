"""The ``eventkit`` backend: the person's own Apple Reminders and Calendar, on macOS.

``adapter.py`` is the only code that touches PyObjC (``EKEventStore``); it speaks in the plain
values of ``values.py``. Everything above it - the backends, the mapping of fields, dates,
priorities and errors, permissions, the Reminders store read for tags and flags - works on
those values, so it runs and is tested on any platform through a fake of ``EventKitPort``.
"""
