"""``mscsp verify``: checks every certificate of a boards file, independently of the
generator (:mod:`mscsp.noguess.verify`)."""

from __future__ import annotations

import json

import click

from ..noguess.verify import CertificateError, verify_file
from .options import reports_errors
from .vocabulary import shared_options

shared = shared_options("verify")


@click.command()
@click.argument("path", type=click.Path(dir_okay=False))
@shared("--json")
@reports_errors
def verify(path: str, as_json: bool) -> None:
    """Check every board's certificate in the boards file PATH, step by step.

    Each step is re-derived by a small search of its own: its cells must be forced by the
    numbers it cites (and the mine total where it says so), and after the last step every
    safe cell must be open. One line per board; a step too large to check (more than 12
    numbers or 30 covered cells) fails. Exit codes: 0 every certificate holds, 1 one or
    more fail (or a board line is malformed), 2 the file cannot be read or has no header.
    """
    verdicts = []
    for verdict in verify_file(path):
        verdicts.append(verdict)
        if not as_json:
            click.echo(("ok    " if verdict.ok else "FAIL  ") + verdict.text)
    failed = sum(not v.ok for v in verdicts)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "file": path,
                    "boards": len(verdicts),
                    "passed": len(verdicts) - failed,
                    "failed": failed,
                    "verdicts": [
                        {"line": v.line, "board": v.board, "ok": v.ok, "text": v.text}
                        for v in verdicts
                    ],
                }
            )
        )
    else:
        click.echo(f"{len(verdicts) - failed} of {len(verdicts)} certificates hold")
    if failed:
        raise CertificateError(f"{failed} of {len(verdicts)} certificates fail")
