"""Whether a proposal holds text a person cannot see: the check and the warning the CLI and the
approval page share. Apart from ``views`` (which builds proposals with the tools' models) so
that drawing a list of them on the CLI's short way (``cli.fast``) loads no pydantic."""

from __future__ import annotations

from typing import Any

from fruitctl.domain.text import holds_hidden

# The parts of a proposal an agent or another app wrote (or that quote what they wrote).
WRITTEN = ("summary", "actor", "args", "diff", "reason", "error", "result", "resolvedBy")
# What a person is told when a proposal holds text they cannot see, at every door.
HIDDEN_WARNING = (
    "This proposal holds invisible or direction-changing characters, shown as [U+…]. "
    "Read it carefully."
)


def hides_text(shown: dict[str, Any]) -> bool:
    """Whether a proposal (as ``views.proposal`` shows it, or a row of a list of them) holds a
    character a person cannot see, anywhere an agent or another app wrote - the warning both
    the CLI and the page give. Line breaks and tabs are layout, not hidden."""
    return any(holds_hidden(shown.get(part), keep="\t\n\r") for part in WRITTEN)
