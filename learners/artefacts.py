"""Shared plumbing of the seed systems: shipped weights, per-episode seeds, checkpoints."""

from __future__ import annotations

import gzip
import json
import os
import pickle
import platform
import sys
import time
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from mscsp.errors import InvalidInputError


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
    tmp.write_bytes(data)
    tmp.replace(path)


def dump_pickle(path: str | Path, obj: Any) -> None:
    """A gzip-compressed pickle of ``obj`` (fitted scikit-learn pipelines), written atomically."""
    write_atomic(path, gzip.compress(pickle.dumps(obj), mtime=0))


def load_pickle(path: Path, what: str) -> Any:
    """The object :func:`dump_pickle` wrote to ``path``.

    Raises:
        InvalidInputError: The file is not such an artefact.
    """
    try:
        return pickle.loads(gzip.decompress(path.read_bytes()))
    except Exception as exc:  # gzip and unpickling raise many kinds; all mean a bad file
        raise InvalidInputError(f"{path} is not a {what} artefact ({exc})") from None


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
