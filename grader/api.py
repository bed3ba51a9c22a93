"""The Python API, for platforms that embed the judge.

Grade a file or a source string against a problem and get the typed
[`Report`][grader.report.model.Report] back, the same report `grader grade` prints
(hidden cases reduced to id, verdict, reason code and a stock sentence):

```python
from grader import Judge, grade_file

report = grade_file("mine.py", "per_example_grad_clipping")
print(report.verdict, report.passed, report.total)

with Judge(workers=2) as judge:          # warm sandboxes, reused grade after grade
    for path in paths:
        print(judge.grade_file(path, "per_example_grad_clipping", cases="public").verdict)
```

[`grade_file`][grader.api.grade_file] and [`grade_source`][grader.api.grade_source]
start a sandbox for the one grade and close it, as `grader grade` does; a
[`Judge`][grader.api.Judge] keeps its sandboxes (zygotes that imported JAX once)
between grades, as `grader batch` and `grader serve` do. Both run the judge's own
pipeline ([`grader.judge.pipeline.grade`][grader.judge.pipeline.grade]): the verdict
of a file is the verdict `grader grade` gives it.

`suite=DIR` grades with the hidden cases a deployment drew (`grader suite draw --suite
DIR`) in place of the shipped ones, as `grader grade --suite DIR` does; the report's
`suite` names the suite's id. A judge installed without its hidden cases
(`JAXJUDGE_WITHOUT_HIDDEN=1`) grades only so: without `suite`, it raises `SuiteError`
rather than grade on the public cases alone.

Like the rest of the judge's process, this module never imports JAX: submissions run
in the sandbox's child processes only.
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .judge.submission import SubmissionError
from .problem import Problem, ProblemError
from .problem.suite import SuiteError

if TYPE_CHECKING:
    from .judge.submission import ParsedSubmission
    from .report.model import Report
    from .sandbox.host import Sandbox

__all__ = ["Judge", "ProblemError", "SubmissionError", "SuiteError", "grade_file", "grade_source"]

Cases = Literal["all", "public"]


def _problem(problem: str | Problem, suite: str | Path | None = None) -> Problem:
    """A problem id, found as `grader grade --problem` finds it (author folders given by
    `--problems` or `JAXJUDGE_PROBLEMS`, the nearest `problems/`, the built-in catalogue),
    or a loaded `Problem`; its output checks resolved, with the drawn suite in `suite`
    (a deployment folder) in place of its hidden cases. A problem installed without its
    hidden cases and given no suite is refused here, before any sandbox is taken."""
    from .judge.output_checks import resolve
    from .problem import find_problem
    from .problem.suite import load_suite, refuse_stripped

    if isinstance(problem, Problem):
        found = problem
    elif isinstance(problem, str):
        found = find_problem(problem)
    else:
        raise TypeError(f"problem must be a problem id (str) or a Problem, not {type(problem).__name__}")
    resolve(found.meta, str(found.root / "problem.toml"))
    if suite is not None:
        found = load_suite(found, Path(suite))
    return refuse_stripped(found, "pass suite=DIR")


def _cases(problem: Problem, cases: str) -> list | None:
    if cases == "all":
        return None
    if cases == "public":
        return problem.public_cases()
    raise ValueError(f"cases must be 'all' or 'public', not {cases!r}")


def _grade(found: Problem, sub: ParsedSubmission, sandbox: Sandbox, cases: str, feedback: bool,
           strict_sandbox: bool) -> Report:
    """One grade of a problem ``_problem`` gave, exactly as `grader grade` runs it
    (`--no-feedback` when `feedback` is false), with a notebook's findings named by cell and line."""
    from .judge.feedback import Feedback
    from .judge.notebook import locate
    from .judge.pipeline import grade

    graded = grade(found, sub, sandbox, cases=_cases(found, cases),
                   feedback=Feedback(hints=feedback, counterexample=feedback), strict=strict_sandbox)
    return locate(graded.report, sub.cells)


def _file_submission(path: str | Path, cell_tag: str | None) -> ParsedSubmission:
    from .judge.submission import load_submission

    return load_submission(path, cell_tag)


def _source_submission(source: str | bytes, path: str, cell_tag: str | None) -> ParsedSubmission:
    from .judge.submission import is_notebook, submission_from_bytes

    if cell_tag is not None and not is_notebook(path):
        raise SubmissionError(f"{path}: cell_tag applies to notebooks (.ipynb) only")
    data = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else bytes(source)
    return submission_from_bytes(data, path, cell_tag)


class Judge:
    """Warm sandboxes, reused grade after grade.

    ```python
    with Judge(workers=1) as judge:
        report = judge.grade_file("mine.py", "per_example_grad_clipping")
    ```

    Entering the context starts `workers` sandboxes (each a zygote process that
    imported JAX once and forks a fresh, locked-down child per grade), in parallel;
    leaving it ends them. A `Judge` may be shared by threads: up to `workers` grades
    run at once, and a further call waits for a free sandbox. Each grade runs in its
    own child, so one submission that hangs, crashes or tampers with global state
    affects no other.

    Args:
        workers: how many sandboxes (and so grades at a time); at least 1.
        suite: a deployment's suite folder (`grader suite draw --suite DIR`): every
            grade uses its drawn hidden cases, as for `grade_file`.
    """

    def __init__(self, workers: int = 1, *, suite: str | Path | None = None) -> None:
        from .sandbox.host import Pool

        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
            raise ValueError(f"workers must be a whole number of at least 1, not {workers!r}")
        self.workers = workers
        self.suite = suite
        self._pool: Any = Pool(workers)
        self._closed = False
        self._lock = threading.Lock()

    def __enter__(self) -> Judge:  # noqa: PYI034 (typing.Self is Python 3.11+)
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Start every sandbox now rather than at its first grade (`with` does this).
        A sandbox that fails to start is reported by the grade that needs it (`IE`)."""
        self._check_open()
        self._pool.start_all()

    def close(self) -> None:
        """End the sandboxes. Grading afterwards raises `RuntimeError`."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._pool.close()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("this Judge is closed")

    def _run(self, problem: str | Problem, sub: ParsedSubmission, cases: str, feedback: bool,
             strict_sandbox: bool) -> Report:
        self._check_open()
        found = _problem(problem, self.suite)  # a bad problem or argument fails before a sandbox is taken
        _cases(found, cases)
        with self._pool.borrow() as sandbox:
            return _grade(found, sub, sandbox, cases, feedback, strict_sandbox)

    def grade_file(self, path: str | Path, problem: str | Problem, *, cases: Cases = "all", feedback: bool = True,
                   strict_sandbox: bool = False, cell_tag: str | None = None) -> Report:
        """Grade one file in one of this judge's warm sandboxes.

        See [`grade_file`][grader.api.grade_file] for the arguments, the result and
        the errors.
        """
        return self._run(problem, _file_submission(path, cell_tag), cases, feedback, strict_sandbox)

    def grade_source(self, source: str | bytes, problem: str | Problem, *, path: str = "submission.py",
                     cases: Cases = "all", feedback: bool = True, strict_sandbox: bool = False,
                     cell_tag: str | None = None) -> Report:
        """Grade source text in one of this judge's warm sandboxes.

        See [`grade_source`][grader.api.grade_source] for the arguments, the result
        and the errors.
        """
        return self._run(problem, _source_submission(source, path, cell_tag), cases, feedback, strict_sandbox)


def grade_file(path: str | Path, problem: str | Problem, *, cases: Cases = "all", feedback: bool = True,
               strict_sandbox: bool = False, cell_tag: str | None = None, suite: str | Path | None = None) -> Report:
    """Grade one file (`.py`, or a notebook's code cells: `.ipynb`), as `grader grade` does.

    A sandbox is started for this grade and ended after it; to grade many files, use a
    [`Judge`][grader.api.Judge], which keeps its sandboxes warm.

    Args:
        path: the submission. A file that is read but is not usable source (not UTF-8,
            over 256 KiB, a syntax error, a malformed notebook) is graded `CE`, not raised.
        problem: a problem id, found as `grader grade --problem` finds it (the folders of
            `JAXJUDGE_PROBLEMS`, the nearest `problems/` upwards from the working
            directory, then the built-in catalogue), or a loaded
            [`Problem`][grader.problem.cases.Problem].
        cases: `"all"` grades every case (a Submit); `"public"` only the public ones (a
            Run: `total` counts the public cases).
        feedback: misconception hints and the counterexample search, within the
            feedback budget; `False` is `grader grade --no-feedback`.
        strict_sandbox: refuse to grade (`IE`) unless every OS sandbox layer is active,
            as `--strict-sandbox`.
        cell_tag: notebooks only: grade only the code cells tagged so (or flagged by
            nbgrader), as `--cell-tag`.
        suite: a deployment's suite folder (its `secret` and the suites `grader suite
            draw --suite DIR` drew there): grade with the problem's drawn hidden cases in
            place of the shipped ones, as `--suite DIR`.

    Returns:
        The typed report, hidden cases reduced (what the learner may see). A failure of
        the judge's own code is a report with verdict `IE`, never an exception.

    Raises:
        ProblemError: the problem is unknown or malformed (the message names the id or
            the file at fault).
        SuiteError: `suite` has no usable secret or no suite drawn for this revision of
            the problem; or `suite` is not given and the judge was installed without the
            problem's hidden cases (the message says to draw a suite and pass it).
        SubmissionError: the file is missing or the operating system refuses to read it,
            or `cell_tag` is given for a file that is not a notebook.
        ValueError: `cases` is neither `"all"` nor `"public"`.
    """
    found = _problem(problem, suite)
    _cases(found, cases)
    sub = _file_submission(path, cell_tag)
    from .sandbox.host import Sandbox

    with Sandbox() as sandbox:
        return _grade(found, sub, sandbox, cases, feedback, strict_sandbox)


def grade_source(source: str | bytes, problem: str | Problem, *, path: str = "submission.py", cases: Cases = "all",
                 feedback: bool = True, strict_sandbox: bool = False, cell_tag: str | None = None,
                 suite: str | Path | None = None) -> Report:
    """Grade source text, as if it were the file `path`.

    The text is held to the limits of a file (UTF-8, 256 KiB of Python; a notebook 16
    MiB): past them the grade is `CE`. `path` only names the submission in the report
    and, by its suffix, says whether `source` is Python (`.py`) or a notebook's JSON
    (`.ipynb`); nothing is read from it.

    Args:
        source: the Python source, or a notebook's JSON when `path` ends in `.ipynb`.
        problem: a problem id or a [`Problem`][grader.problem.cases.Problem], as for
            [`grade_file`][grader.api.grade_file].
        path: the name the report gives the submission.
        cases: `"all"` or `"public"`, as for `grade_file`.
        feedback: as for `grade_file`.
        strict_sandbox: as for `grade_file`.
        cell_tag: as for `grade_file` (notebooks only).
        suite: as for `grade_file`.

    Returns:
        The typed report, hidden cases reduced.

    Raises:
        ProblemError: the problem is unknown or malformed.
        SuiteError: as for `grade_file`.
        SubmissionError: `cell_tag` is given and `path` is not a notebook.
        ValueError: `cases` is neither `"all"` nor `"public"`.
    """
    found = _problem(problem, suite)
    _cases(found, cases)
    sub = _source_submission(source, path, cell_tag)
    from .sandbox.host import Sandbox

    with Sandbox() as sandbox:
        return _grade(found, sub, sandbox, cases, feedback, strict_sandbox)
