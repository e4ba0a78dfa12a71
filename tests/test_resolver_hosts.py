"""Resolver hosts (argtrace/resolver/hosts.py, host_main.py): a run served by a host that imported once
answers as a fresh ``python SCRIPT ARGS`` does. Real processes and real forks: the "environment" is this
interpreter, and the scripts are small files whose ``host_imports`` stands for the framework's import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from argtrace.resolver import hosts

# A script as the resolver's are: an import step (host_imports) it also takes itself first, then its work.
SCRIPT = """
import json, os, sys
IMPORTED = []

def host_imports(*names):
    IMPORTED.append(os.getpid())
    import email.parser  # the stand-in for the framework's import

def main():
    host_imports()
    print(json.dumps({"args": sys.argv[1:], "cwd": os.getcwd(), "env": os.environ.get("MARK"),
                      "path0": sys.path[0], "name": __name__, "imported_in_this_run": len(IMPORTED),
                      "pid": os.getpid()}))
    print("to stderr", file=sys.stderr)
    if sys.argv[1:2] == ["exit"]:
        sys.exit(int(sys.argv[2]))
    if sys.argv[1:2] == ["sleep"]:
        import time
        time.sleep(float(sys.argv[2]))
    if sys.argv[1:2] == ["wait"]:  # says who runs it and who forked it, then waits
        with open(sys.argv[2] + ".tmp", "w") as fh:
            fh.write(f"{os.getpid()} {os.getppid()}")
        os.rename(sys.argv[2] + ".tmp", sys.argv[2])
        import time
        time.sleep(60)
    if sys.argv[1:2] == ["leave"]:  # what one run leaves behind must not reach the next
        import email.parser
        email.parser.LEFT_BY_A_RUN = True
    if sys.argv[1:2] == ["look"]:
        import email.parser
        print(json.dumps({"left": getattr(email.parser, "LEFT_BY_A_RUN", False)}))

if __name__ == "__main__":
    main()
"""


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "scriptdir" / "job.py"
    path.parent.mkdir()
    path.write_text(SCRIPT)
    return path


@pytest.fixture
def pool() -> Iterator[hosts.HostPool]:
    made = hosts.HostPool(limit=2)
    try:
        yield made
    finally:
        made.close()


def env(mark: str = "a") -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "MARK": mark}


def run(
    pool: hosts.HostPool, script: Path, args: list[str], cwd: Path, mark: str = "a", timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return pool.run(sys.executable, str(script), args, prep=[], env=env(mark), cwd=str(cwd), timeout=timeout)


def first_json(text: str) -> dict[str, object]:
    return dict(json.loads(text.splitlines()[0]))


def test_a_served_run_answers_as_a_fresh_one(pool: hosts.HostPool, script: Path, tmp_path: Path) -> None:
    fresh = subprocess.run(
        [sys.executable, str(script), "x", "y"], env=env(), cwd=tmp_path, capture_output=True, text=True
    )
    served = run(pool, script, ["x", "y"], tmp_path)
    a, b = first_json(fresh.stdout), first_json(served.stdout)
    for field in ("args", "cwd", "env", "path0", "name"):
        assert a[field] == b[field], field
    assert b["args"] == ["x", "y"] and b["name"] == "__main__"
    assert b["path0"] == str(script.parent)
    assert (served.returncode, served.stderr) == (0, "to stderr\n") == (fresh.returncode, fresh.stderr)
    # the import step ran in the host, once, not in the run: the run's own call is its first in this process
    assert b["imported_in_this_run"] == 1 and pool.started == 1 and pool.served == 1


def test_runs_with_the_same_environment_share_one_host(
    pool: hosts.HostPool, script: Path, tmp_path: Path
) -> None:
    one, two = run(pool, script, ["1"], tmp_path), run(pool, script, ["2"], tmp_path)
    assert (pool.started, pool.served, pool.fresh) == (1, 2, 0)
    assert first_json(one.stdout)["pid"] != first_json(two.stdout)["pid"]  # a fresh fork each
    assert len(pool.hosts) == 1 and pool.hosts[0].runs == 2


def test_a_different_environment_gets_its_own_host(
    pool: hosts.HostPool, script: Path, tmp_path: Path
) -> None:
    assert first_json(run(pool, script, [], tmp_path, mark="a").stdout)["env"] == "a"
    assert first_json(run(pool, script, [], tmp_path, mark="b").stdout)["env"] == "b"
    assert pool.started == 2
    # the limit (2 here): a third environment stops the least recently used host
    run(pool, script, [], tmp_path, mark="c")
    assert pool.started == 3 and len(pool.hosts) == 2
    assert sorted(dict(h.key[3])["MARK"] for h in pool.hosts) == ["b", "c"]


def test_nothing_a_run_leaves_reaches_the_next(pool: hosts.HostPool, script: Path, tmp_path: Path) -> None:
    run(pool, script, ["leave"], tmp_path)
    looked = run(pool, script, ["look"], tmp_path)
    assert json.loads(looked.stdout.splitlines()[1]) == {"left": False}
    assert pool.started == 1


def test_exit_status_and_timeout_as_subprocess_reports_them(
    pool: hosts.HostPool, script: Path, tmp_path: Path
) -> None:
    assert run(pool, script, ["exit", "3"], tmp_path).returncode == 3
    with pytest.raises(subprocess.TimeoutExpired) as caught:
        run(pool, script, ["sleep", "30"], tmp_path, timeout=1.5)
    assert caught.value.stderr == b"to stderr\n"  # bytes, as subprocess.run gives a timed-out run's output
    # timed out on the host, then again in a fresh process (a hang after a fork is not proven the run's own);
    # that host is not used again
    assert (pool.started, pool.served, pool.fresh, len(pool.hosts), len(pool.failed)) == (1, 1, 1, 0, 1)
    assert run(pool, script, ["again"], tmp_path).returncode == 0
    assert pool.fresh == 2


def test_an_import_step_that_fails_means_fresh_runs(pool: hosts.HostPool, tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text(
        "import sys\ndef host_imports():\n    raise ImportError('no such framework')\n"
        "if __name__ == '__main__':\n    print('ran', sys.argv[1:])\n"
    )
    for _ in range(2):
        done = run(pool, broken, ["z"], tmp_path)
        assert (done.returncode, done.stdout) == (0, "ran ['z']\n")
    assert (pool.started, pool.served, pool.fresh, len(pool.failed)) == (0, 0, 2, 1)


def test_a_host_that_died_is_replaced(pool: hosts.HostPool, script: Path, tmp_path: Path) -> None:
    run(pool, script, [], tmp_path)
    pool.hosts[0].proc.kill()
    pool.hosts[0].proc.wait()
    done = run(pool, script, ["after"], tmp_path)
    assert first_json(done.stdout)["args"] == ["after"]
    assert (pool.started, pool.served, len(pool.hosts)) == (2, 2, 1)


def test_hosts_off_runs_fresh(script: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARGTRACE_RESOLVER_HOSTS", "0")
    before = hosts._pool.started if hosts._pool is not None else 0
    done = hosts.run(sys.executable, script, ["q"], prep=[], env=env(), cwd=str(tmp_path), timeout=60)
    assert first_json(done.stdout)["args"] == ["q"]
    assert (hosts._pool.started if hosts._pool is not None else 0) == before


def test_no_import_step_runs_fresh(script: Path, tmp_path: Path) -> None:
    """A --python interpreter (the user's own) has no import step given: never hosted."""
    before = hosts._pool.started if hosts._pool is not None else 0
    done = hosts.run(sys.executable, script, ["p"], prep=None, env=env(), cwd=str(tmp_path), timeout=60)
    assert first_json(done.stdout)["args"] == ["p"]
    assert (hosts._pool.started if hosts._pool is not None else 0) == before


def test_an_import_step_that_outlasts_the_timeout_is_the_runs_timeout(
    pool: hosts.HostPool, tmp_path: Path
) -> None:
    """A fresh run imports within its own time limit: a host's import that outlasts it is that run's timeout,
    not a reason to start a fresh run and wait as long again."""
    slow = tmp_path / "slow.py"
    slow.write_text(
        "import time\ndef host_imports():\n    time.sleep(30)\n"
        "if __name__ == '__main__':\n    host_imports()\n"
    )
    with pytest.raises(subprocess.TimeoutExpired):
        run(pool, slow, [], tmp_path, timeout=1.0)
    assert (pool.started, pool.fresh, len(pool.hosts), len(pool.failed)) == (0, 0, 0, 1)


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie has ended
    except OSError:
        return True


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_argtrace_killed_mid_run_leaves_no_host_and_no_run(script: Path, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    driver = (
        "import sys\nfrom argtrace.resolver import hosts\n"
        f"hosts.HostPool().run(sys.executable, {str(script)!r}, ['wait', {str(pids)!r}], prep=[], "
        f"env={env()!r}, cwd={str(tmp_path)!r}, timeout=120)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", driver])
    try:
        for _ in range(300):
            if pids.exists() or proc.poll() is not None:
                break
            time.sleep(0.1)
        run_pid, host_pid = map(int, pids.read_text().split())
        assert host_pid != proc.pid  # the run is a fork of the host, not of argtrace
        proc.kill()
        proc.wait()
        for _ in range(100):
            if _gone(run_pid) and _gone(host_pid):
                break
            time.sleep(0.1)
        assert _gone(host_pid) and _gone(run_pid)
    finally:
        proc.kill()


def test_an_idle_host_ends_by_itself(script: Path, tmp_path: Path) -> None:
    """A long-lived argtrace (the MCP server) does not keep an imported framework in memory for nothing."""
    pool = hosts.HostPool(idle=1.0)
    try:
        run(pool, script, [], tmp_path)
        proc = pool.hosts[0].proc
        assert proc.wait(timeout=30) == 0
        run(pool, script, ["later"], tmp_path)  # a new host serves the next run
        assert (pool.started, pool.served, len(pool.hosts)) == (2, 2, 1)
    finally:
        pool.close()


def test_a_host_started_ahead_serves_the_run_that_follows(
    pool: hosts.HostPool, script: Path, tmp_path: Path
) -> None:
    """The memory layer's sizing host is started while the resolution runs (check.py): the sizing run waits
    for that host's import instead of starting a second one."""
    assert pool.prestart(sys.executable, str(script), [], env()) is True
    assert pool.prestart(sys.executable, str(script), [], env()) is False  # one host per key
    assert len(pool.hosts) == 1 and not pool.hosts[0].ready
    done = run(pool, script, ["after"], tmp_path)
    assert first_json(done.stdout)["args"] == ["after"]
    assert first_json(done.stdout)["imported_in_this_run"] == 1  # the import step ran in the host
    assert (pool.ahead, pool.ahead_served, pool.started, pool.served, pool.fresh) == (1, 1, 1, 1, 0)
    run(pool, script, ["again"], tmp_path)
    assert (pool.ahead_served, pool.served) == (1, 2)  # only the first run counts as the one it was for


def test_a_host_started_ahead_for_other_inputs_serves_nothing(
    pool: hosts.HostPool, script: Path, tmp_path: Path
) -> None:
    """A host serves only runs of its own key: one started for another environment is never used."""
    assert pool.prestart(sys.executable, str(script), [], env("b")) is True
    assert first_json(run(pool, script, [], tmp_path, mark="a").stdout)["env"] == "a"
    assert (pool.ahead, pool.ahead_served, pool.started) == (1, 0, 1)
    assert sorted(dict(h.key[3])["MARK"] for h in pool.hosts) == ["a", "b"]


def test_a_full_pool_starts_nothing_ahead(pool: hosts.HostPool, script: Path, tmp_path: Path) -> None:
    run(pool, script, [], tmp_path, mark="a")
    run(pool, script, [], tmp_path, mark="b")
    assert pool.prestart(sys.executable, str(script), [], env("c")) is False  # limit 2: nothing is stopped
    assert sorted(dict(h.key[3])["MARK"] for h in pool.hosts) == ["a", "b"] and pool.ahead == 0


def test_a_host_started_ahead_whose_import_fails_means_fresh_runs(
    pool: hosts.HostPool, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text(
        "import sys\ndef host_imports():\n    raise ImportError('no such framework')\n"
        "if __name__ == '__main__':\n    print('ran', sys.argv[1:])\n"
    )
    assert pool.prestart(sys.executable, str(broken), [], env()) is True
    for _ in range(2):
        done = run(pool, broken, ["z"], tmp_path)
        assert (done.returncode, done.stdout) == (0, "ran ['z']\n")
    assert (pool.ahead, pool.ahead_served, pool.started, pool.fresh, len(pool.failed)) == (1, 0, 0, 2, 1)
    assert pool.prestart(sys.executable, str(broken), [], env()) is False  # not tried again


def test_a_slow_import_started_ahead_is_the_runs_timeout(pool: hosts.HostPool, tmp_path: Path) -> None:
    """The run's time limit counts from the run: a host started ahead gives a head start, never more."""
    slow = tmp_path / "slow.py"
    slow.write_text(
        "import time\ndef host_imports():\n    time.sleep(30)\n"
        "if __name__ == '__main__':\n    host_imports()\n"
    )
    assert pool.prestart(sys.executable, str(slow), [], env()) is True
    with pytest.raises(subprocess.TimeoutExpired):  # the import sleeps 30 s: a run that waited it out passes
        run(pool, slow, [], tmp_path, timeout=1.0)
    assert (pool.started, pool.fresh, len(pool.hosts), len(pool.failed)) == (0, 0, 0, 1)
