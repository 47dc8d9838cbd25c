"""``external:COMMAND``: any model counter program in the Model Counting Competition's format.

Each count is one instance file, exactly what ``mscsp export --format mcc`` writes
(:func:`mscsp.formats.dimacs.write`: DIMACS CNF, ``c t pmc``, ``c p show`` over the cell
variables, "exactly ``k`` mines" through a sequential counter whose auxiliary variables
the cells determine, so even a counter that ignores the projection counts right), given
to ``COMMAND FILE`` in a child process. Its answer line is read in either format:
``c s exact arb int N`` (current) or ``s mc N`` (older); ``s UNSATISFIABLE`` alone is 0.

The counts a component needs, and the queries that give them, the fewest a counter with
no assumptions and no weights allows:

* ``counts[k]``: "the component with exactly ``k`` mines", for ``k = 0..cells``;
* ``cell_counts[g][k]``: the same with the first cell of group ``g`` forced to be a mine
  (one unit clause), for every ``k`` with ``counts[k] > 0`` and every group.

That is ``cells + 1 + groups * totals`` counter runs. Forcing one cell is cheaper than
conditioning on a group's mine number (one query per value) and keeps every query a plain
projected count. The last group's row could be derived from the others (every layout with
``k`` mines has them somewhere: ``sum_g size_g * cell_counts[g][k] = k * counts[k]``), but a
program's answer is checked, not trusted: every row is queried, and the identity, the
binomial bounds and a recount of small components by ``dss`` must hold
(:mod:`mscsp.backends.checked`), or the count is a :class:`~mscsp.errors.WrongCountError`.

Limits: each run is one isolated program (:func:`mscsp.runtime.isolated.run_program`); the
time limit is the component's (a counter still running at it is killed with its whole
process group: :class:`~mscsp.errors.SolverLimitError`); ``memory_mb`` caps each run's data
segment (``RLIMIT_DATA``), and a run that dies of it is a
:class:`~mscsp.errors.MemoryLimitError`. A counter that crashes, prints
no count, an approximate or unreadable one, or contradicts itself is an
:class:`~mscsp.errors.InvalidInputError` naming the command and the file's query: never
a number. Without a command, the counter is mscsp's own (:mod:`mscsp.counters.mcc`, Ganak).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import sys
import tempfile
import time
from itertools import accumulate
from math import comb
from pathlib import Path
from typing import Any

from ..bigint import from_decimal
from ..constraints import Component, ComponentCount
from ..errors import InvalidInputError, MemoryLimitError, WrongCountError
from ..runtime.child import LIMIT, Outcome
from ..runtime.isolated import MAX_OUTPUT, run_program
from ..runtime.memlimit import died_of_memory
from .base import Backend
from .checked import check_count

#: The counter run when the spec names none: mscsp's own program, Ganak inside.
DEFAULT_COMMAND = (sys.executable, "-m", "mscsp.counters.mcc")
#: Exit statuses of a counter that answered (SAT competition style: 10 SAT, 20 UNSAT).
ANSWERED = (0, 10, 20)

_EXACT = re.compile(r"c s exact \S+ int (\d+)")
_LEGACY = re.compile(r"s p?mc (\d+)")
#: What a counter's last error line says when an allocation failed (C++, Python, libc).
_OUT_OF_MEMORY = re.compile(r"bad_alloc|MemoryError|out of memory|cannot allocate", re.I)
_APPROX = re.compile(r"c s (approx|exact \S+ (?!int)\S+)\b")


class ExternalBackend(Backend):
    """Counts through a model counter program, one MCC instance file per count.

    Options:
        command (or ``external:COMMAND``): The program and its arguments (shell words);
            the file's path is added last. Resolved with ``shutil.which``.
        memory_mb: Ceiling on each run's data segment, in MiB (``None``: inherited).
    """

    name = "external"
    extra = "sat"
    description = "any MCC-format model counter program (external:COMMAND), one CNF per count"
    requires = ("pysat.card", "pyganak")
    options_allowed = ("solver", "command", "memory_mb")
    spec_arg = "COMMAND"

    def __init__(self, time_limit: float | None = None, max_solutions: int | None = None, **opts):
        super().__init__(time_limit, max_solutions, **opts)
        text = opts.get("command", opts.get("solver"))
        self.argv = list(DEFAULT_COMMAND) if text is None else _resolve(text)
        memory = opts.get("memory_mb")
        if memory is not None and (
            isinstance(memory, bool) or not isinstance(memory, int) or memory < 1
        ):
            raise InvalidInputError(f"memory_mb must be a whole number of MiB >= 1, got {memory!r}")
        self.memory_mb = memory

    def count(self, component: Component) -> ComponentCount:
        from ..formats.dimacs import write
        from ..formats.instances import cell_system

        end = self._deadline()
        system = cell_system(component, (), None)
        n = component.n_cells
        first = list(accumulate(component.sizes[:-1], initial=1))  # as cell_system numbers
        with tempfile.TemporaryDirectory(prefix="mscsp-external-") as folder:

            def query(mines: int, forced: int | None = None) -> int:
                stated = system
                name = f"k{mines}"
                if forced is not None:  # "exactly 1 of (cell,)": the cell is a mine
                    stated = system._replace(constraints=(*system.constraints, ((forced,), 1)))
                    name += f"-cell{forced}"
                path = Path(folder, name + ".cnf")
                path.write_text(write(stated, mines, title=name).text)
                return self._run(path, end)

            counts = [query(k) for k in range(n + 1)]
            if any(c > comb(n, k) for k, c in enumerate(counts)):  # (before more runs)
                raise WrongCountError(
                    f"{self.who} counted more layouts than {n} cells have: it miscounts"
                )
            totals = [k for k in range(n + 1) if counts[k]]
            cell_counts = [[0] * (n + 1) for _ in first]
            for g, f in enumerate(first):
                for k in totals:
                    cell_counts[g][k] = query(k, f)
        answer = ComponentCount(tuple(counts), tuple(tuple(row) for row in cell_counts))
        check_count(component, answer, self.who)
        return answer

    @property
    def who(self) -> str:
        """The counter in messages: its words, files by their names (an interpreter's name
        alone, ``python3``, would not say which counter; a long folder would hide it)."""
        words = shlex.join(Path(w).name if os.path.isfile(w) else w for w in self.argv)
        return f"counter {words if len(words) <= 80 else words[:77] + '...'!r}"

    def _run(self, path: Path, end: float | None) -> int:
        """The count the counter prints for the file at ``path``, run until ``end``."""
        timeout = None if end is None else end - time.perf_counter()
        if timeout is not None and timeout <= 0:
            raise self._limit_error()
        outcome = self.run_on(path, timeout)
        if outcome.status == LIMIT:
            raise self._limit_error()
        return self.answer(path, outcome.exit_code, outcome.value, outcome.stderr)

    def run_on(self, path: Path, timeout: float | None) -> Outcome:
        """One run of the counter on the file ``path``, isolated, killed after ``timeout``.

        Its files are capped at :data:`~mscsp.runtime.isolated.MAX_OUTPUT` plus twice the
        instance's size: a counter (or a counter's wrapper) may write a copy of its input.
        """
        cap = MAX_OUTPUT + 2 * path.stat().st_size
        return run_program(
            [*self.argv, str(path)], timeout=timeout, memory_mb=self.memory_mb, max_output=cap
        )

    def answer(self, path: Path, code: int, output: bytes, tail: str) -> int:
        """The count a finished run of the counter printed for the file at ``path``.

        Args:
            path: The file it counted (named in errors).
            code: Its exit code (``-N``: killed by signal ``N``).
            output: Its standard output.
            tail: Its last error line.

        Raises:
            MemoryLimitError: It died, under ``memory_mb``, as a program out of memory dies.
            InvalidInputError: Anything but one exact count: an error exit, no count line,
                two different counts, an approximate count.
        """
        lines = output.decode("utf-8", errors="replace").splitlines()
        found = {from_decimal(m[1]) for line in lines if (m := _EXACT.fullmatch(line.strip()))}
        found |= {from_decimal(m[1]) for line in lines if (m := _LEGACY.fullmatch(line.strip()))}
        if not found and any(line.strip() == "s UNSATISFIABLE" for line in lines):
            found = {0}
        if code in ANSWERED and len(found) == 1:
            return found.pop()
        if (
            code not in ANSWERED
            and self.memory_mb is not None
            and (died_of_memory(code) or _OUT_OF_MEMORY.search(tail))
        ):
            raise MemoryLimitError(
                f"{self.who} died ({_ended(code)}) on {path.name} under "
                f"memory_mb={self.memory_mb}: out of memory, most likely"
            )
        if code not in ANSWERED:
            why = f"it stopped with {_ended(code)}"
        elif len(found) > 1:
            why = f"it printed different counts {sorted(found)}"
        elif any(_APPROX.match(line.strip()) for line in lines):
            why = "its count is approximate"
        else:
            why = "it printed no 'c s exact arb int N' or 's mc N' line"
        raise InvalidInputError(
            f"{self.who} gave no exact count of {path.name}: {why}"
            + (f" (stderr: {tail})" if tail else "")
        )


def _resolve(text: Any) -> list[str]:
    """The command's words, its program resolved on ``PATH`` (or as a path)."""
    try:
        words = shlex.split(text) if isinstance(text, str) else []
    except ValueError as exc:
        raise InvalidInputError(f"cannot read counter command {text!r}: {exc}") from None
    if not words:
        raise InvalidInputError(
            f"external needs a counter command (external:COMMAND), got {text!r}"
        )
    program = shutil.which(words[0])
    if program is None:
        raise InvalidInputError(
            f"counter command {words[0]!r} not found: not an executable file nor on PATH"
        )
    return [program, *words[1:]]


def _ended(code: int) -> str:
    """A run's exit status in words (``subprocess`` gives a signal as ``-signum``)."""
    if code < 0:
        return f"signal {signal.Signals(-code).name}"
    return f"exit code {code}"
