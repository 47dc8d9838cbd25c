"""``mscsp export --package``: an export packed as a benchmark set, in one archive.

The archive (``.tar.gz`` or ``.tar.xz``) holds one folder, named after the archive:

* ``instances/``: the export's CNF files (``pmc``: Model Counting Competition format);
* ``index.jsonl``: the export's index, each record with the routes that counted it
  (``counted_by``: ``dss``, whose count the export wrote, and each second route that gave
  the same count; :mod:`~mscsp.export.routes`), the routes that gave none and why
  (``not_counted``), and its grades at 60 s and 1,800 s (:mod:`~mscsp.export.grades`);
* ``corpus.jsonl``: the positions, in order;
* ``README.md`` (:mod:`~mscsp.export.readme`) and ``SHA256SUMS`` (every other file).

The counts are re-read from the export's ``index.jsonl`` and checked against the second
routes: one that gives another count stops the packaging before anything is written
(:func:`~mscsp.export.routes.recount`).

Deterministic: members in name order, each with mtime 0, owner 0, fixed modes; gzip
without a name or time stamp. The same positions, options and runs give the same bytes
(as long as every count finishes, or fails, on the same side of the time limit).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import lzma
import re
import tarfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..errors import InvalidInputError
from ..evaluation.benchmark import CorpusEntry
from ..runtime.outlock import output_lock
from ..trust.files import open_output, open_regular, remove_regular
from .grades import LIMITS, Runs, grade, limit_key, read_runs
from .index import index_line, read_index
from .readme import SetFacts, readme
from .routes import FIRST_ROUTE, Recount, check_routes, recount

#: Archive suffixes and their compression.
SUFFIXES = {".tar.gz": "gz", ".tgz": "gz", ".tar.xz": "xz"}
#: The second routes run unless told: the file read by D4, the components by ``mdd``.
DEFAULT_ROUTES = ("d4", "mdd")
#: Bytes read at a time when hashing a file.
_CHUNK = 1 << 20
#: A folder name that is safe in every tar reader and shell.
_SAFE_TITLE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}\Z")


@dataclass
class PackageSummary:
    """What a package holds: instances, how many have two agreeing counts, its grades."""

    archive: str
    instances: int = 0
    two_counts: int = 0
    positions: int = 0
    skipped: int = 0
    bytes: int = 0
    grades: dict[str, dict[str, int]] = field(default_factory=dict)


def name_parts(archive: str | Path) -> tuple[str, str]:
    """``(stem, compression)`` of an archive's name: ``("families", "xz")`` for
    ``families.tar.xz``.

    Raises:
        InvalidInputError: A suffix :data:`SUFFIXES` does not know.
    """
    name = Path(archive).name
    for suffix, kind in SUFFIXES.items():
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)], kind
    raise InvalidInputError(f"--package {str(archive)!r}: name it NAME{' or NAME'.join(SUFFIXES)}")


def check_archive(archive: str | Path, overwrite: bool) -> None:
    """Refuses an archive name :data:`SUFFIXES` does not know, and an existing archive
    (without ``overwrite``) or anything but a regular file there (a link, a folder).

    Raises:
        InvalidInputError: Any of those.
    """
    name_parts(archive)
    path = Path(archive)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise InvalidInputError(f"{archive} is not a regular file; refusing to replace it")
    if path.exists() and not overwrite:
        raise InvalidInputError(f"{archive} exists (give --overwrite to replace it)")


def corpus_origin(path: str | Path) -> str:
    """``families.jsonl (SHA-256 ...)``: a corpus file as the README names it."""
    digest = hashlib.sha256()
    with open_regular(path, "corpus") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return f"{Path(path).name} (SHA-256 {digest.hexdigest()})"


def package(
    entries: Sequence[CorpusEntry],
    folder: str | Path,
    archive: str | Path,
    *,
    origin: str,
    skipped: Sequence[dict[str, str]] = (),
    routes: Sequence[str] = DEFAULT_ROUTES,
    runs: Sequence[str | Path] = (),
    time_limit: float | None = None,
    mine_numbers: str = "all",
    overwrite: bool = False,
    progress: Callable[[int], Any] | None = None,
) -> PackageSummary:
    """Packs the export of ``entries`` in ``folder`` as the benchmark set ``archive``.

    Args:
        entries: The positions exported, in order (``position`` in the index indexes them).
        folder: The export's folder (``pmc`` instances, its ``index.jsonl``).
        archive: The archive to write (:data:`SUFFIXES`).
        origin: Where the positions came from, for the README (:func:`corpus_origin`).
        skipped: The positions the export left out (``ExportSummary.skipped``).
        routes: Second routes (:data:`~mscsp.export.routes.ROUTES`).
        runs: Files to grade from: ``runs.jsonl`` of ``mscsp bench`` on ``entries``, or of
            counter programs on the export's files (``bench/solvers/count_set.py``).
        time_limit: Seconds of each second count (``None``: no limit).
        mine_numbers: Which mine numbers the export made instances of (for the README).
        overwrite: Replace an existing ``archive``.
        progress: Called with 1 after each instance is recounted.

    Raises:
        InvalidInputError: A bad archive name, an existing archive (without
            ``overwrite``), an index that is not a ``pmc`` export of ``entries``, bad
            routes or runs.
        WrongCountError: A second route counted an instance differently.
        OutputLockedError: Another run writes ``archive``.
    """
    archive = Path(archive)
    stem, compression = name_parts(archive)
    title = stem if _SAFE_TITLE.match(stem) else "benchmarks"
    folder = Path(folder)
    with output_lock(archive, "benchmark archive"):
        check_archive(archive, overwrite)
        records = read_index(folder)
        _check_index(records, entries)
        routes = check_routes(routes, {r["kind"] for r in records})
        graded = read_runs(runs, entries, records)
        recounts = recount(folder, records, entries, routes, time_limit, progress)
        packed = []
        for record, counts in zip(records, recounts, strict=True):
            packed.append(_packed_record(record, counts, graded))
        formats = _format_lines(folder, records)
        facts = SetFacts(
            title=title,
            origin=origin,
            formats=formats,
            routes=routes,
            time_limit=time_limit,
            skipped=tuple(skipped),
            counters=graded.limits,
            mine_numbers=mine_numbers,
        )
        texts = {
            "README.md": readme(facts, packed, entries).encode(),
            "index.jsonl": "".join(index_line(r) for r in packed).encode(),
            "corpus.jsonl": "".join(_corpus_line(e) for e in entries).encode(),
        }
        files = {f"instances/{r['file']}": folder / r["file"] for r in records}
        sums = {name: hashlib.sha256(data).hexdigest() for name, data in texts.items()}
        sums.update({name: _sha256(path) for name, path in files.items()})
        texts["SHA256SUMS"] = "".join(f"{sums[n]}  {n}\n" for n in sorted(sums)).encode()
        _write(archive, compression, title, texts, files, overwrite)
    summary = PackageSummary(str(archive), len(packed), positions=len(entries))
    summary.two_counts = sum(len(r["counted_by"]) >= 2 for r in packed)
    summary.skipped = len(skipped)
    summary.bytes = archive.stat().st_size
    for limit in LIMITS:
        key = limit_key(limit)
        summary.grades[key] = dict(Counter(r["grades"][key]["grade"] for r in packed))
    return summary


def _packed_record(record: dict[str, Any], counts: dict[str, Recount], graded: Runs) -> dict:
    """An index record as the package writes it: its file under ``instances/``, the routes
    that gave its count and those that gave none, its grades."""
    return {
        **record,
        "file": f"instances/{record['file']}",
        "counted_by": [FIRST_ROUTE] + [route for route, c in counts.items() if c.count is not None],
        "not_counted": {route: c.why for route, c in counts.items() if c.count is None},
        "grades": {
            limit_key(limit): grade(graded, record["position"], limit, record["file"])
            for limit in LIMITS
        },
    }


def _check_index(records: list[dict[str, Any]], entries: Sequence[CorpusEntry]) -> None:
    """Refuses an index that is not a ``pmc`` export of ``entries``."""
    for record in records:
        if record["kind"] != "pmc":
            raise InvalidInputError(
                f"{record['file']}: a {record['kind']} instance; a benchmark set is made of "
                "pmc instances (--format mcc --kind pmc)"
            )
        if not 0 <= record["position"] < len(entries):
            raise InvalidInputError(
                f"{record['file']}: position {record['position']} is not one of the "
                f"{len(entries)} positions given: the index is another export's"
            )


def _corpus_line(entry: CorpusEntry) -> str:
    """A position as a corpus line (``mscsp bench --corpus`` reads it back the same)."""
    line = {"board": entry.board.to_text(), "family": entry.family, "name": entry.name}
    return json.dumps(line) + "\n"


def _format_lines(folder: Path, records: list[dict[str, Any]]) -> tuple[str, ...]:
    """The distinct ``c format:`` lines of the instance files (read up to their header).

    Raises:
        InvalidInputError: A file says no format year.
    """
    found = set()
    for record in records:
        line = None
        with open_regular(folder / record["file"], "instance file", follow=False) as handle:
            for raw in handle:
                if raw.startswith(b"p "):
                    break
                if raw.startswith(b"c format:"):
                    line = raw.decode("ascii", errors="replace").rstrip("\n")
                    break
        if line is None:
            raise InvalidInputError(f"{record['file']} says no format year (c format: line)")
        found.add(line)
    return tuple(sorted(found))


def _sha256(path: Path) -> str:
    """The SHA-256 of a file (read in chunks, never through a link)."""
    digest = hashlib.sha256()
    with open_regular(path, "instance file", follow=False) as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _info(name: str, size: int = 0, folder: bool = False) -> tarfile.TarInfo:
    """A member's header, the same on every machine and every day."""
    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mode = 0o755 if folder else 0o644
    info.type = tarfile.DIRTYPE if folder else tarfile.REGTYPE
    return info


def _compressor(raw: IO[bytes], compression: str) -> IO[bytes]:
    """A stream compressing into ``raw``: gzip with no name and time 0, or xz."""
    if compression == "gz":
        return gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
    return lzma.LZMAFile(raw, "wb", preset=9)


def _write(
    archive: Path,
    compression: str,
    title: str,
    texts: dict[str, bytes],
    files: dict[str, Path],
    overwrite: bool,
) -> None:
    """Writes the archive: every member under ``title/``, in name order (a partial
    archive is removed)."""
    names = sorted([*texts, *files])
    parents = {str(Path(name).parent) for name in names} - {"."}
    folders = [title, *(f"{title}/{parent}" for parent in sorted(parents))]
    with open_output(archive, "benchmark archive", binary=True, exclusive=not overwrite) as raw:
        try:
            with (
                _compressor(raw, compression) as stream,
                tarfile.open(fileobj=stream, mode="w", format=tarfile.PAX_FORMAT) as tar,
            ):
                for name in folders:
                    tar.addfile(_info(name, folder=True))
                for name in names:
                    if name in texts:
                        data = texts[name]
                        tar.addfile(_info(f"{title}/{name}", len(data)), io.BytesIO(data))
                        continue
                    with open_regular(files[name], "instance file", follow=False) as handle:
                        size = handle.seek(0, io.SEEK_END)
                        handle.seek(0)
                        tar.addfile(_info(f"{title}/{name}", size), handle)
        except BaseException:
            remove_regular(archive)
            raise
