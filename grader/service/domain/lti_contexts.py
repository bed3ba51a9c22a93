"""Which LMS course reaches which judge course: an LMS course (a launch's issuer,
deployment and context) is bound to at most one judge course (``LtiContext``), and a
launch naming ``course/assignment`` opens it only from an LMS course bound to that
course. A link's custom parameter is the LMS course's to edit (any teacher there may),
so it is trusted no further than the binding. Who may bind is the service's LTI side
(``api/lti.py``: by placing an assignment; ``api/lti_contexts.py``: explicitly)."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from . import courses as co
from ..core.models import Course, LtiContext, utcnow

UNBOUND_ADVICE = ("An LMS course reaches a judge course only once an instructor of that judge course has linked "
                  "the two: from this LMS course, they add the judge with the LMS's activity or content picker "
                  "(LTI deep linking) and place one of its assignments there, or link the LMS course on the "
                  "judge's picker page. Tell your LMS administrator that this link's custom parameter "
                  "jaxjudge_item names a judge course this LMS course is not linked to: the link was copied "
                  "from another course or edited by hand, and should be placed again through the picker.")


@dataclass(frozen=True)
class Binding:
    """The judge course an LMS context is bound to."""

    id: int
    course_id: int
    slug: str
    title: str


@dataclass(frozen=True)
class Picker:
    """What the deep-linking picker shows: the LMS course, the judge course it is bound to
    (None: unbound), the items it may place, and the courses its viewer could bind it to."""

    context: str | None  # the LMS course's label and title; None when the launch names no context
    bound: Binding | None
    items: list
    bindable: list[co.CourseRole]


def context_title(launch) -> str | None:
    if launch.context is None:
        return None
    parts = [p for p in (launch.context.label, launch.context.title) if p]
    return (" · ".join(parts) or launch.context.id)[:255]


def binding(s, launch) -> Binding | None:
    """The judge course bound to the launch's (issuer, deployment, context), if any."""
    if launch.context is None:
        return None
    row = s.execute(select(LtiContext.id, Course.id, Course.slug, Course.title)
                    .join(Course, Course.id == LtiContext.course_id)
                    .where(LtiContext.issuer == launch.issuer, LtiContext.deployment_id == launch.deployment_id,
                           LtiContext.context_id == launch.context.id)).first()
    return Binding(*row) if row is not None else None


def bind(s, launch, course: Course, by: int) -> LtiContext:
    row = LtiContext(issuer=launch.issuer, deployment_id=launch.deployment_id, context_id=launch.context.id,
                     course_id=course.id, title=context_title(launch), bound_by=by, created_at=utcnow())
    s.add(row)
    s.flush()
    return row
