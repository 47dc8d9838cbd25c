"""The options every command shares, written down once: name, meaning, range, default, and
the commands that take each.

The table of "Options shared by every command" in ``docs/user-guide.md`` is
:func:`markdown_table`'s output, and ``tests/test_cli_vocabulary.py`` walks every command of
``mscsp`` and checks each option against :data:`VOCABULARY`: an option of this name on a
command not listed, or with another range or default than its row says, fails the test.
Where a command's default must differ, its row says so and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import click

from ..game import PRESETS

#: Largest ``--time-limit`` (seconds, about 11.6 days): every clock adds it to its start.
MAX_TIME_LIMIT = 1_000_000.0

#: Largest ``--memory-limit`` (megabytes: a terabyte).
MAX_MEMORY_MB = 1_000_000

#: Most ``serve --workers``: each is a process that may hold ``--memory-limit`` megabytes.
MAX_SERVE_WORKERS = 64

_SAME: Any = object()  # a command's default or range that is the row's own


@dataclass(frozen=True)
class Usage:
    """How one command takes a shared option, where it differs from the row's common form.

    Attributes:
        default: The command's default (the row's when not given).
        kind: Its range as :func:`describe` writes it (the row's when not given).
        shown: How the docs write the default, where the value alone does not tell
            (``None`` in code for "computed at run time").
        why: Why the command differs.
    """

    default: Any = _SAME
    kind: str | None = None
    shown: str | None = None
    why: str = ""


@dataclass(frozen=True)
class SharedOption:
    """One row of the vocabulary.

    Attributes:
        name: The long option (``--time-limit``).
        metavar: Its value as the docs write it (``SECONDS``; empty for a flag).
        meaning: What it means, the same on every command.
        kind: Its type and range as :func:`describe` writes it.
        default: The common default.
        commands: Every command that takes it (``"learn data"``), with how it differs.
        note: A sentence for the docs (what else to know).
    """

    name: str
    metavar: str
    meaning: str
    kind: str
    default: Any
    commands: dict[str, Usage] = field(default_factory=dict)
    note: str = ""

    def default_for(self, command: str) -> Any:
        """The default ``command`` must have."""
        usage = self.commands[command]
        return self.default if usage.default is _SAME else usage.default

    def kind_for(self, command: str) -> str:
        """The range ``command`` must take."""
        return self.commands[command].kind or self.kind


def _same(*commands: str) -> dict[str, Usage]:
    return {command: Usage() for command in commands}


_PRESETS = "|".join(PRESETS)

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
            f"number 0 to {MAX_TIME_LIMIT:.0f}",
            0.0,
            {
                **_same("probs", "sample", "replay"),
                "bench": Usage(10.0, why="a corpus must not stall on one position"),
                "export": Usage(60.0, why="a position past it is skipped and the export goes on"),
                "serve": Usage(10.0, why="an interactive server must answer every request"),
            },
        ),
        SharedOption(
            "--backend",
            "NAME",
            "the counting backend that solves the boards (`mscsp backends` lists them); "
            "probs and bench also take any estimator it lists, flagged approximate",
            "text",
            "dss",
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
        ),
        SharedOption(
            "--seed",
            "N",
            "every random draw is seeded: the same seed gives the same result",
            "integer >= 0",
            0,
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
                "learn eval": Usage(
                    1_000_000, why="held out from the training games, whose seeds start at 0"
                ),
            },
        ),
        SharedOption(
            "--workers",
            "N",
            "worker processes (`-w`), 0 for one per CPU; results never depend on it",
            "integer >= 0",
            1,
            {
                **_same("play", "replay", "learn data", "learn train", "learn dagger"),
                "serve": Usage(
                    2,
                    kind=f"integer 0 to {MAX_SERVE_WORKERS}",
                    why="long solves at once for one person's page; each may hold --memory-limit",
                ),
            },
        ),
        SharedOption(
            "--executor",
            "process|ray",
            "where the workers run: local processes, or Ray tasks (`pip install "
            "'mscsp[ray]'`; a cluster already initialised, else a local one of --workers "
            "CPUs); results, logs and shards are the same either way",
            "one of process|ray",
            "process",
            _same("play", "replay", "learn data", "learn dagger"),
        ),
        SharedOption(
            "--json",
            "",
            "the result as JSON on standard output, for machines (progress and notes go to "
            "standard error)",
            "flag",
            False,
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
        ),
        SharedOption(
            "--out",
            "PATH",
            "where the command writes: a log, a file, a folder or a run directory",
            "path",
            None,
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
            "flag",
            False,
            _same("play", "bench", "learn system", "replay"),
            note="learn data, train, dagger, sweep and ablation resume when the same command "
            "runs again",
        ),
        SharedOption(
            "--progress",
            "",
            "`--progress/--no-progress`: a progress bar with the rate and the time left on "
            "standard error; by default on when standard error is a terminal and --json is "
            "not given (standard output is never touched)",
            "on/off flag",
            None,
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
        ),
        SharedOption(
            "--games",
            "N",
            "games to play",
            "integer >= 0",
            0,
            {
                "play": Usage(None, shown="1000, or the resumed run's"),
                "bench": Usage(why="games are an extra: each estimator plays them"),
                "learn data": Usage(1000, kind="integer >= 1", why="a shard directory needs games"),
                "learn eval": Usage(200, why="per preset"),
                "learn sweep": Usage(why="per preset; 0: accuracy only"),
                "learn dagger": Usage(500, kind="integer >= 1", why="per round: its data"),
                "learn ablation": Usage(1000, kind="integer >= 1", why="per point of the curves"),
                "learn system": Usage(
                    None, kind="integer >= 1", shown="the system's own", why="a training's games"
                ),
            },
        ),
        SharedOption(
            "--preset",
            _PRESETS,
            "a board preset: " + ", ".join(f"{k} {r}x{c}/{m}" for k, (r, c, m) in PRESETS.items()),
            f"one of {_PRESETS}",
            None,
            {
                "play": Usage(shown="beginner, unless --size"),
                "learn dagger": Usage(shown="beginner, unless --size"),
                "generate": Usage(shown="beginner, unless --size"),
                "learn ablation": Usage(shown="beginner"),
                "learn system": Usage(shown="the system's own board"),
                "bench": Usage(),
                "export": Usage(),
                "learn data": Usage(),
                "learn eval": Usage(
                    kind=f"one of {_PRESETS}, repeatable", shown="all three", why="one run each"
                ),
                "learn sweep": Usage(kind=f"one of {_PRESETS}, repeatable", why="one run each"),
            },
        ),
        SharedOption(
            "--size",
            "ROWSxCOLS",
            "a custom board, rows first, with --mines (`--size 16x30 --mines 99`)",
            "ROWSxCOLS",
            None,
            {
                **_same("play", "learn data", "learn dagger", "learn system", "generate"),
                "corpus": Usage(kind="ROWSxCOLS[,...]", why="a comma list: one sweep per size"),
            },
        ),
        SharedOption(
            "--mines",
            "N",
            "the mine count: of a custom board (with --size), or the total of a board text "
            "without a header",
            "integer >= 0",
            None,
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
            "one of safe|opening|any",
            "safe",
            {
                **_same("play", "learn data", "learn dagger"),
                "generate": Usage(
                    "opening",
                    why="a no-guess board starts from an opening, as other generators' do; "
                    "any is refused",
                ),
            },
        ),
        SharedOption(
            "--first-move",
            "corner|center|random|R,C",
            "where the first click goes (ROW,COL counted from 0)",
            "text",
            "corner",
            _same("play", "learn data", "learn dagger", "generate"),
        ),
        SharedOption(
            "--no-guess",
            "",
            "boards that need no guess from the first click, laid with a certificate",
            "flag",
            False,
            _same("generate", "play"),
            note="see docs/no-guess.md; generate requires it, the only kind it lays; play "
            "plays game i on the board laid from game i's seed",
        ),
        SharedOption(
            "--max-solutions",
            "N",
            "the cap on solutions per component: those an enumerating backend lists (bench), "
            "those the csp-limited player samples (play)",
            "integer >= 1",
            None,
            {
                "bench": Usage(shown="no cap"),
                "play": Usage(shown="the strategy's, csp-limited: 100"),
            },
        ),
        SharedOption(
            "--memory-limit",
            "MB",
            "megabytes a worker may allocate beyond its start (0: no limit); past it, bench "
            "records a memory out and serve answers the memory-limit error",
            f"integer 0 to {MAX_MEMORY_MB}",
            None,
            {
                "bench": Usage(shown="4096, or half the machine's memory if less"),
                "serve": Usage(1024, why="per request, so that one board cannot take the machine"),
            },
        ),
    )
}


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
        if usage.kind:
            value += f", range {usage.kind}"
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
