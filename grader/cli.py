"""The ``grader`` command line. Exit status: 0 accepted, 1 any other verdict,
2 a usage error, bad input, or the judge's own failure (IE)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from . import __version__
from .problem import ProblemError, find_problem, problem_folder, problems_root
from .problem.catalogue import add_author_roots, content_hash

EXIT_OK, EXIT_VERDICT, EXIT_USAGE = 0, 1, 2


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def _problem(problem_id: str):
    from .judge.output_checks import resolve

    try:
        problem = find_problem(problem_id)
        resolve(problem.meta, str(problem.root / "problem.toml"))
    except ProblemError as exc:
        _fail(str(exc))
    return problem


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="jaxjudge", message="%(prog)s %(version)s")
@click.option("--problems", "problem_dirs", multiple=True, type=click.Path(file_okay=False), metavar="DIR",
              help="A folder of problems searched before the built-in ones (repeatable; also $JAXJUDGE_PROBLEMS).")
def main(problem_dirs: tuple[str, ...]) -> None:
    """JAX Judge: grade JAX submissions, author and validate problems."""
    try:
        add_author_roots(problem_dirs)
    except ProblemError as exc:
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
def grade(file: str, problem_id: str, fmt: str, output: str | None, cost: bool, no_feedback: bool,
          strict_sandbox: bool, cell_tag: str | None) -> None:
    """Grade one submission FILE (.py, or a notebook's code cells: .ipynb)."""
    from .judge.feedback import Feedback
    from .judge.notebook import locate
    from .judge.pipeline import grade as run_grade
    from .judge.submission import SubmissionError, load_submission
    from .report.formats import FORMATS
    from .report.text import render_text
    from .sandbox.host import Sandbox

    problem = _problem(problem_id)
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


def _visibility(public: bool, hidden: bool) -> str:
    if public and hidden:
        _fail("choose one of --public and --hidden")
    return "public" if public else "hidden"


@main.command("add-case")
@click.argument("problem_id")
@click.argument("input_file", type=click.Path(dir_okay=False))
@click.option("--public", is_flag=True, help="Add a public case (shown in full to submitters).")
@click.option("--hidden", is_flag=True, help="Add a hidden case (the default).")
@click.option("--name", default=None, help="Case name (file stem); chosen automatically when absent.")
def add_case(problem_id: str, input_file: str, public: bool, hidden: bool, name: str | None) -> None:
    """Validate INPUT_FILE (the input only), compute its expected output and add it as a case."""
    from .authoring.cases import AuthoringError, add_cases
    from .sandbox.host import Sandbox

    visibility = _visibility(public, hidden)
    problem = _problem(problem_id)
    if name is not None and not (name.replace("_", "a").replace("-", "a").isalnum() and len(name) <= 64):
        _fail("--name may hold letters, digits, '_' and '-' only (64 at most)")
    try:
        raw = json.loads(Path(input_file).read_text(encoding="utf-8"))
    except FileNotFoundError:
        _fail(f"{input_file}: no such file")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        _fail(f"{input_file}: not a readable JSON file ({exc})")
    try:
        with Sandbox() as sandbox:
            written = add_cases(problem, [(name or Path(input_file).stem, raw)], visibility, sandbox,
                                exact_names=name is not None)
    except (AuthoringError, ProblemError) as exc:
        _fail(str(exc))
    for case in written:
        ex = ", ".join(f"{k} at {v:.3f} of tolerance" for k, v in case.oracle_excess.items())
        click.echo(f"added {visibility} case {case.name} ({case.path}); oracle agreement: {ex}")
    _report_catches(problem_id, [c.path for c in written])


def _report_catches(problem_id: str, paths: list[Path]) -> None:
    from .authoring.cases import wrong_answers_caught

    problem = _problem(problem_id)
    names = {p.stem for p in paths}
    caught = wrong_answers_caught(problem, names)
    if caught is None:
        return
    if caught:
        click.echo("caught by the new case(s): " + ", ".join(caught))
    else:
        click.echo("no wrong_answer submission fails on the new case(s)")


@main.command()
@click.argument("problem_id")
@click.option("--count", type=click.IntRange(1, 1000), required=True)
@click.option("--seed", type=int, required=True)
@click.option("--public", is_flag=True)
@click.option("--hidden", is_flag=True)
def generate(problem_id: str, count: int, seed: int, public: bool, hidden: bool) -> None:
    """Add COUNT seeded cases from the problem's generator (same seed, same cases)."""
    from .authoring.cases import AuthoringError, add_cases
    from .problem.modules import generated_inputs
    from .sandbox.host import Sandbox

    visibility = _visibility(public, hidden)
    problem = _problem(problem_id)
    try:
        inputs = generated_inputs(problem, count, seed)
        with Sandbox() as sandbox:
            written = add_cases(problem, inputs, visibility, sandbox, exact_names=True)
    except (AuthoringError, ProblemError) as exc:
        _fail(str(exc))
    click.echo(f"added {len(written)} {visibility} case(s) to {problem_id}")


@main.command()
@click.argument("problem_ids", nargs=-1)
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Sandboxes grading submissions in parallel.")
@click.option("--no-submissions", is_flag=True, help="Skip grading the files under submissions/.")
@click.option("--mutants", is_flag=True, help="Also grade the reference's mutants; a hole in the suite fails.")
def validate(problem_ids: tuple[str, ...], workers: int, no_submissions: bool, mutants: bool) -> None:
    """Prove problems sound: metadata, cases, oracles, reference, statement, submissions."""
    from .authoring.validate import print_finding, session_if, validate_problem
    from .problem import all_problem_ids
    from .report.text import make_console
    from .sandbox.host import Pool

    con = make_console()
    try:
        folders = {pid: problem_folder(pid) for pid in (list(problem_ids) or all_problem_ids())}
    except ProblemError as exc:
        _fail(str(exc))
    ids = list(folders) or _fail(f"no problems under {problems_root()}")
    failed = 0
    with Pool(workers) as pool, session_if(mutants, con) as session:
        for pid in ids:
            con.print(f"[bold]{pid}[/bold]")
            _, findings = validate_problem(folders[pid], pool, not no_submissions, mutation=session)
            for f in findings:
                print_finding(con, f)
            bad = sum(1 for f in findings if f.status == "fail")
            failed += bad > 0
            con.print(f"  => {'[red]FAILED[/red]' if bad else '[green]ok[/green]'}\n")
    con.print(f"{len(ids) - failed}/{len(ids)} problem(s) valid")
    sys.exit(EXIT_VERDICT if failed else EXIT_OK)


@main.command()
@click.argument("problem_id")
def new(problem_id: str) -> None:
    """Create problems/PROBLEM_ID from a template; then follow `grader validate PROBLEM_ID`."""
    from .authoring.scaffold import scaffold
    from .problem import NAME_RE

    if not NAME_RE.match(problem_id):
        _fail("a problem id is lower case letters, digits and underscores")
    try:
        folder = scaffold(problems_root(), problem_id)
    except FileExistsError as exc:
        _fail(str(exc))
    click.echo(f"created {folder}\nnext steps:\n"
               f"  1. edit problem.toml, statement.md, reference.py, oracle.py, generator.py\n"
               f"  2. grader add-case {problem_id} EXAMPLE.json --public --name example_1\n"
               f"  3. grader generate {problem_id} --count 20 --seed 1 --hidden\n"
               f"  4. add submissions/{problem_id}/accepted/*.py and wrong_answer/*.py\n"
               f"  5. grader validate {problem_id}   (it says what is still missing)")


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
def batch(folder: str, problem_id: str, workers: int, out: str | None, csv_path: str | None, engine: str,
          scheduler: str | None, no_feedback: bool, cell_tag: str | None) -> None:
    """Grade every .py and .ipynb file below FOLDER."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from .batch import run_batch, run_dask, run_local

    problem = _problem(problem_id)
    if engine == "dask" and not scheduler:
        _fail("--engine dask needs --scheduler tcp://HOST:PORT")
    if engine == "local" and scheduler:
        _fail("--scheduler goes with --engine dask")
    from .judge.feedback import Feedback

    feedback = Feedback(hints=not no_feedback, counterexample=not no_feedback)
    run = (lambda items: run_dask(problem, items, scheduler, feedback)) if engine == "dask" else \
        (lambda items: run_local(problem, items, workers, feedback))
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
    sys.exit(EXIT_USAGE if counts.get("IE") or counts.get("unreadable") else EXIT_OK)


@main.command()
@click.argument("problem_ids", nargs=-1)
def warm(problem_ids: tuple[str, ...]) -> None:
    """Build the caches a first grade would otherwise build: probe and misconception
    tables, XLA's compilation cache. Run once per machine after problems change."""
    from .authoring.warm import warm as warm_problem
    from .problem import all_problem_ids
    from .sandbox.host import Sandbox

    ids = list(problem_ids) or all_problem_ids()
    problems = [_problem(pid) for pid in ids]
    with Sandbox() as sandbox:
        for problem in problems:
            try:
                warm_problem(problem, sandbox, lambda m, pid=problem.id: click.echo(f"{pid}: {m}"))
            except ProblemError as exc:
                _fail(str(exc))


@main.command()
def schema() -> None:
    """Print the JSON Schema of the report that --format json produces."""
    from .report.formats import schema as load

    click.echo(json.dumps(load(), indent=2))


@main.command("list")
def list_problems() -> None:
    """List the problems with title, difficulty and number of cases."""
    from rich.table import Table

    from .problem import all_problem_ids
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
    """Print a problem's statement, rendered for the terminal, and the version reports record."""
    from rich.markdown import Markdown

    from .report.text import make_console

    problem = _problem(problem_id)
    try:
        text = problem.statement_path.read_text(encoding="utf-8")
    except OSError:
        _fail(f"{problem.statement_path}: missing")
    con = make_console()
    con.print(Markdown(text))
    con.print(f"\nproblem_version {content_hash(problem)}  judge_version {__version__}  ({problem.root})",
              markup=False, highlight=False)


from .export.command import export  # noqa: E402  (its own module: ``grader export ...``)

main.add_command(export)

from .service.commands import COMMANDS as _SERVICE_COMMANDS  # noqa: E402  (serve, db upgrade, user add)

for _command in _SERVICE_COMMANDS:
    main.add_command(_command)

if __name__ == "__main__":  # pragma: no cover
    main()
