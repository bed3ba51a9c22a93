"""The decode table: every frame the judge reads becomes a typed message or is refused,
a frame over its kind's cap before its blob is read, a kind the table lacks, and a
record of the wrong shape at the boundary, never further in."""
import io
import json

import numpy as np
import pytest

from grader.sandbox import frames, wire
from grader.sandbox.messages import (
    MAX_NEST_DEPTH,
    MAX_NESTS,
    Begin,
    CaseDone,
    Done,
    Hello,
    JitReport,
    Load,
    ProbeDone,
    ProgramSize,
    RuntimeRecord,
    Sizes,
)
from grader.sandbox.outcome import Cost, ErrorInfo, ChildOutcome, ProgramOps

OUTPUT_BYTES = 4096
TABLES = [("startup", frames.STARTUP), ("run", frames.RUN)]


def _raw(header: dict | str, blob: bytes = b"") -> bytes:
    head = (header if isinstance(header, str) else json.dumps(header)).encode()
    return wire.HEAD.pack(wire.MAGIC, len(head), len(blob)) + head + blob


def _read(data: bytes, table=frames.RUN):
    return frames.read_message(io.BytesIO(data), table, OUTPUT_BYTES)


def _caps():
    for name, table in TABLES:
        for kind, spec in table.items():
            cap = frames.output_cap(OUTPUT_BYTES) if spec.cap is None else spec.cap
            yield pytest.param(table, kind, cap, id=f"{name}-{kind}")


@pytest.mark.parametrize("table, kind, cap", _caps())
def test_a_frame_over_its_kinds_cap_is_refused_before_its_blob_is_read(table, kind, cap):
    head = json.dumps({"type": kind}).encode()
    announced = wire.HEAD.pack(wire.MAGIC, len(head), cap + 1 - len(head)) + head  # the blob never follows
    with pytest.raises(wire.TooLarge):
        frames.read_message(io.BytesIO(announced), table, OUTPUT_BYTES)
    at_cap = wire.HEAD.pack(wire.MAGIC, len(head), cap - len(head)) + head + bytes(cap - len(head))
    with pytest.raises(wire.WireError) as refused:  # a bare header is no message, but its size is fine
        frames.read_message(io.BytesIO(at_cap), table, OUTPUT_BYTES)
    assert not isinstance(refused.value, wire.TooLarge)


def test_the_named_caps_are_those_the_table_uses():
    assert frames.RUN["begin"].cap == frames.RUN["done"].cap == frames.RUN["exit"].cap == frames.SMALL_CAP
    assert frames.RUN["hello"].cap == frames.HELLO_CAP and frames.RUN["sizes"].cap == frames.SIZES_CAP
    assert frames.RUN["runtime"].cap == frames.RUNTIME_CAP and frames.STARTUP["ready"].cap == frames.SMALL_CAP
    # What carries a run's output and prints is held to the zygote's own cap, no tighter.
    assert all(frames.RUN[k].cap is None for k in ("load", "case", "probe"))
    assert frames.output_cap(OUTPUT_BYTES) == OUTPUT_BYTES + frames.HEADROOM


@pytest.mark.parametrize("header, table", [
    ({"type": "flood"}, frames.RUN),
    ({"type": ["case"]}, frames.RUN),
    ({"type": None}, frames.RUN),
    ({"phase": "load"}, frames.RUN),
    ({"type": "ready", "pid": 5}, frames.RUN),  # the zygote's start-up frame, mid-run
    ({"type": "exit", "killed": None, "phase": "done", "code": 0, "signal": None, "wall_s": 0.1}, frames.STARTUP),
    ({"type": "run"}, frames.RUN),  # the judge's own job, echoed back
])
def test_an_unknown_kind_is_refused(header, table):
    with pytest.raises(frames.UnknownKind):
        _read(_raw(header), table)


def test_only_the_kinds_a_child_sends_are_relayed_by_the_zygote():
    assert frames.CHILD_KINDS == frozenset(frames.RUN) - {"exit"}


def _runtime(**change) -> dict:
    header = {"type": "runtime", "calls": {"jax.grad": [3, 7], "jax.vmap": []},
              "nests": [["jax.vmap", "jax.grad"]], "overflow": False, "jit": {"mode": "jit", "broke": None}}
    return {**header, **change}


def _case(**change) -> dict:
    return {"type": "case", "case": "a", "status": "error", "time_ms": 1.5, "stdout": "",
            "error": {"type": "ValueError", "message": "no", "line": 4}, **change}


@pytest.mark.parametrize("header", [
    _runtime(nests=["jax.vmap"]),  # a nesting that is not a list
    _runtime(nests=[["jax.vmap", 3]]),
    _runtime(nests=[["jax.vmap"]] * (MAX_NESTS + 1)),
    _runtime(nests=[["jax.vmap"] * (MAX_NEST_DEPTH + 1)]),
    _runtime(calls={"jax.grad": ["3"]}),
    _runtime(calls={"jax.grad": [True]}),
    _runtime(calls={"jax.grad": 3}),
    _runtime(calls=[["jax.grad", [3]]]),
    _runtime(overflow="yes"),
    _runtime(overflow=None),
    _runtime(jit={"mode": "fast"}),
    _runtime(jit={"mode": "jit", "broke": None, "extra": 1}),
    _runtime(jit=None),
    _runtime(extra=True),  # an unknown field
    {k: v for k, v in _runtime().items() if k != "nests"},
    _case(status="crash"),  # a status only the judge may give
    _case(status=None),
    _case(time_ms="1.5"),
    _case(error={"type": "ValueError"}),
    _case(error={"type": "ValueError", "message": 3, "line": None}),
    _case(error={"type": "ValueError", "message": "no", "line": 1.5}),
    _case(cost={"compile_ms": 1.0}),
    _case(program={"ops": -1, "how": "traced"}),
    _case(program={"ops": 3, "how": "guessed"}),
    _case(case=7),
    _case(output={"t": "none"}),  # trees travel only with an ok outcome
    {"type": "begin", "phase": "teardown"},
    {"type": "begin", "phase": "case"},  # which case?
    {"type": "hello", "layers": ["fds", 3], "unavailable": {}},
    {"type": "hello", "layers": ["fds"] * 21, "unavailable": {}},
    {"type": "hello", "layers": [], "unavailable": {"seccomp": None}},
    {"type": "sizes", "sizes": [{"size": 2, "ops": 5, "how": "traced"}] * 5},
    {"type": "sizes", "sizes": [{"size": "2", "ops": 5, "how": "traced"}]},
    {"type": "probe", "case": "a", "perturbation": -1, "status": "error", "stdout": ""},
    {"type": "load", "status": "ok", "stdout": 3},
    {"type": "done", "extra": 1},
    {"type": "exit", "killed": "bored", "phase": "done", "code": 0, "signal": None, "wall_s": 0.1},
    {"type": "exit", "killed": None, "phase": "done", "code": 0, "signal": None},
])
def test_a_malformed_record_is_refused_at_the_boundary(header):
    with pytest.raises(wire.WireError):
        _read(_raw(header))


@pytest.mark.parametrize("text", [
    '{"type":"case","case":"a","status":"error","time_ms":NaN}',
    '{"type":"case","case":"a","status":"error","time_ms":Infinity}',
    '{"type":"runtime","calls":{},"nests":[],"overflow":false,"jit":{"mode":"jit"},"x":' + "1" * 5000 + "}",
    '{"type":"done"}' + "x",
])
def test_numbers_json_allows_but_the_protocol_does_not_are_refused(text):
    with pytest.raises(wire.WireError):
        _read(_raw(text))


def test_a_frame_without_trees_carries_no_blob():
    with pytest.raises(wire.WireError):
        _read(_raw({"type": "done"}, b"x"))
    with pytest.raises(wire.WireError):
        _read(_raw(_case(), b"x"))


def test_text_a_submission_controls_is_cut_to_its_cap_not_refused():
    message = _read(_raw(_case(stdout="p" * 50_000, error={"type": "E" * 500, "message": "m" * 5000, "line": None})))
    assert len(message.outcome.stdout) == 20_000 and len(message.outcome.error.message) == 2000
    assert message.outcome.error.type == "E" * 100


def test_an_output_the_judge_cannot_decode_is_the_cases_bad_output():
    node = {"t": "array", "cls": "jax", "dtype": "object", "shape": [1], "off": 0, "n": 8}
    message = _read(_raw(_case(status="ok", error=None, output=node, args={"t": "none"}), bytes(8)))
    assert message.outcome.status == "bad_output" and message.output is None and message.args is None
    assert message.outcome.error.type == "WireError"


def _through(message, blob: bytes = b""):
    return _read(_raw(message.to_header(), blob))


def test_every_message_the_child_builds_reads_back_as_itself():
    outcome = ChildOutcome("error", 2.5, "printed", ErrorInfo("ValueError", "no", 3), ProgramOps(40, "traced"),
                      Cost(1.0, 2.0))
    record = RuntimeRecord({"jax.grad": (3,), "jax.vmap": ()}, (("jax.vmap", "jax.grad"),), True,
                           JitReport("eager", "it branched"))
    for message in [Hello(("fds", "netns"), {"seccomp": "not here"}), Begin("load"), Begin("case", "x1"),
                    Load(ChildOutcome("no_entry", stdout="hi")), Load(ChildOutcome("error", error=ErrorInfo("E", "m"))),
                    Sizes((ProgramSize(2, 30, "traced"), ProgramSize(16, None, "eager", "TypeError"))),
                    CaseDone("x1", outcome), ProbeDone("x1", 3, ChildOutcome("mle", 1.0)), record, Done()]:
        assert _through(message) == message, message


def test_a_case_that_ran_clean_brings_its_trees_back():
    packer = wire.Packer(1 << 20)
    header = CaseDone("x1", ChildOutcome("ok", 1.0, "")).to_header()
    header["output"], header["args"] = packer.encode({"y": np.arange(3.0)}), packer.encode({"x": [1, 2]})
    message = _read(_raw(header, packer.blob()))
    assert message.outcome.status == "ok" and list(message.output["y"].array) == [0.0, 1.0, 2.0]
    assert [leaf.array.item() for leaf in message.args["x"]] == [1, 2]


def test_the_zygotes_exit_keeps_its_keys_in_order():
    exit_ = frames.Exit("ole", "case", None, 9, 1024, 0.5, 1.25)
    assert list(exit_.to_header()) == ["type", "killed", "phase", "code", "signal", "maxrss_kb", "cpu_s", "wall_s"]
    assert _read(_raw(exit_.to_header())) == exit_
    reaped_later = frames.Exit(None, "done", 0, None, wall_s=0.5)
    assert list(reaped_later.to_header()) == ["type", "killed", "phase", "code", "signal", "wall_s"]


def test_the_host_records_a_child_that_stopped_without_saying_done():
    """Every case ran clean, the child exited 0, and yet no ``done``: the evidence after the
    cases is missing for no reason given, which is never a pass."""
    from grader.sandbox.host import _Collector
    from grader.sandbox.request import CaseRun, RunResult

    frames_sent = [Hello(("fds",), {}), Begin("load"), Load(ChildOutcome("ok")), Begin("case", "a")]
    stream = b"".join(_raw(m.to_header()) for m in frames_sent)
    header = CaseDone("a", ChildOutcome("ok", 1.0)).to_header()
    packer = wire.Packer(1 << 10)
    header["output"], header["args"] = packer.encode(1.0), packer.encode({})
    stream += _raw(header, packer.blob())
    exit_ = _raw(frames.Exit(None, "case", 0, None, 10, 0.1, 0.2).to_header())
    for tail, said_done in ((exit_, False), (_raw(Done().to_header()) + exit_, True)):
        result = RunResult(cases={"a": CaseRun("a")})
        _Collector(result).collect(io.BytesIO(stream + tail), OUTPUT_BYTES)
        assert result.cases["a"].status == "ok" and result.complete is said_done
        assert result.phase_failures == ({} if said_done else {"child": "crash"})
