"""Options shared by several commands (one vocabulary), and the error-to-exit-code wrapper.

The same idea has the same option everywhere: ``--preset`` or ``--size ROWSxCOLS`` with
``--mines``, ``--first-click``, ``--seed``, ``--workers``, ``--executor``, ``--out``, ``--json``,
``--time-limit``, ``--backend``, ``--resume``, ``--progress``, ``--max-solutions``,
``--memory-limit``. Their names, ranges and defaults are written down once in
:mod:`mscsp.cli.vocabulary` (the user guide's table); the factories here make them.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any, NoReturn

import click

from ..backends import BACKENDS, DEFAULT_BACKEND
from ..errors import InvalidInputError, MscspError
from ..game import PRESETS, FirstClick
from ..runtime import interrupts
from ..runtime.executors import EXECUTORS
from .types import AsciiFloat, AsciiInt, SizeType
from .vocabulary import MAX_MEMORY_MB, MAX_TIME_LIMIT

#: Exit code for an interrupted run (Ctrl-C), as shells report SIGINT.
EXIT_INTERRUPTED = 130


def backend_option(
    default: str | None = DEFAULT_BACKEND, help_extra: str = "", help: str | None = None
) -> Callable:
    """``--backend NAME`` with the registry's names (``sat:SUBSOLVER`` style allowed)."""
    return click.option(
        "--backend",
        default=default,
        show_default=default is not None,
        metavar="NAME",
        help=help or f"Counting backend: {', '.join(BACKENDS)}{help_extra}.",
    )


json_option = click.option(
    "--json", "as_json", is_flag=True, default=False, help="Print JSON for machines."
)


def mines_option(help: str = "Mine count of a custom board (with --size).") -> Callable:
    """``--mines N``: a custom board's mine count (or the total of a board text without one)."""
    return click.option("--mines", type=AsciiInt(min=0), default=None, help=help)


def time_limit_option(
    default: float,
    help: str = "Seconds for the whole solve of the board, every stage (0: no limit); "
    "hitting it exits 5.",
) -> Callable:
    """``--time-limit SECONDS`` to solve one board (0: no limit, on every command)."""
    return click.option(
        "--time-limit",
        type=AsciiFloat(min=0.0, max=MAX_TIME_LIMIT),
        default=default,
        show_default=True,
        metavar="SECONDS",
        help=help,
    )


def seeded(default: int = 0, help: str = "Random seed (same seed, same result).") -> Callable:
    """``--seed N``: a whole number >= 0 (NumPy's seeds are)."""
    return click.option(
        "--seed", type=AsciiInt(min=0), default=default, show_default=True, help=help
    )


seed_option = seeded()


def workers_option(
    what: str = "Worker processes", default: int = 1, most: int | None = None
) -> Callable:
    """``--workers N`` (default 1; 0: one per CPU, at most ``most``). Results never depend
    on it."""

    def per_cpu(ctx: click.Context, param: click.Parameter, value: int) -> int:
        value = value or os.cpu_count() or 1
        return value if most is None else min(value, most)

    return click.option(
        "--workers",
        "-w",
        type=AsciiInt(min=0, max=most),
        default=default,
        show_default=True,
        callback=per_cpu,
        help=f"{what} (0: one per CPU); results do not depend on it.",
    )


def memory_limit_option(default: int | None, help: str) -> Callable:
    """``--memory-limit MB`` (0: no limit)."""
    return click.option(
        "--memory-limit",
        type=AsciiInt(min=0, max=MAX_MEMORY_MB),
        default=default,
        show_default=default is not None,
        metavar="MB",
        help=help,
    )


def max_solutions_option(help: str) -> Callable:
    """``--max-solutions N``: the cap on solutions per component (>= 1; none by default)."""
    return click.option(
        "--max-solutions", type=AsciiInt(min=1), default=None, metavar="N", help=help
    )


def out_option(help: str, required: bool = False, **path: Any) -> Callable:
    """``--out PATH``: where the command writes (``path``: click.Path's arguments)."""
    return click.option(
        "--out", type=click.Path(**path), required=required, default=None, help=help
    )


first_move_option = click.option(
    "--first-move",
    default="corner",
    show_default=True,
    help="Where the first click goes: corner, center, random or ROW,COL (counted from 0).",
)


executor_option = click.option(
    "--executor",
    type=click.Choice(EXECUTORS),
    default="process",
    show_default=True,
    help="Local processes, or Ray (pip install 'mscsp[ray]'); results do not depend on it.",
)


def preset_option(default_help: str = "", help: str | None = None) -> Callable:
    """``--preset NAME`` from the game's presets."""
    return click.option(
        "--preset",
        type=click.Choice(list(PRESETS)),
        default=None,
        help=help
        or f"Board preset: {', '.join(f'{k} {r}x{c}/{m}' for k, (r, c, m) in PRESETS.items())}"
        f"{default_help}.",
    )


size_option = click.option(
    "--size",
    type=SizeType(),
    default=None,
    metavar="ROWSxCOLS",
    help="Custom board size ROWSxCOLS (rows first, e.g. 16x30), with --mines.",
)


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


def first_click_option(default: str = FirstClick.SAFE.value) -> Callable:
    """``--first-click safe|opening|any``: what the first click is guaranteed."""
    return click.option(
        "--first-click",
        type=click.Choice([f.value for f in FirstClick]),
        default=default,
        show_default=True,
        help="First-click rule: a safe cell, an opening (cell and neighbours safe), or none.",
    )


def resume_option(what: str) -> Callable:
    """``--resume``: continue the interrupted run recorded at ``--out``."""
    return click.option(
        "--resume", is_flag=True, default=False, help=f"Continue the {what} recorded at --out."
    )


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
