"""The readable text of an HTML page, with the standard library's tolerant tokenizer
(``html.parser``): what is between tags, a line break where a block ends, nothing of scripts,
styles or other content a reader never sees, entities decoded, runs of spaces collapsed."""

from __future__ import annotations

import re
from html.parser import HTMLParser

_HIDDEN = frozenset({"script", "style", "noscript", "template", "svg", "math", "iframe"})
"""Elements whose content is not text a reader sees (the title is kept apart)."""
_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption",
        "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li",
        "main", "nav", "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul",
    }
)  # fmt: skip
_VOID = frozenset({"br", "hr", "img", "input", "link", "meta", "wbr", "area", "base", "col"})
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


def html_to_text(markup: str) -> tuple[str, str | None]:
    """The page's visible text and its title (None when it has none)."""
    parser = _TextParser()
    parser.feed(markup)
    parser.close()
    return parser.text(), parser.title()


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._parts: list[str] = []
        self._title: list[str] = []
        self._hidden: list[str] = []  # the open hidden elements, innermost last
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _HIDDEN and tag not in _VOID:
            self._hidden.append(tag)
        if tag in _BLOCKS and not self._hidden:
            self._parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCKS and not self._hidden:
            self._parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in self._hidden:  # close it, and anything left open inside it
            del self._hidden[len(self._hidden) - 1 - self._hidden[::-1].index(tag) :]
        if tag in _BLOCKS and not self._hidden:
            self._parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title.append(data)
        elif not self._hidden:
            self._parts.append(data)

    def text(self) -> str:
        lines = (_SPACES.sub(" ", line).strip() for line in "".join(self._parts).split("\n"))
        joined = "\n".join(lines)
        return _BLANK_LINES.sub("\n\n", joined).strip()

    def title(self) -> str | None:
        title = _SPACES.sub(" ", " ".join("".join(self._title).split())).strip()
        return title or None
