"""Options shared by several commands, and the error-to-exit-code wrapper."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import click

from ..backends import BACKENDS, DEFAULT_BACKEND
from ..errors import MscspError

#: Exit code for an interrupted run (Ctrl-C), as shells report SIGINT.
EXIT_INTERRUPTED = 130


def backend_option(default: str = DEFAULT_BACKEND, help_extra: str = "") -> Callable:
    """``--backend NAME`` with the registry's names (``sat:SUBSOLVER`` style allowed)."""
    return click.option(
        "--backend",
        default=default,
        show_default=True,
        metavar="NAME",
        help=f"Counting backend: {', '.join(BACKENDS)}{help_extra}.",
    )


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
mines_option = click.option(
    "--mines",
    type=click.IntRange(min=0),
    default=None,
    help="Total mine count, if the board text has no header.",
)


def time_limit_option(default: float) -> Callable:
    """``--time-limit SECONDS`` per component (0: none); hitting it exits with code 5."""
    return click.option(
        "--time-limit",
        type=click.FloatRange(min=0),
        default=default,
        show_default=True,
        help="Seconds per component for every backend (0: no limit).",
    )


seed_option = click.option("--seed", type=int, default=0, show_default=True, help="Random seed.")


def reports_errors(func: Callable) -> Callable:
    """Turns :class:`MscspError` into a one-line message and its exit code (no traceback)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except MscspError as exc:
            click.echo(f"mscsp: error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("mscsp: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)

    return wrapper
