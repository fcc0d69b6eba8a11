"""The macOS sandbox profile, built from data: a path is always a string literal of the
profile language, whatever it holds, and the profile allows writing only the call's folders."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from fruitctl.domain.errors import InvalidParams
from fruitctl.sandbox import Limits, run_command
from fruitctl.sandbox.seatbelt import available, profile, sbpl_string

LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"')


def unquote(literal: str) -> str:
    return re.sub(r"\\(.)", r"\1", literal[1:-1])


def outside_strings(text: str) -> str:
    """The profile with every string literal blanked: what the profile language reads as code."""
    return LITERAL.sub('""', text)


def rule(text: str, action: str) -> list[str]:
    """The paths one ``(allow ACTION ...)`` form names, read up to its closing parenthesis."""
    start = text.index(f"(allow {action}")
    depth, at = 0, start
    while True:
        literal = LITERAL.match(text, at)
        if literal:
            at = literal.end()
            continue
        depth += {"(": 1, ")": -1}.get(text[at], 0)
        at += 1
        if depth == 0:
            return [unquote(found) for found in LITERAL.findall(text[start:at])]


def test_a_plain_path_becomes_a_string_literal() -> None:
    assert sbpl_string("/Users/ada/project") == '"/Users/ada/project"'


@pytest.mark.parametrize(
    "path",
    ['/tmp/x") (allow default) ("', "/tmp/back\\slash", '/tmp/"', "/tmp/x\\", "/tmp/ünïcode"],
)
def test_hostile_paths_stay_data(path: str) -> None:
    text = profile(readable=[], writable=[path], network=False)
    code = outside_strings(text)
    assert "allow default" not in code  # the hostile text never became a rule
    assert code.count("(") == code.count(")")
    assert path in [unquote(literal) for literal in LITERAL.findall(text)]


@pytest.mark.parametrize("path", ["/tmp/new\nline", "/tmp/nul\0", "/tmp/tab\t", "/tmp/\x1b[0m"])
def test_control_characters_are_refused(path: str) -> None:
    with pytest.raises(InvalidParams, match="control characters"):
        profile(readable=[], writable=[path], network=False)


def test_relative_paths_are_refused() -> None:
    with pytest.raises(InvalidParams, match="absolute"):
        profile(readable=[], writable=["project"], network=False)
    with pytest.raises(InvalidParams, match="absolute"):
        Limits(paths=("project",))


def test_the_profile_denies_by_default_and_writes_only_the_calls_folders(tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "real", target_is_directory=True)
    text = profile(readable=["/opt/python"], writable=[str(link)], network=False)
    code = outside_strings(text)
    assert code.index("(deny default)") < code.index("(allow")
    # The real path (the kernel checks real paths), never the link, and the null device.
    assert rule(text, "file-write*") == [str((tmp_path / "real").resolve()), "/dev/null"]
    read = rule(text, "file-read*")
    assert "/opt/python" in read and "/usr" in read and str((tmp_path / "real").resolve()) in read
    assert "network" not in code


def test_the_network_is_allowed_only_when_asked() -> None:
    assert "(allow network*)" in profile(readable=[], writable=[], network=True)
    assert "network" not in profile(readable=[], writable=[], network=False)


@pytest.mark.process
@pytest.mark.skipif(not available(), reason="sandbox-exec is macOS only")
def test_on_macos_a_program_writes_only_in_the_calls_folder(tmp_path: Path) -> None:
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    code = (
        "import sys\n"
        "for folder in sys.argv[1:]:\n"
        "    try:\n"
        "        open(folder + '/f', 'w').write('x'); print('wrote')\n"
        "    except OSError:\n"
        "        print('refused')\n"
    )
    argv = [sys.executable, "-c", code, str(inside), str(outside)]
    result = run_command(argv, timeout=20, limits=Limits(paths=(str(inside),)))
    assert result.stdout.split() == ["wrote", "refused"]
