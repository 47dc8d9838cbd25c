"""Training options shared by the ``learn`` commands that train (dagger, sweep).

Candidates for :mod:`mscsp.cli.options` (``learn train`` declares the same ones) once the
CLI vocabulary is unified.
"""

from __future__ import annotations

from collections.abc import Callable

import click

from .options import FiniteFloat


def training_options(steps_help: str, lr: float, lr_help: str) -> Callable:
    """``--steps``, ``--batch``, ``--lr`` and ``--eval-every``, with their help."""
    options = [
        click.option(
            "--steps", type=click.IntRange(min=1), default=2000, show_default=True, help=steps_help
        ),
        click.option(
            "--batch",
            type=click.IntRange(min=1),
            default=64,
            show_default=True,
            help="Positions per step.",
        ),
        click.option(
            "--lr",
            type=FiniteFloat(0.0),
            default=lr,
            show_default=True,
            metavar="RATE",
            help=lr_help,
        ),
        click.option(
            "--eval-every",
            type=click.IntRange(min=1),
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
