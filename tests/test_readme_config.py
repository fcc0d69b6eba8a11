"""The README's ``config.toml`` reference is the schema: every key of every section is listed,
none that does not exist, and each one shown set is shown with its real default."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from fruitctl.config import Settings

README = Path(__file__).resolve().parents[1] / "README.md"
KEY = re.compile(r"^(#\s*)?([a-z_]+)\s*=\s*(.*)$")


def reference() -> dict[str, dict[str, str | None]]:
    """Each section's keys in the README's block: the value as written, or None when the key
    is only shown commented out (no default to show, or a secret)."""
    text = README.read_text()
    start = text.index("`config.toml`, every key optional")
    block = text[text.index("```toml\n", start) + 8 : text.index("```\n", start + 40)]
    found: dict[str, dict[str, str | None]] = {}
    section = ""
    for line in block.splitlines():
        if header := re.match(r"^\[([a-z_]+)\]", line):
            section = header[1]
            found[section] = {}
        elif (key := KEY.match(line)) and section:
            value = key[3].split("  #")[0].split(" # ")[0].strip()
            found[section][key[2]] = None if key[1] else value
    return found


def defaults() -> dict[str, dict[str, Any]]:
    """Every key of the schema with its default, as TOML would read it."""
    schema: dict[str, dict[str, Any]] = {}
    for name, field in Settings.model_fields.items():
        model = field.get_default(call_default_factory=True)
        schema[name] = model.model_dump(mode="json")
    return schema


def test_every_key_is_in_the_reference_and_nothing_else() -> None:
    listed = reference()
    schema = defaults()
    assert {s: sorted(keys) for s, keys in listed.items()} == {
        s: sorted(keys) for s, keys in schema.items()
    }


def test_every_key_shown_set_shows_its_default() -> None:
    schema = defaults()
    for section, keys in reference().items():
        for key, written in keys.items():
            if written is None:  # shown commented: a secret, or a default of "all"
                assert schema[section][key] is None, f"[{section}] {key} has a default to show"
                continue
            value = tomllib.loads(f"v = {written}")["v"]
            assert value == schema[section][key], f"[{section}] {key}"
