"""The course trust model, in one place: what an instructor may see and do, and to whom.

An instructor is trusted with the courses they teach, not with the server. Every rule
below is one function; routes and pages ask these, never a query of their own.

- **Work.** Everyone sees their own submissions. An instructor also sees a Submit that
  counts for an assignment of a course they teach (``SubmissionCredit``), and the
  practice work (Runs, and Submits that count for no assignment) of the members of a
  course they teach. A Submit that counts only for another course's assignments stays
  with that course's instructors, in lists and the gradebook too.
- **Accounts.** An instructor acts on an account only through a course its holder joined
  (or that their roster created it in). Importing a roster that names an existing
  account *invites* it (``RosterInvitation``): it becomes a member when its holder
  accepts, and until then the instructor sees nothing of it.
- **Reset links.** Only for a learner account whose every membership is in a course the
  instructor teaches: an account that is also in someone else's course is that course's
  too, and a link would hand it over.

The table in the security page (``docs/pages/security.md``) states the same rules
actor by actor; ``tests/service/test_service_trust.py`` holds each row."""
from __future__ import annotations

from sqlalchemy import ColumnElement, Select, and_, exists, or_, select
from sqlalchemy.orm import Session

from .accounts import AccountError, Principal
from ..core.models import Assignment, Membership, Submission, SubmissionCredit, User


def taught_by(user_id: int) -> Select:
    """SQL: the ids of the courses ``user_id`` teaches."""
    return select(Membership.course_id).where(Membership.user_id == user_id, Membership.role == "instructor")


def members_of_taught(user_id: int) -> Select:
    """SQL: the ids of every member of a course ``user_id`` teaches."""
    return select(Membership.user_id).where(Membership.course_id.in_(taught_by(user_id)))


def account_seen_by(who: Principal, user_col) -> ColumnElement[bool]:
    """SQL: whether ``who`` may read the account in ``user_col`` (its email, its storage):
    their own, and for an instructor every member of a course they teach."""
    if not who.instructor:
        return user_col == who.user_id
    return or_(user_col == who.user_id, user_col.in_(members_of_taught(who.user_id)))


def submission_seen_by(who: Principal) -> ColumnElement[bool]:
    """SQL, over ``Submission``: whether ``who`` may read that submission (its row, its
    report, its source, its event stream) and act on it (rejudge)."""
    own = Submission.user_id == who.user_id
    if not who.instructor:
        return own
    mine = taught_by(who.user_id)
    credited = SubmissionCredit.submission_pk == Submission.pk
    for_my_course = exists().where(credited, SubmissionCredit.assignment_id.in_(
        select(Assignment.id).where(Assignment.course_id.in_(mine))))
    practice = and_(~exists().where(credited), Submission.user_id.in_(members_of_taught(who.user_id)))
    return or_(own, for_my_course, practice)


def check_reset(session: Session, who: Principal, user_id: int) -> None:
    """Raises ``AccountError`` (saying the rule) unless ``who`` may hand ``user_id`` a
    reset link: a learner account all of whose courses ``who`` teaches."""
    user = session.get(User, user_id)
    if user is None:
        raise LookupError("no such member")
    if user.role != "learner":
        raise AccountError("reset links are for learners; an instructor changes their own password")
    elsewhere = session.scalar(select(Membership.course_id).where(Membership.user_id == user_id,
                                                                  Membership.course_id.not_in(taught_by(who.user_id)))
                               .limit(1))
    if elsewhere is not None:
        raise AccountError("a reset link is only for an account whose every course is one you teach: this account "
                           "is also in a course you do not teach, so its holder changes the password on their "
                           "account page")
