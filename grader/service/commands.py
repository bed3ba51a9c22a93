"""The service's commands, added to ``grader`` by ``grader.cli``: ``serve``,
``db upgrade`` and ``user add``. Only click is imported here; the web framework and
the database load when a command runs, and their absence is one clear message."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from .core.config import ServiceConfig

EXIT_USAGE = 2
DB_HELP = "Database URL: sqlite:///FILE or postgresql+psycopg://USER@HOST/DB (default: $JAXJUDGE_DB, else " \
          "./jaxjudge.sqlite3)."


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def _need_extra() -> None:
    # Found, not imported: importing FastAPI and alembic took a second of `grader user add`,
    # which uses neither.
    from importlib.util import find_spec

    for name in ("alembic", "argon2", "fastapi", "sqlalchemy", "uvicorn"):
        if find_spec(name) is None:
            _fail(f"the service needs the 'serve' extra ({name} is missing): pip install -e '.[serve]'")


def _open(db_url: str | None):
    _need_extra()
    from .core.config import default_db_url
    from .core.db import DatabaseError
    from .server import open_database

    url = db_url or default_db_url()
    try:
        return open_database(url)
    except DatabaseError as exc:
        _fail(str(exc))
    except Exception as exc:  # unreachable server, bad credentials, unreadable file
        _fail(f"cannot open the database: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")


def _forwarded(value: str | None) -> str | None:
    from .core.config import parse_forwarded_ips

    try:
        return None if value is None else parse_forwarded_ips(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--forwarded-allow-ips'") from None


def _size(value: str) -> int:
    from .core.config import parse_size

    try:
        return parse_size(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--storage-per-day'") from None


def _rate(value: str):
    from .core.config import parse_rate

    try:
        return parse_rate(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--db", "db_url", default=None, help=DB_HELP)
@click.option("--workers", type=click.IntRange(0, 64), default=2, show_default=True,
              help="Grading workers (0: accept submissions, grade none here).")
@click.option("--engine", type=click.Choice(["local", "dask"]), default="local", show_default=True)
@click.option("--scheduler", default=None, help="Dask scheduler address, with --engine dask.")
@click.option("--no-feedback", is_flag=True, help="Skip misconception hints and the counterexample search.")
@click.option("--strict-sandbox", is_flag=True, help="Refuse to grade (IE) unless every sandbox layer is active.")
@click.option("--run-limit", default="10/min", show_default=True, help="Run token bucket per learner: N/s|min|h.")
@click.option("--submit-limit", default="5/5min", show_default=True, help="Submit token bucket per learner.")
@click.option("--login-limit", default="10/min", show_default=True,
              help="Per client address: logins, sign-ups and other tries of a password or a one-time link.")
@click.option("--max-pending", type=click.IntRange(1, 10_000), default=3, show_default=True,
              help="Submissions one learner may have waiting or running.")
@click.option("--queue-cap", type=click.IntRange(1, 10_000_000), default=500, show_default=True,
              help="Queued submissions beyond which new ones get 503.")
@click.option("--storage-per-day", "storage", default="32MiB", show_default=True, metavar="SIZE",
              help="What one learner's submissions of the last 24 hours may store (sources and reports): "
                   "N, NKiB, NMiB or NGiB.")
@click.option("--max-attempts", type=click.IntRange(1, 20), default=3, show_default=True,
              help="Claims of one submission (its worker dying each time) before it is IE.")
@click.option("--stale-seconds", type=click.FloatRange(3, 3600), default=15.0, show_default=True,
              help="A worker whose heartbeat is older than this is dead; its submissions are requeued.")
@click.option("--shutdown-grace", type=click.FloatRange(0, 3600), default=10.0, show_default=True,
              help="Seconds running grades get to finish when the server stops; then they are requeued.")
@click.option("--forwarded-allow-ips", "forwarded", default=None, metavar="IPS",
              help="Behind a proxy: its addresses (comma-separated, or *), whose X-Forwarded-For and "
                   "X-Forwarded-Proto are believed. Default: those headers are ignored.")
@click.option("--max-streams-per-learner", "streams_per_learner", type=click.IntRange(1, 10_000), default=8,
              show_default=True, help="Event streams (/events) one account may hold open at once; past it 429.")
@click.option("--max-streams", "streams_total", type=click.IntRange(1, 1_000_000), default=1000,
              show_default=True, help="Event streams the server holds open in all; past it 503.")
@click.option("--lti-config", type=click.Path(dir_okay=False, exists=True), default=None, metavar="FILE",
              help="LTI 1.3: the platforms' registrations (JSON, see `grader lti register`); enables /lti/*.")
@click.option("--public-url", default=None, metavar="URL",
              help="The address people and platforms reach the service at (LTI's URLs are built from it).")
@click.option("--no-warm", is_flag=True,
              help="Do not build every problem's tables (probe, misconceptions, XLA cache) while the workers are "
                   "idle; a grade then builds what it needs itself, and its hints what its feedback budget allows.")
@click.option("--suite", "suite_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Grade with the hidden cases this deployment draws from its secret (DIR/secret, created at the "
                   "first start), never the shipped ones. A problem without a suite drawn for its revision is drawn "
                   "at start (grader suite draw --suite DIR does it beforehand); its Submits wait until then (its "
                   "Runs do not).")
def serve(**options: Any) -> None:
    """Run the judge service: HTTP API on HOST:PORT, queue in the database, WORKERS sandboxes."""
    config = _service_config(options)
    if options["suite_dir"]:
        _use_suite(Path(options["suite_dir"]))
    else:
        _refuse_stripped()
    db = _open(options["db_url"])
    db.close()
    from .server import serve as run

    run(config, explicit_db=options["db_url"] is not None)


def _use_suite(folder: Path) -> None:
    """Every grade from now on uses the deployment's drawn suites. The secret is created at
    the first start; a problem without a suite for its revision is drawn by the server in
    the background (``queue.drawing``), its Submits waiting in line until then."""
    from ..problem.catalogue import use_suite
    from ..problem.suite import SuiteError, load_secret

    try:
        load_secret(folder / "secret", create=True)
    except (SuiteError, OSError) as exc:
        _fail(str(exc))
    use_suite(folder)


def _refuse_stripped() -> None:
    """Without --suite, a problem installed without its hidden cases would be graded on its
    public cases alone: the start stops instead."""
    from ..problem import ProblemError, all_problem_ids, find_problem
    from ..problem.suite import stripped

    bare = []
    for pid in all_problem_ids():
        try:
            if stripped(find_problem(pid)):
                bare.append(pid)
        except ProblemError:
            pass  # a broken problem is reported where it is graded, as before
    if bare:
        _fail(f"{', '.join(bare)}: installed without hidden cases (built with JAXJUDGE_WITHOUT_HIDDEN=1); serve "
              "with --suite DIR after grader suite draw --suite DIR")


def _service_config(o: dict[str, Any]) -> ServiceConfig:
    """The configuration ``serve``'s options describe, checked as a whole (usage errors
    exit 2 before anything starts)."""
    from .core.config import Quotas, ServiceConfig, default_db_url

    if o["engine"] == "dask" and not o["scheduler"]:
        _fail("--engine dask needs --scheduler tcp://HOST:PORT")
    if o["engine"] == "local" and o["scheduler"]:
        _fail("--scheduler goes with --engine dask")
    if o["lti_config"]:
        _check_lti(o["lti_config"], o["public_url"])
    quotas = Quotas(run=_rate(o["run_limit"]), submit=_rate(o["submit_limit"]), login=_rate(o["login_limit"]),
                    pending_per_learner=o["max_pending"], queue_cap=o["queue_cap"], storage_per_day=_size(o["storage"]))
    return ServiceConfig(db_url=o["db_url"] or default_db_url(), host=o["host"], port=o["port"],
                         workers=o["workers"], engine=o["engine"], scheduler=o["scheduler"],
                         feedback=not o["no_feedback"], strict_sandbox=o["strict_sandbox"], quotas=quotas,
                         max_attempts=o["max_attempts"], stale_seconds=o["stale_seconds"],
                         shutdown_grace=o["shutdown_grace"], forwarded_allow_ips=_forwarded(o["forwarded"]),
                         streams_per_learner=o["streams_per_learner"], streams_total=o["streams_total"],
                         warm_idle=not o["no_warm"], lti_config=o["lti_config"], public_url=o["public_url"])


def _check_lti(path: str, public_url: str | None) -> None:
    from .lti.config import LtiConfigError, load_tool_config
    from .lti.register import tool_configuration

    try:
        load_tool_config(path)
        tool_configuration(public_url or "http://127.0.0.1", "JAX Judge")
    except (LtiConfigError, ValueError) as exc:
        _fail(str(exc))


@click.group("lti")
def lti_group() -> None:
    """LTI 1.3 with an LMS (Canvas, Moodle)."""


@lti_group.command("register")
@click.option("--public-url", required=True, metavar="URL", help="The address platforms reach the service at.")
@click.option("--title", default="JAX Judge", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="The configuration as JSON (Canvas's developer key included).")
def lti_register(public_url: str, title: str, as_json: bool) -> None:
    """Print what an LMS administrator enters to register the tool: JWKS, login and launch URLs."""
    import json

    from .lti.register import format_text, tool_configuration

    try:
        conf = tool_configuration(public_url, title)
    except ValueError as exc:
        _fail(str(exc))
    click.echo(json.dumps(conf, indent=2) if as_json else format_text(conf))


@lti_group.command("keys")
@click.argument("private_key_file", type=click.Path(dir_okay=False))
@click.argument("public_key_file", type=click.Path(dir_okay=False))
def lti_keys(private_key_file: str, public_key_file: str) -> None:
    """Make the tool's RSA key pair (the private file readable by its owner only)."""
    from .lti.config import LtiConfigError, generate_key_pair

    try:
        generate_key_pair(private_key_file, public_key_file)
    except (LtiConfigError, OSError) as exc:
        _fail(str(exc))
    click.echo(f"wrote {private_key_file} and {public_key_file}")


@click.group("db")
def db_group() -> None:
    """The service's database."""


@db_group.command("upgrade")
@click.option("--db", "db_url", default=None, help=DB_HELP)
def db_upgrade(db_url) -> None:
    """Create or migrate the schema to the newest revision (serve does this at start)."""
    from .core.db import upgrade

    db = _open(db_url)
    click.echo(f"database at revision {upgrade(db)}")
    db.close()


def _ask_password(email: str) -> str:
    """Asked on the terminal, naming the account and the rule, until an answer keeps the
    rule and is typed the same twice (Ctrl+C gives up)."""
    from .domain.accounts import MIN_PASSWORD

    while True:
        first = click.prompt(f"Password for {email} (at least {MIN_PASSWORD} characters)", hide_input=True)
        if len(first) < MIN_PASSWORD:
            click.echo(f"That has {len(first)}: a password has at least {MIN_PASSWORD} characters.", err=True)
        elif click.prompt(f"The same password again, for {email}", hide_input=True) == first:
            return first
        else:
            click.echo("The two differ: once more.", err=True)


@click.group("user")
def user_group() -> None:
    """Accounts of the service."""


@user_group.command("add")
@click.argument("email")
@click.option("--instructor", is_flag=True, help="An instructor (full reports, gradebook, rejudge, queue).")
@click.option("--password-stdin", is_flag=True, help="Read the password from the first line of standard input.")
@click.option("--no-password", is_flag=True, help="No password: the account signs in with API tokens only.")
@click.option("--token", "token_name", default=None, help="Also create an API token with this name and print it.")
@click.option("--course", default="default", show_default=True,
              help="The course (its short name) the account joins, in its role.")
@click.option("--db", "db_url", default=None, help=DB_HELP)
def user_add(email, instructor, password_stdin, no_password, token_name, course, db_url) -> None:
    """Create an account (a learner unless --instructor), a member of --course."""
    _need_extra()
    from .domain.accounts import AccountError, add_user, new_token, normalize_email

    if password_stdin and no_password:
        _fail("choose one of --password-stdin and --no-password")
    try:
        shown = normalize_email(email)  # a typo in the address is told before a password is asked for
    except AccountError as exc:
        _fail(str(exc))
    if no_password:
        password = None
    elif password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    elif sys.stdin.isatty():
        password = _ask_password(shown)
    else:
        _fail("no terminal to ask for a password: use --password-stdin or --no-password")
    db = _open(db_url)
    try:
        with db.write() as s:
            user = add_user(s, email, "instructor" if instructor else "learner", password, course=course)
            secret = new_token(s, user, token_name)[1] if token_name else None
            email, role = user.email, user.role
    except AccountError as exc:
        _fail(str(exc))
    finally:
        db.close()
    click.echo(f"added {role} {email}")
    if secret:
        click.echo(f"API token (shown once): {secret}")


COMMANDS = [serve, db_group, user_group, lti_group]
