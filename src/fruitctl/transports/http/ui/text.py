"""Text an agent wrote, shown so that it cannot disguise what a person approves.

Bidi overrides and isolates can make "Pay 100" read as "001 yaP", zero-width characters and
variation selectors can make two different titles look equal, Unicode tag characters can carry
hidden instructions, and a line separator can push half a title out of sight. Each character
the domain calls hidden (``domain.text.is_hidden``: by Unicode category, not by a list) is
replaced by a visible marker naming its code point - the character itself is gone from the
page, so it cannot act; everything else is escaped as usual.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

from markupsafe import Markup, escape

from fruitctl.domain import text as domain_text
from fruitctl.domain.text import code_point

# Line breaks and tabs are how notes and JSON are laid out: they stay (in a <pre> they matter).
LAYOUT = "\t\n\r"


def _marker(char: str) -> str:
    name = unicodedata.name(char, "control character")
    return f'<span class="hidden-char" title="{escape(name)}">[{code_point(char)}]</span>'


def _text(value: Any, indent: int | None = None) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=indent)


def reveal(value: Any) -> Markup:
    """HTML for any value: strings as they are, anything else as JSON; escaped, and every
    invisible or direction-changing character shown as ``[U+202E]``."""
    escaped = str(escape(_text(value, indent=1)))
    return Markup(domain_text.reveal(escaped, keep=LAYOUT, mark=_marker))


def reveal_plain(text: str) -> str:
    """The same for plain text (a desktop notification): markers, no markup."""
    return domain_text.reveal(text, keep=LAYOUT)
