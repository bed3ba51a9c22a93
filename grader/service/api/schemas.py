"""Typed bodies of the API (they are also the OpenAPI document at ``/docs``)."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from ..core.csv_io import MalformedCsv, read_csv

PROBLEM_ID = r"^[a-z0-9][a-z0-9_]*$"
SUBMISSION_ID = r"^[A-Za-z0-9_-]{1,32}$"  # jobs.new_id: 22 URL-safe characters
DB_INT_MAX = 2**31 - 1  # integer keys are 32-bit on PostgreSQL
# The times the API takes, in UTC: far from both ends of Python's datetime (years 1 to
# 9999), so that no conversion to another zone and no sum the service makes with one
# overflows, and after the Unix epoch.
EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(9000, 1, 1, tzinfo=timezone.utc)  # excluded
TIME_RANGE = f"from {EARLIEST:%Y-%m-%dT%H:%M:%SZ} to before {LATEST:%Y-%m-%dT%H:%M:%SZ} in UTC"


def _in_range(t: datetime) -> datetime:
    try:
        utc = t.astimezone(timezone.utc)
    except OverflowError:
        utc = None  # before year 1 or after year 9999 in UTC
    if utc is None or not EARLIEST <= utc < LATEST:
        raise PydanticCustomError("datetime_range", "a time is " + TIME_RANGE)
    return utc


# Every date-time a request carries: with its zone, in range, then in UTC.
When = Annotated[AwareDatetime, AfterValidator(_in_range)]


def _readable_csv(text: str) -> str:
    try:
        read_csv(text)
    except MalformedCsv as exc:
        raise PydanticCustomError("csv_unreadable", str(exc)) from None
    return text


# A CSV file in a JSON body: one the service can read (see csv_io.read_csv), else a 422
# naming the line and the rule.
CsvText = Annotated[str, AfterValidator(_readable_csv)]


class Strict(BaseModel):
    """A request body: unknown fields refused, and NUL refused in every string (no
    database stores it in text)."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value):
        if isinstance(value, str) and "\x00" in value:
            raise ValueError("NUL characters are not allowed")
        return value


class ErrorOut(BaseModel):
    """Every error answer of the API."""

    detail: str


def errors(*codes: int) -> dict:
    """The OpenAPI ``responses`` of a route's error answers: each is an ``ErrorOut``."""
    return {code: {"model": ErrorOut} for code in codes}


class SubmissionIn(Strict):
    problem: str = Field(pattern=PROBLEM_ID, max_length=64)
    source: str = Field(description="the Python file, UTF-8; at most 64 KiB")
    kind: Literal["run", "submit", "custom"] = Field(
        description="run: the public cases; submit: every case; custom: your own `input`, beside the reference")
    input: dict[str, Any] | None = Field(
        None, description="custom only: the entry's arguments by name, as a case's `input` holds them (checked "
                          "against the problem's constraints: a 422 names every fault, \"; \" between them)")
    assignment: str | None = Field(
        None, pattern=r"^[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9-]*$", max_length=129,
        description="submit only: `course/assignment`, an assignment that must take this Submit (refused before "
                    "it opens and after it closes). With or without it, a Submit counts for every assignment of "
                    "your courses that includes the problem and takes a Submit now (late after its due time)")


class SourceOut(BaseModel):
    id: str
    problem: str
    kind: str
    source: str = Field(description="the code as it was sent")
    input: dict[str, Any] | None = Field(description="a custom run's input; null otherwise")


class SubmissionCreated(BaseModel):
    id: str
    status: str
    location: str


class QueueInfo(BaseModel):
    position: int | None = Field(description="1 = graded next; null unless queued")
    age_seconds: float = Field(description="since it was queued")


class CreditOut(BaseModel):
    """An assignment a Submit counts for."""

    course: str = Field(description="the course's slug")
    assignment: str = Field(description="the assignment's slug")
    title: str
    late: bool = Field(description="made after the learner's due time: its score is reduced by the late penalty")


class SubmissionOut(BaseModel):
    id: str
    problem: str
    kind: str
    status: Literal["queued", "running", "done"]
    verdict: str | None = Field(description="null until graded; a rejudge keeps the previous one until it ends")
    passed: int | None
    total: int | None
    attempts: int
    user: str | None = Field(None, description="the learner's email (instructors only)")
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    queue: QueueInfo | None
    problem_version: str | None
    judge_version: str | None
    report: dict[str, Any] | None = Field(description="learners: hidden cases reduced; instructors: in full")
    counts_for: list[CreditOut] = Field(default_factory=list,
                                        description="a Submit: every assignment it counts for, decided when it was "
                                                    "made (empty: practice)")


class SubmissionRow(BaseModel):
    id: str
    problem: str
    kind: str
    status: str
    verdict: str | None
    passed: int | None
    total: int | None
    user: str | None = None
    created_at: datetime


class LoginIn(Strict):
    email: str = Field(max_length=320)
    password: str = Field(max_length=1024)


class Me(BaseModel):
    email: str
    role: str
    csrf_token: str | None = Field(None, description="returned by login: echo it in X-CSRF-Token on writes")


class TokenIn(Strict):
    name: str = Field(min_length=1, max_length=100)


class TokenOut(BaseModel):
    id: int
    name: str
    created_at: datetime
    last_used_at: datetime | None
    revoked: bool
    token: str | None = Field(None, description="shown once, when created")


class Limits(BaseModel):
    time_seconds: float
    load_seconds: float
    memory_mb: int
    output_kb: int


class ProblemSummary(BaseModel):
    id: str
    title: str
    difficulty: str
    tags: list[str]
    public_cases: int
    hidden_cases: int


class Example(BaseModel):
    id: str
    input: Any
    expected: Any


class CountsFor(BaseModel):
    """An assignment a Submit made now would count for, with the caller's own window."""

    course: str = Field(description="the course's slug")
    assignment: str = Field(description="the assignment's slug")
    title: str
    due_at: datetime = Field(description="the caller's own (with an extension)")
    late: bool = Field(description="past the due time: a Submit now is late, its score reduced")


class ProblemDetail(ProblemSummary):
    statement: str = Field(description="Markdown, with the worked examples")
    entry: dict[str, Any]
    limits: Limits
    requirements: dict[str, Any]
    outputs: list[dict[str, Any]]
    examples: list[Example] = Field(description="the public cases; hidden cases never leave the server")
    problem_version: str
    counts_for: list[CountsFor] = Field(description="every assignment a Submit of yours made now counts for: of "
                                                    "a course you are a learner of, including the problem, open or "
                                                    "in its late window (empty: practice)")


SUITE_FIELD = ("the id of the drawn suite whose hidden cases grades use (grader serve --suite DIR); null: the "
               "shipped hidden cases")


class RejudgeOut(BaseModel):
    problem: str
    problem_version: str
    requeued: int
    suite: str | None = Field(description=SUITE_FIELD)


class QueueOut(BaseModel):
    depth: int
    running: int
    done: int
    queued_by_kind: dict[str, int]
    oldest_age_seconds: float | None
    workers: dict[str, int] = Field(
        description="alive: the workers that grade; busy: those grading plus the server's own work in progress; "
        "grading and own_work: the two apart")
    own_work: list[str] = Field(
        default_factory=list, description="what the server's own work (warming a problem's tables, drawing its "
        "hidden suite) is doing now; it yields to every grade: a grade never waits in line behind it")
    suite: str | None = Field(description=SUITE_FIELD)
    suite_failed: dict[str, str] = Field(
        default_factory=dict, description="problems whose hidden suite this server could not draw at its start "
        "(serve --suite), each with why: their Submits are IE until one is drawn (grader suite draw --suite DIR, "
        "which the next grade finds)")


class HealthOut(BaseModel):
    ok: bool
    database: bool
    workers: dict[str, int]
    engine: str
    sandbox: dict[str, Any] | None = Field(description="layers active in the latest grade (or the warm-up)")
    warming: dict[str, Literal["suite", "probe", "hint", "cache"]] = Field(
        default_factory=dict, description="problems not ready yet, most-submitted first, each with the phase it is "
        "in: its hidden suite being drawn (serve --suite; its Submits wait in line), its dependence probe table "
        "(a grade waits for it), its misconception hints (a grade may say a hint may follow), XLA's cache for eager "
        "code")
    ready: bool = Field(description="every hidden suite the server draws is drawn (or failed), every problem's "
                                    "probe table is built, and the misconception hints of the "
                                    "problems in use (those of assignments not yet closed; else every problem): no "
                                    "grade waits for a table, none of a problem in use says a hint may follow "
                                    "(/readyz answers "
                                    "200 only when this and ok are true)")
    version: str


class EditorialOut(BaseModel):
    problem: str
    title: str = Field(description="the problem's title")
    markdown: str | None = Field(description="editorial.md; null when the problem has none and shows the "
                                             "reference alone")
    html: str | None = Field(description="the Markdown as the problem page renders a statement (title line dropped)")
    reference: str | None = Field(description="reference.py, when problem.toml has [editorial] show_reference = true")
