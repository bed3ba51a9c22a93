"""The service's side of LTI 1.3 (the protocol is ``grader.service.lti``): what a launch
does here, and the one-time ticket that turns it into a session.

A launch finds or creates the account of its ``sub`` at its issuer (never by email: a
platform may change or share one), then follows its ``jaxjudge_item`` custom parameter:
``course/assignment`` joins that course in the launch's role (instructor or learner) and,
when the launch carries an AGS claim, remembers where the learner's score on it goes; a
problem id opens that problem. The browser then gets a one-time ticket after ``#`` on
``/lti/enter``, whose page posts it here for the session cookies, so no cookie is set on
the launch's cross-site POST. A deep-linking launch (instructors only) opens the picker
of the assignments they teach and the problems."""
from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections import OrderedDict

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import select

from ...problem import all_problem_ids
from .. import assignments as asg
from .. import courses as co
from ..accounts import AccountError, add_user, normalize_email
from ..models import Assignment, Course, LtiLink, LtiUser, Membership, User, utcnow
from .auth import start_session, throttle
from .deps import Context, ctx
from .schemas import Strict, errors

TICKET_SECONDS = 60
TICKETS_MAX = 10_000
router = APIRouter(tags=["lti"])


class Tickets:
    """One-time, short-lived, bounded, in this process (a launch and its ticket's use are
    seconds apart, on the same server)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: OrderedDict[str, tuple[float, int, str]] = OrderedDict()

    def issue(self, user_id: int, next_path: str) -> str:
        ticket = secrets.token_urlsafe(32)
        with self.lock:
            while len(self.items) >= TICKETS_MAX:
                self.items.popitem(last=False)
            self.items[hashlib.sha256(ticket.encode()).hexdigest()] = (time.monotonic() + TICKET_SECONDS, user_id,
                                                                       next_path)
        return ticket

    def take(self, ticket: str) -> tuple[int, str] | None:
        with self.lock:
            found = self.items.pop(hashlib.sha256(ticket.encode()).hexdigest(), None)
        if found is None or found[0] < time.monotonic():
            return None
        return found[1], found[2]


class JudgeProvisioner:
    """``grader.service.lti.tool.Provisioner`` over the service's database."""

    def __init__(self, db, tickets: Tickets) -> None:
        self.db, self.tickets = db, tickets

    def _account(self, s, launch) -> User:
        known = s.get(LtiUser, (launch.issuer, launch.subject))
        role = "instructor" if launch.is_instructor else "learner"
        if known is not None:
            user = s.get(User, known.user_id)
            assert user is not None  # the row goes with its account
            if role == "instructor":
                user.role = "instructor"
            return user
        email = None
        try:
            email = normalize_email(launch.email) if launch.email else None
        except AccountError:
            pass
        if email is None or s.scalar(select(User.id).where(User.email == email)) is not None:
            # Taken (or none given): an address of its own, so that a platform cannot claim an account.
            email = "lti-" + hashlib.sha256(f"{launch.issuer}|{launch.subject}".encode()).hexdigest()[:20] + \
                "@lti.invalid"
        user = add_user(s, email, role, None, course=None)
        s.add(LtiUser(issuer=launch.issuer, subject=launch.subject, user_id=user.id, created_at=utcnow()))
        return user

    def on_launch(self, launch) -> str:
        from ..lti.errors import LtiRefusal
        from ..lti.tool import ITEM_PARAM

        if launch.message_type == "LtiDeepLinkingRequest" and not launch.is_instructor:
            raise LtiRefusal(403, "only an instructor places the judge's items in a course")
        item = launch.custom.get(ITEM_PARAM, "")
        with self.db.write() as s:
            user = self._account(s, launch)
            if launch.message_type == "LtiDeepLinkingRequest":
                next_path = f"/lti/pick?launch={launch.launch_id}"
            elif "/" in item:
                next_path = self._assignment(s, launch, user, item)
            elif item in all_problem_ids():
                next_path = f"/problems/{item}"
            else:
                next_path = "/courses"
            return "/lti/enter#" + self.tickets.issue(user.id, next_path)

    def _assignment(self, s, launch, user: User, ref: str) -> str:
        from ..lti.errors import LtiRefusal

        course_slug, _, slug = ref.partition("/")
        row = s.execute(select(Assignment, Course).join(Course, Course.id == Assignment.course_id)
                        .where(Course.slug == course_slug, Assignment.slug == slug)).first()
        if row is None:
            raise LtiRefusal(404, f"the link names an assignment the judge does not have ({ref!r})")
        a, course = row
        role = "instructor" if launch.is_instructor else "learner"
        if co.join(s, course.id, user.id, role) is False and role == "instructor":
            s.get(Membership, (course.id, user.id)).role = "instructor"
        if launch.ags is not None and role == "learner":
            link = s.scalar(select(LtiLink).where(LtiLink.user_id == user.id, LtiLink.assignment_id == a.id,
                                                  LtiLink.issuer == launch.issuer)) or \
                LtiLink(user_id=user.id, assignment_id=a.id, issuer=launch.issuer)
            link.client_id, link.subject, link.updated_at = launch.client_id, launch.subject, utcnow()
            link.resource_link_id = launch.resource_link.id if launch.resource_link else None
            link.lineitem, link.lineitems = launch.ags.lineitem, launch.ags.lineitems
            link.scope = " ".join(launch.ags.scope)
            s.add(link)
        return f"/courses/{course.slug}/assignments/{a.slug}"

    def deep_link_items(self, launch):
        with self.db.read() as s:
            known = s.get(LtiUser, (launch.issuer, launch.subject))
        return self.items_for(known.user_id if known is not None else None)

    def items_for(self, user_id: int | None):
        """What an instructor may place: the assignments of the courses they teach, and
        every problem (practice, no score)."""
        from ..lti.tool import DeepLinkItem

        with self.db.read() as s:
            items = []
            if user_id is not None:
                for c in co.courses_of(s, user_id):
                    if c.role != "instructor":
                        continue
                    course = s.scalar(select(Course).where(Course.slug == c.slug))
                    for a in asg.of_course(s, course):
                        possible = sum(p.weight for p in asg.problems_of(s, a))
                        items.append(DeepLinkItem(f"{c.slug}/{a.slug}", f"{a.title} ({c.title})",
                                                  score_maximum=possible, tag="assignment"))
        return items + [DeepLinkItem(pid, pid) for pid in all_problem_ids()]


class TicketIn(Strict):
    ticket: str = Field(max_length=100)


class TicketOut(BaseModel):
    email: str
    role: str
    csrf_token: str
    next: str = Field(description="where the launch leads, a path on this site")


@router.post("/auth/lti-ticket", response_model=TicketOut, responses=errors(400, 422, 429))
def use_ticket(body: TicketIn, request: Request, response: Response, c: Context = Depends(ctx)):
    """The session of an LTI launch, for its one-time ticket (valid a minute)."""
    throttle(request, c)
    tickets: Tickets | None = getattr(request.app.state, "lti_tickets", None)
    found = tickets.take(body.ticket) if tickets is not None else None
    if found is None:
        raise HTTPException(400, "this launch ticket is unknown, used or expired: launch the judge from the LMS again")
    user_id, next_path = found
    with c.db.write() as s:
        user = s.get(User, user_id)
        if user is None:
            raise HTTPException(400, "the account of this launch is gone")
        me = start_session(s, user, request, response, c)
    return TicketOut(email=me.email, role=me.role, csrf_token=me.csrf_token or "", next=next_path)


def mount(app, config, db, workers) -> None:
    """With ``--lti-config``: the LTI routes, the ticket exchange and the score passback."""
    from ..lti.config import load_tool_config
    from ..lti.routes import build_router
    from ..lti.tool import LtiTool
    from ..lti_passback import Passback

    tool_config = load_tool_config(config.lti_config)
    tickets = Tickets()
    app.state.lti_tickets = tickets
    base = config.public_url or f"http://{config.host}:{config.port}"
    app.state.lti_tool = LtiTool(tool_config, base, JudgeProvisioner(db, tickets))
    app.include_router(build_router(app.state.lti_tool))
    app.state.passback = Passback(db, tool_config)
