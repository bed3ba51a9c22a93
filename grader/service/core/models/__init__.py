"""The schema, as SQLAlchemy 2 typed mappings, one module per area: ``base`` (what
every table shares), ``accounts``, ``queue`` (submissions, workers, rate buckets),
``courses`` (courses, invitations, assignments, credits) and ``lti``. The migrations
under ``migrations/`` create exactly this (a test compares them on SQLite and
PostgreSQL). Import tables from here: ``from .models import Submission``."""
from .accounts import ApiToken, PasswordLink, User, WebSession
from .base import DEFAULT_COURSE, KINDS, ROLES, STATUSES, Base, JsonDoc, UTCDateTime, utcnow
from .courses import (
    Assignment,
    AssignmentProblem,
    Course,
    Extension,
    Invitation,
    Membership,
    RosterInvitation,
    SubmissionCredit,
)
from .lti import LtiContext, LtiLink, LtiUser
from .queue import DETAIL_COLUMNS, REPORT_COLUMNS, RateBucket, Submission, Worker

__all__ = ["ApiToken", "Assignment", "AssignmentProblem", "Base", "Course", "DEFAULT_COURSE", "DETAIL_COLUMNS",
           "Extension", "Invitation", "JsonDoc", "KINDS", "LtiContext", "LtiLink", "LtiUser", "Membership",
           "PasswordLink", "REPORT_COLUMNS", "ROLES", "RateBucket", "RosterInvitation", "STATUSES", "Submission",
           "SubmissionCredit", "UTCDateTime", "User", "WebSession", "Worker", "utcnow"]
