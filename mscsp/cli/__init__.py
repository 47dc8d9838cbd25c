"""The ``mscsp`` command: a click group with one module per sub-command."""

from __future__ import annotations

import click

from .. import __version__
from .backends import backends
from .bench import bench
from .corpus import corpus
from .export import export
from .learn import learn
from .learn_ablation import ablation
from .learn_dagger import dagger
from .learn_seeds import system
from .learn_sweep import sweep
from .options import OneLineUsageGroup
from .play import play
from .probs import probs
from .replay import replay
from .sample import sample
from .serve import serve


@click.group(cls=OneLineUsageGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mscsp")
def main() -> None:
    """Minesweeper as a constraint problem: exact probabilities, solvers, players, learners."""


main.add_command(probs)
main.add_command(sample)
main.add_command(backends)
main.add_command(bench)
main.add_command(export)
main.add_command(corpus)
learn.add_command(ablation)
learn.add_command(dagger)
learn.add_command(sweep)
learn.add_command(system)
main.add_command(learn)
main.add_command(play)
main.add_command(serve)
main.add_command(replay)
