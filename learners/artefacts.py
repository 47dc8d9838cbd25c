"""Shared plumbing of the seed systems: shipped weights, per-episode seeds, checkpoints."""

from __future__ import annotations

import gzip
import io
import json
import os
import pickle
import platform
import sys
import time
import zipfile
import zlib
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from mscsp.errors import InvalidInputError
from mscsp.trust.files import open_output
from mscsp.trust.inputs import read_bounded
from mscsp.trust.jsonl import loads_bounded


def weights_dir() -> Path:
    """``learners/weights``: where shipped artefacts live."""
    return Path(str(resources.files("learners").joinpath("weights")))


#: ``learner:default``: the shipped Flax network, ``learners/weights/default.msgpack``.
DEFAULT_MODEL = "default"
#: ``learner:graph``: the shipped factor-graph net, ``learners/weights/graph.msgpack``.
GRAPH_MODEL = "graph"


def model_path(path: str) -> Path:
    """A Flax network's checkpoint path; :data:`DEFAULT_MODEL` and :data:`GRAPH_MODEL` are
    the ones shipped here."""
    if path in (DEFAULT_MODEL, GRAPH_MODEL):
        return weights_dir() / f"{path}.msgpack"
    return Path(path)


def artefact(path: str | Path | None, default: str, system: str = "...") -> Path:
    """``path`` if given, else the shipped ``learners/weights/<default>``; must exist.

    Raises:
        InvalidInputError: The file is missing (the message says how to train it: the
            ``mscsp learn system`` command of ``system``).
    """
    found = Path(path) if path is not None else weights_dir() / default
    if not found.is_file():
        raise InvalidInputError(
            f"no trained artefact at {found}; train one with 'mscsp learn system {system}'"
        )
    return found


def shipped(pattern: str) -> list[Path]:
    """The shipped artefacts matching ``pattern`` (one per board for per-board systems).

    Raises:
        InvalidInputError: None is shipped.
    """
    found = sorted(weights_dir().glob(pattern))
    if not found:
        raise InvalidInputError(
            f"no shipped artefact {pattern} in {weights_dir()}; train one with "
            "'mscsp learn system ...' and pass -o weights=FILE"
        )
    return found


def episode_seed(seed: int, index: int) -> int:
    """An independent 63-bit seed for episode/game ``index`` of a run seeded ``seed``.

    Depends on ``(seed, index)`` only, so a resumed run replays exactly the same episodes.
    """
    return int(
        np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(2, np.uint64)[0] >> 1
    )


def write_atomic(path: str | Path, data: bytes) -> None:
    """Writes ``data`` to ``path`` through a temporary file (never a half-written file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open_output(tmp, "temporary file", binary=True) as handle:  # (never through a link)
        handle.write(data)
    tmp.replace(path)


#: Suffix of classic model files (scikit-learn pipelines in skops' format).
MODEL_SUFFIX = ".skops"
#: Largest model file read, and the most its parts may hold unpacked (the shipped models
#: are under 3 MB unpacked).
MAX_MODEL_BYTES = 256 * 1024 * 1024
#: Every type a classic model file may hold: the seed systems' pipelines and nothing else.
#: A file naming any other type is refused before anything in it is built (skops' own
#: defaults trust every scikit-learn estimator; this list is narrower).
MODEL_TYPES = frozenset(
    {
        "builtins.bool",
        "builtins.dict",
        "builtins.float",
        "builtins.int",
        "builtins.list",
        "builtins.NoneType",
        "builtins.str",
        "builtins.tuple",
        "numpy.dtype",
        "numpy.float64",
        "numpy.int64",
        "numpy.ndarray",
        "learners.classic.data.one_hot",
        "sklearn.kernel_approximation.Nystroem",
        "sklearn.kernel_ridge.KernelRidge",
        "sklearn.linear_model._logistic.LogisticRegression",
        "sklearn.pipeline.Pipeline",
        "sklearn.preprocessing._function_transformer.FunctionTransformer",
        "sklearn.svm._classes.LinearSVC",
    }
)
#: How a zip archive (skops' container) starts; a pickle never does.
_ZIP_MAGIC = b"PK\x03\x04"


def dump_model(path: str | Path, model: Any) -> None:
    """``model`` (a fitted scikit-learn pipeline) in skops' format, written atomically: a
    file that loading cannot make run code, unlike a pickle.

    Raises:
        InvalidInputError: The model holds a type outside :data:`MODEL_TYPES` (it could
            not be loaded back).
    """
    import skops.io

    data = skops.io.dumps(model, compression=zipfile.ZIP_DEFLATED)
    outside = _model_types(data, Path(path), "model") - MODEL_TYPES
    if outside:
        raise InvalidInputError(f"a model holding {', '.join(sorted(outside))} cannot be saved")
    write_atomic(path, data)


def load_model(path: Path, what: str, *, trust_pickle: bool = False) -> Any:
    """The model :func:`dump_model` wrote to ``path``, built only from :data:`MODEL_TYPES`.

    A pickle (what earlier releases wrote) can run any code while it loads: it is read only
    with ``trust_pickle``, for a file whose author the user trusts.

    Raises:
        InvalidInputError: Not such a model file (too large, damaged, holding another type),
            or a pickle without ``trust_pickle`` (the message says how to convert it).
    """
    data = read_bounded(path, MAX_MODEL_BYTES, f"{what} model", allow_stdin=False)
    if not data.startswith(_ZIP_MAGIC):
        if not trust_pickle:
            raise InvalidInputError(
                f"{path} is not a {what} model in skops format; if it is a pickle whose author "
                f"you trust, convert it with 'mscsp learn system {what} --convert {path} "
                "--trust-pickle' (or load it once with -o trust_pickle=true)"
            )
        return load_pickle(data, path, what)
    outside = _model_types(data, path, what) - MODEL_TYPES
    if outside:
        raise InvalidInputError(
            f"{path}: a {what} model may not hold {', '.join(sorted(outside)[:3])}"
        )
    import skops.io

    try:
        return skops.io.loads(data, trusted=sorted(MODEL_TYPES))
    except Exception as exc:  # a damaged archive raises many kinds; all mean a bad file
        raise InvalidInputError(f"{path} is not a {what} model ({type(exc).__name__})") from None


def _model_types(data: bytes, path: Path, what: str) -> set[str]:
    """Every ``module.name`` the skops archive ``data`` would build, read from its schema
    (bounded: its parts unpacked, and the schema's nesting)."""
    bad = f"{path} is not a {what} model"
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if sum(info.file_size for info in archive.infolist()) > MAX_MODEL_BYTES:
                raise InvalidInputError(f"{bad} (it unpacks to over {MAX_MODEL_BYTES} bytes)")
            schema = archive.read("schema.json")
    except (zipfile.BadZipFile, KeyError, OSError, EOFError, zlib.error):
        raise InvalidInputError(f"{bad} (a damaged archive)") from None
    found: set[str] = set()
    stack = [loads_bounded(schema, f"{path} schema", max_depth=256)]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "__module__" in node or "__class__" in node:
                found.add(f"{node.get('__module__')}.{node.get('__class__')}")
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def load_pickle(data: bytes, path: Path, what: str) -> Any:
    """The object a gzip-compressed pickle ``data`` holds (model files of earlier releases).

    Unpickling runs whatever code the file names: only for files the user trusts
    (:func:`load_model`'s ``trust_pickle``).

    Raises:
        InvalidInputError: ``data`` is not such a pickle.
    """
    try:
        return pickle.loads(gzip.decompress(data))
    except Exception as exc:  # gzip and unpickling raise many kinds; all mean a bad file
        raise InvalidInputError(f"{path} is not a {what} pickle ({type(exc).__name__})") from None


def write_json(path: str | Path, data: dict[str, Any]) -> None:
    """Atomic JSON file (training metadata next to an artefact)."""
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True).encode())


class Progress:
    """Progress lines on stderr at most every ``every`` seconds (and at the end)."""

    def __init__(self, label: str, total: int, every: float = 5.0, stream: Any = None):
        self.label, self.total, self.every = label, total, every
        self.stream = stream if stream is not None else sys.stderr
        self.start = self.last = time.perf_counter()

    def update(self, done: int, note: str = "") -> None:
        now = time.perf_counter()
        if now - self.last >= self.every or done >= self.total:
            self.last = now
            rate = done / max(now - self.start, 1e-9)
            print(
                f"{self.label}: {done}/{self.total} ({rate:.1f}/s) {note}".rstrip(),
                file=self.stream,
                flush=True,
            )

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.start


def environment() -> dict[str, Any]:
    """What XLA:CPU's float results depend on besides a run's settings: the libraries, the
    CPU model and instruction set, and the CPUs the process sees (a trained net's weights
    repeat bit for bit only where these do; docs/seeds.md)."""
    from importlib.metadata import PackageNotFoundError, version

    def installed(package: str) -> str | None:
        try:
            return version(package)
        except PackageNotFoundError:
            return None

    info: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        pass  # (not Linux: the model from platform below, no flags)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "versions": {p: installed(p) for p in ("jax", "jaxlib", "flax", "optax", "numpy")},
        "cpu": info.get("model name") or platform.processor() or platform.machine(),
        "isa": sorted(set(info.get("flags", "").split()) & {"avx", "avx2", "fma", "avx512f"}),
        "cpus": cpus,
        "xla_flags": os.environ.get("XLA_FLAGS", ""),
    }
