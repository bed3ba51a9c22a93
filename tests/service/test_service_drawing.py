"""Drawing at the server's start (``service/queue/drawing.py``) fails closed: a problem
whose every draw the strength gate refuses is no longer waited for, has no suite (so its
grades are IE, never graded with other hidden cases), and the log names each refused
draw's reason."""
from __future__ import annotations

import logging
import threading

import pytest

from support import stripped_copy

PID = "value_and_grad_loss"


def test_a_problem_whose_every_draw_is_refused_is_not_waited_for_and_its_grades_find_no_suite(tmp_path, monkeypatch,
                                                                                              caplog):
    from grader.authoring import suites
    from grader.authoring.context import Finding
    from grader.problem import ProblemError, find_problem
    from grader.problem.catalogue import PROBLEMS_ENV, use_suite
    from grader.service.queue.drawing import Drawing

    stripped_copy(tmp_path / "problems", PID)  # no shipped kills: the gate is the corpus, refused below
    monkeypatch.setenv(PROBLEMS_ENV, str(tmp_path / "problems"))
    monkeypatch.setattr(suites, "MAX_ATTEMPTS", 2)
    monkeypatch.setattr(suites, "check_submissions",
                        lambda ctx: [Finding("submission verdicts", "fail", "wrong.py: expected WA, got AC")])
    drawing = Drawing(tmp_path / "suite", [PID])
    assert drawing.pending() == [PID] and not drawing.ready()
    with caplog.at_level(logging.WARNING, logger="grader.service"):
        drawing.run(threading.Event())
    assert drawing.ready() and drawing.pending() == []
    assert drawing.failed[PID].count("expected WA, got AC") == 2
    logged = caplog.text
    assert f"{PID}: draw 0: the corpus does not get its verdicts: wrong.py" in logged
    assert f"{PID}: draw 1: the corpus" in logged and "its grades are IE" in logged
    assert drawing.secret.value.hex() not in logged
    use_suite(tmp_path / "suite")
    try:
        with pytest.raises(ProblemError, match="no drawn suite for this revision"):
            find_problem(PID)  # what a worker's grade loads: IE, naming the missing suite
    finally:
        use_suite(None)
