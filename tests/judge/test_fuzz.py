"""Fuzzing the judge's doors with hypothesis: random and adversarial sources through
the parser, the policy and the static checks (and a few through a whole grade), and
random result frames through the decoder and the result reader. Whatever comes in,
an answer comes out (a report, a ParsedSubmission, a clean WireError), within a time and
a memory bound. Each test stops after a fixed number of examples."""
from __future__ import annotations

import io
import json
import time
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support import grade_source

# Slow: fuzzing (hypothesis), some examples through a whole grade.
pytestmark = pytest.mark.slow

P1 = "per_example_grad_clipping"
MEMORY = 64 << 20  # bytes a single example may allocate in the judge
SECONDS = 5.0

ENTRY = "def per_example_grad_clip(params, x, y, max_norm):\n    return {}\n"
FRAGMENTS = [
    "import jax\n", "import jax.numpy as jnp\n", "import os\n", "from jax import config\n", "x = (" * 60,
    "x = " + "+".join(["1"] * 4000) + "\n", "x = " + "-" * 20000 + "1\n", "\x00", "\ud800", "\x1b[2J", "'''",
    "def f(:\n", "class A:\n    pass\n", "lambda: (yield)\n", "__import__('os')\n", "getattr(jax, '__dict__')\n",
    "async def g():\n    await g()\n", "try:\n    pass\nexcept* E:\n    pass\n", "x = [" * 150 + "]" * 150 + "\n",
    " " * 200 + "x = 1\n", "if True:\n" + "".join(" " * i + "if x:\n" for i in range(1, 120)) + " " * 120 + "pass\n",
    "@jax.jit\n", "print(" * 30 + ")" * 30 + "\n", ENTRY, "jax.vmap(jax.grad(lambda p: p))\n",
]
sources = st.one_of(
    st.text(max_size=2000),
    st.lists(st.sampled_from(FRAGMENTS), max_size=6).map("".join),
    st.tuples(st.lists(st.sampled_from(FRAGMENTS), max_size=4).map("".join), st.text(max_size=200))
      .map(lambda t: t[0] + t[1] + "\n" + ENTRY),
)


def bounded(fn):
    """Run ``fn`` and check the time and memory it took."""
    tracemalloc.start()
    start = time.monotonic()
    try:
        out = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - start < SECONDS and peak < MEMORY, (time.monotonic() - start, peak)
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sources)
def test_any_source_gets_through_parsing_and_static_checks(problem1, source):
    from grader.judge.static_checks import static_stage
    from grader.judge.submission import parse_source

    sub = bounded(lambda: parse_source(source, "<fuzz>"))
    checks = bounded(lambda: static_stage(sub, problem1))
    assert checks and all(isinstance(c.passed, bool) and isinstance(c.message, str) for c in checks)
    assert (sub.tree is None) == (checks[0].name == "syntax" and not checks[0].passed)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=4).map("".join).map(lambda s: s + "\n" + ENTRY))
def test_any_source_gets_a_report(problem1, pool, source):
    sandbox = pool.take()
    try:
        report = grade_source(problem1, source, sandbox, problem1.public_cases()).report
    finally:
        pool.give(sandbox)
    assert report.verdict in ("AC", "WA", "RE", "TLE", "MLE", "OLE", "CE", "RJ")
    json.dumps(report.to_json(), allow_nan=False)


def _node(draw_depth: int = 0):
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20))
    leaf = st.fixed_dictionaries({
        "t": st.sampled_from(["array", "none", "other", "dict", "list", "tuple", "bogus"]),
        "cls": st.sampled_from(["jax", "numpy", "float", "int", "bool", "npscalar", "evil"]),
        "dtype": st.sampled_from(["float32", "float64", "bfloat16", "int32", "bool", "object", "complex64", "V8"]),
        "shape": st.lists(st.integers(min_value=-2, max_value=2 ** 31), max_size=9),
        "off": st.integers(min_value=-5, max_value=200), "n": st.integers(min_value=-5, max_value=200),
        "type": scalars,
    })
    return st.recursive(leaf, lambda kids: st.one_of(
        st.fixed_dictionaries({"t": st.just("dict"), "items": st.lists(st.tuples(st.text(max_size=300), kids)
                                                                          .map(list), max_size=4)}),
        st.fixed_dictionaries({"t": st.sampled_from(["list", "tuple"]), "items": st.lists(kids, max_size=4)}),
        st.fixed_dictionaries({"t": st.just("dict"), "items": scalars}),
    ), max_leaves=20)


@settings(max_examples=400, deadline=None)
@given(_node(), st.binary(max_size=256))
def test_any_result_tree_decodes_or_is_refused(node, blob):
    from grader.sandbox import wire

    def decode():
        try:
            tree = wire.decode_tree(node, blob)
        except wire.WireError:
            return None
        json.dumps(wire.to_plain(tree), allow_nan=False)
        return tree

    bounded(decode)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["case", "status", "time_ms", "error", "stdout", "cost", "output", "args",
                                        "perturbation"]),
                       st.one_of(st.none(), st.integers(), st.floats(), st.text(max_size=50),
                                 st.sampled_from(["ok", "error", "mle", "ole"]),
                                 st.dictionaries(st.text(max_size=5), st.integers(), max_size=3), _node())),
       st.binary(max_size=128))
def test_any_case_frame_is_decoded_or_refused_cleanly(header, blob):
    from grader.sandbox import wire
    from grader.sandbox.messages import CaseDone

    try:
        message = bounded(lambda: CaseDone.decode({**header, "type": "case"}, blob))
    except wire.WireError:
        return
    assert type(message.case) is str and message.outcome.status in ("ok", "error", "mle", "ole", "bad_output")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64), st.binary(max_size=300))
def test_any_byte_stream_is_a_frame_or_a_clean_error(head, body):
    from grader.sandbox import wire

    stream = io.BytesIO(head + body)
    try:
        header, data = bounded(lambda: wire.read_frame(stream, 1 << 16))
        assert isinstance(header, dict) and isinstance(data, bytes)
    except (wire.WireError, EOFError):
        pass


def test_a_frame_claiming_a_huge_body_is_refused_before_it_is_read():
    from grader.sandbox import wire

    stream = io.BytesIO(wire.HEAD.pack(wire.MAGIC, 2, 1 << 40) + b"{}")
    try:
        bounded(lambda: wire.read_frame(stream, 1 << 20))
    except wire.TooLarge:
        return
    raise AssertionError("a frame over the cap was read")


def test_an_array_with_a_mismatched_size_is_refused():
    from grader.sandbox import wire

    packer = wire.Packer(1 << 10)
    node = packer.encode(np.zeros(4, np.float32))
    node["shape"] = [8]
    try:
        wire.decode_tree(node, packer.blob())
    except wire.WireError:
        return
    raise AssertionError("decoded an array whose bytes do not match its shape")
