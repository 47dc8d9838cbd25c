"""Archive reads (issue 47): folders, globs and ``.evfs`` sets read with the single file's
bounded reader; FIFOs and devices refused per file, unread; link loops never followed.

Every file here is refused or empty, so nothing reaches ms_toollib: these run without it.
A failure would hang or exhaust memory rather than fail, so each walk runs under an alarm
that turns a hang into a failure (a guard, not a timing assert).
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mscsp.cli import main
from mscsp.replay.archive import analyse_file, collect, expand, plan

#: Seconds after which a walk or a read counts as hung.
HUNG = 60


@contextmanager
def no_hang() -> Iterator[None]:
    def hung(*_):
        raise AssertionError(f"still running after {HUNG} s: it hangs")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(HUNG)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def hostile_folder(root: Path) -> Path:
    """A folder with a FIFO, a link to /dev/zero, two links back up (a loop), a FIFO set,
    and an empty replay in a subfolder."""
    arch = root / "arch"
    (arch / "sub").mkdir(parents=True)
    os.mkfifo(arch / "p.evf")
    (arch / "z.evf").symlink_to("/dev/zero")
    (arch / "a").symlink_to("..")
    (arch / "b").symlink_to("..")
    os.mkfifo(arch / "s.evfs")
    (arch / "sub" / "empty.evf").write_bytes(b"")
    return arch


def test_fifos_and_devices_are_refused_per_file_unread(tmp_path: Path) -> None:
    """A link ``z.evf -> /dev/zero`` read until MemoryError and a FIFO ``p.evf`` hung."""
    arch = hostile_folder(tmp_path)
    with no_hang():
        for name, kind in (("p.evf", "FIFO"), ("z.evf", "character device")):
            record = analyse_file(str(arch / name))
            assert record["status"] == "error" and kind in record["reason"], record
        kept, errors, todo = plan([str(arch / "s.evfs")], {})
        assert not kept and not todo and "FIFO" in errors[0]["reason"]
        # A log naming the FIFO makes the run hash it: refused too, not read.
        kept, _, todo = plan([str(arch / "p.evf")], {(str(arch / "p.evf"), "ab"): {}})
        assert todo == [str(arch / "p.evf")]


def test_a_glob_over_two_links_up_ends(tmp_path: Path) -> None:
    """``'loop/**/*.evf'`` over two ``..`` links hung: ``**`` enters no linked folder."""
    arch = hostile_folder(tmp_path)
    (arch / "sub" / "deep").mkdir()
    (arch / "sub" / "deep" / "x.evf").write_bytes(b"")
    with no_hang():
        found = expand(f"{arch}/**/*.evf")
        files, missing = collect([f"{arch}/**/*.evf", str(arch)])
    assert found == sorted(
        str(arch / name) for name in ("p.evf", "sub/deep/x.evf", "sub/empty.evf", "z.evf")
    )
    assert sorted(files) == sorted([*found, str(arch / "s.evfs")]) and not missing


def test_the_command_reports_each_bad_file_and_goes_on(tmp_path: Path) -> None:
    arch = hostile_folder(tmp_path)
    out = tmp_path / "games.jsonl"
    with no_hang():
        result = CliRunner().invoke(main, ["replay", str(arch), "--out", str(out)])
    assert result.exit_code == 0, result.output
    reasons = {Path(r["file"]).name: r["reason"] for r in map(json.loads, out.open())}
    assert set(reasons) == {"p.evf", "z.evf", "s.evfs", "empty.evf"}
    assert "FIFO" in reasons["p.evf"] and "device" in reasons["z.evf"]


# The fuzz: folders of random links, FIFOs and files, from fixed seeds.
_ENTRY = st.tuples(
    st.sampled_from(["a", "b", "c.evf", "d.EVF", "e.evfs", ".h.evf", "f g.avf", "[x].rmv"]),
    st.sampled_from(["fifo", "zero", "up", "upup", "self", "dangling", "dir", "empty", "text"]),
)


def _make(folder: Path, name: str, kind: str) -> None:
    path = folder / name
    if os.path.lexists(path):
        return
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dir":
        path.mkdir()
    elif kind in ("empty", "text"):
        path.write_text("" if kind == "empty" else "not a replay")
    else:
        target = {"zero": "/dev/zero", "up": "..", "upup": "../..", "self": "."}.get(kind)
        path.symlink_to(target or "nowhere/at/all")


@settings(derandomize=True, max_examples=40, deadline=None)
@given(entries=st.lists(st.tuples(st.integers(0, 2), _ENTRY), min_size=1, max_size=12))
def test_fuzz_hostile_folders_end_with_a_record_per_file(entries) -> None:
    with tempfile.TemporaryDirectory() as name:
        root = Path(name) / "root"
        folders = [root, root / "one", root / "one" / "two"]
        for folder in folders:
            folder.mkdir(exist_ok=True)
        for depth, (entry, kind) in entries:
            _make(folders[depth], entry, kind)
        (Path(name) / "outside.txt").write_text("the user's")
        with no_hang():
            for paths in ([str(root)], [f"{root}/**/*.evf*"], [f"{root}/**", f"{root}/*/*"]):
                files, missing = collect(paths)
                assert all(r["status"] == "error" for r in missing)
                assert len(files) == len(set(files))
                for file in files:
                    if file.lower().endswith(".evfs"):
                        _, errors, todo = plan([file], {})
                        records = errors
                    else:
                        records = [analyse_file(file)] if _refused_unread(file) else []
                    for record in records:
                        assert record["status"] == "error" and "\n" not in record["reason"]
        assert (Path(name) / "outside.txt").read_text() == "the user's"


def _refused_unread(file: str) -> bool:
    """Whether ``analyse_file`` answers without ms_toollib: anything but a regular file with
    bytes in it (an empty one is refused before the reader)."""
    try:
        return not (os.path.isfile(file) and os.path.getsize(file) > 0)
    except OSError:
        return True


@pytest.mark.parametrize("pattern", ["**", "**/**/*.evf", "./**/*.evf", "*/../**/*.evf"])
def test_expand_agrees_with_glob_where_no_link_is_in_the_way(tmp_path, monkeypatch, pattern):
    import glob

    for folder in ("a", "a/b", "c", ".hidden"):
        (tmp_path / folder).mkdir()
    for file in ("x.evf", "a/y.evf", "a/b/z.evf", ".hidden/h.evf", "a/.dot.evf"):
        (tmp_path / file).write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    want = {p.rstrip("/") for p in glob.glob(pattern, recursive=True)}
    assert set(expand(pattern)) == want - {""}


def test_resume_refuses_a_file_that_is_not_a_replay_log(tmp_path: Path) -> None:
    """``mscsp replay arch --out mycorpus.jsonl --resume`` silently replaced the corpus."""
    arch = tmp_path / "arch"
    arch.mkdir()
    (arch / "empty.evf").write_bytes(b"")
    corpus = tmp_path / "mycorpus.jsonl"
    text = '{"board": "3x3\\n...\\n", "family": "lattice", "name": "n"}\n'
    corpus.write_text(text)
    result = CliRunner().invoke(main, ["replay", str(arch), "--out", str(corpus), "--resume"])
    assert result.exit_code == 2 and "is not a replay log" in result.output, result.output
    assert corpus.read_text() == text


def test_archive_outputs_are_not_written_through_a_link(tmp_path: Path) -> None:
    arch = hostile_folder(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    for option in ("--csv", "--report", "--summary-json", "--out"):
        link = tmp_path / f"link{option}"
        link.symlink_to(victim)
        with no_hang():
            result = CliRunner().invoke(main, ["replay", str(arch), option, str(link)])
        assert result.exit_code == 2 and "symbolic link" in result.output, result.output
    assert victim.read_text() == "precious"
