"""``mscsp replay`` on an archive: many replay files rated in parallel, to a resumable log."""

from __future__ import annotations

import json
import os
from typing import Any

import click

from ..trust.escape import terminal_text
from .progress import Progress


def is_archive(paths: tuple[str, ...], **options: Any) -> bool:
    """Whether ``replay`` rates an archive (a folder, a glob pattern, a ``.evfs`` set, or an
    archive option) rather than printing each file's clicks."""
    if any(options.values()) or any(p.lower().endswith(".evfs") for p in paths):
        return True  # a .evfs set holds many games: an archive too
    return any(os.path.isdir(p) or (not os.path.exists(p) and set("*?[") & set(p)) for p in paths)


def run_archive(
    paths: tuple[str, ...],
    *,
    backend: str,
    time_limit: float | None,
    workers: int,
    executor: str,
    endgame_layouts: int,
    pluck: bool,
    out: str | None,
    resume: bool,
    as_json: bool,
    summary: bool,
    csv_file: str | None,
    summary_json: str | None,
    report: str | None,
    show_progress: bool,
) -> None:
    """Rates every replay under ``paths`` and writes what was asked (see ``replay --help``)."""
    from ..replay.report import summary_text
    from ..replay.run import Outputs, open_run, write_outputs

    outputs = Outputs(csv_file, summary_json, report)
    with (
        open_run(paths, out=out, resume=resume, outputs=outputs) as run,
        Progress(run.total, "games", "rating", show_progress) as bar,
    ):
        bar.skip(len(run.kept))
        for record in run.rate(backend, time_limit, endgame_layouts, pluck, workers, executor):
            if record["status"] != "ok":
                _echo_error(record)
            elif as_json:
                bar.echo(json.dumps(record))
            bar.advance()
    for record in run.missing:
        _echo_error(record)
    result = write_outputs(run.records, outputs)
    if summary or not as_json:
        click.echo(
            json.dumps({"summary": result}) if as_json else terminal_text(summary_text(result))
        )


def _echo_error(record: dict[str, Any]) -> None:
    """A record that is no rated game, on standard error (its names escaped)."""
    click.echo(terminal_text(f"mscsp: error: {record['file']}: {record['reason']}"), err=True)
