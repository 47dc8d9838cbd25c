"""What the commands have in common besides their shared options: a board from ``--preset``
or ``--size`` and ``--mines``, errors as one line and an exit code, usage errors on one
line, the learners' training options, and the group's sub-commands imported on demand.

The shared options themselves (``--seed``, ``--json``, ``--time-limit``, ...) are declared
once, in :mod:`mscsp.cli.vocabulary`, and each command builds its own from there.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any, NoReturn

import click

from ..errors import InvalidInputError, MscspError
from ..game import PRESETS
from ..runtime import interrupts
from .types import AsciiFloat, AsciiInt

#: Exit code for an interrupted run (Ctrl-C), as shells report SIGINT.
EXIT_INTERRUPTED = 130


def board_size(
    preset: str | None,
    size: tuple[int, int] | None,
    mines: int | None,
    default: str | None = "beginner",
) -> tuple[int, int, int, str | None]:
    """Resolves ``--preset`` / ``--size`` + ``--mines`` to ``(rows, cols, mines, preset)``.

    Raises:
        InvalidInputError: Both or neither given (without a default), or half a custom board.
    """
    if preset is not None:
        if size is not None or mines is not None:
            raise InvalidInputError("give either --preset or --size and --mines, not both")
        return (*PRESETS[preset], preset)
    if size is None and mines is None:
        if default is None:
            raise InvalidInputError("give --preset, or --size ROWSxCOLS and --mines")
        return (*PRESETS[default], default)
    if size is None or mines is None:
        raise InvalidInputError("a custom board needs both --size ROWSxCOLS and --mines")
    return (*size, mines, None)


def exit_interrupted(hint: str = "") -> NoReturn:
    """Reports Ctrl-C on one line (with how to continue, if anything can) and exits 130."""
    click.echo(f"mscsp: interrupted{'; ' + hint if hint else ''}", err=True)
    sys.exit(EXIT_INTERRUPTED)


def reports_errors(func: Callable) -> Callable:
    """Turns :class:`MscspError` into a one-line message and its exit code (no traceback),
    and Ctrl-C into exit 130, never lost (:mod:`mscsp.runtime.interrupts`)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with interrupts.kept():  # (from the start: see mscsp.runtime.interrupts)
                return func(*args, **kwargs)
        except MscspError as exc:
            click.echo(f"mscsp: error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            exit_interrupted()

    return wrapper


class OneLineUsageError(click.UsageError):
    """A usage error shown on one line with a hint, instead of click's usage block."""

    def show(self, file: IO[Any] | None = None) -> None:
        hint = ""
        if self.ctx is not None and self.ctx.command.get_help_option(self.ctx) is not None:
            hint = f" (try '{self.ctx.command_path} {self.ctx.help_option_names[0]}')"
        message = " ".join(self.format_message().split())  # one line, whatever click wrote
        click.echo(f"mscsp: error: {message}{hint}", file=file, err=True)


#: click >= 8.2 shows help for a bare group by raising this UsageError: it stays as it is
#: (click 8.1 has none, and exits instead).
_SHOWS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", OneLineUsageError)


@contextlib.contextmanager
def _usage_in_one_line(ctx: click.Context | None) -> Iterator[None]:
    """Re-raises click's usage errors as :class:`OneLineUsageError` (same exit code 2)."""
    try:
        yield
    except (OneLineUsageError, _SHOWS_HELP):
        raise
    except click.UsageError as exc:
        # An error raised in a command's body may carry no context: name the group's.
        raise OneLineUsageError(exc.format_message(), exc.ctx or ctx) from None


class OneLineUsageGroup(click.Group):
    """The command group: every usage error below it, in any sub-command, is one line.

    click reports a bad option as usage, hint, blank line and error: four lines for one
    mistake. Parsing happens in ``make_context`` (the group's options) and ``invoke``
    (each sub-command's), so both turn the error into one line with a hint.
    """

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        with _usage_in_one_line(parent):
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        with _usage_in_one_line(ctx):
            return super().invoke(ctx)


def training_options(steps_help: str, lr: float, lr_help: str) -> Callable:
    """``--steps``, ``--batch``, ``--lr`` and ``--eval-every``, with their help."""
    options = [
        click.option(
            "--steps", type=AsciiInt(min=1), default=2000, show_default=True, help=steps_help
        ),
        click.option(
            "--batch",
            type=AsciiInt(min=1),
            default=64,
            show_default=True,
            help="Positions per step.",
        ),
        click.option(
            "--lr",
            type=AsciiFloat(min=0.0),
            default=lr,
            show_default=True,
            metavar="RATE",
            help=lr_help,
        ),
        click.option(
            "--eval-every",
            type=AsciiInt(min=1),
            default=250,
            show_default=True,
            help="Steps between validation and checkpoints.",
        ),
    ]

    def apply(func: Callable) -> Callable:
        for option in reversed(options):
            func = option(func)
        return func

    return apply


def data_dirs_option(help_text: str, required: bool = True, dest: str = "data_dirs") -> Callable:
    """``--data DIR`` (repeatable): existing shard directories written by ``learn data``."""
    return click.option(
        "--data",
        dest,
        multiple=True,
        required=required,
        type=click.Path(exists=True, file_okay=False),
        help=help_text,
    )


def games_per_shard_option(default: int) -> Callable:
    """``--games-per-shard N``: games per shard file, the unit of resuming."""
    return click.option(
        "--games-per-shard",
        type=AsciiInt(min=1),
        default=default,
        show_default=True,
        help="Games per shard file (the unit of resuming).",
    )


class LazyCommands(dict):
    """A group's sub-commands by name, each imported the first time it is asked for: a
    command starts without importing what the others need (``mscsp play`` does not load the
    web stack or the learners). Listing names imports nothing; anything that reads the
    commands themselves (``--help``, ``items()``) imports those it reads.

    Args:
        where: Each name's loader (returns the command).
    """

    def __init__(self, where: dict[str, Callable[[], click.Command]]):
        super().__init__()
        self.where = where

    def _load(self, name: str) -> click.Command | None:
        if not dict.__contains__(self, name) and name in self.where:
            dict.__setitem__(self, name, self.where[name]())
        return dict.get(self, name)

    def get(self, name: str, default: Any = None) -> Any:
        found = self._load(name)
        return default if found is None else found

    def __getitem__(self, name: str) -> click.Command:
        found = self._load(name)
        if found is None:
            raise KeyError(name)
        return found

    def __contains__(self, name: object) -> bool:
        return name in self.where or dict.__contains__(self, name)

    def __iter__(self):
        return iter(sorted(set(self.where) | set(dict.keys(self))))

    def __len__(self) -> int:
        return len(set(self.where) | set(dict.keys(self)))

    def keys(self):
        return list(self)

    def values(self):
        return [self[name] for name in self]

    def items(self):
        return [(name, self[name]) for name in self]
