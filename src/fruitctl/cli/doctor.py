"""``fruitctl doctor``: everything this installation can reach, and what to do where it cannot -
the configuration and governance files, the backends and their permission (asking macOS once,
here, only where the prompt can be seen and answered; a server-backed store, CalDAV, asked for
real whatever its mirror holds), the app macOS asks about, tags, this home's daemon and its HTTP
server, and how strongly the sandbox holds a program here (namespaces, a cgroup or a walk of
the process tree, and why nothing stronger); ``--write-test`` makes a live round trip through
Apple Reminders. Its output is what to paste into a bug report.

A configuration that does not load is one failed check, named with its file and line or the
environment variable its value came from; the checks that need it are left out, not failed.

When a daemon answers, it is asked too (``system.info``): it is the process agents and forwarded
commands use, and macOS grants access per app, so its permission is shown beside this
process's, any difference is said in words, and access is judged by the daemon's - but a store
that fails for this process for any other reason than its access (a server that is down) fails
for the daemon too. A daemon running rules or settings its files no longer say is a problem."""

from __future__ import annotations

import os
import platform
import sys
from typing import Annotated, Any

import typer

from fruitctl import __version__, bootstrap, config_env
from fruitctl.cli import doctor_daemon, drift
from fruitctl.cli.app import JsonOption, only_here
from fruitctl.cli.output import emit_json, out, reporting, tags_state
from fruitctl.config import ConfigError
from fruitctl.domain.errors import FruitctlError
from fruitctl.paths import Paths
from fruitctl.sandbox import isolation

OK = "ok"
NOT_CHECKED = "not checked"
ACCESS = "permission_denied"  # a failure of this process's access, which the daemon's may lack


def doctor_command(
    write_test: Annotated[
        bool,
        typer.Option(
            "--write-test",
            help="Also create, read back and delete a reminder in a temporary list "
            "(Apple Reminders only).",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Check the configuration, backends, permissions, tags, daemon and its HTTP server; exit 1
    if anything is wrong."""
    with reporting(as_json):
        only_here()
        report = {"fruitctl": __version__, "platform": _platform(), **_checks(write_test)}
        report["environment"] = {"unread": config_env.unread(os.environ)}
        report["sandbox"] = isolation.current().describe()
    healthy = _healthy(report)
    report["healthy"] = healthy
    if as_json:
        emit_json(report)
    else:
        _show(report)
    raise typer.Exit(0 if healthy else 1)


def _platform() -> str:
    mac = platform.mac_ver()[0]
    system = f"macOS {mac}" if mac else platform.platform(terse=True)
    return f"{system}, Python {sys.version.split()[0]}"


def _checks(write_test: bool) -> dict[str, Any]:
    try:
        app = bootstrap.build()
    except ConfigError as exc:
        return _unconfigured(Paths.resolve(os.environ), str(exc), write_test)
    try:
        return _configured(app, write_test)
    finally:
        app.close()


def _config(paths: Paths, error: str | None) -> dict[str, Any]:
    found = {
        "file": str(paths.config_file),
        "exists": paths.config_file.exists(),
        "governance": str(paths.governance_file),
    }
    return found | ({"state": "broken", "error": error} if error else {"state": OK})


def _unconfigured(paths: Paths, error: str, write_test: bool) -> dict[str, Any]:
    """One failed check - the configuration - and what needs none: this home's daemon. The
    checks that need a configuration are there, as not checked (one shape, whatever the
    outcome), and not failed: they would only repeat the one cause."""
    daemon = doctor_daemon.daemon(paths.socket_file)
    skipped = {"state": NOT_CHECKED, "reason": "the configuration does not load"}
    report: dict[str, Any] = {
        "config": _config(paths, error),
        "governance": {"file": str(paths.governance_file), "checked": False, "error": None},
        "stores": {},
        "reminders": {"backend": None, **skipped},
        "calendar": {"backend": None, **skipped},
        "things": skipped,
        "daemon": daemon,
        "http": doctor_daemon.http(daemon),
        "mismatches": [],
        "stale": drift.notes(daemon.get("info") or {}),
        "mode": None,
    }
    if write_test:
        report["writeTest"] = {"ran": False, "reason": skipped["reason"]}
    return report


def _configured(app: bootstrap.App, write_test: bool) -> dict[str, Any]:
    paths = app.config.paths
    daemon = doctor_daemon.daemon(paths.socket_file)
    here = write_test and not daemon["answers"]  # else the daemon, which holds the access
    report: dict[str, Any] = {
        "config": _config(paths, None),
        "governance": app.drift()["governance"],
        **app.doctor.report(write_test=here),
        "things": app.things.status(),
        "daemon": daemon,
        "http": doctor_daemon.http(daemon),
    }
    if write_test and not here:
        report["writeTest"] = doctor_daemon.write_test(paths.socket_file)
    info = daemon.get("info") or {}
    report["mismatches"] = app.doctor.against_daemon(report, info)
    report["stale"] = drift.notes(info)
    report["mode"] = _mode(app)
    return report


def _mode(app: bootstrap.App) -> dict[str, Any] | None:
    """The mode, who set it, and - when fruitctl set DEGRADED by itself - why and the mode it
    returns to; None when state.db cannot be read (its own check says why)."""
    try:
        return {**app.modes.describe(), "degraded": app.modes.automatic()}
    except FruitctlError:
        return None


def _healthy(report: dict[str, Any]) -> bool:
    if report["config"]["state"] != OK or report["environment"]["unread"]:
        return False
    fine = all(_serves(report, service) for service in ("reminders", "calendar"))
    fine = fine and all(store["state"] != "broken" for store in report["stores"].values())
    fine = fine and not report["governance"].get("error") and not report["stale"]
    fine = fine and not (report.get("mode") or {}).get("degraded")
    http = report["http"]
    fine = fine and (http["answers"] or not http["expected"])
    test = report.get("writeTest")
    things_fine = report["things"]["state"] != "unreadable"  # "not set up" is no problem
    return fine and things_fine and (test is None or not test.get("ran") or bool(test.get("ok")))


def _serves(report: dict[str, Any], service: str) -> bool:
    """Whether the process that serves ``service`` can: the daemon when one answers (its own
    access decides, whatever this process's), else this process. A failure that is not about
    access - a server down, a store broken, a backend misconfigured - is everyone's."""
    own = report[service]
    info = report["daemon"].get("info")
    if info is None:
        return bool(own.get("state") == OK)
    failed = own.get("state") in ("failing", "unavailable")
    if failed and (own.get("error") or {}).get("code") != ACCESS:
        return False
    return bool((info.get("permissions") or {}).get(service) == "authorized")


def _show(report: dict[str, Any]) -> None:
    line = out.print
    line(f"fruitctl {report['fruitctl']} on {report['platform']}", markup=False)
    for said in config_env.describe(report["environment"]["unread"]):
        line(f"environment {said}", markup=False)
    config = report["config"]
    if config["state"] != OK:
        line(f"config      {config['file']}: BROKEN", markup=False)
        line(f"            {config['error']}", markup=False)
        line("            (the other checks need a configuration that loads)", markup=False)
    else:
        line(f"config      {config['file']}: ok", markup=False)
        _show_local(report)
    _show_sandbox(report["sandbox"])
    _show_daemon(report)
    line("all good" if report["healthy"] else "problems found: see above", markup=False)


def _show_local(report: dict[str, Any]) -> None:
    line = out.print
    rules = report["governance"]
    if rules.get("error"):
        line(f"governance  {rules['file']}: BROKEN", markup=False)
        line(f"            {rules['error']}", markup=False)
    else:
        said = rules["file"] if rules.get("fromFile") else "no file: the defaults"
        line(f"governance  {said}: ok", markup=False)
    for name, store in report["stores"].items():
        line(f"{name + '.db':<11} {store['file']}: {store['state']}", markup=False)
        if store.get("error"):
            line(f"            {store['error'].get('message')}", markup=False)
    mode = report.get("mode")
    if mode is not None:
        line(f"mode        {mode['mode']}", markup=False)
        if held := mode.get("degraded"):
            line(f"            set by fruitctl itself: {held['cause']}", markup=False)
            line(
                f"            it returns to {held['previous']} once that has cleared for a while",
                markup=False,
            )
    shown: set[str] = set()
    for service in ("reminders", "calendar"):
        _show_service(service, report[service], shown)
    _show_write_test(report.get("writeTest"))
    things = report["things"]
    if things["state"] == OK:
        said = f"{things['database']} ({things['todos']} to-dos); writes {things['writes']}"
    else:
        said = things["reason"]
    line(f"things      {said}", markup=False)


def _show_write_test(test: dict[str, Any] | None) -> None:
    if test is None:
        return
    said = "passed" if test.get("ok") else test.get("reason") or "FAILED"
    where = " (run by the daemon)" if test.get("in") == "daemon" else ""
    steps = ", ".join(test.get("steps", []))
    out.print(f"write test  {said}{where}{': ' + steps if steps else ''}", markup=False)
    if test.get("error"):
        out.print(f"            {test['error'].get('message')}", markup=False)


def _show_service(name: str, found: dict[str, Any], shown: set[str]) -> None:
    """One service; an error already said for the other (one cause, one CalDAV account) is
    referred to, not repeated."""
    line = out.print
    state = found.get("state")
    line(
        f"{name:<11} {found['backend']}: {state}, access {found.get('permission', '?')}",
        markup=False,
    )
    holder = found.get("accessHolder")
    if holder:
        line(f"            macOS asks about: {holder}", markup=False)
    tags = found.get("tags")
    if isinstance(tags, dict):
        line(f"            tags and flags: {tags_state(tags)}", markup=False)
    error = found.get("error")
    if not error:
        return
    message = str(error.get("message"))
    line(
        f"            {'(the same problem, above)' if message in shown else message}", markup=False
    )
    shown.add(message)
    for step in (error.get("details") or {}).get("instructions", []):
        line(f"            - {step}", markup=False)


def _show_sandbox(sandbox: dict[str, Any]) -> None:
    """Informative, never a failed check: a weaker isolation is what the machine offers."""
    line = out.print
    line(f"sandbox     isolation: {sandbox['containment']}", markup=False)
    line(f"            process limit: {sandbox['processLimit']}", markup=False)
    line(f"            network: {sandbox['network']}", markup=False)
    for reason in sandbox["reasons"]:
        line(f"            - {reason}", markup=False)


def _show_daemon(report: dict[str, Any]) -> None:
    line = out.print
    daemon = report["daemon"]
    running = f"running (pid {daemon['pid']})" if daemon["running"] else "not running"
    line(f"daemon      {running}, socket {daemon['socket']}", markup=False)
    info = daemon.get("info") or {}
    holders = info.get("accessHolders") or {}
    for service, permission in (info.get("permissions") or {}).items():
        holder = f" (macOS asks about: {holders[service]})" if holders.get(service) else ""
        line(f"            its {service}: access {permission}{holder}", markup=False)
    if daemon.get("infoError"):
        line(f"            it did not say: {daemon['infoError'].get('message')}", markup=False)
    for said in [*report["mismatches"], *report["stale"]]:
        line(f"            ! {said}", markup=False)
    http = report["http"]
    if not http["expected"]:
        line(f"http        not served ({http['why']})", markup=False)
    elif http["answers"]:
        line(f"http        {http['url']} answers", markup=False)
    else:
        line(f"http        {http['url']} NOT ANSWERING ({http['why']})", markup=False)
