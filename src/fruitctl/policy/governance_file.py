"""governance.yaml as text: parsed so that it cannot be misread, and the line of any key in it.

PyYAML keeps the last of two equal keys in a mapping without a word, so a rule written twice
would silently replace the first (a second ``forbidden_paths`` dropping the first's places).
The loader here refuses a key given twice, naming both lines. Keys brought in by a merge
(``<<: *defaults``) are meant to be overridden and are not counted. Characters YAML does not
allow (NUL, most control characters) are reported at their line, like every other mistake.

Imported only when a governance file exists (``policy.governance`` imports it then): without one,
nothing needs a YAML parser.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from fruitctl.config_files import ConfigError

_MERGE = "tag:yaml.org,2002:merge"


class _UniqueKeyLoader(yaml.SafeLoader):
    """A safe loader whose mappings refuse a key given twice."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        first: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == _MERGE:
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                seen = first.setdefault(key, key_node.start_mark.line + 1)
            except TypeError:  # an unhashable key: the base loader says so
                continue
            if seen != key_node.start_mark.line + 1:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"'{key}' is given twice (first on line {seen}); keep one, since the second "
                    "would silently replace the first",
                    key_node.start_mark,
                )
        return super().construct_mapping(node, deep=deep)


def parse(path: Path, text: str) -> Any:
    """The YAML document in ``text``, or a ``ConfigError`` naming ``path`` and the line."""
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # a SafeLoader: never builds objects
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise ConfigError(
            f"{path}:{line}: not valid YAML: the character U+{_code(exc.character):04X} is not "
            "allowed in YAML"
        ) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise ConfigError(f"{where}: not valid YAML: {problem}") from exc


def _code(character: int | str) -> int:
    """PyYAML gives the offending character as a code point, or as a string of one."""
    return character if isinstance(character, int) else ord(character)


def line_of(text: str, loc: tuple[str, ...]) -> int:
    """The line of ``loc`` in the YAML text (1-based), or of its nearest existing parent."""
    try:
        node: Any = yaml.compose(text)
    except yaml.YAMLError:
        return 1
    line = 1
    for part in loc:
        child = None
        if isinstance(node, yaml.MappingNode):
            child = next((v for k, v in node.value if str(k.value) == part), None)
            key = next((k for k, _ in node.value if str(k.value) == part), None)
            if key is not None:
                line = key.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode) and part.isdigit() and int(part) < len(node.value):
            child = node.value[int(part)]
            line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line
