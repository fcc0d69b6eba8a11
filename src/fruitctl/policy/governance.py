"""governance.yaml (seed 001's format): per-tool rules over documented defaults.

A user's file overrides tool by tool and key by key; what it does not mention keeps its default.
Defaults, by category:

    read_only     allowed in every mode
    network       allowed in every mode but LOCKDOWN, 120 calls an hour
    pim_write     approval in every mode but LOCKDOWN, where it is refused
    system_write  allowed in NORMAL, approval in ALERT/DEGRADED/RECOVERY, refused in LOCKDOWN
                  (delete_file and restore_file: approval in every mode but LOCKDOWN)

The mode keys say what the user means, not only what they list (``ToolRules.verdict`` turns
them into allow / approve / deny). ``requires_approval_in_modes`` without ``allowed_in_modes``
moves every mode the tool ran in by default, and no longer lists, to allowed: ``[]`` is "no
approval needed". ``allowed_in_modes`` alone takes its modes out of the default approval set.
A mode listed in both, or rules that leave a tool denied in every mode without all of them in
``forbidden_in_modes`` (the way to turn a tool off on purpose), are refused at load.

File tools read inside ``$HOME`` and ``$WORKSPACE``, write inside ``$WORKSPACE`` only, and never
touch fruitctl's own files or, unless ``allowed_paths`` name a place inside one, the well-known
stores of keys and credentials (``policy.protected``: the file cannot take those away;
``forbidden_paths`` adds places to them). In path patterns ``$HOME``, ``$WORKSPACE`` (default
``<data dir>/workspace``), ``$DATA`` and ``$CONFIG`` are expanded, in the file only - never in a
tool's arguments.

Network tools reach the hosts ``allowed_domains`` / ``forbidden_domains`` permit; ``fetch_url``
also refuses loopback, private and link-local addresses unless ``allowed_private_networks`` names
them, and cloud metadata addresses always (``domain.hosts.AddressRules``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fruitctl.config_files import ConfigError, read_text
from fruitctl.paths import Paths
from fruitctl.policy.protected import Protected, protected_places
from fruitctl.tools.model import MODES, Category, Mode, ToolDefinition

Verdict = Literal["allow", "approve", "deny"]
ALL: list[Mode] = list(MODES)
MODE_KEYS = ("allowed_in_modes", "requires_approval_in_modes", "forbidden_in_modes")
NOT_LOCKDOWN: list[Mode] = [m for m in MODES if m != "LOCKDOWN"]

CATEGORY_DEFAULTS: dict[str, dict[str, Any]] = {
    "read_only": {"allowed_in_modes": ALL},
    "network": {
        "allowed_in_modes": NOT_LOCKDOWN,
        "forbidden_in_modes": ["LOCKDOWN"],
        "rate_limit_per_hour": 120,
    },
    "pim_write": {"requires_approval_in_modes": NOT_LOCKDOWN, "forbidden_in_modes": ["LOCKDOWN"]},
    "system_write": {
        "allowed_in_modes": ["NORMAL"],
        "requires_approval_in_modes": ["ALERT", "DEGRADED", "RECOVERY"],
        "forbidden_in_modes": ["LOCKDOWN"],
    },
}
TOOL_DEFAULTS: dict[str, dict[str, Any]] = {
    "read_file": {
        "allowed_paths": ["$HOME/**", "$WORKSPACE/**"],
        "max_file_size_mb": 10,
    },
    "list_directory": {"allowed_paths": ["$HOME/**", "$WORKSPACE/**"]},
    "write_file": {"allowed_paths": ["$WORKSPACE/**"], "max_file_size_mb": 10},
    "git_status": {"allowed_paths": ["$HOME/**", "$WORKSPACE/**"]},
    # These two start programs a project chose (its tests, mypy's plugins): not in LOCKDOWN.
    "run_linter": {
        "allowed_paths": ["$HOME/**", "$WORKSPACE/**"],
        "allowed_in_modes": NOT_LOCKDOWN,
        "forbidden_in_modes": ["LOCKDOWN"],
    },
    "run_tests": {
        "allowed_paths": ["$HOME/**", "$WORKSPACE/**"],
        "allowed_in_modes": NOT_LOCKDOWN,
        "forbidden_in_modes": ["LOCKDOWN"],
    },
    # A deletion, and its undo, always asks a person (a copy is kept for the undo up to the
    # size cap; a larger file is deleted for good, said before approval).
    "delete_file": {
        "allowed_in_modes": [],
        "requires_approval_in_modes": NOT_LOCKDOWN,
        "allowed_paths": ["$WORKSPACE/**"],
        "max_file_size_mb": 10,
    },
    "restore_file": {
        "allowed_in_modes": [],
        "requires_approval_in_modes": NOT_LOCKDOWN,
        "allowed_paths": ["$WORKSPACE/**"],
    },
}


class GovernanceError(ConfigError):
    """governance.yaml cannot be used; the message names the file, the line and the key."""


class ToolRules(BaseModel):
    """The effective rules of one tool."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    category: Category | None = None
    allowed_in_modes: list[Mode] = Field(default_factory=list)
    requires_approval_in_modes: list[Mode] = Field(default_factory=list)
    forbidden_in_modes: list[Mode] = Field(default_factory=list)
    allowed_paths: list[str] = Field(default_factory=list)
    forbidden_paths: list[str] = Field(default_factory=list)
    max_file_size_mb: float | None = Field(None, gt=0)
    rate_limit_per_hour: int | None = Field(None, ge=0)
    rate_limit_per_actor_per_hour: int | None = Field(None, ge=0)
    allowed_lists: list[str] | None = None
    allowed_calendars: list[str] | None = None
    allowed_domains: list[str] | None = None
    forbidden_domains: list[str] = Field(default_factory=list)
    allowed_private_networks: list[str] = Field(default_factory=list)
    """Loopback, private or link-local networks a fetching tool may reach all the same (an
    intranet): refused by default; cloud metadata addresses stay refused."""
    protected: Protected = Field(default_factory=Protected, exclude=True)
    """Set by fruitctl for every tool (``policy.protected``); left out of what ``tools show``
    prints, being the same long list for every tool."""

    def verdict(self, mode: Mode) -> Verdict:
        """What an agent's call gets in ``mode``: it runs, becomes a proposal a person approves
        (a person's own call runs), or is refused. Forbidden wins; a mode in no list is refused."""
        if mode in self.forbidden_in_modes:
            return "deny"
        if mode in self.requires_approval_in_modes:
            return "approve"
        if mode in self.allowed_in_modes:
            return "allow"
        return "deny"

    def verdicts(self) -> dict[Mode, Verdict]:
        return {mode: self.verdict(mode) for mode in MODES}


class GovernanceFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    tools: dict[str, dict[str, Any]] = Field(default_factory=dict)


@dataclass(frozen=True)
class Governance:
    """Rules for every registered tool: defaults, then the user's file, variables expanded."""

    rules: Mapping[str, ToolRules]
    source: Path | None = None

    def of(self, tool_name: str) -> ToolRules:
        return self.rules.get(tool_name) or ToolRules()

    def apply(self, definition: ToolDefinition) -> ToolDefinition:
        """The definition as the governance shapes it (modes, approval, rate limit)."""
        rules = self.of(definition.name)
        verdicts = rules.verdicts()
        return definition.model_copy(
            update={
                "allowed_modes": [m for m, v in verdicts.items() if v != "deny"],
                "requires_approval": "approve" in verdicts.values(),
                "rate_limit_per_hour": rules.rate_limit_per_hour,
            }
        )


@runtime_checkable
class Known(Protocol):
    """The tools rules are made for: every name, and a tool's category when its rules are
    first asked for (``capabilities.Catalog`` loads its capability then)."""

    def names(self) -> list[str]: ...

    def category(self, name: str) -> str: ...


class _Given:
    """Definitions at hand, as ``Known``."""

    def __init__(self, definitions: Iterable[ToolDefinition]) -> None:
        self._by_name = {d.name: d for d in definitions}

    def names(self) -> list[str]:
        return list(self._by_name)

    def category(self, name: str) -> str:
        return self._by_name[name].category


class _Rules(Mapping[str, ToolRules]):
    """Each known tool's rules, made when first asked for: a tool the file does not name has
    only its defaults, which cannot fail, so they wait until the tool is used."""

    def __init__(self, names: list[str], make: Callable[[str], ToolRules]) -> None:
        self._names = dict.fromkeys(names)
        self._make = make
        self._made: dict[str, ToolRules] = {}
        self._lock = threading.Lock()

    def __getitem__(self, name: str) -> ToolRules:
        found = self._made.get(name)
        if found is not None:
            return found
        if name not in self._names:
            raise KeyError(name)
        with self._lock:
            if name not in self._made:
                self._made[name] = self._make(name)
            return self._made[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def load(paths: Paths, definitions: Iterable[ToolDefinition] | Known) -> Governance:
    """Defaults for ``definitions``, overridden by ``paths.governance_file`` when it exists.
    The rules of each tool the file names are made (and checked) now; the others' when first
    asked for."""
    path = paths.governance_file
    try:
        text = read_text(path)
    except ConfigError as exc:
        raise GovernanceError(str(exc)) from None
    overrides = _parse(path, text) if text is not None else {}
    known = definitions if isinstance(definitions, Known) else _Given(definitions)
    names = known.names()
    for name in overrides:
        if name not in names:
            line = _line(text or "", ("tools", name))
            listed = ", ".join(sorted(names))
            raise GovernanceError(f"{path}:{line}: tools.{name}: no such tool (tools: {listed})")
    variables = _variables(paths)
    protected = protected_places(paths, lambda pattern: _expand(pattern, variables))

    def rules_of(name: str) -> ToolRules:
        made = _effective(
            path, text, name, known.category(name), overrides.get(name, {}), variables
        )
        return made.model_copy(update={"protected": protected})

    rules = _Rules(names, rules_of)
    for name in overrides:
        rules[name]  # a file that cannot be used is said now, with its line
    return Governance(rules=rules, source=path if text is not None else None)


def _parse(path: Path, text: str) -> dict[str, dict[str, Any]]:
    from fruitctl.policy import governance_file  # here: without a file, no YAML parser

    try:
        data = governance_file.parse(path, text)
    except ConfigError as exc:
        raise GovernanceError(str(exc)) from exc.__cause__
    if data is None:
        return {}
    try:
        parsed = GovernanceFile.model_validate(data)
    except ValidationError as exc:
        raise GovernanceError(_describe(path, text, exc, ())) from exc
    return parsed.tools


def _effective(
    path: Path,
    text: str | None,
    name: str,
    category: str,
    override: dict[str, Any],
    variables: dict[str, str],
) -> ToolRules:
    defaults = {"category": category, **CATEGORY_DEFAULTS.get(category, {})}
    defaults |= TOOL_DEFAULTS.get(name, {})
    if "protected" in override:
        raise GovernanceError(
            f"{path}:{_line(text or '', ('tools', name, 'protected'))}: tools.{name}.protected: "
            "unknown key (fruitctl's own files and credential stores are protected by fruitctl "
            "itself; add places with forbidden_paths)"
        )
    try:
        rules = ToolRules.model_validate(defaults | override)
    except ValidationError as exc:
        raise GovernanceError(_describe(path, text or "", exc, ("tools", name))) from exc
    rules = _settle_modes(
        path, text or "", name, ToolRules.model_validate(defaults), rules, override
    )
    expanded = rules.model_copy(
        update={
            "allowed_paths": [_expand(p, variables) for p in rules.allowed_paths],
            "forbidden_paths": [_expand(p, variables) for p in rules.forbidden_paths],
        }
    )
    _check_targets(path, text or "", name, expanded)
    return expanded


def _settle_modes(
    path: Path, text: str, name: str, default: ToolRules, rules: ToolRules, override: dict[str, Any]
) -> ToolRules:
    """The mode lists as the module docstring says the user meant them, or a GovernanceError."""
    allowed, approval = "allowed_in_modes", "requires_approval_in_modes"
    if allowed in override and approval in override:
        both = [m for m in rules.allowed_in_modes if m in rules.requires_approval_in_modes]
        if both:
            line = _line(text, ("tools", name, approval))
            raise GovernanceError(
                f"{path}:{line}: tools.{name}.{approval}: {', '.join(both)} also in {allowed} "
                f"(line {_line(text, ('tools', name, allowed))}); a mode is either allowed or "
                "needs approval, not both"
            )
    elif approval in override:
        ran = [m for m in MODES if default.verdict(m) != "deny"]
        left = [
            m for m in ran if m not in rules.requires_approval_in_modes + rules.forbidden_in_modes
        ]
        rules = rules.model_copy(update={allowed: left})
    elif allowed in override:
        kept = [m for m in default.requires_approval_in_modes if m not in rules.allowed_in_modes]
        rules = rules.model_copy(update={approval: kept})
    _refuse_off_by_mistake(path, text, name, rules, override)
    return rules


def _refuse_off_by_mistake(
    path: Path, text: str, name: str, rules: ToolRules, override: dict[str, Any]
) -> None:
    """A tool refused in every mode is a mistake unless every mode is listed as forbidden."""
    runs = any(v != "deny" for v in rules.verdicts().values())
    if runs or set(rules.forbidden_in_modes) == set(MODES):
        return
    loc = ("tools", name, *(k for k in override if k in MODE_KEYS))[:3]
    raise GovernanceError(
        f"{path}:{_line(text, loc)}: {'.'.join(loc)}: leaves {name} refused in every mode; "
        f"to turn a tool off on purpose, list every mode in forbidden_in_modes: "
        f"[{', '.join(MODES)}]"
    )


def _check_targets(path: Path, text: str, name: str, rules: ToolRules) -> None:
    """Path patterns and domains must be readable now: a rule that cannot be read would
    otherwise only fail at the first call - or worse, allow something it meant to refuse."""
    from fruitctl.domain.hosts import AddressRules, DomainRules
    from fruitctl.domain.path_rules import PathRules

    checks = (
        ("allowed_paths", lambda: PathRules.from_patterns(rules.allowed_paths, [])),
        ("forbidden_paths", lambda: PathRules.from_patterns([], rules.forbidden_paths)),
        ("allowed_domains", lambda: DomainRules(rules.allowed_domains, ())),
        ("forbidden_domains", lambda: DomainRules(None, rules.forbidden_domains)),
        ("allowed_private_networks", lambda: AddressRules(rules.allowed_private_networks)),
    )
    for key, build in checks:
        try:
            build()
        except (ValueError, TypeError) as exc:
            line = _line(text, ("tools", name, key))
            raise GovernanceError(f"{path}:{line}: tools.{name}.{key}: {exc}") from exc


def _variables(paths: Paths) -> dict[str, str]:
    data = paths.local_db.parent
    return {
        "$WORKSPACE": str(paths.workspace),
        "$HOME": str(Path.home()),
        "$DATA": str(data),
        "$CONFIG": str(paths.config_file.parent),
    }


def _expand(pattern: str, variables: dict[str, str]) -> str:
    for name, value in variables.items():  # $WORKSPACE before $HOME: no prefix clash
        pattern = pattern.replace(name, value)
    return pattern


def _describe(path: Path, text: str, exc: ValidationError, prefix: tuple[str, ...]) -> str:
    error = exc.errors()[0]
    loc = (*prefix, *(str(part) for part in error["loc"]))
    key = ".".join(loc)
    if error["type"] == "extra_forbidden":
        problem = "unknown key"
    elif error["type"] == "literal_error":
        problem = f"{error['input']!r} is not one of: {', '.join(MODES)}"
    else:
        problem = f"{error['msg']} (got {error.get('input')!r})"
    return f"{path}:{_line(text, loc)}: {key}: {problem}"


def _line(text: str, loc: tuple[str, ...]) -> int:
    from fruitctl.policy import governance_file

    return governance_file.line_of(text, loc)
