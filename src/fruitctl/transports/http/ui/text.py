"""Text an agent wrote, shown so that it cannot disguise what a person approves.

Bidi overrides and isolates can make "Pay 100" read as "001 yaP", zero-width characters can make
two different titles look equal, and Unicode tag characters can carry hidden instructions. Each
such character is replaced by a visible marker naming its code point (the character itself is
gone from the page, so it cannot act); everything else is escaped as usual.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from markupsafe import Markup, escape

HIDDEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"  # control characters (tab, LF, CR stay)
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"  # soft hyphen, fillers, ALM
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f"  # zero-width, LRM/RLM, bidi embeds/overrides
    "\u3164\ufeff\uffa0\ufff9-\ufffb"  # Hangul fillers, BOM, interlinear annotations
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"  # tag characters, variation selectors
)


def code_point(char: str) -> str:
    return f"U+{ord(char):04X}"


def _marker(match: re.Match[str]) -> str:
    char = match.group()
    name = unicodedata.name(char, "control character")
    return f'<span class="hidden-char" title="{escape(name)}">[{code_point(char)}]</span>'


def reveal(value: Any) -> Markup:
    """HTML for any value: strings as they are, anything else as JSON; escaped, and every
    invisible or direction-changing character shown as ``[U+202E]``."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)
    return Markup(HIDDEN.sub(_marker, str(escape(text))))


def reveal_plain(text: str) -> str:
    """The same for plain text (a desktop notification): markers, no markup."""
    return HIDDEN.sub(lambda m: f"[{code_point(m.group())}]", text)


def has_hidden(value: Any) -> bool:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return HIDDEN.search(text) is not None
