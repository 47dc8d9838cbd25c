"""The ``mscsp`` command: a click group with one module per sub-command, each imported only
when it runs (see :class:`~mscsp.cli.options.LazyCommands`)."""

from __future__ import annotations

from importlib import import_module

import click

from .. import __version__
from .options import LazyCommands, OneLineUsageGroup


def _command(module: str, name: str | None = None):
    """The loader of the command ``name`` (default: the module's last word) of
    ``mscsp.cli.<module>``."""
    return lambda: getattr(import_module(f"{__name__}.{module}"), name or module)


def _learn() -> click.Group:
    learn = _command("learn")()
    learn.add_command(_command("learn_ablation", "ablation")())
    learn.add_command(_command("learn_dagger", "dagger")())
    learn.add_command(_command("learn_sweep", "sweep")())
    learn.add_command(_command("learn_seeds", "system")())
    return learn


@click.group(cls=OneLineUsageGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mscsp")
def main() -> None:
    """Minesweeper as a constraint problem: exact probabilities, solvers, players, learners."""


main.commands = LazyCommands(
    {
        "probs": _command("probs"),
        "sample": _command("sample"),
        "backends": _command("backends"),
        "bench": _command("bench"),
        "export": _command("export"),
        "corpus": _command("corpus"),
        "learn": _learn,
        "play": _command("play"),
        "serve": _command("serve"),
        "replay": _command("replay"),
        "generate": _command("generate"),
        "verify": _command("verify"),
    }
)
