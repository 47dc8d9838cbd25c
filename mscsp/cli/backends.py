"""``mscsp backends``: every estimator (counting backends, approximate and learned ones),
which can run here, and what each is."""

from __future__ import annotations

import json
from typing import Any

import click

from ..backends import BACKENDS
from ..estimators import DEFAULT_ESTIMATOR, estimator_kinds
from .bench import echo_table
from .options import reports_errors
from .vocabulary import shared_options

shared = shared_options("backends")


def backend_table() -> list[dict[str, Any]]:
    """One row per registered estimator: name, family, availability, version, exactness.

    Counting backends also say how they count and decide (``counts``, ``decides``); the
    other estimators have ``None`` there.
    """
    rows = []
    for name, kind in estimator_kinds().items():
        available = kind.available()
        cls = BACKENDS.get(name)
        rows.append(
            {
                "name": name,
                "family": kind.family,
                "available": available,
                "version": cls.version() if cls is not None and available else None,
                "exact": kind.exact,
                "counts": None if cls is None else ("exact" if cls.exact else "approximate"),
                "decides": None if cls is None else ("search" if cls.decides else "from counts"),
                "batches": kind.batches,
                "arg": kind.arg or None,
                "default": name == DEFAULT_ESTIMATOR,
                "extra": kind.extra,
                "description": kind.description,
            }
        )
        if name == "cpmpy" and available:
            from ..backends.cpm import solver_names

            rows[-1]["solvers"] = list(solver_names())
    return rows


@click.command("backends")
@shared("--json")
@reports_errors
def backends(as_json: bool) -> None:
    """List every backend --backend takes: the counting backends (exact, or approximate
    counts), the approximate estimators and the learned models, available here or not.

    'family' is exact, approximate or learned; 'decides' says whether a counting backend
    finds the certain cells by solver search ('search') or reads them off the counts. A
    missing one names the pip extra that installs it; NAME:ARG passes ARG (a SAT solver,
    a number of samples, a checkpoint path).
    """
    rows = backend_table()
    if as_json:
        click.echo(json.dumps(rows))
        return
    header = ("name", "family", "available", "version", "decides", "description")
    lines = [
        (
            row["name"]
            + (f":{row['arg']}" if row["arg"] and row["counts"] is None else "")
            + (" *" if row["default"] else ""),
            row["family"],
            "yes" if row["available"] else f"no: pip install 'mscsp[{row['extra']}]'",
            row["version"] or "-",
            row["decides"] or "-",
            row["description"],
        )
        for row in rows
    ]
    echo_table("backends: every estimator of mine probabilities", header, lines)
    cpmpy = next((row for row in rows if "solvers" in row), None)
    solvers = ""
    if cpmpy is not None:
        from ..backends.cpm import solvers_summary

        solvers = f" (here: {solvers_summary()})"
    click.echo(
        "\n* default backend. sat:NAME picks a SAT sub-solver (e.g. sat:cadical195), "
        f"cpmpy:NAME a CPMpy solver{solvers}, external:COMMAND any counter program that "
        "reads the competition's CNF (external alone: mscsp's own), sampler:N and "
        "csp-limited:N their sample sizes, learner:PATH a checkpoint "
        "(learner:default: the shipped model)"
    )
