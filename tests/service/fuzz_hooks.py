"""Schemathesis hooks of test_service_fuzz.py (its run loads them with SCHEMATHESIS_HOOKS):
date-times at the edges of what Python and the service take, in zones up to 14 hours
from UTC; roster CSV bodies that are large or oddly delimited; and the course and assignment the
run's accounts belong to in place of generated ones, so that bodies reach the code
behind the 404 of an unknown course."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import schemathesis
from hypothesis import strategies as st

COURSE, ASSIGNMENT = "fuzz", "week"  # made by test_service_fuzz.py's env
CSV_FIELD_LIMIT = 131_072  # the csv module's default field_size_limit

_ZONES = st.one_of(st.sampled_from([-14 * 60, -60, 0, 60, 14 * 60]), st.integers(-14 * 60, 14 * 60)).map(
    lambda minutes: timezone(timedelta(minutes=minutes)))
_EAST, _WEST = (st.integers(1, 14 * 60).map(lambda m, sign=sign: timezone(timedelta(minutes=sign * m)))
                for sign in (1, -1))
# Python's first and last instants, in a zone that puts them beyond its range in UTC; the
# ends of the range the API takes and of the Unix epoch, in any zone.
_EDGES = st.one_of(
    st.builds(lambda zone, minutes: datetime(1, 1, 1, tzinfo=zone) + timedelta(minutes=minutes), _EAST,
              st.integers(0, 14 * 60)),
    st.builds(lambda zone, minutes: datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=zone)
              - timedelta(minutes=minutes), _WEST, st.integers(0, 14 * 60)),
    st.builds(lambda t, zone: t.replace(tzinfo=zone),
              st.sampled_from([datetime(1969, 12, 31, 23, 59, 59), datetime(1970, 1, 1),
                               datetime(8999, 12, 31, 23, 59, 59, 999999), datetime(9000, 1, 1)]), _ZONES),
)
DATE_TIMES = st.one_of(
    _EDGES,
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59), timezones=_ZONES),
).map(datetime.isoformat)

_EMAILS = st.lists(st.integers(0, 10**6).map(lambda i: f"fuzz{i}@example.org"), max_size=4)
_NEWLINES = st.sampled_from(["\n", "\r", "\r\n", "\n\r", "\r\r\n"])
CSV_BODIES = st.one_of(
    # a field about the size where the csv module stops, or as large as the body allows
    st.sampled_from([CSV_FIELD_LIMIT - 1, CSV_FIELD_LIMIT, CSV_FIELD_LIMIT + 1, 200_000, 262_000]).map(
        lambda n: "email,note\nfuzz@example.org," + "x" * n + "\n"),
    st.tuples(_EMAILS, _NEWLINES).map(lambda x: x[1].join(["email,role", *x[0]]) + x[1]),
    st.tuples(_EMAILS, _NEWLINES, st.sampled_from([";", "\t", "|"])).map(
        lambda x: x[1].join([f"email{x[2]}role", *(f"{e}{x[2]}learner" for e in x[0])])),
    st.tuples(_EMAILS, _NEWLINES).map(lambda x: "\ufeffemail" + x[1] + x[1].join(f'"{e}\r\n"' for e in x[0])),
    st.text(st.sampled_from(list(',;\t"\r\n \ufeff\x0b\x0c\x1c\x85\u2028email@x.org')), max_size=300),
)

schemathesis.openapi.format("date-time", DATE_TIMES)


@schemathesis.hook
def flatmap_path_parameters(ctx, path_parameters):
    if not isinstance(path_parameters, dict):
        return st.just(path_parameters)
    # The coverage phase, which these hooks do not reach, sends generated names.
    ours = dict(path_parameters)
    if "slug" in ours:
        ours["slug"] = COURSE
    if "assignment" in ours:
        ours["assignment"] = ASSIGNMENT
    return st.just(ours)


@schemathesis.hook
def flatmap_body(ctx, body):
    if ctx.operation is None or not ctx.operation.path.endswith("/roster") or not isinstance(body, dict):
        return st.just(body)
    return CSV_BODIES.map(lambda text: {**body, "csv": text})
