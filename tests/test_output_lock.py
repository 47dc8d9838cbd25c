"""One writer per output (issue 30): real processes racing for one log, folder or file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import repo_env

from mscsp.errors import InvalidInputError, OutputLockedError
from mscsp.evaluation.harness import RunLog
from mscsp.runtime.outlock import lock_path, output_lock

PLAY = [sys.executable, "-m", "mscsp", "play", "--preset", "beginner", "--no-progress"]
PLAY += ["--workers", "1", "--json"]

#: A child that holds the lock of argv[1] until its stdin closes.
HOLDER = (
    "import sys\n"
    "from mscsp.runtime.outlock import output_lock\n"
    "with output_lock(sys.argv[1], 'test output'):\n"
    "    print('held', flush=True)\n"
    "    sys.stdin.read()\n"
)


def start(command: list[str], **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        command,
        env=repo_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def holder_pid(output: Path) -> int | None:
    """The pid recorded in ``output``'s lock file (``None`` before it is written)."""
    try:
        return json.loads(lock_path(output).read_text())["pid"]
    except (OSError, ValueError, KeyError):
        return None


def wait_for(ready, proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + 60
    while not ready():
        if proc.poll() is not None:
            pytest.fail(f"{what}: the first process ended early: {proc.communicate()[1]}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"{what}: not ready after 60 s")
        time.sleep(0.02)


def stop(proc: subprocess.Popen) -> tuple[int, str]:
    """Ctrl-C, then the exit code and stderr (finished batches stay in the log)."""
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


def hold(output: Path) -> subprocess.Popen:
    """A child process holding ``output``'s lock (until its stdin is closed)."""
    child = start([sys.executable, "-c", HOLDER, str(output)])
    assert child.stdout.readline() == "held\n", child.stderr.read()
    return child


def assert_refused(err: str, pid: int) -> None:
    line = err.strip()
    assert "\n" not in line and "Traceback" not in line, err
    assert f"pid {pid} " in line and "wait for it to finish, or stop it" in line, err


def first_playing(log: Path) -> subprocess.Popen:
    """``play -s csp-minprob`` on ``log`` for far more games than the test waits for, once
    it holds the lock and has logged its header and a batch (a run in mid-course)."""
    first = start([*PLAY, "-s", "csp-minprob", "-n", "100000", "--out", str(log), "--overwrite"])
    wait_for(
        lambda: (
            holder_pid(log) == first.pid and log.exists() and len(log.read_text().splitlines()) >= 2
        ),
        first,
        "play",
    )
    return first


def only_first_run(log: Path) -> None:
    """Every header of ``log`` is the first run's, and no game is logged twice."""
    headers, indices = [], []
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if record["type"] == "run":
            headers.append(record["config"]["strategy"])
        else:
            indices += [row[0] for row in record["games"]]
    assert headers == ["csp-minprob"]
    assert indices and len(indices) == len(set(indices))
    config, _ = RunLog(log).read()
    assert config.strategy == "csp-minprob"


@pytest.mark.parametrize("how", ["--overwrite", "--resume"])
def test_a_second_play_on_the_same_log_is_refused_at_once(tmp_path, how):
    log = tmp_path / "L.jsonl"
    first = first_playing(log)
    try:
        args = ["-s", "best", "--overwrite"] if how == "--overwrite" else ["--resume"]
        second = subprocess.run(
            [*PLAY, *args, "-n", "50", "--out", str(log)],
            env=repo_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        # Refused while the first is still running: it does not wait for it.
        assert first.poll() is None
    finally:
        code, err = stop(first)
    assert second.returncode == 6, second.stderr
    assert_refused(second.stderr, first.pid)
    assert f"play log {log}" in second.stderr and "a different --out" in second.stderr
    assert code == 130, err
    only_first_run(log)
    assert not lock_path(log).exists()  # removed by the run that held it


def test_a_lock_left_by_a_killed_run_is_taken_over(tmp_path):
    log = tmp_path / "L.jsonl"
    first = first_playing(log)
    first.kill()  # SIGKILL: no clean-up runs
    first.communicate(timeout=60)
    assert holder_pid(log) == first.pid  # the file stays, naming a dead process
    resumed = subprocess.run(
        [*PLAY, "--resume", "-n", "40", "--out", str(log)],
        env=repo_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["games"] == 40
    assert not lock_path(log).exists()


def test_the_lock_is_refused_while_a_child_holds_it_and_free_after(tmp_path):
    out = tmp_path / "out.jsonl"
    child = hold(out)
    try:
        with pytest.raises(OutputLockedError) as refused, output_lock(out, "test output"):
            pytest.fail("two holders")
        assert_refused(str(refused.value), child.pid)
        assert "python -c" in str(refused.value)
        assert json.loads(lock_path(out).read_text())["pid"] == child.pid
    finally:
        child.stdin.close()
        assert child.wait(timeout=30) == 0
    assert not lock_path(out).exists()
    with output_lock(out, "test output"):
        assert holder_pid(out) == os.getpid()
        with output_lock(tmp_path / "." / "out.jsonl"):  # nested in its holder: a no-op
            pass
        assert holder_pid(out) == os.getpid()  # the outer block still holds it
    assert not lock_path(out).exists()


def test_every_spelling_of_an_output_shares_one_lock(tmp_path):
    folder = tmp_path / "runs"
    (tmp_path / "link").symlink_to(folder, target_is_directory=True)
    folder.mkdir()
    child = hold(tmp_path / "link")
    try:
        assert lock_path(folder) == tmp_path / "runs.lock"  # beside the folder, not in it
        with pytest.raises(OutputLockedError), output_lock(tmp_path / "x" / ".." / "runs"):
            pytest.fail("two holders")
    finally:
        child.stdin.close()
        child.wait(timeout=30)
    assert list(folder.iterdir()) == []


def test_a_killed_holder_never_blocks(tmp_path):
    out = tmp_path / "shards"
    child = hold(out)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    assert holder_pid(out) == child.pid
    with output_lock(out, "test output"):
        assert holder_pid(out) == os.getpid()


def test_learn_data_refuses_a_second_writer(tmp_path):
    pytest.importorskip("jax")
    from learners.nets.data import GenSpec, generate

    out = tmp_path / "shards"
    first = start(
        [sys.executable, "-m", "mscsp", "learn", "data", "--out", str(out)]
        + ["--preset", "beginner", "--games", "100000", "--games-per-shard", "20", "-w", "1"]
    )
    spec = GenSpec.from_preset("beginner")
    try:
        wait_for(lambda: holder_pid(out) == first.pid, first, "learn data")
        with pytest.raises(OutputLockedError) as refused:
            generate(out, spec, 20, games_per_shard=20, progress=False)
        assert first.poll() is None
    finally:
        code, err = stop(first)
    assert_refused(str(refused.value), first.pid)
    assert f"data directory {out}" in str(refused.value)
    assert code == 130, err
    # With the first run gone, the same call runs.
    assert generate(out, spec, 20, games_per_shard=20, progress=False) == [out / "shard-00000.npz"]


def test_bench_refuses_a_second_writer_before_any_work(tmp_path):
    out = tmp_path / "results"
    child = hold(out)
    try:
        second = subprocess.run(
            [sys.executable, "-m", "mscsp", "bench", "--backend", "dss", "--out", str(out)],
            env=repo_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        child.stdin.close()
        child.wait(timeout=30)
    assert second.returncode == 6, second.stderr
    assert_refused(second.stderr, child.pid)
    assert f"bench results folder {out}" in second.stderr
    assert not out.exists()


def test_a_lock_sidecar_that_is_a_link_is_refused_not_followed(tmp_path):
    """``out.jsonl.lock -> victim.txt`` made ``corpus --out out.jsonl`` replace victim.txt
    with the lock's JSON: the link is refused in one line, the victim and the link stay."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "out.jsonl"
    lock_path(out).symlink_to(victim)
    done = subprocess.run(
        [sys.executable, "-m", "mscsp", "corpus", "lattice", "--size", "5x5", "--out", str(out)],
        env=repo_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "symbolic link" in done.stderr, done.stderr
    assert victim.read_text() == "precious\n" and lock_path(out).is_symlink()
    assert not out.exists()


def test_a_user_file_fifo_or_dangling_link_at_the_sidecar_is_never_taken(tmp_path):
    out = tmp_path / "out.jsonl"
    sidecar = lock_path(out)
    sidecar.write_text("the user's notes\n")  # not a lock a run left: not replaced
    with pytest.raises(InvalidInputError, match="not a lock file"), output_lock(out):
        pytest.fail("locked")
    assert sidecar.read_text() == "the user's notes\n"
    sidecar.unlink()
    os.mkfifo(sidecar)  # (opening it to write could wait for a reader forever)
    with pytest.raises(InvalidInputError, match="not a regular file"), output_lock(out):
        pytest.fail("locked")
    sidecar.unlink()
    sidecar.symlink_to(tmp_path / "nowhere")  # a dangling link would create its target
    with pytest.raises(InvalidInputError, match="symbolic link"), output_lock(out):
        pytest.fail("locked")
    assert not (tmp_path / "nowhere").exists()


def test_leaving_removes_only_the_lock_file_it_locked(tmp_path):
    out = tmp_path / "out.jsonl"
    with output_lock(out, "test output"):
        # Someone swaps the name for a file of their own while it is held.
        lock_path(out).unlink()
        lock_path(out).write_text("theirs\n")
    assert lock_path(out).read_text() == "theirs\n"
