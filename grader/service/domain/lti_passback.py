"""Scores back to the LMS (LTI Assignment and Grade Services): whenever a Submit that
counts for assignments is graded (a rejudge's regrade too), the learner's points on each
of them go to the line item of each LTI link they launched it from. A thread of its
own sends them, so that a slow or failing platform never holds a worker; a failure is
retried a few times, then recorded on the link (``sent_status``) for the instructor to
see, and the next grade sends the score again."""
from __future__ import annotations

import logging
import queue
import threading
import time

from sqlalchemy import select

from . import assignments as asg
from ..core.models import Assignment, LtiLink, Submission, SubmissionCredit, utcnow

log = logging.getLogger("grader.service.lti")
RETRIES = (1.0, 4.0, 15.0)  # seconds before each new try of a failed send
QUEUE_MAX = 10_000


class Passback:
    def __init__(self, db, tool_config, transport=None) -> None:
        from ..lti.ags import AgsClient

        self.db, self.client = db, AgsClient(tool_config, transport=transport)
        self.todo: queue.Queue[str | None] = queue.Queue(QUEUE_MAX)
        self.thread = threading.Thread(target=self._loop, name="lti-passback", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        try:
            self.todo.put_nowait(None)
        except queue.Full:
            pass
        self.thread.join(timeout=5)
        self.client.close()

    def notice(self, sub_id: str | None = None) -> None:
        """A submission changed status (workers' ``on_change``); cheap, never blocks."""
        if sub_id is not None:
            try:
                self.todo.put_nowait(sub_id)
            except queue.Full:
                log.warning("LTI passback queue full: the score of %s waits for the next grade", sub_id)

    def _loop(self) -> None:
        while (sub_id := self.todo.get()) is not None:
            try:
                self.send_for(sub_id)
            except Exception:  # one bad row must not end the passback of every other
                log.exception("LTI passback of %s failed", sub_id)

    def send_for(self, sub_id: str) -> int:
        """Send the scores a graded Submit changed, to every link of its learner and of an
        assignment it counts for; returns how many sends the platform accepted."""
        sends: list[tuple[LtiLink, Assignment, float, float]] = []
        with self.db.read() as s:
            sub = s.scalar(select(Submission).where(Submission.id == sub_id))
            if sub is None or sub.kind != "submit" or sub.status != "done":
                return 0
            links = s.scalars(select(LtiLink).join(SubmissionCredit,
                                                   SubmissionCredit.assignment_id == LtiLink.assignment_id)
                              .where(SubmissionCredit.submission_pk == sub.pk, LtiLink.user_id == sub.user_id)
                              .order_by(LtiLink.id)).all()
            for aid in sorted({link.assignment_id for link in links}):
                a = s.get(Assignment, aid)
                assert a is not None
                problems, rows = asg.scores(s, a)
                mine = next((r for r in rows if r.user_id == sub.user_id), None)
                possible = sum(p.weight for p in problems)
                points = mine.points if mine is not None else 0.0
                sends += [(link, a, points, possible) for link in links if link.assignment_id == aid]
        return sum(self._send(link, a, points, possible) for link, a, points, possible in sends)

    def _send(self, link: LtiLink, a: Assignment, points: float, possible: float) -> bool:
        from ..lti.ags import LineItemSpec, Score
        from ..lti.claims import AgsEndpoint

        endpoint = AgsEndpoint(scope=tuple(link.scope.split()), lineitems=link.lineitems, lineitem=link.lineitem)
        spec = LineItemSpec(label=a.title, score_maximum=possible, resource_link_id=link.resource_link_id,
                            resource_id=f"assignment:{a.id}")
        score = Score(user_id=link.subject, score_given=points, score_maximum=possible, timestamp=utcnow())
        result = None
        for wait in (0.0, *RETRIES):
            time.sleep(wait)
            result = self.client.send_score(link.issuer, link.client_id, endpoint, score, spec)
            if result.ok or (result.status is not None and 400 <= result.status < 500 and result.status != 429):
                break  # accepted, or refused for a reason another try will not change
        assert result is not None
        with self.db.write() as s:
            row = s.get(LtiLink, link.id)
            if row is not None:
                row.sent_at, row.sent_status = utcnow(), ("ok" if result.ok else result.message[:300])
                if result.ok and result.lineitem and not row.lineitem:
                    row.lineitem = result.lineitem  # found or created: the next send goes straight there
        if not result.ok:
            log.warning("LTI score of %s on %s not accepted: %s", link.subject, a.slug, result.message)
        return result.ok
