"""The composition root: the only module that knows every part. It reads the configuration,
opens the stores, takes the backends ``fruitctl.backend_factories`` names, applies governance to
the tool catalog, and hands the front doors a ready gateway."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fruitctl import config as config_module
from fruitctl.backend_factories import (
    PERSONAL_STORES,
    backend_name,
    calendar_backend_factory,
    reminders_backend_factory,
    remote_account,
    web_search_service,
)
from fruitctl.capabilities import Catalog, toolsets
from fruitctl.config import Config, ConfigError
from fruitctl.config_drift import ConfigWatch
from fruitctl.domain.actors import CLI_ACTOR, Actor
from fruitctl.domain.dates import use_zone
from fruitctl.domain.errors import InvalidParams

# What a part needs is imported where that part is built (a cached property below): a command
# that never opens the store or builds the gateway - ``fruitctl mcp`` until its client's first
# call - loads none of SQLAlchemy, the backends or the services.
if TYPE_CHECKING:
    from sqlalchemy import Engine

    from fruitctl import telemetry
    from fruitctl.approvals.allowance import Allowance
    from fruitctl.approvals.allowlists import Allowlists
    from fruitctl.approvals.audit import AuditLog
    from fruitctl.approvals.engine import Approvals
    from fruitctl.approvals.grants import GrantStore
    from fruitctl.capabilities.calendar.service import CalendarService
    from fruitctl.capabilities.files.kept import KeptFiles
    from fruitctl.capabilities.reminders.service import RemindersService
    from fruitctl.capabilities.things.service import ThingsService
    from fruitctl.capabilities.toolsets import ToolSet
    from fruitctl.gateway import Action, Gateway
    from fruitctl.policy.modes import ModeStore
    from fruitctl.ports import CalendarBackend, RemindersBackend
    from fruitctl.services.demo import DemoService
    from fruitctl.services.doctor import DoctorService
    from fruitctl.services.sync import SyncService
    from fruitctl.tools.model import Tool, ToolDefinition


AUTOMATIC = "fruitctl (automatic)"
"""Who changed the mode when fruitctl did, by itself (``policy.health``)."""


@dataclass
class App:
    """Everything a front door needs, each part built on first use."""

    config: Config
    backend_factory: Callable[[Config], Any]
    _closers: list[Callable[[], None]] = field(default_factory=list)
    calendar_factory: Callable[[Config], Any] | None = None
    """Builds the calendar backend; by default the one ``[calendar] backend`` names."""
    config_watch: ConfigWatch | None = None
    """Whether config.toml still says what ``config`` does (when it was read from the file)."""

    @cached_property
    def backend(self) -> RemindersBackend:
        backend: RemindersBackend = self.backend_factory(self.config)
        close = getattr(backend, "close", None)
        if callable(close):
            self._closers.append(close)
        return backend

    def _calendar_factory(self) -> Callable[[Config], Any]:
        return self.calendar_factory or calendar_backend_factory(self.config)

    @cached_property
    def reminders(self) -> RemindersService:
        from fruitctl.capabilities.reminders.service import RemindersService

        settings = self.config.settings.reminders
        return RemindersService(self.backend, notes_preview_chars=settings.notes_preview_chars)

    @cached_property
    def calendar_backend(self) -> CalendarBackend:
        factory = self._calendar_factory()
        backend: CalendarBackend = factory(self.config)
        close = getattr(backend, "close", None)
        if callable(close):
            self._closers.append(close)
        return backend

    @cached_property
    def calendar(self) -> CalendarService:
        from fruitctl.capabilities.calendar.service import CalendarService

        settings = self.config.settings.calendar
        return CalendarService(
            self.calendar_backend, notes_preview_chars=settings.notes_preview_chars
        )

    @cached_property
    def things(self) -> ThingsService:
        """Things 3, when its database is found (``[things] database`` or Things' own place)."""
        from fruitctl.backends import things
        from fruitctl.capabilities.things.service import ThingsService

        settings = self.config.settings.things
        configured = settings.database
        path = Path(configured).expanduser() if configured else things.default_database()
        if path is None:
            return ThingsService(None)
        database = things.ThingsDatabase(path)
        writer = things.ThingsWriter(database, settings.open_command, settings.confirm_seconds)
        return ThingsService(
            database,
            writer,
            confirm_seconds=settings.confirm_seconds,
            writes_via=" ".join(settings.open_command) or None,
        )

    @cached_property
    def mcp_tools(self) -> ToolSet:
        """The tools ``[mcp] tools`` offers MCP clients (None: every tool); a ConfigError
        naming the entry that names nothing, and the choices."""
        entries = self.config.settings.mcp.tools
        if entries is None:
            return None
        try:
            return toolsets.resolve(entries)
        except InvalidParams as exc:
            raise ConfigError(
                f"{self.config.paths.config_file}: mcp.tools: {exc.message}"
            ) from None

    @cached_property
    def syncing(self) -> SyncService:
        """``fruitctl sync``: refresh whichever backend mirrors a server (CalDAV)."""
        from fruitctl.services.sync import SyncService

        return SyncService(
            {"reminders": lambda: self.backend, "calendar": lambda: self.calendar_backend}
        )

    @cached_property
    def doctor(self) -> DoctorService:
        from fruitctl.services.doctor import DoctorService

        settings = self.config.settings
        names = {
            service: f"{configured} -> {backend_name(configured)}"
            if configured == "auto"
            else configured
            for service, configured in (
                ("reminders", settings.reminders.backend),
                ("calendar", settings.calendar.backend),
            )
        }
        return DoctorService(
            lambda: self.backend,
            lambda: self.calendar_backend,
            names,
            stores=self._stores,
            unusable=(ConfigError,),
        )

    def _stores(self) -> dict[str, dict[str, Any]]:
        """Each of fruitctl's own databases, checked (``doctor``)."""
        from fruitctl.store import check as check_database

        paths = self.config.paths
        return {
            "state": check_database(paths.state_db, "state"),
            "local": check_database(paths.local_db, "local"),
        }

    @cached_property
    def demo(self) -> DemoService:
        from fruitctl.services.demo import DemoService

        personal = {
            backend_name(self.config.settings.reminders.backend),
            backend_name(self.config.settings.calendar.backend),
        } & PERSONAL_STORES
        refuse = (
            "your reminders and calendars here are your own Apple Reminders and Calendar, "
            "and sample data does not belong in them"
            if personal
            else None
        )
        remote = remote_account(self.config)
        return DemoService(self.backend, self.calendar_backend, refuse=refuse, remote=remote)

    @cached_property
    def state(self) -> Engine:
        from fruitctl.store import open_database

        engine = open_database(self.config.paths.state_db, "state")
        self._closers.append(engine.dispose)
        return engine

    @cached_property
    def modes(self) -> ModeStore:
        from fruitctl.policy.modes import ModeStore

        store = ModeStore(self.state)
        store.on_lockdown = lambda by: self.grants.revoke_all(by, "The mode changed to LOCKDOWN.")
        self._closers.append(store.close)
        return store

    @cached_property
    def ledger(self) -> Engine:
        """state.db for proposals and the audit log: every commit synced to disk (FULL)."""
        from fruitctl.store import open_database

        engine = open_database(self.config.paths.state_db, "state", synchronous="FULL")
        self._closers.append(engine.dispose)
        return engine

    @cached_property
    def audit(self) -> AuditLog:
        from fruitctl.approvals.audit import AuditLog

        return AuditLog(self.ledger)

    @cached_property
    def grants(self) -> GrantStore:
        from fruitctl.approvals.grants import GrantStore

        return GrantStore(self.ledger, self.audit)

    @cached_property
    def allowlists(self) -> Allowlists:
        from fruitctl.approvals.allowlists import Allowlists

        return Allowlists(self.ledger, self.audit)

    @property
    def approvals(self) -> Approvals:
        approvals = self.gateway.approvals
        assert approvals is not None  # set when the gateway is built
        return approvals

    @cached_property
    def gateway(self) -> Gateway:
        from fruitctl import telemetry
        from fruitctl.approvals.engine import Approvals
        from fruitctl.approvals.store import ProposalStore
        from fruitctl.capabilities.context import Context
        from fruitctl.gateway import Gateway
        from fruitctl.policy import governance as governance_module
        from fruitctl.policy.engine import Policy
        from fruitctl.policy.health import Health, machine
        from fruitctl.policy.reload import LiveGovernance
        from fruitctl.store.faults import translate as translate_fault
        from fruitctl.tools.registry import ToolRegistry

        catalog = Catalog()  # each capability loaded when one of its tools is first asked for
        paths = self.config.paths
        rules = LiveGovernance(
            paths.governance_file, lambda: governance_module.load(paths, catalog)
        )
        registry = ToolRegistry(
            later=catalog, shape=lambda t: _governed(t, rules.current.apply(t.definition))
        )
        rules.on_change = lambda now: registry.reshape(
            lambda t: _governed(t, now.apply(t.definition))
        )
        registry.before_listing = rules.rules
        log = telemetry.configure_logging(paths.log_dir)
        rules.events = log
        if self.config_watch is not None:
            self.config_watch.events = log
        recorder = telemetry.CallRecorder(
            self.state, lambda exc: translate_fault(exc, paths.state_db)
        )
        context = Context(self._factories(), rules.of)
        policy = Policy(rules, self.modes, recorder, self.grants)
        gateway = Gateway(registry, policy, context, log, recorder, _run_in_child)
        gateway.health = Health(
            self.modes,
            self.config.settings.health,
            machine(paths.state_db.parent),
            told=lambda event, fields: self._mode_told(log, event, fields),
        )
        ttl = self.config.settings.approvals.ttl_hours * 3600
        proposals = ProposalStore(self.ledger, self.audit)
        gateway.approvals = Approvals(proposals, registry, context, ttl, self.grants)
        gateway.approvals.page_base = self.config.settings.http.public_url or None
        self._closers.append(gateway.close)
        _recover(gateway, log)
        return gateway

    remote: Any = None
    """A running daemon, when the CLI found one (``transports.rpc.client.DaemonClient``): then
    ``call`` goes through its socket, so every command uses the daemon's gateway."""

    def use_daemon(self, remote: Any) -> None:
        self.remote = remote
        self._closers.append(remote.close)

    def _mode_told(self, log: Any, event: str, fields: dict[str, Any]) -> None:
        """A mode fruitctl changed by itself, in the log and the audit log (a full disk may
        refuse the audit row too: the log still has it)."""
        from fruitctl.domain.errors import FruitctlError

        log.warning(event, **fields)
        try:
            self.audit.record(event=event, actor=AUTOMATIC, payload=fields)
        except FruitctlError as exc:
            log.warning("mode_change_not_audited", event=event, error=exc.message)

    def status(self) -> dict[str, Any]:
        """What ``system.info`` reports of this app: mode, backends, and each service's
        permission (authorized / denied / not_determined / restricted)."""
        settings = self.config.settings
        status: dict[str, Any] = {
            "mode": self.modes.get(),
            **({"degraded": held} if (held := self.modes.automatic()) else {}),
            "backends": {
                "reminders": backend_name(settings.reminders.backend),
                "calendar": backend_name(settings.calendar.backend),
            },
            "permissions": {
                "reminders": self.backend.permission_status(),
                "calendar": self.calendar_backend.permission_status(),
            },
        }
        # A service whose permission could not be told, and why (a server out of reach).
        problems = {
            name: problem["message"]
            for name, backend in (("reminders", self.backend), ("calendar", self.calendar_backend))
            if callable(told := getattr(backend, "access_problem", None)) and (problem := told())
        }
        if problems:
            status["unavailable"] = problems
        # The app macOS asks about for a service's access, where that applies (EventKit).
        holders = {
            name: told()
            for name, backend in (("reminders", self.backend), ("calendar", self.calendar_backend))
            if callable(told := getattr(backend, "access_holder", None))
        }
        if holders:
            status["accessHolders"] = holders
        tags = getattr(self.backend, "tags_status", None)
        if callable(tags):  # a backend that reads tags from somewhere it may not reach
            status["tags"] = tags()
        status["things"] = self.things.status()
        return status | self.drift()

    def drift(self) -> dict[str, Any]:
        """Whether this process runs what its files say now: ``governance`` (the rules in force,
        and the file's error while it does not load) and ``configuration`` (config.toml's keys
        changed since start, which need a restart). Cheap: a ``stat`` each, no backend."""
        found = {"governance": self._governance_state()}
        if self.config_watch is not None:
            found["configuration"] = self.config_watch.state()
        return found

    def _governance_state(self) -> dict[str, Any]:
        """The rules in force and whether governance.yaml as it is now is (``LiveGovernance``);
        in a process that has not built its gateway, whether the file loads."""
        from fruitctl.policy import governance as governance_module
        from fruitctl.policy.reload import LiveGovernance

        if "gateway" in self.__dict__:  # built: its rules, read again if the file changed
            rules = self.gateway.policy.governance
            if isinstance(rules, LiveGovernance):
                return rules.state()
        paths = self.config.paths
        try:
            loaded = governance_module.load(paths, Catalog())
        except ConfigError as exc:
            return {"file": str(paths.governance_file), "fromFile": True, "error": str(exc)}
        return {"file": str(paths.governance_file), "fromFile": loaded.source is not None}

    def call(
        self,
        tool: str,
        args: dict[str, Any] | None,
        actor: Actor = CLI_ACTOR,
        idempotency_key: str | None = None,
    ) -> Any:
        """Invoke a tool and return its output; a failed call raises its error. With a daemon
        running (``use_daemon``) the call goes through its socket."""
        if self.remote is not None:
            return self.remote.call(tool, args, actor, idempotency_key)
        return self.gateway.invoke(tool, args, actor, idempotency_key=idempotency_key).unwrapped()

    def decide(
        self,
        proposal_id: str,
        action: Action,
        actor: Actor = CLI_ACTOR,
        reason: str | None = None,
        allow: Allowance | None = None,
    ) -> dict[str, Any]:
        """A person's decision on a proposal (``Gateway.decide``): approve (``allow``: with a
        standing grant), reject or undo - taken by the daemon when one runs, so the write runs
        in the process that holds the data."""
        if self.remote is not None:
            decided: dict[str, Any] = self.remote.decide(proposal_id, action, actor, reason, allow)
            return decided
        return self.gateway.decide(proposal_id, action, actor, reason, allow)

    def stats(self, since: float) -> list[dict[str, Any]]:
        from fruitctl import telemetry

        self.gateway.flush()  # this process's buffered calls count too
        return telemetry.call_stats(self.state, since)

    def close(self) -> None:
        # Last opened, first closed: a connection is handed back before its pool is disposed,
        # or it would stay open - and a stale handle on a WAL database breaks the next opener.
        while self._closers:
            self._closers.pop()()

    def _factories(self) -> dict[str, Callable[[], Any]]:
        from fruitctl.capabilities.files.kept import KeptFiles
        from fruitctl.domain.hosts import DomainRules

        kept = KeptFiles(self.config.paths.kept_files)

        return {
            "approvals": lambda: self.approvals,
            "allowlists": lambda: self.allowlists,
            "reminders": lambda: self.reminders,
            "calendar": lambda: self.calendar,
            "things": lambda: self.things,
            "files": lambda: _files(kept),
            "system": _system,
            # No rules of its own: the tool hands it the web_search rules in force at each
            # call (governance.yaml is read again when it changes; a copy here would go stale).
            "web": lambda: web_search_service(self.config.settings.web, DomainRules()),
        }


def _files(kept: KeptFiles) -> Any:
    from fruitctl.capabilities.files.service import FileService

    return FileService(kept)


def _system() -> Any:
    from fruitctl.capabilities.system.service import SystemService

    return SystemService()


def build(config: Config | None = None) -> App:
    """The app for ``config``: a bad configuration fails here, before anything opens."""
    watch = None
    if config is None:
        config = config_module.load()
        watch = ConfigWatch(config, config_module.load)
    use_zone(config.settings.server.timezone or None)
    app = App(
        config,
        reminders_backend_factory(config),
        calendar_factory=calendar_backend_factory(config),
        config_watch=watch,
    )
    app.mcp_tools  # noqa: B018 - a tool set naming nothing fails here, with the others
    return app


def _recover(gateway: Gateway, log: telemetry.EventLog) -> None:
    """Finish what a killed process left half-approved - when the store lets us now. A store
    another process is writing, or one that cannot be written, is left for a later start:
    recovery never stops a command (reading proposals, above all) from running."""
    from fruitctl.domain.errors import StorageFault, StoreBusy

    try:
        recovered = gateway.recover()
    except (StoreBusy, StorageFault) as exc:
        log.warning("recovery_skipped", error_code=exc.code, reason=exc.message)
        return
    if recovered:
        log.info("recovered", proposals=recovered)


def _governed(tool: Tool, definition: ToolDefinition) -> Tool:
    return replace(tool, definition=definition)


def _run_in_child(target: str, payload: dict[str, Any], timeout: float, limits: Any) -> Any:
    from fruitctl.sandbox import Limits, run_in_child

    # The child gets a little less time, so its own clean kill answers before the gateway's.
    return run_in_child(target, payload, timeout=timeout * 0.95, limits=limits or Limits())
