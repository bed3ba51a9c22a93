"""The service's side of LTI 1.3 (the protocol is ``grader.service.lti``): what a launch
does here, which LMS courses may reach which judge course, and the one-time ticket that
turns a launch into a session.

A launch finds or creates the account of its ``sub`` at its issuer (never by email: a
platform may change or share one), then follows its ``jaxjudge_item`` custom parameter:
``course/assignment`` joins that course in the launch's role (instructor or learner) and,
when the launch carries an AGS claim, remembers where the learner's score on it goes; a
problem id opens that problem. The custom parameter is the LMS course's to edit (any
teacher there may), so it is trusted only as far as the binding goes: an assignment opens
only from the LMS course (issuer, deployment, context) bound to its judge course
(``LtiContext``). A context is bound by someone who is at once its instructor (a deep-
linking launch from it, in this browser) and an instructor of the judge course: when they
place an assignment of a course they teach that no LMS course has yet, or explicitly
(``POST /lti/contexts``), which may bind a course to several contexts. The browser then
gets a one-time ticket after ``#`` on ``/lti/enter``, whose page posts it here for the
session cookies, so no cookie is set on the launch's cross-site POST. A deep-linking
launch (instructors only) opens the picker: the assignments of the course its context is
bound to (of the courses its user teaches and no context has, while unbound) and the
problems."""
from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ...problem import all_problem_ids
from ..domain import assignments as asg
from ..domain import courses as co
from ..domain.lti_contexts import UNBOUND_ADVICE, Picker, bind, binding, context_title
from ..domain.accounts import AccountError, add_user, csrf_matches, normalize_email, principal_from_cookie
from ..core.models import Assignment, Course, LtiContext, LtiLink, LtiUser, Membership, User, utcnow
from .auth import start_session, throttle
from .deps import SESSION_COOKIE, ContextDep
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
            raise LtiRefusal(403, "only an instructor places the judge's items in a course",
                             "Nothing to tell: the LMS offers this to the course's instructors only. If an "
                             "instructor sees this, their role in this LMS course is not sent as Instructor.")
        item = launch.custom.get(ITEM_PARAM, "")
        with self.db.write() as s:  # a refusal below rolls back the account made above
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
        if launch.context is None:
            raise LtiRefusal(403, f"the link names the judge course {course_slug!r}, but the launch names no LMS "
                                  "course (it has no context claim), and an assignment opens only from the LMS "
                                  "course linked to its judge course", UNBOUND_ADVICE)
        bound = binding(s, launch)
        if bound is None or bound.slug != course_slug:
            linked = "is not linked to any judge course" if bound is None else \
                f"is linked to the judge course {bound.slug!r}"
            raise LtiRefusal(403, f"the link names the judge course {course_slug!r}, but this LMS course "
                                  f"({context_title(launch)}) {linked}", UNBOUND_ADVICE)
        a = s.scalar(select(Assignment).where(Assignment.course_id == bound.course_id, Assignment.slug == slug))
        if a is None:
            raise LtiRefusal(404, f"the link names an assignment the judge does not have ({ref!r})",
                             "Tell the course's instructor: the assignment was renamed or deleted in the judge; "
                             "they place it again through the LMS's picker.")
        role = "instructor" if launch.is_instructor else "learner"
        if co.join(s, bound.course_id, user.id, role) is False and role == "instructor":
            s.get(Membership, (bound.course_id, user.id)).role = "instructor"
        if launch.ags is not None and role == "learner":
            link = s.scalar(select(LtiLink).where(LtiLink.user_id == user.id, LtiLink.assignment_id == a.id,
                                                  LtiLink.issuer == launch.issuer)) or \
                LtiLink(user_id=user.id, assignment_id=a.id, issuer=launch.issuer)
            link.client_id, link.subject, link.updated_at = launch.client_id, launch.subject, utcnow()
            link.resource_link_id = launch.resource_link.id if launch.resource_link else None
            link.lineitem, link.lineitems = launch.ags.lineitem, launch.ags.lineitems
            link.scope = " ".join(launch.ags.scope)
            s.add(link)
        return f"/courses/{bound.slug}/assignments/{a.slug}"

    # -- deep linking: the picker, and the choice it posts

    def launch_owner(self, launch) -> int | None:
        """The account the launch's user (``sub`` at its issuer) signs in as."""
        with self.db.read() as s:
            known = s.get(LtiUser, (launch.issuer, launch.subject))
        return known.user_id if known is not None else None

    def _chooser(self, launch, request) -> int:
        """The account of the browser posting the choice: the launch's own, with its session's CSRF token."""
        from ..lti.errors import LtiRefusal

        advice = ("Open the judge again from the LMS (add the activity again) and choose in the page it opens, "
                  "in the same browser.")
        found = principal_from_cookie(self.db, request.cookies.get(SESSION_COOKIE, ""))
        if found is None:
            raise LtiRefusal(403, "the choice comes without the session of the launch it answers: it must be "
                                  "posted from the picker, in the browser that made the launch", advice)
        who, csrf_hash = found
        if not csrf_matches(csrf_hash, request.get_param("csrf_token")):
            raise LtiRefusal(403, "the choice lacks the session's CSRF token: it must be posted from the picker",
                             advice)
        if self.launch_owner(launch) != who.user_id:
            raise LtiRefusal(403, "this deep-linking launch was made by another account than this browser's",
                             advice)
        return who.user_id

    def picker(self, launch, user_id: int) -> Picker:
        """The picker of ``launch`` for ``user_id`` (its owner: the caller checks)."""
        from ..lti.tool import DeepLinkItem

        with self.db.read() as s:
            bound = binding(s, launch)
            taught = [c for c in co.courses_of(s, user_id) if c.role == "instructor"]
            if bound is not None:
                courses = [s.get(Course, bound.course_id)]
            elif launch.context is not None:
                # Unbound: a course this account teaches that no LMS course has yet; placing binds it.
                free = select(Course).where(Course.slug.in_([c.slug for c in taught]),
                                            ~Course.id.in_(select(LtiContext.course_id)))
                courses = list(s.scalars(free.order_by(Course.title, Course.slug)))
            else:
                courses = []
            items = []
            for course in courses:
                for a in asg.of_course(s, course):
                    possible = sum(p.weight for p in asg.problems_of(s, a))
                    items.append(DeepLinkItem(f"{course.slug}/{a.slug}", f"{a.title} ({course.title})",
                                              score_maximum=possible, tag="assignment"))
        items += [DeepLinkItem(pid, pid) for pid in all_problem_ids()]
        bindable = taught if bound is None and launch.context is not None else []
        return Picker(context_title(launch), bound, items, bindable)

    def deep_link_items(self, launch, request) -> Sequence:
        return self.picker(launch, self._chooser(launch, request)).items

    def placed(self, launch, request, items) -> None:
        """Placing an assignment from an unbound LMS course binds it to the assignment's course
        (offered only when this account teaches it and no LMS course has it yet)."""
        from ..lti.errors import LtiRefusal

        slugs = {i.id.partition("/")[0] for i in items if "/" in i.id}
        if not slugs or launch.context is None:
            return
        if len(slugs) > 1:
            raise LtiRefusal(400, "the assignments placed at once must be of one judge course")
        user_id = self._chooser(launch, request)
        slug = slugs.pop()
        raced = LtiRefusal(409, "this LMS course or this judge course was linked meanwhile: reopen the picker",
                           "Add the activity again from the LMS.")
        try:
            with self.db.write() as s:
                bound = binding(s, launch)
                if bound is not None:
                    if bound.slug != slug:
                        raise raced
                    return
                course = s.scalar(select(Course).where(Course.slug == slug))
                if course is None or s.scalar(select(LtiContext.id).where(LtiContext.course_id == course.id)
                                              .limit(1)) is not None:
                    raise raced  # only a course no LMS course has is bound by placing
                bind(s, launch, course, user_id)
        except IntegrityError:
            raise raced from None


class TicketIn(Strict):
    ticket: str = Field(max_length=100)


class TicketOut(BaseModel):
    email: str
    role: str
    csrf_token: str
    next: str = Field(description="where the launch leads, a path on this site")


@router.post("/auth/lti-ticket", response_model=TicketOut, responses=errors(400, 422, 429))
def use_ticket(body: TicketIn, request: Request, response: Response, c: ContextDep):
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
    from ..domain.lti_passback import Passback

    tool_config = load_tool_config(config.lti_config)
    tickets = Tickets()
    app.state.lti_tickets = tickets
    base = config.public_url or f"http://{config.host}:{config.port}"
    app.state.lti_tool = LtiTool(tool_config, base, JudgeProvisioner(db, tickets))
    app.include_router(build_router(app.state.lti_tool))
    app.state.passback = Passback(db, tool_config)
