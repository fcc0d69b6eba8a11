"""The pages of ``/ui``: sign in, pending proposals (refreshed live), one proposal with its diff
and the Approve / Reject / Undo forms, the history, and the audit log.

Pages read through the approval engine and decide through the gateway exactly as the CLI does,
as the signed-in person; a form without the session's CSRF token, or posted from another origin,
is refused.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from fruitctl import __version__
from fruitctl.approvals import batch
from fruitctl.approvals.allowance import OFFERED, Allowance
from fruitctl.approvals.batch import BATCH_MAX
from fruitctl.approvals.engine import Approvals
from fruitctl.approvals.hidden import HIDDEN_WARNING, hides_text
from fruitctl.domain.errors import FruitctlError
from fruitctl.domain.wording import spoken_when
from fruitctl.gateway import ACTIONS, Action
from fruitctl.transports.http.door import Door
from fruitctl.transports.http.errors import status_of
from fruitctl.transports.http.tokens import Claims
from fruitctl.transports.http.ui import text
from fruitctl.transports.http.ui.footer import when_things_change
from fruitctl.transports.http.ui.session import Sessions, SignInError, same_origin

DONE = {
    "approved": "Approved and executed.",
    "granted": "Approved and executed; the agent may now do the same there, without asking, "
    "until the grant ends (fruitctl grants list; revoke it there).",
    "partly": "Approved and executed in part: the items listed below failed.",
    "unconfirmed": "Approved and sent, but not confirmed: the app did not show the change in "
    "time. Check it there before approving anything like it again.",
    "rejected": "Rejected: nothing was changed.",
    "undo": "Filed the undo as a new proposal: approve it to apply.",
}


def templates() -> Environment:
    env = Environment(
        loader=PackageLoader("fruitctl.transports.http", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    env.filters["reveal"] = text.reveal
    env.filters["hides_text"] = hides_text  # the same check as the CLI's
    env.filters["when"] = lambda value: spoken_when(value) if value else ""
    env.globals["version"] = __version__
    env.globals["hidden_warning"] = HIDDEN_WARNING
    return env


class Pages:
    """The page handlers; ``router`` binds them to their paths."""

    def __init__(self, door: Door) -> None:
        self.door = door
        self.env = templates()

    @property
    def approvals(self) -> Approvals:
        return self.door.app.approvals

    @property
    def sessions(self) -> Sessions:
        return self.door.serving.sessions

    # -- signing in ----------------------------------------------------------------------------

    async def home(self) -> Response:
        return RedirectResponse("/ui/proposals", 303)

    async def signin_form(self, request: Request) -> Response:
        if self.sessions.current(request):
            return RedirectResponse("/ui/proposals", 303)
        return self.html("signin.html")

    async def signin(self, request: Request) -> Response:
        if not same_origin(request):
            return self.html("signin.html", 403, error="Sign-in from another site refused.")
        form = await request.form()
        try:
            session = self.sessions.sign_in(_field(form, "token") or "")
        except SignInError as exc:
            return self.html("signin.html", 401, error=str(exc))
        response = RedirectResponse("/ui/proposals", 303)
        self.sessions.keep(response, session, request)
        return response

    async def signout(self) -> Response:
        response = RedirectResponse("/ui/signin", 303)
        self.sessions.forget(response)
        return response

    # -- reading -------------------------------------------------------------------------------

    async def pending(self, request: Request) -> Response:
        session = self.sessions.current(request)
        if session is None:
            return _to_signin()
        rows = await run_in_threadpool(self.approvals.recent, "pending", 200)
        return self.page("pending.html", session, proposals=rows, who=session.actor.label)

    async def pending_fragment(self, request: Request) -> Response:
        if self.sessions.current(request) is None:
            return HTMLResponse("", 401)  # the script sends the person to sign in
        rows = await run_in_threadpool(self.approvals.recent, "pending", 200)
        return self.html("_pending_list.html", proposals=rows)

    async def proposal(self, proposal_id: str, request: Request, done: str = "") -> Response:
        session = self.sessions.current(request)
        if session is None:
            return _to_signin()
        return await self.detail(session, proposal_id, notice=DONE.get(done))

    async def history(self, request: Request) -> Response:
        session = self.sessions.current(request)
        if session is None:
            return _to_signin()
        rows = await run_in_threadpool(self.approvals.recent, None, 200)
        return self.page("history.html", session, proposals=rows)

    async def audit(self, request: Request) -> Response:
        session = self.sessions.current(request)
        if session is None:
            return _to_signin()
        entries = await run_in_threadpool(lambda: self.door.app.audit.entries(limit=300))
        return self.page("audit.html", session, entries=entries)

    # -- deciding ------------------------------------------------------------------------------

    async def decide(self, proposal_id: str, action: str, request: Request) -> Response:
        session = self.sessions.current(request)
        if session is None:
            return _to_signin()
        form = await request.form()
        chosen = next((known for known in ACTIONS if known == action), None)
        if chosen is None:
            return self.page("error.html", session, 404, message="No such action.")
        if not same_origin(request) or not self.sessions.csrf_ok(session, _field(form, "csrf")):
            return self.page("error.html", session, 403, message="The form expired: reload it.")
        try:
            allow = None
            if chosen == "approve" and _field(form, "allow_for"):  # the form always sends a scope
                allow = Allowance.parse(_field(form, "allow_for"), _field(form, "scope"))
            return await self.act(session, proposal_id, chosen, _field(form, "reason"), allow)
        except FruitctlError as exc:
            return await self.detail(
                session, proposal_id, failure=exc.message, status=status_of(exc.code)
            )

    async def act(
        self,
        session: Claims,
        proposal_id: str,
        action: Action,
        reason: str | None,
        allow: Allowance | None = None,
    ) -> Response:
        decide = self.door.app.gateway.decide
        decided = await run_in_threadpool(
            decide,
            proposal_id,
            action,
            session.actor,
            (reason or None) if action == "reject" else None,
            allow,
        )
        if action == "undo":
            return RedirectResponse(f"/ui/proposals/{decided['proposalId']}?done=undo", 303)
        done = "approved" if action == "approve" else "rejected"
        result = decided.get("result")
        if action == "approve" and isinstance(result, dict) and result.get("failed"):
            done = "partly"
        elif action == "approve" and isinstance(result, dict) and result.get("confirmed") is False:
            done = "unconfirmed"
        elif decided.get("grant"):
            done = "granted"
        return RedirectResponse(f"/ui/proposals/{proposal_id}?done={done}", 303)

    async def decide_selected(self, request: Request) -> Response:
        """The pending list's select-all: each selected proposal approved (or rejected) on its
        own, judged again; the list shown again with what failed, named."""
        session = self.sessions.current(request)
        if session is None:
            return _to_signin()
        form = await request.form()
        if not same_origin(request) or not self.sessions.csrf_ok(session, _field(form, "csrf")):
            return self.page("error.html", session, 403, message="The form expired: reload it.")
        action = next((a for a in ACTIONS if a != "undo" and a == _field(form, "action")), None)
        if action is None:
            return self.page("error.html", session, 404, message="No such action.")
        ids = [value for value in form.getlist("ids") if isinstance(value, str)][:BATCH_MAX]
        decide = self.door.app.gateway.decide
        done = await run_in_threadpool(
            batch.each, ids, lambda one: decide(one, action, session.actor)
        )
        rows = await run_in_threadpool(self.approvals.recent, "pending", 200)
        verb = "Approved" if action == "approve" else "Rejected"
        notice = f"{verb} {len(done['decided'])}; {len(done['failed'])} failed."
        status = 200 if not done["failed"] else 409
        context = {"proposals": rows, "who": session.actor.label, "failures": done["failed"]}
        return self.page("pending.html", session, status, notice=notice, **context)

    # -- rendering -----------------------------------------------------------------------------

    async def detail(
        self, session: Claims, proposal_id: str, status: int = 200, **extra: Any
    ) -> Response:
        try:
            found = await run_in_threadpool(self.approvals.get, proposal_id)
        except FruitctlError as exc:
            return self.page("error.html", session, status_of(exc.code), message=exc.message)
        return self.page("proposal.html", session, status, p=found, **extra)

    def html(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(self.env.get_template(name).render(**context), status)

    def page(self, name: str, session: Claims, status: int = 200, **context: Any) -> HTMLResponse:
        """A signed-in page: its forms carry the session's CSRF token, its footer the policy
        in force."""
        footer = when_things_change(self.door.app.gateway)
        return self.html(
            name,
            status,
            csrf=self.sessions.csrf(session),
            footer=footer,
            grant_lengths=OFFERED,
            **context,
        )


def router(door: Door) -> APIRouter:
    pages = Pages(door)
    ui = APIRouter(prefix="/ui", include_in_schema=False)
    routes: list[tuple[str, Any, str]] = [
        ("", pages.home, "GET"),
        ("/", pages.home, "GET"),
        ("/signin", pages.signin_form, "GET"),
        ("/signin", pages.signin, "POST"),
        ("/signout", pages.signout, "POST"),
        ("/proposals", pages.pending, "GET"),
        ("/fragments/pending", pages.pending_fragment, "GET"),
        ("/proposals/{proposal_id}", pages.proposal, "GET"),
        ("/proposals/{proposal_id}/{action}", pages.decide, "POST"),
        ("/decide", pages.decide_selected, "POST"),
        ("/history", pages.history, "GET"),
        ("/audit", pages.audit, "GET"),
    ]
    for path, handler, method in routes:
        ui.add_api_route(path, handler, methods=[method])
    return ui


def _to_signin() -> Response:
    return RedirectResponse("/ui/signin", 303)


def _field(form: Any, name: str) -> str | None:
    value = form.get(name)
    return value if isinstance(value, str) else None
