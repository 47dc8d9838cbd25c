"""The options commands share, declared once: name, meaning, range, default, the commands
that take each, and how ``--help`` shows it.

A command builds its shared options from this table by name (:func:`shared_options`): it
says where each stands among its own options and, where its words must differ, its help;
the range and the default are the table's, the command's own default where its row says
so and why. The table of "Options shared by every command" in ``docs/user-guide.md`` is
:func:`markdown_table`'s output, and ``tests/test_cli_vocabulary.py`` walks every command of
``mscsp`` and checks each option against :data:`VOCABULARY`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import click

from ..backends import BACKENDS, DEFAULT_BACKEND
from ..game import PRESETS, FirstClick
from ..runtime.executors import EXECUTORS
from ..screen.obr import MODEL_ENV
from .types import AsciiFloat, AsciiInt, ListOf, SizeType

#: Largest ``--time-limit`` (seconds, about 11.6 days): every clock adds it to its start.
MAX_TIME_LIMIT = 1_000_000.0

#: Largest ``--memory-limit`` (megabytes: a terabyte).
MAX_MEMORY_MB = 1_000_000

#: Most ``serve --workers``: each is a process that may hold ``--memory-limit`` megabytes.
MAX_SERVE_WORKERS = 64

_SAME: Any = object()  # a command's default that is the row's own


@dataclass(frozen=True)
class Usage:
    """How one command takes a shared option, where it differs from the row's common form.

    Attributes:
        default: The command's default (the row's when not given).
        type: Its range, where it differs from the row's (``None``: the row's).
        multiple: Whether it may be given more than once (one run each).
        shown: How the docs write the default, where the value alone does not tell
            (``None`` in code for "computed at run time").
        why: Why the command differs.
    """

    default: Any = _SAME
    type: click.ParamType | None = None
    multiple: bool = False
    shown: str | None = None
    why: str = ""


def _per_cpu(ctx: click.Context, param: click.Parameter, value: int) -> int:
    """``--workers 0``: one per CPU, at most the range's top."""
    value = value or os.cpu_count() or 1
    most = getattr(param.type, "max", None)
    return value if most is None else min(value, most)


@dataclass(frozen=True)
class SharedOption:
    """One row of the vocabulary: what the docs say of an option, and its click form.

    Attributes:
        name: The long option (``--time-limit``).
        metavar: Its value as the docs write it (``SECONDS``; empty for a flag).
        meaning: What it means, the same on every command.
        type: Its click type, whose range the docs write (``None``: a flag).
        default: The common default.
        help: Its ``--help`` line where a command gives none of its own.
        commands: Every command that takes it (``"learn data"``), with how it differs.
        note: A sentence for the docs (what else to know).
        decls: Its click declarations where more than the name (a short flag, the
            parameter's name, the off switch).
        shows_metavar: Whether ``--help`` writes the value as :attr:`metavar` where the
            command takes the row's type (else as click does: ``INTEGER RANGE``, the
            choices).
        callback: click's callback, where the value given is not the value used.
    """

    name: str
    metavar: str
    meaning: str
    type: click.ParamType | None
    default: Any
    help: str
    commands: dict[str, Usage] = field(default_factory=dict)
    note: str = ""
    decls: tuple[str, ...] = ()
    shows_metavar: bool = False
    callback: Callable[[click.Context, click.Parameter, Any], Any] | None = None

    def default_for(self, command: str) -> Any:
        """The default ``command`` must have."""
        usage = self.commands[command]
        return self.default if usage.default is _SAME else usage.default

    @property
    def kind(self) -> str:
        """Its common type and range as :func:`describe` writes them."""
        return describe(click.Option(self._decls(), **self._form(None)))

    def kind_for(self, command: str) -> str:
        """The range ``command`` must take."""
        return describe(click.Option(self._decls(), **self._form(command)))

    def option(self, command: str, *decls: str, more: str = "", **form: Any) -> Callable:
        """The click option of ``command``, as a decorator: the table's range and
        default for it, its help line.

        Args:
            command: The command, as the rows name it (``"learn data"``).
            decls: Declarations it adds: a short flag, another parameter name.
            more: Words it adds to the common help, before its full stop.
            form: click's arguments it gives its own: its ``help``, ``required``, a
                ``metavar``, the checks of a path (``type=click.Path(...)``).

        Raises:
            LookupError: The row does not list ``command``.
        """
        if command not in self.commands:
            raise LookupError(f"{command} takes no {self.name}: its row does not list it")
        words = self.help.removesuffix(".") + more + "." if more else self.help
        return click.option(
            *self._decls(), *decls, **{"help": words, **self._form(command), **form}
        )

    def _decls(self) -> list[str]:
        return list(self.decls or (self.name,))

    def _form(self, command: str | None) -> dict[str, Any]:
        """click's arguments for ``command`` (``None``: the common form)."""
        usage = Usage() if command is None else self.commands[command]
        default = self.default if command is None else self.default_for(command)
        if self.type is None:
            return {"is_flag": True, "default": default}
        form: dict[str, Any] = {
            "type": usage.type or self.type,
            "default": default,
            "multiple": usage.multiple,
            "callback": self.callback,
        }
        if default is not None:
            form["show_default"] = True
        if self.shows_metavar and usage.type is None:  # (another type shows its own)
            form["metavar"] = self.metavar
        return form


def _same(*commands: str) -> dict[str, Usage]:
    return {command: Usage() for command in commands}


_PRESETS = "|".join(PRESETS)
_BOARDS = ", ".join(f"{k} {r}x{c}/{m}" for k, (r, c, m) in PRESETS.items())

#: Every shared option, in the order of the user guide's table.
VOCABULARY: dict[str, SharedOption] = {
    option.name: option
    for option in (
        SharedOption(
            "--time-limit",
            "SECONDS",
            "seconds to solve one board, every stage included (the board given; each position "
            "of a replay, a corpus or an export; each request of the server); 0: no limit, "
            "everywhere. Hitting it exits 5 (bench records a timeout, export skips the "
            "position, serve answers the solver-limit error)",
            AsciiFloat(min=0.0, max=MAX_TIME_LIMIT),
            0.0,
            "Seconds for the whole solve of the board, every stage (0: no limit); hitting it "
            "exits 5.",
            {
                **_same("probs", "sample", "replay"),
                "bench": Usage(10.0, why="a corpus must not stall on one position"),
                "export": Usage(60.0, why="a position past it is skipped and the export goes on"),
                "serve": Usage(10.0, why="an interactive server must answer every request"),
            },
            shows_metavar=True,
        ),
        SharedOption(
            "--backend",
            "NAME",
            "the counting backend that solves the boards (`mscsp backends` lists them); "
            "probs and bench also take any estimator it lists, flagged approximate",
            click.STRING,
            DEFAULT_BACKEND,
            f"Counting backend: {', '.join(BACKENDS)}.",
            {
                **_same("probs", "replay", "learn data", "learn dagger"),
                "sample": Usage("mdd", why="only the mdd backend's decision diagrams draw layouts"),
                "bench": Usage("all", why="bench compares backends: a comma list, or all"),
                "play": Usage(
                    None,
                    shown="the strategy's, dss",
                    why="passed to the strategy; strategies that count boards take it",
                ),
            },
            shows_metavar=True,
        ),
        SharedOption(
            "--seed",
            "N",
            "every random draw is seeded: the same seed gives the same result",
            AsciiInt(min=0),
            0,
            "Random seed (same seed, same result).",
            {
                **_same(
                    "play",
                    "sample",
                    "bench",
                    "export",
                    "corpus",
                    "learn data",
                    "learn train",
                    "learn dagger",
                    "learn sweep",
                    "learn ablation",
                    "learn system",
                    "generate",
                ),
                # (learners.nets.evaluate.EVAL_SEED, written here so that the CLI need not
                # import JAX)
                "learn eval": Usage(
                    1_000_000, why="held out from the training games, whose seeds start at 0"
                ),
            },
        ),
        SharedOption(
            "--workers",
            "N",
            "worker processes (`-w`), 0 for one per CPU; results never depend on it",
            AsciiInt(min=0),
            1,
            "Worker processes (0: one per CPU); results do not depend on it.",
            {
                **_same("play", "bench", "replay", "learn data", "learn train", "learn dagger"),
                "serve": Usage(
                    2,
                    type=AsciiInt(min=0, max=MAX_SERVE_WORKERS),
                    why="long solves at once for one person's page; each may hold --memory-limit",
                ),
            },
            decls=("--workers", "-w"),
            callback=_per_cpu,
        ),
        SharedOption(
            "--executor",
            "process|ray",
            "where the workers run: local processes, or Ray tasks (`pip install "
            "'mscsp[ray]'`; a cluster already initialised, else a local one of --workers "
            "CPUs); results, logs and shards are the same either way",
            click.Choice(EXECUTORS),
            "process",
            "Local processes, or Ray (pip install 'mscsp[ray]'); results do not depend on it.",
            _same("play", "bench", "replay", "learn data", "learn dagger"),
        ),
        SharedOption(
            "--json",
            "",
            "the result as JSON on standard output, for machines (progress and notes go to "
            "standard error)",
            None,
            False,
            "Print JSON for machines.",
            _same(
                "probs",
                "sample",
                "backends",
                "bench",
                "export",
                "corpus",
                "replay",
                "play",
                "learn data",
                "learn train",
                "learn eval",
                "learn dagger",
                "learn sweep",
                "learn ablation",
                "learn system",
                "generate",
                "verify",
            ),
            note="every command but serve",
            decls=("--json", "as_json"),
        ),
        SharedOption(
            "--out",
            "PATH",
            "where the command writes: a log, a file, a folder or a run directory",
            click.Path(),
            None,
            "",  # (every command says what it writes there)
            {
                **_same(
                    "play",
                    "sample",
                    "bench",
                    "export",
                    "corpus",
                    "learn data",
                    "learn eval",
                    "learn dagger",
                    "learn sweep",
                    "learn ablation",
                    "replay",
                    "generate",
                ),
                "learn train": Usage(shown="runs/MODEL-LABELS"),
                "learn system": Usage(shown="runs/NAME"),
            },
        ),
        SharedOption(
            "--resume",
            "",
            "continue the interrupted run recorded at --out",
            None,
            False,
            "Continue the run recorded at --out.",
            _same("play", "bench", "learn system", "replay"),
            note="learn data, train, dagger, sweep and ablation resume when the same command "
            "runs again",
        ),
        SharedOption(
            "--overwrite",
            "",
            "replace what an earlier run left at --out, where the command otherwise refuses "
            "to write over it or to mix two runs",
            None,
            False,
            "Replace an existing --out file.",
            _same("play", "export", "corpus", "generate"),
            note="export removes only the files its index.jsonl lists",
        ),
        SharedOption(
            "--progress",
            "",
            "`--progress/--no-progress`: a progress bar with the rate and the time left on "
            "standard error; by default on when standard error is a terminal and --json is "
            "not given (standard output is never touched)",
            None,
            None,
            "Progress bar with the rate and the time left on stderr (default: when stderr is "
            "a terminal and --json is not given).",
            _same(
                "play",
                "bench",
                "replay",
                "export",
                "corpus",
                "learn data",
                "learn train",
                "learn dagger",
                "generate",
            ),
            decls=("--progress/--no-progress",),
        ),
        SharedOption(
            "--games",
            "N",
            "games to play",
            AsciiInt(min=0),
            0,
            "",  # (every command says which games)
            {
                "play": Usage(None, shown="1000, or the resumed run's"),
                "bench": Usage(why="games are an extra: each estimator plays them"),
                "learn data": Usage(
                    1000, type=AsciiInt(min=1), why="a shard directory needs games"
                ),
                "learn eval": Usage(200, why="per preset"),
                "learn sweep": Usage(why="per preset; 0: accuracy only"),
                "learn dagger": Usage(500, type=AsciiInt(min=1), why="per round: its data"),
                "learn ablation": Usage(1000, type=AsciiInt(min=1), why="per point of the curves"),
                "learn system": Usage(
                    None,
                    type=AsciiInt(min=1),
                    shown="the system's own",
                    why="a training's games",
                ),
            },
        ),
        SharedOption(
            "--preset",
            _PRESETS,
            "a board preset: " + _BOARDS,
            click.Choice(list(PRESETS)),
            None,
            f"Board preset: {_BOARDS}.",
            {
                "play": Usage(shown="beginner, unless --size"),
                "learn dagger": Usage(shown="beginner, unless --size"),
                "generate": Usage(shown="beginner, unless --size"),
                "learn ablation": Usage(shown="beginner"),
                "learn system": Usage(shown="the system's own board"),
                "bench": Usage(),
                "export": Usage(),
                "learn data": Usage(),
                "learn eval": Usage(multiple=True, shown="all three", why="one run each"),
                "learn sweep": Usage(multiple=True, why="one run each"),
            },
        ),
        SharedOption(
            "--size",
            "ROWSxCOLS",
            "a custom board, rows first, with --mines (`--size 16x30 --mines 99`)",
            SizeType(),
            None,
            "Custom board size ROWSxCOLS (rows first, e.g. 16x30), with --mines.",
            {
                **_same("play", "learn data", "learn dagger", "learn system", "generate"),
                "corpus": Usage(type=ListOf(SizeType()), why="a comma list: one sweep per size"),
            },
            shows_metavar=True,
        ),
        SharedOption(
            "--mines",
            "N",
            "the mine count: of a custom board (with --size), or the total of a board text "
            "without a header",
            AsciiInt(min=0),
            None,
            "Mine count of a custom board (with --size).",
            _same(
                "probs",
                "sample",
                "export",
                "play",
                "learn data",
                "learn dagger",
                "learn system",
                "generate",
            ),
        ),
        SharedOption(
            "--first-click",
            "safe|opening|any",
            "what the first click is guaranteed: the cell, the cell and its neighbours, nothing",
            click.Choice([f.value for f in FirstClick]),
            FirstClick.SAFE.value,
            "First-click rule: a safe cell, an opening (cell and neighbours safe), or none.",
            {
                **_same("play", "learn data", "learn dagger"),
                "generate": Usage(
                    FirstClick.OPENING.value,
                    why="a no-guess board starts from an opening, as other generators' do; "
                    "any is refused",
                ),
            },
        ),
        SharedOption(
            "--first-move",
            "corner|center|random|R,C",
            "where the first click goes (ROW,COL counted from 0)",
            click.STRING,
            "corner",
            "Where the first click goes: corner, center, random or ROW,COL (counted from 0).",
            _same("play", "learn data", "learn dagger", "generate"),
        ),
        SharedOption(
            "--no-guess",
            "",
            "boards that need no guess from the first click, laid with a certificate",
            None,
            False,
            "",  # (every command says which boards)
            _same("generate", "play"),
            note="see docs/no-guess.md; generate requires it, the only kind it lays; play "
            "plays game i on the board laid from game i's seed",
        ),
        SharedOption(
            "--max-solutions",
            "N",
            "the cap on solutions per component: those an enumerating backend lists (bench), "
            "those the csp-limited player samples (play)",
            AsciiInt(min=1),
            None,
            "",  # (every command says whose solutions)
            {
                "bench": Usage(shown="no cap"),
                "play": Usage(shown="the strategy's, csp-limited: 100"),
            },
            shows_metavar=True,
        ),
        SharedOption(
            "--obr-model",
            "PATH",
            "the screenshot recogniser's model (ms_toollib's params.onnx), named at the "
            "keyboard: a request to serve sends only the image",
            click.Path(dir_okay=False),
            None,
            "The screenshot recogniser's model params.onnx (from ms_toollib's repository); "
            f"default: ${MODEL_ENV}.",
            {
                "probs": Usage(shown=f"${MODEL_ENV}"),
                "serve": Usage(shown=f"${MODEL_ENV}; without either, no screenshot is read"),
            },
            shows_metavar=True,
        ),
        SharedOption(
            "--memory-limit",
            "MB",
            "megabytes a worker and its children may hold resident beyond its start (0: no "
            "limit); past it, bench records a memory out and serve answers the memory-limit "
            "error",
            AsciiInt(min=0, max=MAX_MEMORY_MB),
            None,
            "",  # (every command says whose memory)
            {
                "bench": Usage(shown="4096, or half the machine's memory if less"),
                "serve": Usage(1024, why="per request, so that one board cannot take the machine"),
            },
            shows_metavar=True,
        ),
    )
}


def shared_options(command: str) -> Callable[..., Callable]:
    """``command``'s shared options by name, built from :data:`VOCABULARY`.

    ``shared = shared_options("play")``, then ``@shared("--seed")`` where ``--seed`` stands
    among the command's options; the arguments after the name are
    :meth:`SharedOption.option`'s.
    """

    def shared(name: str, *decls: str, **form: Any) -> Callable:
        return VOCABULARY[name].option(command, *decls, **form)

    return shared


def describe(param: click.Parameter) -> str:
    """An option's type and range in words, as the vocabulary writes them
    (``number 0 to 1000000``, ``integer >= 0``, ``flag``, ``one of a|b``, ``path``)."""
    if isinstance(param, click.Option) and param.is_flag:
        return "on/off flag" if param.secondary_opts else "flag"
    kind = param.type
    if isinstance(kind, click.Choice):
        text = "one of " + "|".join(map(str, kind.choices))
    elif isinstance(kind, click.IntRange | click.FloatRange):
        text = _range(kind)
    elif isinstance(kind, click.Path):
        text = "path"
    elif kind is click.STRING:
        text = "text"
    else:
        text = kind.name
    return text + (", repeatable" if getattr(param, "multiple", False) else "")


def _range(kind: click.IntRange | click.FloatRange) -> str:
    word = "integer" if isinstance(kind, click.IntRange) else "number"
    low, high = kind.min, kind.max
    if low is not None and high is not None and not (kind.min_open or kind.max_open):
        return f"{word} {_bound(low)} to {_bound(high)}"
    parts = []
    if low is not None:
        parts.append(f"{'>' if kind.min_open else '>='} {_bound(low)}")
    if high is not None:
        parts.append(f"{'<' if kind.max_open else '<='} {_bound(high)}")
    return " ".join([word, *parts])


def _bound(value: float) -> str:
    """``1000000``, ``0.5``: a bound as people write it (``:g`` would give ``1e+06``)."""
    return str(int(value)) if float(value).is_integer() else f"{value}"


def shown(value: Any) -> str:
    """A default as the docs write it."""
    if value is None:
        return "none"
    if value is False:
        return "off"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _defaults(option: SharedOption) -> str:
    """The default column: the common default, then each command that differs, and why."""
    text = "auto" if option.name == "--progress" else shown(option.default)
    differ = []
    for command, usage in option.commands.items():
        if usage.default is _SAME and usage.shown is None and not usage.why:
            continue
        value = usage.shown or shown(option.default_for(command))
        if usage.type or usage.multiple:
            value += f", range {option.kind_for(command)}"
        differ.append(f"{command}: {value}" + (f" ({usage.why})" if usage.why else ""))
    return text + ("; " + "; ".join(differ) if differ else "")


def markdown_table() -> str:
    """The user guide's table of shared options (the test checks the guide holds it)."""
    lines = ["| option | meaning | range | default | commands |", "|---|---|---|---|---|"]
    for option in VOCABULARY.values():
        name = f"`{option.name}{' ' + option.metavar if option.metavar else ''}`"
        meaning = option.meaning + (f" ({option.note})" if option.note else "")
        commands = ", ".join(f"`{c}`" for c in option.commands)
        cells = [name, meaning, option.kind, _defaults(option), commands]
        # A '|' inside a cell, code spans included, must be escaped in a Markdown table.
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)
