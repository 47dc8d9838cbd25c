"""``mscsp backends``: which counting backends exist and which can run here."""

from __future__ import annotations

import json
from typing import Any

import click

from ..backends import BACKENDS, DEFAULT_BACKEND
from .bench import echo_table
from .options import json_option, reports_errors


def backend_table() -> list[dict[str, Any]]:
    """One row per registered backend: name, availability, version, exactness, extra."""
    rows = []
    for name, cls in BACKENDS.items():
        available = cls.supported()
        rows.append(
            {
                "name": name,
                "available": available,
                "version": cls.version() if available else None,
                "exact": cls.exact,
                "counts": "exact" if cls.exact else "approximate",
                "decides": "search" if cls.decides else "from counts",
                "default": name == DEFAULT_BACKEND,
                "extra": cls.extra,
                "description": cls.description,
            }
        )
    return rows


@click.command("backends")
@json_option
@reports_errors
def backends(as_json: bool) -> None:
    """List the counting backends: available here, version, what they can do.

    'counts' says whether counts are exact or approximate; 'decides' whether the certain
    cells are found by solver search without counting ('search') or read off the counts.
    A missing backend names the pip extra that installs it.
    """
    rows = backend_table()
    if as_json:
        click.echo(json.dumps(rows))
        return
    header = ("name", "available", "version", "counts", "decides", "description")
    lines = [
        (
            row["name"] + (" *" if row["default"] else ""),
            "yes" if row["available"] else f"no: pip install 'mscsp[{row['extra']}]'",
            row["version"] or "-",
            row["counts"],
            row["decides"],
            row["description"],
        )
        for row in rows
    ]
    echo_table("counting backends", header, lines)
    click.echo("\n* default backend; pick a SAT sub-solver with sat:NAME (e.g. sat:cadical195)")
