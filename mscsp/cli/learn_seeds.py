"""``mscsp learn system NAME``: train one of the seed papers' learned players.

Registered on the ``learn`` group. The trainers live in ``learners`` (see
:mod:`learners.registry`) and are imported only when a training runs. Each writes its
artefact (and a JSON file of its settings and timing) to ``--out``; the shipped artefacts
in ``learners/weights`` were made with ``--out learners/weights`` and the defaults.
"""

from __future__ import annotations

import json
import sys

import click

from ..errors import InvalidInputError
from ..game import Game
from .options import board_size, reports_errors
from .play import parse_options
from .vocabulary import shared_options

shared = shared_options("learn system")


@click.command("system")
@click.argument("name", required=False)
@click.option(
    "--list", "list_systems", is_flag=True, default=False, help="List the systems and exit."
)
@shared("--out", type=click.Path(file_okay=False), help="Output directory [default: runs/NAME].")
@shared("--preset", help="Train on this preset.")
@shared("--size")
@shared("--mines", help="Custom mine count.")
@shared(
    "--games",
    help="Training games or episodes [default: the system's own, see docs/seeds.md].",
)
@click.option(
    "--option",
    "-o",
    "trainer_options",
    multiple=True,
    metavar="KEY=VALUE",
    help="Trainer option, e.g. -o algorithm=initial for q-simple (repeatable).",
)
@shared("--seed")
@shared("--resume", help="Continue an interrupted training in --out.")
@click.option(
    "--convert",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="FILE",
    help="Instead of training: rewrite a classic system's pickled model FILE (an earlier "
    "release's) into --out in the skops format, which cannot run code when loaded. Needs "
    "--trust-pickle.",
)
@click.option(
    "--trust-pickle",
    is_flag=True,
    default=False,
    help="Let --convert unpickle FILE: only for a file whose author you trust (a pickle runs "
    "any code it names).",
)
@shared("--json")
@reports_errors
def system(
    name: str | None,
    list_systems: bool,
    out: str | None,
    preset: str | None,
    size: tuple[int, int] | None,
    mines: int | None,
    games: int | None,
    trainer_options: tuple[str, ...],
    seed: int,
    resume: bool,
    convert: str | None,
    trust_pickle: bool,
    as_json: bool,
) -> None:
    """Trains learned system NAME of the seed papers (progress on stderr; names: --list).

    The list shows every learned system, ``learner`` (the Flax networks, trained with
    mscsp learn data/train/dagger) first.

    The default board is the paper's; --preset or --size/--mines trains on another.
    Then play it with: mscsp play --strategy NAME -o weights=OUT/FILE.
    """
    # Imported here: loading mscsp.cli never imports the learners package.
    from learners.registry import SYSTEMS, get_system

    if list_systems or name is None:
        for s in SYSTEMS.values():
            mark = "" if s.supported() else f"  (needs mscsp[{s.extra}])"
            origin = f"seed {s.paper}" if s.paper else "mscsp"
            click.echo(f"{s.name:<15} {s.family:<10} {origin:<16} {s.summary}{mark}")
        return
    if convert is not None:
        written = _convert(name, convert, out or f"runs/{name}", trust_pickle)
        click.echo(json.dumps({"converted": written}) if as_json else f"{name}: wrote {written}")
        return
    board = None  # the system's own board unless one is given
    if preset or size or mines is not None:
        rows, cols, total, _ = board_size(preset, size, mines, default=None)
        Game(rows, cols, total)  # refuses a board that cannot be played, before training
        board = (rows, cols, total)
    trainer = get_system(name).load("trainer")
    out = out or f"runs/{name}"

    def log(message: str) -> None:
        click.echo(message, err=True)

    options = parse_options(trainer_options)
    try:
        result = trainer(
            out, seed=seed, games=games, board=board, resume=resume, log=log, **options
        )
    except TypeError as exc:
        raise InvalidInputError(f"{name}: {exc}") from None
    if as_json:
        click.echo(json.dumps(result, default=str))
    else:
        click.echo(f"{name}: trained into {out}", file=sys.stdout)


def _convert(name: str, source: str, out: str, trust_pickle: bool) -> str:
    """Rewrites the pickled model ``source`` of classic system ``name`` as ``out/STEM.skops``.

    Raises:
        InvalidInputError: No ``--trust-pickle``, a system that is not a classic one, or a
            file that is not such a model.
    """
    from pathlib import Path

    from learners.artefacts import MODEL_SUFFIX, dump_model, load_model
    from learners.registry import get_system

    system = get_system(name)
    if system.family != "classic":
        raise InvalidInputError(f"--convert rewrites classic systems' models, not {name!r}'s")
    if not trust_pickle:
        raise InvalidInputError(
            "--convert unpickles FILE, which runs any code it names: add --trust-pickle only "
            "if you trust its author"
        )
    system.require()
    model = load_model(Path(source), name, trust_pickle=True)
    target = Path(out) / (Path(source).stem + MODEL_SUFFIX)
    dump_model(target, model)
    return str(target)
