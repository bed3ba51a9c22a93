"""Courses and people over HTTP: an instructor creates a course, invites people (a
link that expires, may be revoked and may require an email domain), imports and
exports its roster, removes members and hands a learner a one-time reset link; anyone
signs up with an invitation or joins with their account, and changes their password.

Secrets (invitation codes, password links) travel in request bodies, never in a URL
the server logs: the links the pages show carry them after ``#``, which no browser
sends. Every route that tries a secret is throttled per client address like login."""
from __future__ import annotations

from datetime import datetime
from typing import Literal

from fastapi import APIRouter, HTTPException, Path, Query, Request, Response
from pydantic import BaseModel, Field, StrictBool

from ..domain import courses as co
from ..domain.accounts import AccountError, change_password, use_password_link
from ..core.models import Invitation
from .auth import start_session, throttle
from .deps import ContextDep, course_or_404, CurrentInstructor, CurrentUser
from .schemas import DB_INT_MAX, CsvText, Me, Strict, errors

router = APIRouter(tags=["courses"])
SLUG = Path(max_length=64)
ROSTER_MAX_BYTES = 256 * 1024


class CourseIn(Strict):
    slug: str = Field(max_length=64, description="the short name in URLs: lowercase letters, digits, dashes")
    title: str = Field(max_length=200)


class CourseOut(BaseModel):
    slug: str
    title: str
    role: Literal["learner", "instructor"] = Field(description="yours in it")


class CourseSettingsIn(Strict):
    show_class_progress: StrictBool = Field(
        description="its learners' progress shows, per problem, the share of the class who solved it")


class CourseSettingsOut(BaseModel):
    slug: str
    title: str
    show_class_progress: bool


class InvitationIn(Strict):
    role: Literal["learner", "instructor"] = "learner"
    days: float = Field(14, gt=0, le=co.MAX_INVITE_DAYS, description="how long it can be used")
    email_domain: str | None = Field(None, max_length=255, description="only addresses at this domain may use it")


class InvitationOut(BaseModel):
    id: int
    role: str
    email_domain: str | None
    created_at: datetime
    expires_at: datetime
    revoked: bool
    uses: int
    code: str | None = Field(None, description="only when it is made: it is not stored")
    link: str | None = Field(None, description="the page that uses the code (only when it is made)")


class CodeIn(Strict):
    code: str = Field(max_length=100)


class InvitationInfo(BaseModel):
    course: str = Field(description="the course's title")
    role: str
    email_domain: str | None


class SignUpIn(Strict):
    code: str = Field(max_length=100)
    email: str = Field(max_length=320)
    password: str = Field(max_length=1024)


class PasswordIn(Strict):
    current: str = Field(max_length=1024)
    new: str = Field(max_length=1024)


class PasswordLinkIn(Strict):
    secret: str = Field(max_length=100)
    password: str = Field(max_length=1024)


class MemberOut(BaseModel):
    user_id: int
    email: str
    role: str
    joined_at: str
    has_password: bool


class RosterIn(Strict):
    csv: CsvText = Field(max_length=ROSTER_MAX_BYTES, description="a CSV with an email column (and optionally role)")


class ImportedOut(BaseModel):
    email: str
    created: bool
    joined: bool
    invited: bool = Field(description="an existing account: it joins when its holder accepts the invitation")
    link: str | None = Field(description="a new account's one-time set-password link, for you to hand out")


class LinkOut(BaseModel):
    link: str


def _link(request: Request, page: str, secret: str) -> str:
    return f"{str(request.base_url).rstrip('/')}/{page}#{secret}"


def _refuse(exc: AccountError) -> HTTPException:
    return HTTPException(400, str(exc))


@router.post("/courses", response_model=CourseOut, status_code=201, responses=errors(400, 401, 403, 422))
def create(body: CourseIn, who: CurrentInstructor, c: ContextDep):
    with c.db.write() as s:
        try:
            course = co.create_course(s, who, body.slug, body.title)
        except AccountError as exc:
            raise _refuse(exc) from None
        return CourseOut(slug=course.slug, title=course.title, role="instructor")


@router.get("/courses", response_model=list[CourseOut], responses=errors(401))
def mine(who: CurrentUser, c: ContextDep):
    with c.db.read() as s:
        return [CourseOut(slug=r.slug, title=r.title, role=r.role) for r in co.courses_of(s, who.user_id)]


@router.patch("/courses/{slug}", response_model=CourseSettingsOut, responses=errors(400, 401, 403, 404, 422))
def settings(body: CourseSettingsIn, who: CurrentInstructor, c: ContextDep, slug: str = SLUG):
    """What its instructors choose: ``show_class_progress`` (off until turned on) lets
    its learners' progress show, per problem, the share of the class who solved it."""
    with c.db.write() as s:
        course = course_or_404(s, who, slug)
        course.show_class_progress = body.show_class_progress
        return CourseSettingsOut(slug=course.slug, title=course.title, show_class_progress=course.show_class_progress)


def _invitation_out(row: Invitation, code: str | None = None, link: str | None = None) -> InvitationOut:
    return InvitationOut(id=row.id, role=row.role, email_domain=row.email_domain, created_at=row.created_at,
                         expires_at=row.expires_at, revoked=row.revoked_at is not None, uses=row.uses, code=code,
                         link=link)


@router.post("/courses/{slug}/invitations", response_model=InvitationOut, status_code=201,
             responses=errors(400, 401, 403, 404, 422))
def invite(body: InvitationIn, request: Request, who: CurrentInstructor, c: ContextDep, slug: str = SLUG):
    with c.db.write() as s:
        course = course_or_404(s, who, slug)
        try:
            row, code = co.new_invitation(s, course, who.user_id, body.role, body.days, body.email_domain)
        except AccountError as exc:
            raise _refuse(exc) from None
        return _invitation_out(row, code, _link(request, "join", code))


@router.get("/courses/{slug}/invitations", response_model=list[InvitationOut], responses=errors(401, 403, 404))
def invitation_list(who: CurrentInstructor, c: ContextDep, slug: str = SLUG):
    with c.db.read() as s:
        return [_invitation_out(r) for r in co.invitations(s, course_or_404(s, who, slug))]


@router.delete("/courses/{slug}/invitations/{invitation_id}", status_code=204, responses=errors(401, 403, 404, 422))
def revoke(who: CurrentInstructor, c: ContextDep, slug: str = SLUG, invitation_id: int = Path(ge=1, le=DB_INT_MAX)):
    with c.db.write() as s:
        if not co.revoke_invitation(s, course_or_404(s, who, slug), invitation_id):
            raise HTTPException(404, "no such invitation (or it is revoked already)")
    return Response(status_code=204)


@router.post("/invitations/check", response_model=InvitationInfo, responses=errors(400, 422, 429))
def check(body: CodeIn, request: Request, c: ContextDep):
    """What an invitation is for, before one signs up with it (no account needed)."""
    throttle(request, c)
    with c.db.read() as s:
        try:
            invitation, course = co.open_invitation(s, body.code)
        except AccountError as exc:
            raise _refuse(exc) from None
        return InvitationInfo(course=course.title, role=invitation.role, email_domain=invitation.email_domain)


@router.post("/signup", response_model=Me, status_code=201, responses=errors(400, 422, 429))
def sign_up(body: SignUpIn, request: Request, response: Response, c: ContextDep):
    """A new account from an invitation; it is logged in at once (session cookies)."""
    throttle(request, c)
    with c.db.write() as s:
        try:
            user, _course = co.sign_up(s, body.code, body.email, body.password)
        except AccountError as exc:
            raise _refuse(exc) from None
        return start_session(s, user, request, response, c)


@router.post("/join", response_model=CourseOut, responses=errors(400, 401, 403, 422, 429))
def join(body: CodeIn, request: Request, who: CurrentUser, c: ContextDep):
    """Your account joins the invitation's course (a member already: nothing changes)."""
    throttle(request, c)
    with c.db.write() as s:
        try:
            course = co.accept(s, body.code, who)
        except AccountError as exc:
            raise _refuse(exc) from None
        role = next(r.role for r in co.courses_of(s, who.user_id) if r.slug == course.slug)
        return CourseOut(slug=course.slug, title=course.title, role=role)


class PasswordChangedOut(BaseModel):
    detail: str = Field(description="what happened, in a sentence")
    sessions_ended: int = Field(description="your other browser sessions, now logged out")
    tokens_kept: int = Field(description="your API tokens, which still work: revoke them if the password was stolen")


@router.post("/auth/password", response_model=PasswordChangedOut, responses=errors(400, 401, 403, 422, 429))
def password(body: PasswordIn, request: Request, who: CurrentUser, c: ContextDep):
    """Change your password (the current one first): your other sessions end, every
    one-time link made for your account stops working, your API tokens stay."""
    throttle(request, c)
    with c.db.write() as s:
        try:
            done = change_password(s, who.user_id, body.current, body.new, who.session_id)
        except AccountError as exc:
            raise _refuse(exc) from None
    plural = "" if done.sessions_ended == 1 else "s"
    tokens = ("you have no API tokens" if done.tokens_kept == 0 else
              f"your {done.tokens_kept} API token{'' if done.tokens_kept == 1 else 's'} still work"
              f"{'s' if done.tokens_kept == 1 else ''}: revoke them on your account page if the password was stolen")
    return PasswordChangedOut(detail=f"Your password is changed; {done.sessions_ended} other session{plural} "
                                     f"logged out; {tokens}.",
                              sessions_ended=done.sessions_ended, tokens_kept=done.tokens_kept)


@router.post("/auth/password-link", response_model=Me, responses=errors(400, 422, 429))
def password_link(body: PasswordLinkIn, request: Request, response: Response, c: ContextDep):
    """Set a password with a one-time link's secret; logged in at once. Every older
    session ends and every API token of the account is revoked."""
    throttle(request, c)
    with c.db.write() as s:
        try:
            user = use_password_link(s, body.secret, body.password)
        except AccountError as exc:
            raise _refuse(exc) from None
        return start_session(s, user, request, response, c)


@router.get("/courses/{slug}/members", response_model=list[MemberOut],
            responses={200: {"content": {"text/csv": {}}}, **errors(401, 403, 404, 422)})
def members(who: CurrentInstructor, c: ContextDep, slug: str = SLUG, format: Literal["json", "csv"] = Query("json")):
    with c.db.read() as s:
        rows = co.members(s, course_or_404(s, who, slug))
    if format == "csv":
        return Response(co.roster_csv(rows), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{slug}-roster.csv"'})
    return [MemberOut(**vars(m)) for m in rows]


@router.post("/courses/{slug}/roster", response_model=list[ImportedOut], responses=errors(400, 401, 403, 404, 422))
def roster(body: RosterIn, request: Request, who: CurrentInstructor, c: ContextDep, slug: str = SLUG):
    """A new address gets an account in the course and a set-password link (shown here
    once: no mail is sent); an existing account is invited, and joins when its holder
    accepts (``POST /me/invitations/{slug}``). One wrong row refuses the whole file."""
    with c.db.write() as s:
        try:
            done = co.import_roster(s, course_or_404(s, who, slug), who.user_id, body.csv)
        except AccountError as exc:
            raise _refuse(exc) from None
        return [ImportedOut(email=r.email, created=r.created, joined=r.joined, invited=r.invited,
                            link=_link(request, "set-password", r.link) if r.link else None) for r in done]


@router.delete("/courses/{slug}/members/{user_id}", status_code=204, responses=errors(400, 401, 403, 404, 422))
def remove(who: CurrentInstructor, c: ContextDep, slug: str = SLUG, user_id: int = Path(ge=1, le=DB_INT_MAX)):
    """The membership ends; the account and its submissions stay."""
    with c.db.write() as s:
        try:
            gone = co.remove_member(s, course_or_404(s, who, slug), user_id, who.user_id)
        except AccountError as exc:
            raise _refuse(exc) from None
    if not gone:
        raise HTTPException(404, "no such member")
    return Response(status_code=204)


@router.post("/courses/{slug}/members/{user_id}/reset-link", response_model=LinkOut,
             responses=errors(400, 401, 403, 404, 422))
def reset(request: Request, who: CurrentInstructor, c: ContextDep, slug: str = SLUG,
          user_id: int = Path(ge=1, le=DB_INT_MAX)):
    """A one-time link (a day) that sets a learner's password; earlier ones stop working.
    Refused (400, saying the rule) for an instructor's account and for an account that is
    also in a course you do not teach."""
    with c.db.write() as s:
        try:
            secret = co.reset_link(s, course_or_404(s, who, slug), who, user_id)
        except LookupError:
            raise HTTPException(404, "no such member") from None
        except AccountError as exc:
            raise _refuse(exc) from None
    return LinkOut(link=_link(request, "set-password", secret))


class PendingOut(BaseModel):
    course: str = Field(description="the course's short name")
    title: str
    role: Literal["learner", "instructor"]
    invited_at: str


@router.get("/me/invitations", response_model=list[PendingOut], responses=errors(401))
def my_invitations(who: CurrentUser, c: ContextDep):
    """The courses whose roster named your account, waiting for your answer."""
    with c.db.read() as s:
        return [PendingOut(**vars(p)) for p in co.pending(s, who.user_id)]


@router.post("/me/invitations/{slug}", response_model=CourseOut, responses=errors(401, 403, 404, 422))
def accept_invitation(who: CurrentUser, c: ContextDep, slug: str = SLUG):
    """Accept: your account joins the course in the role the roster gave it."""
    with c.db.write() as s:
        try:
            course = co.accept_roster(s, who, slug)
        except LookupError as exc:
            raise HTTPException(404, str(exc)) from None
        role = next(r.role for r in co.courses_of(s, who.user_id) if r.slug == course.slug)
        return CourseOut(slug=course.slug, title=course.title, role=role)


@router.delete("/me/invitations/{slug}", status_code=204, responses=errors(401, 403, 404, 422))
def decline_invitation(who: CurrentUser, c: ContextDep, slug: str = SLUG):
    """Decline: the course's instructors see nothing more of your account."""
    with c.db.write() as s:
        try:
            co.decline_roster(s, who, slug)
        except LookupError as exc:
            raise HTTPException(404, str(exc)) from None
    return Response(status_code=204)
