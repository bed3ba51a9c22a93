"""The ``grader`` command line. Exit status: 0 accepted, 1 any other verdict,
2 a usage error, bad input, or the judge's own failure (IE)."""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Iterator

import click

from . import __version__
from .common.exits import EXIT_OK, EXIT_USAGE, EXIT_VERDICT
from .common.exits import fail as _fail

# The commands defined in other modules, imported only when named: `grader user add`
# then loads neither the problems (numpy) nor the web framework, only what adding an
# account needs. `grader --help` imports them all. tests/cli/test_cli.py holds this
# table to each module's COMMANDS.
LAZY_COMMANDS = {
    **{name: f".authoring.commands:{attr}" for name, attr in (
        ("add-case", "add_case"), ("generate", "generate"), ("validate", "validate"), ("new", "new"),
        ("warm", "warm"))},
    "suite": ".authoring.suite_command:suite",
    "export": ".export.command:export",
    **{name: f".service.commands:{attr}" for name, attr in (
        ("serve", "serve"), ("db", "db_group"), ("user", "user_group"), ("lti", "lti_group"))},
}


class _LazyGroup(click.Group):
    """A group whose commands named in ``LAZY_COMMANDS`` are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands or cmd_name not in LAZY_COMMANDS:
            return super().get_command(ctx, cmd_name)
        module, attr = LAZY_COMMANDS[cmd_name].split(":")
        command = getattr(importlib.import_module(module, __package__), attr)
        self.add_command(command, cmd_name)
        return command


def _problem(problem_id: str):
    from .authoring.options import load_problem_or_exit

    return load_problem_or_exit(problem_id)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="jaxjudge", message="%(prog)s %(version)s")
@click.option("--problems", "problem_dirs", multiple=True, type=click.Path(file_okay=False), metavar="DIR",
              help="A folder of problems searched before the built-in ones (repeatable; also $JAXJUDGE_PROBLEMS).")
def main(problem_dirs: tuple[str, ...]) -> None:
    """JAX Judge: grade JAX submissions, author and validate problems."""
    if not problem_dirs:
        return  # the problems' package is not imported for a command that needs none
    from .problem import ProblemError
    from .problem.catalogue import add_author_roots

    try:
        add_author_roots(problem_dirs)
    except ProblemError as exc:
        _fail(str(exc))


def _suite(problem, suite_dir: str | None):
    """``problem`` with the deployment's drawn suite, or one message and exit status 2."""
    from .problem.suite import SuiteError, load_suite, refuse_stripped

    try:
        return refuse_stripped(problem if suite_dir is None else load_suite(problem, Path(suite_dir)), "--suite DIR")
    except SuiteError as exc:
        _fail(str(exc))


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--problem", "problem_id", required=True, help="Problem id (a folder under problems/).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "junit", "gradescope", "markdown"]),
              default="text", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None,
              help="Write the report to this file (atomically) instead of standard output.")
@click.option("--cost", is_flag=True, help="Also time compile and run per case beside the reference's.")
@click.option("--no-feedback", is_flag=True, help="Skip misconception hints and the counterexample search.")
@click.option("--strict-sandbox", is_flag=True, help="Refuse to grade (IE) unless every sandbox layer is active.")
@click.option("--cell-tag", default=None, help="Notebooks: grade only the code cells with this tag (or nbgrader flag).")
@click.option("--suite", "suite_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Grade with the hidden cases the deployment drew (grader suite draw --suite DIR), not the "
                   "shipped ones.")
def grade(file: str, problem_id: str, fmt: str, output: str | None, cost: bool, no_feedback: bool,
          strict_sandbox: bool, cell_tag: str | None, suite_dir: str | None) -> None:
    """Grade one submission FILE (.py, or a notebook's code cells: .ipynb)."""
    from .judge.feedback import Feedback
    from .judge.notebook import locate
    from .judge.pipeline import grade as run_grade
    from .judge.submission import SubmissionError, load_submission
    from .report.formats import FORMATS
    from .report.text import render_text
    from .sandbox.host import Sandbox

    problem = _suite(_problem(problem_id), suite_dir)
    try:
        sub = load_submission(file, cell_tag)
    except SubmissionError as exc:
        _fail(str(exc))
    with Sandbox() as sandbox:
        feedback = Feedback(hints=not no_feedback, counterexample=not no_feedback, cost=cost)
        report = locate(run_grade(problem, sub, sandbox, feedback=feedback, strict=strict_sandbox).report, sub.cells)
    if output:
        from .common.files import write_atomic

        write_atomic(Path(output), FORMATS[fmt](report))
    elif fmt == "text":
        render_text(report)
    else:
        click.echo(FORMATS[fmt](report), nl=False)
    sys.exit(EXIT_OK if report.verdict == "AC" else EXIT_USAGE if report.verdict == "IE" else EXIT_VERDICT)


@main.command()
@click.argument("folder", type=click.Path(exists=True))
@click.option("--problem", "problem_id", required=True)
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True, help="Local sandboxes.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="JSON-lines log, one report per line; a re-run skips files graded with unchanged content.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), default=None, help="Gradebook CSV.")
@click.option("--engine", type=click.Choice(["local", "dask"]), default="local", show_default=True)
@click.option("--scheduler", default=None, help="Dask scheduler address, e.g. tcp://10.0.0.5:8786.")
@click.option("--no-feedback", is_flag=True, help="Skip misconception hints and the counterexample search.")
@click.option("--cell-tag", default=None, help="Notebooks: grade only the code cells with this tag (or nbgrader flag).")
@click.option("--suite", "suite_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Grade with the hidden cases the deployment drew (grader suite draw --suite DIR).")
def batch(folder: str, problem_id: str, workers: int, out: str | None, csv_path: str | None, engine: str,
          scheduler: str | None, no_feedback: bool, cell_tag: str | None, suite_dir: str | None) -> None:
    """Grade every .py and .ipynb file below FOLDER."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from .batch import Item, run_batch, run_dask, run_local

    problem = _suite(_problem(problem_id), suite_dir)
    if engine == "local" and scheduler:
        _fail("--scheduler goes with --engine dask")
    from .judge.feedback import Feedback

    feedback = Feedback(hints=not no_feedback, counterexample=not no_feedback)
    if engine == "dask":
        if not scheduler:
            _fail("--engine dask needs --scheduler tcp://HOST:PORT")
        address = scheduler

        def run(items: list[Item]) -> Iterator[dict]:
            return run_dask(problem, items, address, feedback)
    else:
        def run(items: list[Item]) -> Iterator[dict]:
            return run_local(problem, items, workers, feedback)
    counts: dict[str, int] = {}
    bar = Progress(TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                   TextColumn("{task.description}"), disable=not sys.stderr.isatty(), transient=True)

    def progress(todo: int, skipped: int):
        if skipped:
            click.echo(f"skipping {skipped} file(s) already graded with unchanged content", err=True)
        task = bar.add_task("", total=todo)

        def step(report: dict) -> None:
            counts[report["verdict"]] = counts.get(report["verdict"], 0) + 1
            bar.update(task, advance=1, description=f"{report['verdict']:>4} {report['submission']}")
        return step

    try:
        with bar:
            results = run_batch(problem, Path(folder), run, Path(out) if out else None,
                                Path(csv_path) if csv_path else None, progress, cell_tag=cell_tag)
    except (RuntimeError, OSError) as exc:
        _fail(str(exc))
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    click.echo(f"graded {sum(counts.values())} file(s) ({summary or 'nothing new'}); {len(results)} in total")
    sys.exit(EXIT_USAGE if counts.get("IE") else EXIT_OK)


@main.command()
def schema() -> None:
    """Print the JSON Schema of the report that --format json produces."""
    from .report.formats import schema as load

    click.echo(json.dumps(load(), indent=2))


@main.command("list")
def list_problems() -> None:
    """List the problems with title, difficulty and number of cases."""
    from rich.table import Table

    from .problem import ProblemError, all_problem_ids, find_problem
    from .report.text import make_console

    table = Table("id", "title", "difficulty", "public", "hidden", box=None)
    for pid in all_problem_ids():
        try:
            p = find_problem(pid)
        except ProblemError as exc:
            table.add_row(pid, f"[red]broken: {exc.detail}[/red]", "", "", "")
            continue
        n_pub = len(p.public_cases())
        table.add_row(pid, p.meta.title, p.meta.difficulty, str(n_pub), str(len(p.cases) - n_pub))
    make_console().print(table)


@main.command()
@click.argument("problem_id")
def show(problem_id: str) -> None:
    """Print a problem's statement, rendered for the terminal (its math as plain text), and the
    version reports record."""
    from rich.markdown import Markdown

    from .report.math_text import statement_for_terminal
    from .report.text import make_console

    from .judge.contract import statement_text
    from .problem.catalogue import content_hash

    problem = _problem(problem_id)
    text = statement_text(problem)
    if not text:
        _fail(f"{problem.statement_path}: missing or unreadable")
    con = make_console()
    con.print(Markdown(statement_for_terminal(text)))
    con.print(f"\nproblem_version {content_hash(problem)}  judge_version {__version__}  ({problem.root})",
              markup=False, highlight=False)


@main.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@click.option("--problem", "problem_id", required=True, help="Problem id: its starter code and hints are left out.")
@click.option("--starter", "starters", multiple=True, type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="More code handed out to every learner, left out too (repeatable).")
@click.option("--top", type=click.IntRange(1, 10_000), default=20, show_default=True, help="Pairs shown.")
@click.option("--min-score", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True)
@click.option("--common", type=click.FloatRange(0.0, 1.0), default=0.5, show_default=True,
              help="Leave out code shared by more than this fraction of the submissions (1 keeps it all).")
@click.option("--score", type=click.Choice(["jaccard", "containment"]), default="jaccard", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def similar(folder: str, problem_id: str, starters: tuple[str, ...], top: int, min_score: float, common: float,
            score: str, fmt: str) -> None:
    """Rank pairs of submissions in FOLDER (one .py/.ipynb file or folder per learner) by shared
    code, with the matching regions side by side. A report for a person to read, never a verdict."""
    from .problem import ProblemError, find_problem
    from .similarity import compare, load_folder, starter_texts
    from .similarity.render import render_json, render_text

    try:
        problem = find_problem(problem_id)
    except ProblemError as exc:
        _fail(str(exc))
    try:
        subs, skipped = load_folder(Path(folder))
        base = starter_texts(problem, [Path(s) for s in starters])
    except OSError as exc:
        _fail(f"{folder}: {exc.strerror or exc}")
    report = compare(problem.id, subs, base, top=top, min_score=min_score, common=common,
                     score="containment" if score == "containment" else "jaccard", skipped=skipped)
    if fmt == "json":
        click.echo(render_json(report), nl=False)
    else:
        render_text(report, subs)
    sys.exit(EXIT_OK)


if __name__ == "__main__":  # pragma: no cover
    main()
