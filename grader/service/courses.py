"""Courses and who is in them: creating a course, invitations that sign people up to
one, the roster (CSV in and out, removal), and what an instructor may see: the rows of
the members of the courses they teach, and their own, never another course's.

An account's ``role`` says what it may do anywhere (an instructor creates courses and
opens the instructors' pages); a membership's role says what it is in one course. An
invitation's code is shown once, when it is made; only its SHA-256 is kept."""
from __future__ import annotations

import csv
import io
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import ColumnElement, delete, or_, select, update
from sqlalchemy.orm import Session

from .accounts import AccountError, Principal, add_user, digest, new_password_link, normalize_email
from .models import Course, Invitation, Membership, User, utcnow

SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}[a-z0-9]$")
DOMAIN_RE = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$")
INVITE_PREFIX = "jji_"
MAX_INVITE_DAYS = 365
ROSTER_MAX_ROWS = 2000


# ---------------------------------------------------------------- what an instructor sees

def taught_by(user_id: int):
    """SQL: the ids of the courses ``user_id`` teaches."""
    return select(Membership.course_id).where(Membership.user_id == user_id, Membership.role == "instructor")


def seen_by(who: Principal, user_col) -> ColumnElement[bool]:
    """SQL: whether the account in ``user_col`` is one ``who`` may read the work of: their
    own, and for an instructor every member of a course they teach."""
    if not who.instructor:
        return user_col == who.user_id
    members = select(Membership.user_id).where(Membership.course_id.in_(taught_by(who.user_id)))
    return or_(user_col == who.user_id, user_col.in_(members))


def may_see(session: Session, who: Principal, user_id: int) -> bool:
    if user_id == who.user_id:
        return True
    return who.instructor and session.scalar(select(User.id).where(User.id == user_id, seen_by(who, User.id))) \
        is not None


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
    if row is None or row[0].revoked_at is not None or row[0].expires_at <= utcnow():
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


def revoke_invitation(session: Session, course: Course, invitation_id: int) -> bool:
    return session.execute(update(Invitation).where(Invitation.id == invitation_id, Invitation.course_id == course.id,
                                                    Invitation.revoked_at.is_(None))
                           .values(revoked_at=utcnow())).rowcount == 1


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
    joined: bool  # False: a member already
    link: str | None  # the one-time set-password secret, for the instructor to hand out


def members(session: Session, course: Course) -> list[Member]:
    rows = session.execute(select(User.id, User.email, Membership.role, Membership.created_at, User.password_hash)
                           .join(Membership, Membership.user_id == User.id)
                           .where(Membership.course_id == course.id).order_by(Membership.role, User.email)).all()
    return [Member(uid, email, role, joined.isoformat(), pw is not None) for uid, email, role, joined, pw in rows]


def roster_csv(rows: list[Member]) -> str:
    from .gradebook import spreadsheet_safe

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["email", "role", "joined_at", "has_password"])
    for m in rows:
        w.writerow([spreadsheet_safe(m.email), m.role, m.joined_at, "yes" if m.has_password else "no"])
    return buf.getvalue()


def parse_roster(text: str) -> list[tuple[str, str]]:
    """(email, role) per row of a CSV with an ``email`` column (and optionally ``role``:
    learner, the default, or instructor); a wrong row is named by its line."""
    reader = csv.DictReader(io.StringIO(text))
    fields = [f.strip().lower() for f in reader.fieldnames or []]
    if "email" not in fields:
        raise AccountError("the roster is a CSV file whose first line names an 'email' column")
    reader.fieldnames = fields
    out: list[tuple[str, str]] = []
    for line, row in enumerate(reader, start=2):
        if len(out) >= ROSTER_MAX_ROWS:
            raise AccountError(f"a roster has at most {ROSTER_MAX_ROWS} rows; split it")
        email = (row.get("email") or "").strip()
        if not email:
            continue
        role = (row.get("role") or "learner").strip().lower() or "learner"
        if role not in ("learner", "instructor"):
            raise AccountError(f"line {line}: the role is learner or instructor, not {role!r}")
        try:
            out.append((normalize_email(email), role))
        except AccountError as exc:
            raise AccountError(f"line {line}: {exc}") from None
    return out


def import_roster(session: Session, course: Course, by: int, text: str) -> list[Imported]:
    """Every row joins the course; a new address gets an account without a password and
    a one-time link to set one (no mail server is assumed: the instructor hands it out)."""
    result = []
    for email, role in parse_roster(text):
        user = session.scalar(select(User).where(User.email == email))
        created = user is None
        if user is None:
            user = add_user(session, email, role, None, course=None)
        joined = join(session, course.id, user.id, role)
        if joined:
            _promote(session, user, role)
        link = new_password_link(session, user.id, "set", by) if created else None
        result.append(Imported(email, created, joined, link))
    return result


def remove_member(session: Session, course: Course, user_id: int, by: int) -> bool:
    """Ends a membership (the account and its submissions stay); an instructor cannot
    remove themself, so a course always keeps the one who acts on it."""
    if user_id == by:
        raise AccountError("you cannot remove yourself from a course you teach")
    return session.execute(delete(Membership).where(Membership.course_id == course.id,
                                                    Membership.user_id == user_id)).rowcount == 1


def reset_link(session: Session, course: Course, by: int, user_id: int) -> str:
    """A one-time reset link for a learner of ``course``; never for an instructor (whose
    account could then be taken over by a co-instructor)."""
    m = session.get(Membership, (course.id, user_id))
    user = session.get(User, user_id)
    if m is None or user is None:
        raise LookupError("no such member")
    if m.role != "learner" or user.role != "learner":
        raise AccountError("reset links are for learners; an instructor changes their own password")
    return new_password_link(session, user_id, "reset", by)
