"""Where a file tool may go: allowed roots and forbidden places, checked on real paths.

A caller's path is taken literally: ``$HOME``, ``~``, ``*`` and ``**`` are characters of a file
name, never expanded (only governance.yaml's own patterns are). It must be absolute, it is resolved
with ``realpath`` (``..`` and every symbolic link along it) and only then compared, component by
component, with roots that were resolved the same way.

Four kinds of place, the first that applies deciding:

- fruitctl's own files and folders (``own``: its configuration, stores, logs, run folder, the
  daemon's token), refused to everyone whatever the rest says; ``own_exceptions`` (the
  workspace) are the only parts of them that are not;
- forbidden places (governance's ``forbidden_paths``), refused;
- guarded places (well-known stores of keys and credentials), refused unless an allowed root or
  file lies inside one: naming ``~/.config/myapp/**`` opens that folder, ``~/**`` opens none;
- allowed roots and files; anything else is refused.

Checking a path is only half of the job: the object must be opened without following a link that
appeared after the check, and verified once open (``services.files`` does both).
"""

from __future__ import annotations

import errno
import fnmatch
import os
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from fruitctl.domain.errors import FruitctlError, InvalidParams, NotFound, PermissionDenied

_GLOB_CHARS = frozenset("*?[")
_TREE = "/**"


@dataclass(frozen=True)
class PathRules:
    """Allowed roots (a folder and all below it) and exact files; forbidden, guarded and own
    places. Every place that refuses is folded (see ``_fold``), so that ``~/.SSH`` on a
    case-insensitive disk is still refused."""

    roots: tuple[Path, ...] = ()
    files: tuple[Path, ...] = ()
    forbidden_roots: tuple[str, ...] = ()
    forbidden_globs: tuple[str, ...] = ()
    guarded_roots: tuple[str, ...] = ()
    guarded_globs: tuple[str, ...] = ()
    own: tuple[str, ...] = ()
    own_exceptions: tuple[str, ...] = ()

    @classmethod
    def from_patterns(
        cls,
        allowed: Iterable[str],
        forbidden: Iterable[str],
        *,
        guarded: Iterable[str] = (),
        own: Iterable[str] = (),
        own_exceptions: Iterable[str] = (),
    ) -> PathRules:
        """Rules from governance patterns, already expanded to absolute paths.

        Allowed: ``/dir/**`` or an exact absolute file. Forbidden and guarded: ``/dir/**`` or an
        ``fnmatch`` glob. Anything else raises ``ValueError`` naming the pattern: a rule that
        cannot be read must stop the tool, not silently allow or forbid something else. ``own``
        and ``own_exceptions`` are literal absolute paths (never patterns: a ``[`` in a folder's
        name must not make fruitctl's own files reachable).
        """
        roots, files = _allowed(allowed)
        forbidden_roots, forbidden_globs = _refused(forbidden)
        guarded_roots, guarded_globs = _refused(guarded)
        return cls(
            roots,
            files,
            forbidden_roots,
            forbidden_globs,
            guarded_roots,
            guarded_globs,
            tuple(form for path in own for form in _both_forms(_literal(path))),
            tuple(_fold(str(_real_for_name(_literal(path)))) for path in own_exceptions),
        )

    def check(self, path: str, *, for_write: bool = False) -> Path:
        """The real path ``path`` names, or ``PermissionDenied`` / ``NotFound`` /
        ``InvalidParams`` saying why not.

        For a write the last component is not resolved: a write replaces that name in its real
        parent folder (and refuses if it is a link), so the link's target is never what counts.
        """
        absolute = _absolute(path)
        try:
            real = _real_for_write(absolute, path) if for_write else _real(absolute)
        except OSError as exc:  # the path changed while it was resolved, or cannot be looked up
            raise _unresolvable(exc, path) from exc
        reason = self.refusal(real)
        if reason is not None:
            raise PermissionDenied.cannot_use(path, reason)
        return real

    def allows(self, real: Path) -> bool:
        """Whether an already resolved path is inside the roots and not refused."""
        return self.refusal(real) is None

    def refusal(self, real: Path) -> str | None:
        """Why a resolved path may not be used, or ``None``."""
        if self.is_own(real):
            return (
                "it is one of fruitctl's own files (its configuration, data, logs or run "
                "folder), which file tools never use"
            )
        if self._protected(real):
            return "it is in a protected location"
        if not self._inside(real):
            return f"it is outside the folders this tool may use ({self._describe()})"
        return None

    def is_forbidden(self, real: Path) -> bool:
        """Whether ``real`` is refused whatever the allowed roots say: fruitctl's own, forbidden
        (itself or a folder above it), or guarded and not opened by an allowed root inside."""
        return self.is_own(real) or self._protected(real)

    def _protected(self, real: Path) -> bool:
        if _matches(real, self.forbidden_roots, self.forbidden_globs):
            return True
        return _matches(real, self.guarded_roots, self.guarded_globs) and not self._opened(real)

    def is_own(self, real: Path) -> bool:
        """Whether ``real`` is fruitctl's own: at or below an own place, and not inside an
        exception that lies strictly inside that place."""
        folded = _fold(str(real))
        return any(
            _under(folded, place)
            and not any(
                _under(folded, kept) and _inside_of(kept, place) for kept in self.own_exceptions
            )
            for place in self.own
        )

    def _opened(self, real: Path) -> bool:
        """An allowed root or file that is itself guarded opens what is inside it: the person
        named that place, not a folder far above it."""
        guarded = (self.guarded_roots, self.guarded_globs)
        return any(
            _matches(root, *guarded) and real.is_relative_to(root) for root in self.roots
        ) or any(_matches(file, *guarded) and real == file for file in self.files)

    def _inside(self, real: Path) -> bool:
        return real in self.files or any(real.is_relative_to(root) for root in self.roots)

    def _describe(self) -> str:
        places = [f"{root}/" for root in self.roots] + [str(f) for f in self.files]
        return "allowed: " + ", ".join(places) if places else "no folder is allowed"


def _matches(real: Path, roots: tuple[str, ...], globs: tuple[str, ...]) -> bool:
    """Whether ``real`` or a folder above it is one of ``roots`` or matches one of ``globs``."""
    folded = _fold(str(real))
    if any(_under(folded, root) for root in roots):
        return True
    if not globs:
        return False
    candidates = [folded, *(_fold(str(parent)) for parent in real.parents)]
    return any(fnmatch.fnmatchcase(name, glob) for name in candidates for glob in globs)


def _unresolvable(exc: OSError, shown: str) -> FruitctlError:
    """A failure to resolve a caller's path as the stable error it is."""
    if isinstance(exc, FileNotFoundError | NotADirectoryError):
        return NotFound.path(shown)
    if exc.errno == errno.ENAMETOOLONG:
        return InvalidParams.path_too_long(shown)
    return PermissionDenied(
        f"Cannot use '{shown}': it changed while it was being checked, or the system refused "
        "to look it up; try again once it stays put.",
        path=shown,
    )


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
    """``realpath`` without requiring existence: a missing tail stays as written, normalized.
    Raises ``OSError`` when a link changes while it is followed."""
    return Path(os.path.realpath(path))


def _real_for_name(path: str) -> Path:
    """The real folder of ``path`` with its last name as written."""
    parent, name = os.path.split(os.path.normpath(path))
    return _real(parent) / name


# -- governance patterns --------------------------------------------------------------------------


def _allowed(patterns: Iterable[str]) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """Allowed roots (from ``/dir/**``) and exact files, resolved."""
    roots: list[Path] = []
    files: list[Path] = []
    for pattern in patterns:
        tree = _tree_base(pattern)
        if tree is not None:
            roots.append(_resolved(tree, pattern))
        else:
            files.append(_resolved(_exact(pattern), pattern))
    return tuple(roots), tuple(files)


def _refused(patterns: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Refused roots (from ``/dir/**``) and globs, each in both forms and folded."""
    roots: list[str] = []
    globs: list[str] = []
    for pattern in patterns:
        tree = _tree_base(pattern)
        if tree is not None:
            roots += _both_forms(tree)
        else:
            globs += _glob_forms(pattern)
    return tuple(roots), tuple(globs)


def _resolved(path: str, pattern: str) -> Path:
    try:
        return _real(path)
    except OSError as exc:
        raise ValueError(f"path pattern '{pattern}' cannot be resolved: {exc.strerror}") from exc


def _literal(path: str) -> str:
    """An own path: absolute, no NUL; wildcards are plain characters of its names."""
    if "\0" in path or not os.path.isabs(path):
        raise ValueError(f"fruitctl's own path '{path}' is not an absolute path")
    return path


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
    return sorted({_fold(os.path.normpath(path)), _fold(str(_resolved(path, path)))})


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


def _inside_of(inner: str, outer: str) -> bool:
    """Strictly below: a folder is not an exception to itself."""
    return inner != outer and _under(inner, outer)
