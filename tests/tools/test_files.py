"""The filesystem tools on real files: path rules, attacks, races, atomic writes, the tool layer."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from fruitctl.capabilities.context import Context
from fruitctl.capabilities.files import service as files_module
from fruitctl.capabilities.files.service import FileService, fd_path
from fruitctl.capabilities.files.tools import (
    TOOLS,
    ListDirectoryInput,
    ReadFileInput,
    WriteFileInput,
    list_directory,
    read_file,
    write_file,
)
from fruitctl.domain.errors import (
    ExecutionFailed,
    FruitctlError,
    InternalError,
    InvalidParams,
    NotFound,
    PermissionDenied,
)
from fruitctl.domain.path_rules import PathRules
from fruitctl.policy.governance import ToolRules

MB = 1024 * 1024
SECRET = "outside secret\n"


@dataclass(frozen=True)
class Tree:
    """``root`` is allowed; ``outside`` and ``root_evil`` are not; ``root/secrets`` is forbidden."""

    base: Path
    root: Path
    outside: Path
    rules: PathRules

    def outside_snapshot(self) -> dict[str, bytes]:
        return {
            str(p.relative_to(self.base)): p.read_bytes() if p.is_file() else b"<dir>"
            for top in (self.outside, self.base / "root_evil")
            for p in sorted(top.rglob("*"))
        }


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    base = Path(os.path.realpath(tmp_path))
    root, outside, evil = base / "root", base / "outside", base / "root_evil"
    for folder in (root / "sub", root / "a" / "b", root / "secrets", outside / "b", evil):
        folder.mkdir(parents=True)
    (root / "file.txt").write_text("inside\n")
    (root / "sub" / "file.txt").write_text("inside sub\n")
    (root / "secrets" / "key.txt").write_text("key\n")
    (root / "data.db").write_text("db\n")
    (outside / "secret.txt").write_text(SECRET)
    (outside / "file.txt").write_text(SECRET)
    (evil / "file.txt").write_text(SECRET)
    (root / "link_file").symlink_to(outside / "secret.txt")
    (root / "link_dir").symlink_to(outside)
    (root / "dangling").symlink_to(outside / "created_through_link.txt")
    (root / "to_secret").symlink_to(root / "secrets" / "key.txt")
    rules = PathRules.from_patterns([f"{root}/**"], [f"{root}/secrets/**", f"{root}/*.db*"])
    return Tree(base, root, outside, rules)


SERVICE = FileService()


def read(tree: Tree, path: str, max_bytes: int = MB) -> dict[str, Any]:
    return SERVICE.read_file(path, tree.rules, max_bytes)


def write(tree: Tree, path: str, content: str = "written\n", max_bytes: int = MB) -> dict[str, Any]:
    return SERVICE.write_file(path, content, tree.rules, max_bytes)


# -- the attack table ------------------------------------------------------------------------------

Deny = PermissionDenied
Bad = InvalidParams

ATTACKS: list[tuple[str, str, type[FruitctlError], type[FruitctlError]]] = [
    # (name, path with {root}/{outside}/{base}, error for read, error for write)
    ("dotdot out of the root", "{root}/../outside/secret.txt", Deny, Deny),
    ("dotdot chain through a missing folder", "{root}/nope/../../outside/secret.txt", Deny, Deny),
    ("dotdot after a real folder", "{root}/sub/../../outside/file.txt", Deny, Deny),
    ("prefix sibling", "{base}/root_evil/file.txt", Deny, Deny),
    ("symlinked file leading out", "{root}/link_file", Deny, Deny),
    ("file under a symlinked folder", "{root}/link_dir/secret.txt", Deny, Deny),
    ("new file under a symlinked folder", "{root}/link_dir/new.txt", Deny, Deny),
    ("dangling symlink leading out", "{root}/dangling", Deny, Deny),
    ("NUL byte", "{root}/file.txt\0.png", Bad, Bad),
    ("relative path", "file.txt", Bad, Bad),
    ("relative dotdot", "root/../outside/secret.txt", Bad, Bad),
    ("empty path", "", Bad, Bad),
    ("literal $HOME", "$HOME/secret.txt", Bad, Bad),
    ("literal ~", "~/secret.txt", Bad, Bad),
    ("literal **", "**/secret.txt", Bad, Bad),
    ("glob stays literal", "{root}/../*/secret.txt", Deny, Deny),
    ("forbidden folder inside the root", "{root}/secrets/key.txt", Deny, Deny),
    ("forbidden folder, other case", "{root}/SECRETS/key.txt", Deny, Deny),
    ("forbidden glob inside the root", "{root}/data.db", Deny, Deny),
    ("forbidden glob, sidecar file", "{root}/data.db-wal", Deny, Deny),
    ("symlink into a forbidden place", "{root}/to_secret", Deny, Deny),
    ("the folder above the root", "{root}/..", Deny, Bad),
]


def _fill(template: str, tree: Tree) -> str:
    return template.format(root=tree.root, outside=tree.outside, base=tree.base)


@pytest.mark.parametrize(
    ("template", "read_error"), [(a[1], a[2]) for a in ATTACKS], ids=[a[0] for a in ATTACKS]
)
def test_attack_is_refused_for_read(
    tree: Tree, monkeypatch: pytest.MonkeyPatch, template: str, read_error: type[FruitctlError]
) -> None:
    monkeypatch.setenv("HOME", str(tree.outside))
    monkeypatch.chdir(tree.base)
    with pytest.raises(read_error) as refused:
        read(tree, _fill(template, tree))
    assert "Traceback" not in refused.value.message
    assert SECRET.strip() not in refused.value.message


@pytest.mark.parametrize(
    ("template", "write_error"), [(a[1], a[3]) for a in ATTACKS], ids=[a[0] for a in ATTACKS]
)
def test_attack_is_refused_for_write(
    tree: Tree, monkeypatch: pytest.MonkeyPatch, template: str, write_error: type[FruitctlError]
) -> None:
    monkeypatch.setenv("HOME", str(tree.outside))
    monkeypatch.chdir(tree.base)
    before = tree.outside_snapshot()
    key = (tree.root / "secrets" / "key.txt").read_bytes()
    with pytest.raises(write_error):
        write(tree, _fill(template, tree))
    assert tree.outside_snapshot() == before
    assert (tree.root / "secrets" / "key.txt").read_bytes() == key
    assert (tree.root / "data.db").read_text() == "db\n"
    assert not (tree.root / "data.db-wal").exists()


def test_refusal_names_the_path_and_the_allowed_folder(tree: Tree) -> None:
    path = f"{tree.base}/root_evil/file.txt"
    with pytest.raises(PermissionDenied) as refused:
        read(tree, path)
    assert path in refused.value.message
    assert f"{tree.root}/" in refused.value.message
    assert refused.value.details == {"path": path}


def test_relative_path_message_asks_for_an_absolute_path(tree: Tree) -> None:
    with pytest.raises(InvalidParams, match="absolute path"):
        read(tree, "~/notes.txt")


# -- races: the path changes between the check and the open ----------------------------------------


def swap_after_check(monkeypatch: pytest.MonkeyPatch, victim: Path, target: Path) -> None:
    """Right after ``PathRules.check`` answers, ``victim`` becomes a link to ``target``."""
    original = PathRules.check

    def check_then_swap(self: PathRules, path: str, *, for_write: bool = False) -> Path:
        real = original(self, path, for_write=for_write)
        victim.rename(victim.with_name(victim.name + ".moved"))
        victim.symlink_to(target)
        return real

    monkeypatch.setattr(PathRules, "check", check_then_swap)


def test_race_read_final_component_swapped(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    swap_after_check(monkeypatch, tree.root / "file.txt", tree.outside / "secret.txt")
    with pytest.raises(PermissionDenied, match="symbolic link"):
        read(tree, f"{tree.root}/file.txt")


def test_race_read_parent_swapped(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    swap_after_check(monkeypatch, tree.root / "sub", tree.outside)
    with pytest.raises(PermissionDenied, match="changed while being opened"):
        read(tree, f"{tree.root}/sub/file.txt")


def test_race_write_final_component_swapped(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    swap_after_check(monkeypatch, tree.root / "file.txt", tree.outside / "secret.txt")
    with pytest.raises(PermissionDenied, match="symbolic link"):
        write(tree, f"{tree.root}/file.txt")
    assert (tree.outside / "secret.txt").read_text() == SECRET


def test_race_write_parent_swapped(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    before = tree.outside_snapshot()
    swap_after_check(monkeypatch, tree.root / "sub", tree.outside)
    with pytest.raises(PermissionDenied, match="symbolic link"):
        write(tree, f"{tree.root}/sub/file.txt")
    assert tree.outside_snapshot() == before


def test_race_write_grandparent_swapped(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    before = tree.outside_snapshot()
    swap_after_check(monkeypatch, tree.root / "a", tree.outside)
    with pytest.raises(PermissionDenied, match="changed while being opened"):
        write(tree, f"{tree.root}/a/b/new.txt")
    assert tree.outside_snapshot() == before


def test_race_list_folder_swapped(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    swap_after_check(monkeypatch, tree.root / "sub", tree.outside)
    with pytest.raises(PermissionDenied, match="symbolic link"):
        SERVICE.list_directory(f"{tree.root}/sub", tree.rules)


def test_race_list_parent_swapped(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    swap_after_check(monkeypatch, tree.root / "a", tree.outside)
    with pytest.raises(PermissionDenied, match="changed while being opened"):
        SERVICE.list_directory(f"{tree.root}/a/b", tree.rules)


def test_race_list_judges_entries_where_the_folder_really_is(
    tree: Tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tree.root / "vault" / "b"
    vault.mkdir(parents=True)
    (vault / "x.key").write_text("key\n")
    (vault / "ok.txt").write_text("ok\n")
    rules = PathRules.from_patterns([f"{tree.root}/**"], [f"{tree.root}/vault/b/*.key"])
    swap_after_check(monkeypatch, tree.root / "a", tree.root / "vault")
    entries = SERVICE.list_directory(f"{tree.root}/a/b", rules)["entries"]
    assert [e["name"] for e in entries] == ["ok.txt"]


def test_fd_path_names_the_opened_file(tree: Tree) -> None:
    fd = os.open(tree.root / "sub" / "file.txt", os.O_RDONLY)
    try:
        assert fd_path(fd) == str(tree.root / "sub" / "file.txt")
    finally:
        os.close(fd)


def test_fallback_refuses_a_swapped_parent(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files_module, "fd_path", lambda fd: None)
    swap_after_check(monkeypatch, tree.root / "sub", tree.outside)
    with pytest.raises(PermissionDenied, match="changed while being opened"):
        read(tree, f"{tree.root}/sub/file.txt")


def test_fallback_refuses_another_inode(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    def swap_file_then_unknown(fd: int) -> None:
        replacement = tree.root / "replacement.txt"
        replacement.write_text("other\n")
        replacement.replace(tree.root / "file.txt")

    monkeypatch.setattr(files_module, "fd_path", swap_file_then_unknown)
    with pytest.raises(PermissionDenied, match="changed while being opened"):
        read(tree, f"{tree.root}/file.txt")


def test_fallback_reads_an_unchanged_file(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files_module, "fd_path", lambda fd: None)
    assert read(tree, f"{tree.root}/sub/file.txt")["content"] == "inside sub\n"


# -- reading ---------------------------------------------------------------------------------------


def test_read_inside_the_root(tree: Tree) -> None:
    result = read(tree, f"{tree.root}/sub/file.txt")
    assert result == {"path": f"{tree.root}/sub/file.txt", "size": 11, "content": "inside sub\n"}


def test_read_through_a_symlink_that_stays_inside(tree: Tree) -> None:
    (tree.root / "inner_link").symlink_to(tree.root / "sub" / "file.txt")
    result = read(tree, f"{tree.root}/inner_link")
    assert result["content"] == "inside sub\n"
    assert result["path"] == f"{tree.root}/sub/file.txt"


def test_read_resolves_dotdot_that_stays_inside(tree: Tree) -> None:
    assert read(tree, f"{tree.root}/sub/../file.txt")["content"] == "inside\n"


@pytest.mark.parametrize("name", ["$HOME", "~", "*", "**"])
def test_special_characters_are_literal_file_names(
    tree: Tree, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setenv("HOME", str(tree.outside))
    (tree.root / name).write_text(f"literally {name}\n")
    assert read(tree, f"{tree.root}/{name}")["content"] == f"literally {name}\n"


def test_a_glob_argument_matches_nothing(tree: Tree) -> None:
    with pytest.raises(NotFound):
        read(tree, f"{tree.root}/*.txt")


def test_read_size_limit(tree: Tree) -> None:
    (tree.root / "hundred.txt").write_text("x" * 100)
    assert read(tree, f"{tree.root}/hundred.txt", max_bytes=100)["size"] == 100
    with pytest.raises(InvalidParams, match=r"limit .*99 bytes"):
        read(tree, f"{tree.root}/hundred.txt", max_bytes=99)


class SpyOs:
    """The ``os`` module as ``services.files`` sees it, counting reads and shrinking ``fstat``."""

    def __init__(self, reported_size: int | None = None) -> None:
        self.reads = 0
        self.reported_size = reported_size

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def read(self, fd: int, count: int) -> bytes:
        self.reads += 1
        return os.read(fd, count)

    def fstat(self, fd: int) -> Any:
        info = os.fstat(fd)
        if self.reported_size is None:
            return info
        return os.stat_result((*info[:6], self.reported_size, *info[7:10]))


def test_oversize_file_is_refused_before_reading(
    tree: Tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tree.root / "hundred.txt").write_text("x" * 100)
    spy = SpyOs()
    monkeypatch.setattr(files_module, "os", spy)
    with pytest.raises(InvalidParams, match="limit"):
        read(tree, f"{tree.root}/hundred.txt", max_bytes=50)
    assert spy.reads == 0


def test_file_that_grew_past_the_limit_is_refused(
    tree: Tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tree.root / "hundred.txt").write_text("x" * 100)
    monkeypatch.setattr(files_module, "os", SpyOs(reported_size=10))
    with pytest.raises(InvalidParams, match=r"limit .*50 bytes"):
        read(tree, f"{tree.root}/hundred.txt", max_bytes=50)


@pytest.mark.parametrize("data", [b"\xff\xfe\x00\x01", b"text with a \x00 in it", b"caf\xe9"])
def test_binary_files_are_refused(tree: Tree, data: bytes) -> None:
    (tree.root / "blob.bin").write_bytes(data)
    with pytest.raises(InvalidParams, match="binary"):
        read(tree, f"{tree.root}/blob.bin")


def test_read_utf8_text(tree: Tree) -> None:
    (tree.root / "utf8.txt").write_text("caffè ☕\n", encoding="utf-8")
    assert read(tree, f"{tree.root}/utf8.txt")["content"] == "caffè ☕\n"


def test_read_missing_file(tree: Tree) -> None:
    with pytest.raises(NotFound, match="does not exist"):
        read(tree, f"{tree.root}/missing.txt")


def test_read_a_folder_is_refused(tree: Tree) -> None:
    with pytest.raises(InvalidParams, match="not a regular file"):
        read(tree, f"{tree.root}/sub")


def test_read_a_fifo_is_refused_without_blocking(tree: Tree) -> None:
    os.mkfifo(tree.root / "pipe")
    with pytest.raises(InvalidParams, match="not a regular file"):
        read(tree, f"{tree.root}/pipe")


def test_exact_file_rule(tree: Tree) -> None:
    rules = PathRules.from_patterns([f"{tree.root}/file.txt"], [])
    assert SERVICE.read_file(f"{tree.root}/file.txt", rules, MB)["content"] == "inside\n"
    with pytest.raises(PermissionDenied):
        SERVICE.read_file(f"{tree.root}/sub/file.txt", rules, MB)
    with pytest.raises(PermissionDenied):
        SERVICE.list_directory(str(tree.root), rules)


def test_no_rules_allow_nothing(tree: Tree) -> None:
    with pytest.raises(PermissionDenied, match="no folder is allowed"):
        SERVICE.read_file(f"{tree.root}/file.txt", PathRules.from_patterns([], []), MB)


# -- path rules ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern", ["relative/**", "~/notes/**", "$HOME/**", "/data/*.txt", "/da*ta/**", "/data/?"]
)
def test_unusable_allowed_pattern_is_named(pattern: str) -> None:
    with pytest.raises(ValueError, match=re.escape(pattern)):
        PathRules.from_patterns([pattern], [])


@pytest.mark.parametrize("pattern", ["secrets/**", "*.db", "/da*ta/**"])
def test_unusable_forbidden_pattern_is_named(pattern: str) -> None:
    with pytest.raises(ValueError, match=re.escape(pattern)):
        PathRules.from_patterns(["/data/**"], [pattern])


def test_missing_root_is_kept_normalized(tmp_path: Path) -> None:
    base = Path(os.path.realpath(tmp_path))
    rules = PathRules.from_patterns([f"{base}/x/../later/**"], [])
    assert rules.roots == (base / "later",)


def test_roots_are_resolved(tmp_path: Path) -> None:
    base = Path(os.path.realpath(tmp_path))
    (base / "real").mkdir()
    (base / "real" / "f.txt").write_text("f\n")
    (base / "alias").symlink_to(base / "real")
    rules = PathRules.from_patterns([f"{base}/alias/**"], [])
    assert rules.check(f"{base}/real/f.txt") == base / "real" / "f.txt"


def test_forbidden_globs_are_resolved_too(tmp_path: Path) -> None:
    base = Path(os.path.realpath(tmp_path))
    (base / "data").mkdir()
    (base / "data_alias").symlink_to(base / "data")
    rules = PathRules.from_patterns([f"{base}/**"], [f"{base}/data_alias/*.db*"])
    with pytest.raises(PermissionDenied, match="protected"):
        rules.check(f"{base}/data/state.db")
    assert rules.check(f"{base}/data/notes.txt") == base / "data" / "notes.txt"


def test_forbidden_covers_what_is_below_a_match(tmp_path: Path) -> None:
    rules = PathRules.from_patterns(["/home/me/**"], ["/home/me/.netrc"])
    with pytest.raises(PermissionDenied):
        rules.check("/home/me/.netrc/inner")
    assert rules.check("/home/me/.netrc2") == Path("/home/me/.netrc2")


def test_containment_is_separator_aware() -> None:
    rules = PathRules.from_patterns(["/srv/allowed/**"], [])
    assert rules.check("/srv/allowed") == Path("/srv/allowed")
    assert rules.check("/srv/allowed/x") == Path("/srv/allowed/x")
    with pytest.raises(PermissionDenied):
        rules.check("/srv/allowed_evil/x")
    with pytest.raises(PermissionDenied):
        rules.check("/srv/allowedx")


def test_check_for_write_keeps_the_last_link_unresolved(tree: Tree) -> None:
    target = tree.rules.check(f"{tree.root}/link_file", for_write=True)
    assert target == tree.root / "link_file"
    with pytest.raises(PermissionDenied):
        tree.rules.check(f"{tree.root}/link_file")


# -- listing ---------------------------------------------------------------------------------------

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$")


def test_list_directory(tree: Tree) -> None:
    result = SERVICE.list_directory(str(tree.root), tree.rules)
    names = [e["name"] for e in result["entries"]]
    assert names == sorted(names)
    assert names == ["a", "dangling", "file.txt", "link_dir", "link_file", "sub", "to_secret"]
    by_name = {e["name"]: e for e in result["entries"]}
    assert by_name["file.txt"]["type"] == "file"
    assert by_name["file.txt"]["size"] == 7
    assert by_name["sub"]["type"] == "directory"
    assert by_name["link_dir"]["type"] == "symlink"
    assert by_name["link_dir"]["size"] == len(str(tree.outside))
    assert all(ISO.match(e["modified"]) for e in result["entries"])
    assert result["count"] == 7


def test_list_shows_a_fifo_as_other(tree: Tree) -> None:
    os.mkfifo(tree.root / "sub" / "pipe")
    entries = SERVICE.list_directory(f"{tree.root}/sub", tree.rules)["entries"]
    assert {e["name"]: e["type"] for e in entries} == {"file.txt": "file", "pipe": "other"}


def test_list_modified_is_local_time_with_offset(tree: Tree) -> None:
    os.utime(tree.root / "sub" / "file.txt", (1_771_952_400, 1_771_952_400))
    entries = SERVICE.list_directory(f"{tree.root}/sub", tree.rules)["entries"]
    assert entries[0]["modified"] == "2026-02-24T18:00:00+01:00"


def test_list_refuses_a_symlinked_folder_leading_out(tree: Tree) -> None:
    with pytest.raises(PermissionDenied):
        SERVICE.list_directory(f"{tree.root}/link_dir", tree.rules)


def test_list_a_file_is_refused(tree: Tree) -> None:
    with pytest.raises(InvalidParams, match="not a folder"):
        SERVICE.list_directory(f"{tree.root}/file.txt", tree.rules)


def test_list_a_forbidden_folder_is_refused(tree: Tree) -> None:
    with pytest.raises(PermissionDenied, match="protected"):
        SERVICE.list_directory(f"{tree.root}/secrets", tree.rules)


# -- writing ---------------------------------------------------------------------------------------


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".fruitctl-"))


def test_write_creates_a_private_file(tree: Tree) -> None:
    result = write(tree, f"{tree.root}/sub/new.txt", "hello\n")
    assert result == {"path": f"{tree.root}/sub/new.txt", "size": 6, "created": True}
    assert (tree.root / "sub" / "new.txt").read_text() == "hello\n"
    assert stat.S_IMODE((tree.root / "sub" / "new.txt").stat().st_mode) & 0o077 == 0
    assert leftovers(tree.root / "sub") == []


def test_write_replaces_content_and_keeps_the_mode(tree: Tree) -> None:
    (tree.root / "file.txt").chmod(0o640)
    inode = (tree.root / "file.txt").stat().st_ino
    result = write(tree, f"{tree.root}/file.txt", "replaced\n")
    assert result["created"] is False
    assert (tree.root / "file.txt").read_text() == "replaced\n"
    assert stat.S_IMODE((tree.root / "file.txt").stat().st_mode) == 0o640
    assert (tree.root / "file.txt").stat().st_ino != inode  # renamed over, not rewritten in place
    assert leftovers(tree.root) == []


def test_write_refuses_a_symlink_that_stays_inside(tree: Tree) -> None:
    (tree.root / "inner_link").symlink_to(tree.root / "file.txt")
    with pytest.raises(PermissionDenied, match="symbolic link"):
        write(tree, f"{tree.root}/inner_link")
    assert (tree.root / "inner_link").is_symlink()
    assert (tree.root / "file.txt").read_text() == "inside\n"


def test_write_refuses_a_folder(tree: Tree) -> None:
    with pytest.raises(InvalidParams, match="not a regular file"):
        write(tree, f"{tree.root}/sub")
    assert (tree.root / "sub").is_dir()


@pytest.mark.parametrize("suffix", ["/sub/", "/sub/.", "/sub/.."])
def test_write_needs_a_file_name(tree: Tree, suffix: str) -> None:
    with pytest.raises(InvalidParams, match="does not name a file"):
        write(tree, f"{tree.root}{suffix}")


def test_write_needs_an_existing_folder(tree: Tree) -> None:
    with pytest.raises(NotFound, match="folder"):
        write(tree, f"{tree.root}/missing/new.txt")
    assert not (tree.root / "missing").exists()


def test_write_size_limit(tree: Tree) -> None:
    assert write(tree, f"{tree.root}/ten.txt", "x" * 10, max_bytes=10)["size"] == 10
    with pytest.raises(InvalidParams, match=r"limit .*9 bytes"):
        write(tree, f"{tree.root}/nine.txt", "x" * 10, max_bytes=9)
    assert not (tree.root / "nine.txt").exists()
    assert leftovers(tree.root) == []


def test_write_refuses_content_that_is_not_utf8(tree: Tree) -> None:
    with pytest.raises(InvalidParams, match="UTF-8"):
        write(tree, f"{tree.root}/bad.txt", "lone \ud800 surrogate")
    assert not (tree.root / "bad.txt").exists()


def test_failed_write_leaves_the_old_file_and_no_temp(
    tree: Tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    def half_then_disk_full(fd: int, data: bytes) -> None:
        os.write(fd, data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files_module, "_write_all", half_then_disk_full)
    with pytest.raises(ExecutionFailed, match="No space left"):
        write(tree, f"{tree.root}/file.txt", "a much longer replacement\n")
    assert (tree.root / "file.txt").read_text() == "inside\n"
    assert leftovers(tree.root) == []


def test_write_syncs_the_file_and_its_folder(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[bool] = []

    class SyncSpy(SpyOs):
        def fsync(self, fd: int) -> None:
            synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
            os.fsync(fd)

    monkeypatch.setattr(files_module, "os", SyncSpy())
    write(tree, f"{tree.root}/sub/new.txt")
    assert synced == [False, True]  # the data first, then the rename in the folder


def test_planted_temp_name_is_never_written_through(
    tree: Tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tree.root / "sub" / ".fruitctl-planted.tmp").symlink_to(tree.outside / "secret.txt")
    names = iter(["planted", "fresh"])
    service = "fruitctl.capabilities.files.service"
    monkeypatch.setattr(f"{service}.secrets.token_hex", lambda n: next(names))
    write(tree, f"{tree.root}/sub/new.txt", "mine\n")
    assert (tree.outside / "secret.txt").read_text() == SECRET
    assert (tree.root / "sub" / "new.txt").read_text() == "mine\n"
    assert (tree.root / "sub" / ".fruitctl-planted.tmp").is_symlink()


def test_failed_rename_leaves_no_temp(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    class RenameRefused(SpyOs):
        def rename(self, *args: object, **kwargs: object) -> None:
            raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files_module, "os", RenameRefused())
    with pytest.raises(PermissionDenied):
        write(tree, f"{tree.root}/sub/new.txt")
    assert not (tree.root / "sub" / "new.txt").exists()
    assert leftovers(tree.root / "sub") == []


# -- the tools -------------------------------------------------------------------------------------


def context(tree: Tree, **overrides: Any) -> Context:
    def rules(name: str) -> ToolRules:
        allowed = [f"{tree.root}/sub/**"] if name == "write_file" else [f"{tree.root}/**"]
        settings: dict[str, Any] = {
            "allowed_paths": allowed,
            "forbidden_paths": [f"{tree.root}/secrets/**"],
            "max_file_size_mb": 1.0,
        }
        return ToolRules(**(settings | overrides))

    return Context(factories={"files": FileService}, rules=rules)


def test_read_file_tool(tree: Tree) -> None:
    args = ReadFileInput(path=f"{tree.root}/file.txt")
    assert read_file.function(args, context(tree))["content"] == "inside\n"


def test_read_file_tool_uses_the_smaller_cap(tree: Tree) -> None:
    (tree.root / "big.txt").write_text("x" * 2000)
    small_rules = context(tree, max_file_size_mb=0.001)  # 1048 bytes
    with pytest.raises(InvalidParams, match="1048 bytes"):
        read_file.function(ReadFileInput(path=f"{tree.root}/big.txt"), small_rules)
    small_arg = ReadFileInput(path=f"{tree.root}/big.txt", max_size_mb=0.0005)  # 524 bytes
    with pytest.raises(InvalidParams, match="524 bytes"):
        read_file.function(small_arg, context(tree))
    big_arg = ReadFileInput(path=f"{tree.root}/big.txt", max_size_mb=0.01)
    assert read_file.function(big_arg, context(tree))["size"] == 2000


def test_read_file_tool_refuses_a_forbidden_path(tree: Tree) -> None:
    with pytest.raises(PermissionDenied):
        read_file.function(ReadFileInput(path=f"{tree.root}/secrets/key.txt"), context(tree))


@pytest.mark.parametrize("size", [0, -1.5, float("inf"), float("nan")])
def test_read_file_size_argument_must_be_positive(size: float) -> None:
    with pytest.raises(ValidationError):
        ReadFileInput(path="/x", max_size_mb=size)


def test_list_directory_tool_omits_forbidden_entries(tree: Tree) -> None:
    result = list_directory.function(ListDirectoryInput(path=str(tree.root)), context(tree))
    names = {e["name"] for e in result["entries"]}
    assert "secrets" not in names
    assert {"data.db", "file.txt", "sub"} <= names


def test_write_file_tool_writes_only_where_writing_is_allowed(tree: Tree) -> None:
    ctx = context(tree)
    inside = WriteFileInput(path=f"{tree.root}/sub/out.txt", content="ok\n")
    assert write_file.function(inside, ctx)["created"] is True
    readable_only = WriteFileInput(path=f"{tree.root}/file.txt", content="no\n")
    with pytest.raises(PermissionDenied):
        write_file.function(readable_only, ctx)
    assert (tree.root / "file.txt").read_text() == "inside\n"


def test_write_file_tool_caps_size_by_the_rules(tree: Tree) -> None:
    args = WriteFileInput(path=f"{tree.root}/sub/big.txt", content="x" * 2000)
    with pytest.raises(InvalidParams, match="limit"):
        write_file.function(args, context(tree, max_file_size_mb=0.001))
    assert not (tree.root / "sub" / "big.txt").exists()


def test_unusable_governance_pattern_stops_the_tool(tree: Tree) -> None:
    ctx = context(tree, allowed_paths=["relative/**"])
    with pytest.raises(InternalError, match="relative/"):
        read_file.function(ReadFileInput(path=f"{tree.root}/file.txt"), ctx)


def test_tool_definitions() -> None:
    by_name = {t.name: t.definition for t in TOOLS}
    assert list(by_name) == [
        "read_file",
        "list_directory",
        "write_file",
        "delete_file",
        "restore_file",
    ]
    read_def, list_def, write_def, delete_def, restore_def = by_name.values()
    for writer in (delete_def, restore_def):
        assert (writer.category, writer.risk_level) == ("system_write", "high")
    assert delete_def.annotations.destructiveHint is True
    assert (read_def.category, read_def.risk_level, read_def.title) == (
        "read_only",
        "low",
        "Read a file",
    )
    assert (list_def.category, list_def.risk_level) == ("read_only", "low")
    assert (write_def.category, write_def.risk_level) == ("system_write", "high")
    assert write_def.annotations.destructiveHint is True
    assert write_def.annotations.readOnlyHint is False
    assert read_def.annotations.readOnlyHint is True


@pytest.mark.parametrize("item", TOOLS, ids=lambda t: t.name)
def test_tool_describes_every_field_and_absolute_paths(item: Any) -> None:
    assert "absolute" in item.definition.description
    assert all(p.description for p in item.definition.parameters)
    assert item.definition.input_schema["additionalProperties"] is False


# -- fruitctl's own places and guarded places ------------------------------------------------------


def own_rules(base: Path, **extra: Any) -> PathRules:
    data = base / "data[1]"  # a wildcard in a name: own paths are literal, never patterns
    return PathRules.from_patterns(
        [f"{base}/**"],
        [],
        own=[str(data), *extra.get("own", [])],
        own_exceptions=[str(data / "workspace")],
        guarded=extra.get("guarded", []),
    )


def test_own_places_are_literal_and_folded(tmp_path: Path) -> None:
    base = Path(os.path.realpath(tmp_path))
    rules = own_rules(base)
    for path in ("data[1]/state.db", "DATA[1]/state.db", "data[1]"):
        with pytest.raises(PermissionDenied, match="fruitctl's own files"):
            rules.check(f"{base}/{path}")
    assert rules.check(f"{base}/data1/state.db") == base / "data1" / "state.db"


def test_the_workspace_is_the_one_exception(tmp_path: Path) -> None:
    base = Path(os.path.realpath(tmp_path))
    rules = own_rules(base, own=[f"{base}/data[1]/workspace/fruitctl.token"])
    assert rules.check(f"{base}/data[1]/workspace/a.txt", for_write=True).name == "a.txt"
    with pytest.raises(PermissionDenied, match="fruitctl's own files"):
        rules.check(f"{base}/data[1]/workspace/fruitctl.token")  # owned inside the exception
    with pytest.raises(PermissionDenied, match="fruitctl's own files"):
        rules.check(f"{base}/data[1]/workspace_old/a.txt")


def test_guarded_places_open_only_from_inside(tmp_path: Path) -> None:
    base = Path(os.path.realpath(tmp_path))
    guarded = [f"{base}/.config/**", f"{base}/*.kdbx"]
    closed = own_rules(base, guarded=guarded)
    for path in (".config/gh/hosts.yml", "deep/in/vault.kdbx"):
        with pytest.raises(PermissionDenied, match="protected location"):
            closed.check(f"{base}/{path}")
    opened = PathRules.from_patterns(
        [f"{base}/**", f"{base}/.config/app/**", f"{base}/keep/vault.kdbx"], [], guarded=guarded
    )
    assert opened.check(f"{base}/.config/app/x.toml") == base / ".config" / "app" / "x.toml"
    assert opened.check(f"{base}/keep/vault.kdbx") == base / "keep" / "vault.kdbx"
    with pytest.raises(PermissionDenied):
        opened.check(f"{base}/.config/other/x.toml")
    with pytest.raises(PermissionDenied):
        opened.check(f"{base}/other/vault.kdbx")
