"""Where a file tool may go: allowed roots and forbidden places, checked on real paths.

A caller's path is taken literally: ``$HOME``, ``~``, ``*`` and ``**`` are characters of a file
name, never expanded (only governance.yaml's own patterns are). It must be absolute, it is resolved
with ``realpath`` (``..`` and every symbolic link along it) and only then compared, component by
component, with roots that were resolved the same way. A forbidden place wins over an allowed one.

Checking a path is only half of the job: the object must be opened without following a link that
appeared after the check, and verified once open (``services.files`` does both).
"""

from __future__ import annotations

import fnmatch
import os
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from fruitctl.domain.errors import InvalidParams, PermissionDenied

_GLOB_CHARS = frozenset("*?[")
_TREE = "/**"


@dataclass(frozen=True)
class PathRules:
    """Allowed roots (a folder and all below it) and exact files; forbidden roots and globs."""

    roots: tuple[Path, ...] = ()
    files: tuple[Path, ...] = ()
    forbidden_roots: tuple[str, ...] = ()
    """Folded (see ``_fold``) so that ``~/.SSH`` on a case-insensitive disk is still forbidden."""
    forbidden_globs: tuple[str, ...] = ()

    @classmethod
    def from_patterns(cls, allowed: Iterable[str], forbidden: Iterable[str]) -> PathRules:
        """Rules from governance patterns, already expanded to absolute paths.

        Allowed: ``/dir/**`` or an exact absolute file. Forbidden: ``/dir/**`` or an ``fnmatch``
        glob. Anything else raises ``ValueError`` naming the pattern: a rule that cannot be read
        must stop the tool, not silently allow or forbid something else.
        """
        roots: list[Path] = []
        files: list[Path] = []
        for pattern in allowed:
            tree = _tree_base(pattern)
            if tree is not None:
                roots.append(_real(tree))
            else:
                files.append(_real(_exact(pattern)))
        forbidden_roots: list[str] = []
        forbidden_globs: list[str] = []
        for pattern in forbidden:
            tree = _tree_base(pattern)
            if tree is not None:
                forbidden_roots += _both_forms(tree)
            else:
                forbidden_globs += _glob_forms(pattern)
        return cls(tuple(roots), tuple(files), tuple(forbidden_roots), tuple(forbidden_globs))

    def check(self, path: str, *, for_write: bool = False) -> Path:
        """The real path ``path`` names, or ``PermissionDenied`` / ``InvalidParams`` saying why not.

        For a write the last component is not resolved: a write replaces that name in its real
        parent folder (and refuses if it is a link), so the link's target is never what counts.
        """
        absolute = _absolute(path)
        real = _real_for_write(absolute, path) if for_write else _real(absolute)
        reason = self.refusal(real)
        if reason is not None:
            raise PermissionDenied(f"Cannot use '{path}': {reason}.", path=path)
        return real

    def allows(self, real: Path) -> bool:
        """Whether an already resolved path is inside the roots and not forbidden."""
        return self.refusal(real) is None

    def refusal(self, real: Path) -> str | None:
        """Why a resolved path may not be used, or ``None``."""
        if self.is_forbidden(real):
            return "it is in a protected location"
        if not self._inside(real):
            return f"it is outside the folders this tool may use ({self._describe()})"
        return None

    def is_forbidden(self, real: Path) -> bool:
        """Whether ``real`` or a folder above it matches a forbidden root or glob."""
        folded = _fold(str(real))
        if any(_under(folded, root) for root in self.forbidden_roots):
            return True
        candidates = [folded, *(_fold(str(parent)) for parent in real.parents)]
        return any(
            fnmatch.fnmatchcase(name, glob) for name in candidates for glob in self.forbidden_globs
        )

    def _inside(self, real: Path) -> bool:
        return real in self.files or any(real.is_relative_to(root) for root in self.roots)

    def _describe(self) -> str:
        places = [f"{root}/" for root in self.roots] + [str(f) for f in self.files]
        return "allowed: " + ", ".join(places) if places else "no folder is allowed"


# -- caller paths ---------------------------------------------------------------------------------


def _absolute(path: str) -> str:
    if "\0" in path:
        raise InvalidParams(f"The path {path!r} contains a NUL byte, which no file name can hold.")
    try:
        os.fsencode(path)
    except UnicodeEncodeError as exc:
        raise InvalidParams(f"The path {path!r} has characters no file name can hold.") from exc
    if not os.path.isabs(path):
        raise InvalidParams(
            f"The path '{path}' is relative: send an absolute path (starting with '/'). "
            "'~' and '$HOME' are not expanded."
        )
    return path


def _real_for_write(absolute: str, shown: str) -> Path:
    parent, name = os.path.split(absolute)
    if name in ("", ".", ".."):
        raise InvalidParams(f"The path '{shown}' does not name a file to write.")
    return _real(parent) / name


def _real(path: str) -> Path:
    """``realpath`` without requiring existence: a missing tail stays as written, normalized."""
    return Path(os.path.realpath(path))


# -- governance patterns --------------------------------------------------------------------------


def _tree_base(pattern: str) -> str | None:
    """``/dir`` for ``/dir/**`` (``/`` for ``/**``); ``None`` for any other pattern."""
    _require_absolute(pattern)
    if not pattern.endswith(_TREE):
        return None
    base = pattern[: -len(_TREE)] or "/"
    if _has_glob(base):
        raise ValueError(f"path pattern '{pattern}': only a trailing '/**' may be a wildcard")
    return base


def _exact(pattern: str) -> str:
    if _has_glob(pattern):
        raise ValueError(
            f"allowed path '{pattern}': use '/folder/**' or an exact file, not other wildcards"
        )
    return pattern


def _require_absolute(pattern: str) -> None:
    if "\0" in pattern or not os.path.isabs(pattern):
        raise ValueError(f"path pattern '{pattern}' is not an absolute path")


def _has_glob(text: str) -> bool:
    return any(char in _GLOB_CHARS for char in text)


def _both_forms(path: str) -> list[str]:
    """As written (normalized) and resolved: forbidding both cannot let either slip through."""
    return sorted({_fold(os.path.normpath(path)), _fold(str(_real(path)))})


def _glob_forms(pattern: str) -> list[str]:
    """The glob with its wildcard-free head in both forms (``/var`` and ``/private/var``)."""
    parts = pattern.split("/")
    fixed = next((i for i, part in enumerate(parts) if _has_glob(part)), len(parts))
    head, tail = "/".join(parts[:fixed]) or "/", "/".join(parts[fixed:])
    return sorted({os.path.join(form, _fold(tail)) if tail else form for form in _both_forms(head)})


def _fold(text: str) -> str:
    """One spelling for names a case- or normalization-insensitive disk (macOS) treats as one."""
    return unicodedata.normalize("NFC", text).casefold()


def _under(folded: str, root: str) -> bool:
    return folded == root or folded.startswith(root.rstrip("/") + "/")
