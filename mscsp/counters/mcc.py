"""A model counter program in the Model Counting Competition's format.

``python -m mscsp.counters.mcc [--counter ganak|d4] [--legacy] FILE.cnf`` counts the
DIMACS CNF file exactly (projected on its ``c p show`` variables for a ``c t pmc`` file)
with Ganak (``pyganak``, the default) or D4 (``py_d4``), through the readers of
:mod:`mscsp.export.check`, and prints the answer lines of the current format::

    s SATISFIABLE
    c s type pmc
    c s log10-estimate 2.2041
    c s exact arb int 160

or, with ``--legacy``, the older single line ``s mc 160``. A file it cannot read is
reported on standard error with mscsp's exit codes (2: bad input, 4: counter not
installed), and no answer line is printed.
"""

from __future__ import annotations

import argparse
import math
import sys

from ..backends.native import quiet_stdout
from ..bigint import to_decimal
from ..errors import MscspError

#: The in-process counters this program can run.
COUNTERS = ("ganak", "d4")


def answer(count: int, kind: str, legacy: bool = False) -> list[str]:
    """The answer lines for an exact ``count`` of a ``kind`` (``mc``, ``pmc``) instance."""
    if legacy:
        return [f"s mc {to_decimal(count)}"]
    status = "s SATISFIABLE" if count else "s UNSATISFIABLE"
    estimate = f"{math.log10(count):.4f}" if count else "-inf"
    return [
        status,
        f"c s type {kind}",
        f"c s log10-estimate {estimate}",
        f"c s exact arb int {to_decimal(count)}",
    ]


def main(argv: list[str] | None = None) -> int:
    """Counts one file and prints the answer; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m mscsp.counters.mcc", description=__doc__)
    parser.add_argument("file", help="DIMACS CNF file (MCC format)")
    parser.add_argument("--counter", choices=COUNTERS, default=COUNTERS[0])
    parser.add_argument("--legacy", action="store_true", help="print 's mc N' only")
    args = parser.parse_args(argv)
    from ..export.check import d4_count, ganak_count
    from ..formats.dimacs import read_cnf

    try:
        kind = read_cnf(args.file).kind
        # Ganak and D4 print progress lines on descriptor 1: only the answer goes there.
        with quiet_stdout():
            count = (ganak_count if args.counter == "ganak" else d4_count)(args.file)
    except MscspError as exc:
        print(f"c o error: {exc}", file=sys.stderr)
        return exc.exit_code
    print("\n".join(answer(count, kind, args.legacy)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
