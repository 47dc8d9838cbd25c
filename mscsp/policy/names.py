"""The names a web request may use: built-in backends, estimators, models and players only.

The person at the keyboard may name a program (``external:d4 --exact``) or a checkpoint
path (``learner:runs/net``); a request may not. :func:`check_request_name` is the one check
every request field that names a backend, an estimator or a fallback goes through: the
counting backends by their registry names (a solver only from the backend's own fixed
list), the approximate estimators with a bounded count, the shipped learned models by name.
It is plain string work against fixed lists: it never runs, opens or imports what a request
names, and its errors never repeat what follows a name's ``:``, so no answer can tell one
path from another (``learner:/etc/shadow`` and ``learner:/no/such`` get the same words).

An operator who wants a program or a checkpoint over the web names that exact string on
``mscsp serve --allow-backend``; a request may then use that string and nothing like it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from ..backends import BACKENDS
from ..errors import BackendUnavailableError, InvalidInputError, InvalidTypeError
from ..trust.numbers import parse_ascii_int

#: Counting backends that run a program named in their spec: never offered to a request.
PROGRAM_BACKENDS = frozenset({"external"})
#: The shipped models of a learned estimator that otherwise takes a checkpoint path
#: (``learner:default``, ``learner:graph``).
SHIPPED_MODELS = ("default", "graph")
#: The largest count a request may write after an approximate estimator's name: the
#: estimators with a clock stop at the request's time anyway; ``csp-limited`` has none,
#: its ``N`` is what bounds its work.
REQUEST_COUNTS = {"sampler": 100_000, "csp-limited": 10_000, "bp": 100_000, "mcmc": 100_000}
#: Longest name a request may send (the longest built-in one has 30 characters).
MAX_NAME = 64
#: What a built-in name looks like: ``NAME``, ``NAME:ARG`` or ``NAME:ARG:SUB`` in ASCII
#: letters, digits, ``-`` and ``_``. No ``/``, ``.``, space or control character: no path,
#: command line or module name gets past it.
_NAME = re.compile(r"[a-z][a-z0-9-]*(?::[A-Za-z0-9_-]+){0,2}", re.ASCII)


def _sat_solvers() -> Iterable[str]:
    from pysat.solvers import SolverNames

    return [name for name in vars(SolverNames) if not name.startswith("_")]


def _cpmpy_solvers() -> Iterable[str]:
    from ..backends.cpm import solver_names

    return solver_names()


def _sdd_vtrees() -> Iterable[str]:
    from ..backends.sdd import VTREES

    return VTREES


#: What each counting backend takes after its ``:``, and the fixed list of it (read only
#: when a request names that backend: a list may import its package). A backend not here
#: takes nothing after its name.
SOLVER_LISTS: dict[str, tuple[str, Callable[[], Iterable[str]]]] = {
    "sat": ("SOLVER", _sat_solvers),
    "cpmpy": ("SOLVER", _cpmpy_solvers),
    "sdd": ("VTREE", _sdd_vtrees),
}


def request_names(allowed_extra: Iterable[str] = ()) -> str:
    """The names a request may use, on one line (``sampler[:N]``: ``N`` optional)."""
    from ..estimators import estimator_kinds

    out = []
    for name, kind in estimator_kinds().items():
        if name in PROGRAM_BACKENDS:
            continue
        if name in BACKENDS:
            out.append(f"{name}[:{SOLVER_LISTS[name][0]}]" if name in SOLVER_LISTS else name)
        elif kind.family == "learned":
            arg = "|".join(SHIPPED_MODELS) if kind.arg == "PATH" else ""
            out.append(f"{name}[:{arg}]" if arg else name)
        else:
            out.append(f"{name}[:{kind.arg}]" if name in REQUEST_COUNTS else name)
    return ", ".join([*out, *allowed_extra])


def check_request_name(
    spec: Any, *, what: str = "backend", allowed_extra: Iterable[str] = ()
) -> str:
    """``spec`` if a request may use it as a backend or estimator name, in canonical form.

    Args:
        spec: The name the request sent.
        what: The request field, for the error (``"fallback"``).
        allowed_extra: Names the server's operator allowed (``serve --allow-backend``):
            taken as they are, and only exactly.

    Returns:
        The name, a count written without leading zeros (``sampler:0100`` is
        ``sampler:100``).

    Raises:
        InvalidTypeError: ``spec`` is not a string.
        InvalidInputError: A name not on the list, a program, a path, an argument the name
            does not take or a count out of range; one line that never repeats what the
            request wrote after the name.
        BackendUnavailableError: A backend whose solver list needs a package not installed.
    """
    if not isinstance(spec, str):
        raise InvalidTypeError(f"{what} must be a name (a string), got {type(spec).__name__}")
    extra = tuple(allowed_extra)
    if spec in extra:
        return spec
    if len(spec) > MAX_NAME or not _NAME.fullmatch(spec):
        raise _refused(what, "asked for is not a built-in name", extra)
    name, _, arg = spec.partition(":")
    if name in PROGRAM_BACKENDS:
        raise _refused(
            what, f"{name!r} runs a program, which only the server's operator may name", extra
        )
    if name in BACKENDS:
        if arg and arg not in _solver_list(name):
            raise _refused(what, f"{name!r} takes no such argument", extra)
        return spec
    from ..estimators import estimator_kinds

    kind = estimator_kinds().get(name)
    if kind is None:
        raise _refused(what, "asked for is not a built-in name", extra)
    if not arg:
        return name
    if kind.family == "learned":
        if kind.arg == "PATH" and arg in SHIPPED_MODELS:
            return spec
        raise _refused(what, f"{name!r} takes only a shipped model in a request", extra)
    if name not in REQUEST_COUNTS:
        raise _refused(what, f"{name!r} takes no argument", extra)
    count = parse_ascii_int(
        arg, f"{what} {name}'s {kind.arg}", minimum=1, maximum=REQUEST_COUNTS[name]
    )
    return f"{name}:{count}"


def _solver_list(name: str) -> frozenset[str]:
    """The fixed names backend ``name`` takes after its ``:`` (none where it takes none)."""
    if name not in SOLVER_LISTS:
        return frozenset()
    try:
        return frozenset(SOLVER_LISTS[name][1]())
    except ImportError:
        extra = BACKENDS[name].extra
        raise BackendUnavailableError(
            f"backend {name!r} needs its optional packages: pip install 'mscsp[{extra}]'"
        ) from None


def _refused(what: str, why: str, extra: tuple[str, ...]) -> InvalidInputError:
    """The one-line error of a name a request may not use (the name itself not repeated)."""
    return InvalidInputError(
        f"the {what} {why}; a request may name: {request_names(extra)} "
        "(programs and checkpoint paths are named on the server's own command line: "
        "mscsp serve --allow-backend)"
    )


def check_operator_name(spec: str) -> str:
    """``spec`` as given to ``mscsp serve --allow-backend``: any name the command line takes
    (a program, a checkpoint path), checked only for being one line of text with a known
    backend or estimator before its ``:``.

    Raises:
        InvalidInputError: Empty, a control character, or an unknown name.
    """
    from ..estimators import kind_of

    if not spec or not spec.isprintable():
        raise InvalidInputError("--allow-backend takes one line of text, a backend name")
    kind_of(spec)
    return spec


def check_player_name(spec: Any, *, what: str = "player") -> str:
    """``spec`` if it is a built-in player's name (:data:`mscsp.players.PLAYERS`): a request
    never names a learned system, whose name may carry a checkpoint path.

    Raises:
        InvalidTypeError: ``spec`` is not a string.
        InvalidInputError: Any other name (one line, the name not repeated).
    """
    from ..players import PLAYERS

    if not isinstance(spec, str):
        raise InvalidTypeError(f"{what} must be a name (a string), got {type(spec).__name__}")
    if spec not in PLAYERS:
        raise InvalidInputError(f"unknown {what}; choose from {', '.join(PLAYERS)}")
    return spec
