"""Courses and who is in them: creating a course, invitations that sign people up to
one, the roster (CSV in and out, removal), and what an instructor may see: the rows of
the members of the courses they teach, and their own, never another course's.

An account's ``role`` says what it may do anywhere (an instructor creates courses and
opens the instructors' pages); a membership's role says what it is in one course. An
invitation's code is shown once, when it is made; only its SHA-256 is kept."""
from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from .accounts import AccountError, Principal, add_user, digest, new_password_link, normalize_email
from ..core.db import changed
from ..core.models import Course, Invitation, Membership, RosterInvitation, User, utcnow
from .trust import check_reset

SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}[a-z0-9]$")
DOMAIN_RE = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$")
INVITE_PREFIX = "jji_"
MAX_INVITE_DAYS = 365
ROSTER_MAX_ROWS = 2000


# ---------------------------------------------------------------- courses

@dataclass(frozen=True)
class CourseRole:
    slug: str
    title: str
    role: str  # the viewer's role in it


def check_slug(slug: str) -> str:
    slug = slug.strip().lower()
    if not SLUG_RE.match(slug):
        raise AccountError("a course's short name has 2 to 64 lowercase letters, digits and inner dashes")
    return slug


def create_course(session: Session, who: Principal, slug: str, title: str) -> Course:
    """A new course taught by ``who`` (an instructor)."""
    slug, title = check_slug(slug), title.strip()
    if not 1 <= len(title) <= 200:
        raise AccountError("a course's title has 1 to 200 characters")
    if session.scalar(select(Course.id).where(Course.slug == slug)) is not None:
        raise AccountError(f"a course {slug!r} exists already")
    course = Course(slug=slug, title=title, created_at=utcnow())
    session.add(course)
    session.flush()
    session.add(Membership(course_id=course.id, user_id=who.user_id, role="instructor", created_at=course.created_at))
    return course


def courses_of(session: Session, user_id: int) -> list[CourseRole]:
    rows = session.execute(select(Course.slug, Course.title, Membership.role)
                           .join(Membership, Membership.course_id == Course.id)
                           .where(Membership.user_id == user_id).order_by(Course.title, Course.slug)).all()
    return [CourseRole(*r) for r in rows]


def course_for(session: Session, who: Principal, slug: str, teach: bool) -> Course:
    """The course ``slug`` if ``who`` is a member (with ``teach``: one of its instructors);
    otherwise the same "no such course" whether it exists or not."""
    row = session.execute(select(Course, Membership.role).join(Membership, Membership.course_id == Course.id)
                          .where(Course.slug == slug, Membership.user_id == who.user_id)).first()
    if row is None or (teach and row[1] != "instructor"):
        raise LookupError("no such course")
    return row[0]


def join(session: Session, course_id: int, user_id: int, role: str) -> bool:
    """Adds the membership; False when the account was a member already (its role stays)."""
    if session.get(Membership, (course_id, user_id)) is not None:
        return False
    session.add(Membership(course_id=course_id, user_id=user_id, role=role, created_at=utcnow()))
    session.flush()
    return True


# ---------------------------------------------------------------- invitations

def new_invitation(session: Session, course: Course, by: int, role: str, days: float,
                   email_domain: str | None) -> tuple[Invitation, str]:
    if role not in ("learner", "instructor"):
        raise AccountError("an invitation's role is learner or instructor")
    if not 0 < days <= MAX_INVITE_DAYS:
        raise AccountError(f"an invitation lasts more than 0 and at most {MAX_INVITE_DAYS} days")
    domain = (email_domain or "").strip().lower().lstrip("@") or None
    if domain is not None and not DOMAIN_RE.match(domain):
        raise AccountError(f"{email_domain!r} is not an email domain (example.edu)")
    code = INVITE_PREFIX + secrets.token_urlsafe(18)
    now = utcnow()
    row = Invitation(course_id=course.id, code_hash=digest(code), role=role, email_domain=domain, created_by=by,
                     created_at=now, expires_at=now + timedelta(days=days), uses=0)
    session.add(row)
    session.flush()
    return row, code


def open_invitation(session: Session, code: str) -> tuple[Invitation, Course]:
    """The invitation behind ``code`` if it may still be used; one message for every other
    case (unknown, revoked, expired), so that a code cannot be probed for which it is."""
    row = session.execute(select(Invitation, Course).join(Course, Course.id == Invitation.course_id)
                          .where(Invitation.code_hash == digest(code.strip()))).first()
    if row is None or not usable(row[0], utcnow()):
        raise AccountError("this invitation is unknown, revoked or expired: ask your instructor for a new link")
    return row[0], row[1]


def _domain_ok(invite: Invitation, email: str) -> None:
    if invite.email_domain and email.rpartition("@")[2] != invite.email_domain:
        raise AccountError(f"this invitation is for addresses at {invite.email_domain}")


def _promote(session: Session, user: User, role: str) -> None:
    if role == "instructor" and user.role != "instructor":
        user.role = "instructor"  # a co-instructor of a course opens the instructors' pages


def sign_up(session: Session, code: str, email: str, password: str) -> tuple[User, Course]:
    """A new account from an invitation."""
    invite, course = open_invitation(session, code)
    email = normalize_email(email)
    _domain_ok(invite, email)
    user = add_user(session, email, invite.role, password, course=None)
    join(session, course.id, user.id, invite.role)
    session.execute(update(Invitation).where(Invitation.id == invite.id).values(uses=Invitation.uses + 1))
    return user, course


def accept(session: Session, code: str, who: Principal) -> Course:
    """An existing account (logged in) joins the invitation's course."""
    invite, course = open_invitation(session, code)
    user = session.get(User, who.user_id)
    assert user is not None
    _domain_ok(invite, user.email)
    if join(session, course.id, user.id, invite.role):
        _promote(session, user, invite.role)
        session.execute(update(Invitation).where(Invitation.id == invite.id).values(uses=Invitation.uses + 1))
    return course


def invitations(session: Session, course: Course) -> list[Invitation]:
    return list(session.scalars(select(Invitation).where(Invitation.course_id == course.id)
                                .order_by(Invitation.id.desc())))


def usable(invite: Invitation, now: datetime) -> bool:
    """Still signs people up: neither revoked nor expired."""
    return invite.revoked_at is None and invite.expires_at > now


def lasts_days(invite: Invitation) -> float:
    """How long ``invite`` was made to last, in days: what a new link like it lasts (its
    code cannot be shown again, only a hash is kept)."""
    days = (invite.expires_at - invite.created_at) / timedelta(days=1)
    return min(max(round(days, 2), 0.01), MAX_INVITE_DAYS)


def revoke_invitation(session: Session, course: Course, invitation_id: int) -> bool:
    return changed(session, update(Invitation).where(Invitation.id == invitation_id, Invitation.course_id == course.id,
                                                     Invitation.revoked_at.is_(None))
                   .values(revoked_at=utcnow())) == 1


# ---------------------------------------------------------------- the roster

@dataclass(frozen=True)
class Member:
    user_id: int
    email: str
    role: str
    joined_at: str
    has_password: bool


@dataclass(frozen=True)
class Imported:
    email: str
    created: bool  # a new account (then ``link`` sets its password)
    joined: bool  # False: a member already, or ``invited``
    invited: bool  # an existing account: it joins when its holder accepts
    link: str | None  # the one-time set-password secret, for the instructor to hand out


@dataclass(frozen=True)
class Pending:
    course: str  # the slug
    title: str
    role: str
    invited_at: str


def members(session: Session, course: Course) -> list[Member]:
    rows = session.execute(select(User.id, User.email, Membership.role, Membership.created_at, User.password_hash)
                           .join(Membership, Membership.user_id == User.id)
                           .where(Membership.course_id == course.id).order_by(Membership.role, User.email)).all()
    return [Member(uid, email, role, joined.isoformat(), pw is not None) for uid, email, role, joined, pw in rows]


def roster_csv(rows: list[Member]) -> str:
    from ..core.csv_io import write_csv

    return write_csv(["email", "role", "joined_at", "has_password"],
                     ([m.email, m.role, m.joined_at, "yes" if m.has_password else "no"] for m in rows))


def parse_roster(text: str) -> list[tuple[str, str]]:
    """(email, role) per row of a CSV with an ``email`` column (and optionally ``role``:
    learner, the default, or instructor); a wrong row is named by its line in the file.
    Any line ending is read; a text ``csv_io.read_csv`` cannot read (a field longer than
    its bound) is refused like a wrong row (the API refuses it earlier, as a 422)."""
    from ..core.csv_io import MalformedCsv, read_csv

    try:
        rows = read_csv(text)
    except MalformedCsv as exc:
        raise AccountError(str(exc)) from None
    fields = [f.strip().lower() for f in rows[0][1]] if rows else []
    if "email" not in fields:
        raise AccountError("the roster is a CSV file whose first line names an 'email' column")
    email_at, role_at = fields.index("email"), fields.index("role") if "role" in fields else None
    out: list[tuple[str, str]] = []
    for line, row in rows[1:]:
        if not row:
            continue
        if len(out) >= ROSTER_MAX_ROWS:
            raise AccountError(f"a roster has at most {ROSTER_MAX_ROWS} rows; split it")
        email = row[email_at].strip() if email_at < len(row) else ""
        if not email:
            continue
        role = (row[role_at] if role_at is not None and role_at < len(row) else "").strip().lower() or "learner"
        if role not in ("learner", "instructor"):
            raise AccountError(f"line {line}: the role is learner or instructor, not {role!r}")
        try:
            out.append((normalize_email(email), role))
        except AccountError as exc:
            raise AccountError(f"line {line}: {exc}") from None
    return out


def import_roster(session: Session, course: Course, by: int, text: str) -> list[Imported]:
    """A new address gets an account in the course, without a password, and a one-time
    link to set one (no mail server is assumed: the instructor hands it out). An existing
    account is only invited: it joins when its holder accepts (``accept_roster``), since
    an instructor acts on an account only through a course its holder joined."""
    result = []
    for email, role in parse_roster(text):
        user = session.scalar(select(User).where(User.email == email))
        if user is None:
            user = add_user(session, email, role, None, course=None)
            join(session, course.id, user.id, role)
            _promote(session, user, role)
            result.append(Imported(email, True, True, False, new_password_link(session, user.id, "set", by)))
            continue
        if session.get(Membership, (course.id, user.id)) is not None:
            result.append(Imported(email, False, False, False, None))
            continue
        offer = session.get(RosterInvitation, (course.id, user.id))
        if offer is None:
            session.add(RosterInvitation(course_id=course.id, user_id=user.id, role=role, created_by=by,
                                         created_at=utcnow()))
        else:
            offer.role, offer.created_by, offer.created_at = role, by, utcnow()
        session.flush()
        result.append(Imported(email, False, False, True, None))
    return result


def invited(session: Session, course: Course) -> list[tuple[str, str]]:
    """(email, role) of the accounts a roster import invited that have not answered yet:
    the addresses the instructors typed, nothing more."""
    return [(e, r) for e, r in session.execute(
        select(User.email, RosterInvitation.role).join(RosterInvitation, RosterInvitation.user_id == User.id)
        .where(RosterInvitation.course_id == course.id).order_by(User.email)).all()]


def pending(session: Session, user_id: int) -> list[Pending]:
    """The roster invitations waiting for ``user_id``'s answer."""
    rows = session.execute(select(Course.slug, Course.title, RosterInvitation.role, RosterInvitation.created_at)
                           .join(RosterInvitation, RosterInvitation.course_id == Course.id)
                           .where(RosterInvitation.user_id == user_id).order_by(Course.title)).all()
    return [Pending(slug, title, role, at.isoformat()) for slug, title, role, at in rows]


def _offer(session: Session, user_id: int, slug: str) -> tuple[RosterInvitation, Course]:
    row = session.execute(select(RosterInvitation, Course).join(Course, Course.id == RosterInvitation.course_id)
                          .where(Course.slug == slug, RosterInvitation.user_id == user_id)).first()
    if row is None:
        raise LookupError("no invitation to that course is waiting for you")
    return row[0], row[1]


def accept_roster(session: Session, who: Principal, slug: str) -> Course:
    """The holder accepts a roster invitation: now a member, in the role it offered."""
    offer, course = _offer(session, who.user_id, slug)
    user = session.get(User, who.user_id)
    assert user is not None
    if join(session, course.id, user.id, offer.role):
        _promote(session, user, offer.role)
    session.delete(offer)
    return course


def decline_roster(session: Session, who: Principal, slug: str) -> None:
    offer, _course = _offer(session, who.user_id, slug)
    session.delete(offer)


def remove_member(session: Session, course: Course, user_id: int, by: int) -> bool:
    """Ends a membership (the account and its submissions stay); an instructor cannot
    remove themself, so a course always keeps the one who acts on it."""
    if user_id == by:
        raise AccountError("you cannot remove yourself from a course you teach")
    return changed(session, delete(Membership).where(Membership.course_id == course.id,
                                                     Membership.user_id == user_id)) == 1


def reset_link(session: Session, course: Course, by: Principal, user_id: int) -> str:
    """A one-time reset link for a learner of ``course``, within the trust model's rule
    (``trust.check_reset``): never for an instructor, never for an account that is also
    in a course ``by`` does not teach."""
    if session.get(Membership, (course.id, user_id)) is None:
        raise LookupError("no such member")
    check_reset(session, by, user_id)
    return new_password_link(session, user_id, "reset", by.user_id)
