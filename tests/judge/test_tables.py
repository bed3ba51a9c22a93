"""Where a problem's tables live and the tables the built-in catalogue ships
(``grader/judge/tables.py``): a shipped table is taken only when its manifest names this
judge, this JAX, this version of the problem and the file's exact bytes; a stale or
altered one is never used (built anew, logged); a drawn suite's tables live beside it."""
from __future__ import annotations

import json
import logging

import pytest

from support import PROBLEMS

PID = "value_and_grad_loss"


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """A shipped folder holding ``PID``'s probe table (built here from a made-up table),
    and an empty judge cache to take it into."""
    import numpy as np

    from grader.judge import probe_table, tables
    from grader.problem import load_problem

    problem = load_problem(PROBLEMS / PID)
    monkeypatch.setenv("JAXJUDGE_CACHE", str(tmp_path / "built"))
    table = probe_table.ProbeTable([[2.0, 0.5, 1.0, 0.0, 0.0]], ["example_1"],
                                   {"example_1|loss": np.array([[1.5]])}, {"example_1|loss": [True]})
    probe_table._save(problem, table)
    monkeypatch.setattr(tables, "shipped_root", lambda: tmp_path / "problems" / "_tables")
    (tmp_path / "problems").mkdir()
    tables.ship([(problem, {"probe": [probe_table.path(problem)]})], tmp_path / "problems" / "_tables")
    monkeypatch.setenv("JAXJUDGE_CACHE", str(tmp_path / "cache"))
    tables._said.clear()
    return problem, tmp_path / "problems" / "_tables"


def test_a_table_the_cache_lacks_is_taken_from_the_shipped_ones_and_loads(shipped):
    from grader.judge import probe_table, tables

    problem, _ = shipped
    assert not probe_table.path(problem).exists()
    loaded = probe_table.load(problem)  # what a grade or a warming step reads first
    assert loaded is not None and loaded.perturbations == [[2.0, 0.5, 1.0, 0.0, 0.0]]
    assert probe_table.path(problem).is_file() and tables.taken_from_shipped(probe_table.path(problem))


def _refused(problem, caplog) -> bool:
    from grader.judge import probe_table, tables

    with caplog.at_level(logging.WARNING, logger="grader.tables"):
        taken = tables.take_shipped(problem, "probe", probe_table.path(problem))
    return not taken and not probe_table.path(problem).exists() and probe_table.load(problem) is None


def test_an_altered_shipped_table_is_never_used_and_the_log_says_so(shipped, caplog):
    problem, root = shipped
    table = next((root / "probe").iterdir())
    data = bytearray(table.read_bytes())
    data[-20] ^= 1
    table.write_bytes(bytes(data))
    assert _refused(problem, caplog)
    assert f"{PID}: the shipped tables are not used, altered: probe/{table.name} does not match its SHA-256" \
        in caplog.text


def test_a_shipped_table_of_another_version_of_the_problem_is_stale_and_never_used(shipped, caplog, monkeypatch):
    from grader.judge import tables

    problem, _ = shipped
    monkeypatch.setattr(tables, "content_hash", lambda _problem: "0" * 16)  # the problem changed since
    assert _refused(problem, caplog)
    assert "stale: the problem changed since they were built" in caplog.text


@pytest.mark.parametrize("part", ["judge", "jax", "jaxlib"])
def test_a_shipped_table_built_by_another_judge_or_jax_is_stale_and_never_used(shipped, caplog, monkeypatch, part):
    from grader.judge import tables

    problem, root = shipped
    doc = json.loads((root / "manifest.json").read_text())
    doc["runtime"][part] = "0.0.1"
    (root / "manifest.json").write_text(json.dumps(doc))
    tables._manifest.cache_clear()
    assert _refused(problem, caplog)
    assert "stale: built by" in caplog.text and f"{part} 0.0.1" in caplog.text


def test_a_problem_graded_with_a_drawn_suite_takes_no_shipped_table_and_keeps_its_own_beside_the_suite(
        shipped, tmp_path):
    from grader.judge import probe_table, tables
    from grader.problem.suite import load_suite, revision
    from support import drawn_suite

    problem, _ = shipped
    suite, _ = drawn_suite(tmp_path / "suite", problem, PID, keep=3)
    drawn = load_suite(problem, tmp_path / "suite")
    where = probe_table.path(drawn)
    assert where.parent == tmp_path / "suite" / suite / PID / revision(problem) / "tables" / "probe"
    assert not tables.take_shipped(drawn, "probe", where) and not where.exists()


def test_the_shipped_tables_are_current_for_every_built_in_problem():
    """CI's check that ``grader warm --ship`` ran after the last change to a problem, the
    judge's version or JAX: else a fresh server builds them itself and is ready later."""
    from grader.authoring.mutation import kills
    from grader.judge import mistakes, probe_table, tables
    from grader.problem import all_problem_ids, load_problem

    root = tables.shipped_root()
    assert root is not None
    doc = json.loads((root / "manifest.json").read_text())
    assert doc["runtime"] == tables.runtime(), "run grader warm --ship --workers 2"
    for pid in all_problem_ids(PROBLEMS):
        problem = load_problem(PROBLEMS / pid)
        entry = doc["problems"].get(pid)
        assert entry and entry["content"] == tables.content_hash(problem), f"{pid}: run grader warm --ship"
        wanted = [f"mistakes/{mistakes.entry_path(problem, e).relative_to(tables.table_dir(problem, 'mistakes'))}"
                  for e in mistakes.wrong_answers(problem)]
        if problem.meta.requirements.depends and problem.meta.requirements.perturbed:
            wanted.append(f"probe/{probe_table.path(problem).name}")
        wanted.append(f"kills/{kills.path(problem).name}")
        assert set(wanted) <= set(entry["files"]), (pid, set(wanted) - set(entry["files"]))


@pytest.mark.slow  # builds a real probe table in a sandbox: a few seconds
def test_an_altered_shipped_table_is_rebuilt_in_the_sandbox_and_kept(shipped, pool, caplog):
    from grader.judge import probe_table

    problem, root = shipped
    table = next((root / "probe").iterdir())
    table.write_bytes(table.read_bytes()[:-1])
    with caplog.at_level(logging.WARNING, logger="grader.tables"):
        with pool.borrow() as sandbox:
            built = probe_table.get(problem, sandbox)
    assert "altered" in caplog.text
    assert built.perturbations != [[2.0, 0.5, 1.0, 0.0, 0.0]] and len(built.perturbations) == probe_table.PER_TABLE
    assert probe_table.load(problem).perturbations == built.perturbations  # kept: the next grade reads it
