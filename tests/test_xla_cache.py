"""The XLA compilation cache: only the judge fills it; children read it and never write it."""
from conftest import SUBMISSIONS, grade_source

P1 = "per_example_grad_clipping"
EAGER = (SUBMISSIONS / P1 / "accepted" / "python_control_flow.py").read_text()  # falls back to eager


def test_judge_fills_once_and_children_only_read(problem1, pool, tmp_path, monkeypatch):
    from grader.sandbox import xla_cache as compile_cache

    monkeypatch.setenv(compile_cache.CACHE_ENV, str(tmp_path / "xla"))
    root = compile_cache.cache_dir()
    assert compile_cache.readable_cache() is None  # nothing to read before the fill
    assert compile_cache.fill(problem1)
    filled = sorted(p.name for p in root.iterdir())
    assert any(n.startswith(f"filled-{P1}-") for n in filled) and len(filled) > 10, filled
    assert compile_cache.fill(problem1) and sorted(p.name for p in root.iterdir()) == filled  # marker: no refill

    box = pool.free.get()
    try:
        report = grade_source(problem1, EAGER, box).report
    finally:
        pool.free.put(box)
    assert report.verdict == "AC" and report.passed == report.total
    assert sorted(p.name for p in root.iterdir()) == filled  # the child compiled, but wrote nothing


def test_cache_can_be_turned_off(monkeypatch):
    from grader.sandbox import xla_cache as compile_cache

    monkeypatch.setenv(compile_cache.CACHE_ENV, "off")
    assert compile_cache.cache_dir() is None and compile_cache.readable_cache() is None


def test_unwritable_cache_is_skipped_not_fatal(problem1, tmp_path, monkeypatch):
    from grader.sandbox import xla_cache as compile_cache

    blocker = tmp_path / "a_file"
    blocker.write_text("")
    monkeypatch.setenv(compile_cache.CACHE_ENV, str(blocker / "xla"))  # a directory cannot be made here
    assert compile_cache.fill(problem1) is False
    assert compile_cache.readable_cache() is None
