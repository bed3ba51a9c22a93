"""Exit status of every ``grader`` command: 0 accepted (or fine), 1 any other verdict
or a failed check, 2 a usage error, bad input, or the judge's own failure (IE)."""
from __future__ import annotations

import sys
from typing import NoReturn

import click

EXIT_OK, EXIT_VERDICT, EXIT_USAGE = 0, 1, 2


def fail(message: str) -> NoReturn:
    """One clear message on stderr, exit status 2."""
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_USAGE)
