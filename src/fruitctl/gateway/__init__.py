"""The gateway: the one pipeline every call and decision goes through (``core``), where each
call runs and until when (``placement``), and the hands that run it there (``runner``)."""

from fruitctl.gateway.core import ACTIONS, Action, Gateway

__all__ = ["ACTIONS", "Action", "Gateway"]
