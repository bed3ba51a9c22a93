"""The web pages of ``grader serve``: server-rendered Jinja2 pages for learners and
instructors, htmx for the live parts and CodeMirror 5 as the editor, both vendored
under ``static/vendor`` (no build step, no CDN: the pages work offline).

The pages read the database with the viewer's own rights (a learner's own
submissions, reports with hidden cases reduced). Every write (log in, Run, Submit,
rejudge, log out) is a request of the page's script to the JSON API, so the API's
checks (CSRF token, rate limits, sizes, roles) are the only ones there are, and the
pages cannot weaken them."""
from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"


def mount(app, *, api_prefix: str, session_cookie: str, csrf_cookie: str) -> None:
    """Add the pages and ``/static`` to ``app`` (the FastAPI application of ``create_app``)."""
    from fastapi.staticfiles import StaticFiles

    from . import assignments, courses, editorial, history, insight, instructor, learner, lti_pages
    from .pages import PageError, WebConfig, error_page

    app.state.web = WebConfig(api_prefix, session_cookie, csrf_cookie)
    app.add_exception_handler(PageError, error_page)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for module in (learner, history, instructor, editorial, courses, assignments, insight, lti_pages):
        app.include_router(module.router)
