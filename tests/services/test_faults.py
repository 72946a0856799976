"""Fault injection: walks killed (``kill -9``) at 20 seeded random points across build,
test, commit and publish, and stopped by SIGTERM at 5 more; each is resumed with
``run --resume``. Every series ends with exactly the rows of an uninterrupted walk,
no duplicate, and no process of any walk is left.

How the points are chosen (seeded, so a failure replays):

- the build and the test command call a hook that appends an event (with the walk's
  ``PERFWALK_WALK``, so that events of an earlier, killed walk are told apart) and
  the PIDs it starts (the test also starts a ``setsid`` daemon) to files, then
  sleeps a little: the window the fault lands in;
- a *build* fault waits for the walk's n-th build to start and strikes a random
  moment within the build; a *test* fault the same within a test; a *commit* fault
  strikes 0-20 ms after the n-th test ended, while its values are parsed and the
  repetition is committed to SQLite (before or inside that transaction); n is
  drawn at random, so the faults spread over the walk;
- a *publish* fault kills ``perfwalk report`` once it has written a random number
  of the site's files; the processes it forked must end with it, and the next
  ``report`` must still give the site a full publish gives.

25 faults over 5 series of 11 checkouts × 2 repetitions (one checkout does not
build), 5 faults each, each series resumed to its end and compared with the
uninterrupted walk (series 1).
"""

from __future__ import annotations

import random
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fixtures.site_digests import site_digests
from tests.fixtures.synthetic_repo import KnownHistory
from tests.services.walks import (
    finished,
    lines,
    perfwalk,
    pids,
    rows,
    wait_gone,
    walk_process_alive,
)

SEED = 11
SERIES = 5

CONFIG = """\
[project]
repo = "{repo}"

[build]
steps = ["sh build.sh", "sh {hook} build {build_window}"]
timeout = 60

[run]
step = "1day"
repetitions = 2

[[test]]
name = "latency"
command = "sh {hook} test {test_window} && sh bench.sh; echo test-end $PERFWALK_WALK >> {events}"
parser = "value"
timeout = 60
"""

HOOK = """\
# hook.sh build|test SECONDS: note the event and the PIDs, leave a window to strike in
m={marks}
echo $$ >> $m/pids
if [ "$1" = test ]; then
  setsid sleep 1000 >/dev/null 2>&1 &
  echo $! >> $m/pids
fi
echo "$1-start $PERFWALK_WALK" >> $m/events
sleep "$2"
"""

#: seconds a build and a test last (the windows faults land in)
WINDOW = {"build": 0.2, "test": 0.1}


@dataclass(frozen=True)
class Fault:
    phase: str  # build, test, commit or publish
    sig: signal.Signals


def _faults(rng: random.Random) -> list[Fault]:
    kill, term = signal.SIGKILL, signal.SIGTERM
    plan = [Fault("build", kill)] * 6 + [Fault("test", kill)] * 6 + [Fault("commit", kill)] * 5
    plan += [Fault("publish", kill)] * 3
    plan += [Fault("build", term)] * 2 + [Fault("test", term)] * 2 + [Fault("commit", term)]
    rng.shuffle(plan)
    return plan


class Lab:
    """The project, its config, the files the hooks write, and what was seen."""

    def __init__(self, root: Path, repo: KnownHistory) -> None:
        self.root = root
        self.marks = root / "marks"
        self.marks.mkdir()
        self.events = self.marks / "events"
        self.config = root / "perfwalk.toml"
        self.db = root / "perfwalk.db"
        hook = root / "hook.sh"
        self.config.write_text(
            CONFIG.format(
                repo=repo.path,
                hook=hook,
                events=self.events,
                build_window=WINDOW["build"],
                test_window=WINDOW["test"],
            ),
            encoding="utf-8",
        )
        hook.write_text(HOOK.format(marks=self.marks), encoding="utf-8")
        self.known: set[str] = set()  # walk markers seen so far

    def events_of(self, token: str, kind: str) -> int:
        return sum(1 for line in lines(self.events) if line.split()[:2] == [f"{kind}", token])

    def learn(self) -> None:
        """Take note of the marker of every walk that wrote an event so far."""
        self.known.update(line.split()[1] for line in lines(self.events))

    def new_token(self) -> str | None:
        """The marker of the walk started last, once it wrote an event."""
        for line in lines(self.events):
            words = line.split()
            if len(words) == 2 and words[1] not in self.known:
                return words[1]
        return None

    def leftovers(self) -> list[int]:
        return [pid for pid in pids(self.marks / "pids") if walk_process_alive(pid)]


def _strike_walk(lab: Lab, fault: Fault, rng: random.Random, *, resume: bool) -> None:
    kind = {"build": "build-start", "test": "test-start", "commit": "test-end"}[fault.phase]
    nth = 1 + (rng.randint(0, 1) if fault.phase == "build" else rng.randint(0, 2))
    lab.learn()  # every walk so far, the last one that resumed to the end included
    victim = perfwalk("run", "-c", str(lab.config), *(["--resume"] if resume else []))
    token: str | None = None
    deadline = time.monotonic() + 120
    while True:
        if victim.poll() is not None:
            _out, err = victim.communicate()
            raise AssertionError(f"the walk ended before the {fault.phase} fault: {err!r}")
        assert time.monotonic() < deadline, f"no {kind} event"
        token = token or lab.new_token()
        if token is not None and lab.events_of(token, kind) >= nth:
            break
        time.sleep(0.002)
    lab.known.add(token)
    window = WINDOW.get(fault.phase, 0.02)
    time.sleep(rng.uniform(0, window))
    victim.send_signal(fault.sig)
    _out, err = victim.communicate(timeout=120)
    if fault.sig == signal.SIGKILL:
        assert victim.returncode == -signal.SIGKILL
        return
    assert victim.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err.decode()
    # stopped like Ctrl-C: nothing of this walk, or of those killed before it, is left
    # (a process it killed may take a moment to be gone on a loaded machine)
    assert wait_gone(lab.leftovers()) == []


def _strike_publish(lab: Lab, rng: random.Random, site_files: int) -> None:
    out = lab.root / "site"
    target = rng.randint(1, max(1, site_files - 1))
    for _attempt in range(5):  # a publish that finished before the fault is tried again
        since = time.time_ns()
        victim = perfwalk("report", "-c", str(lab.config), "--out", str(out), capture=False)
        while victim.poll() is None and _count(out, since) < target:
            time.sleep(0.001)
        if victim.poll() is None:
            workers = _descendants(victim.pid)
            victim.kill()
            assert victim.wait(timeout=60) == -signal.SIGKILL
            # the processes it forked (a pool's workers) end with it
            deadline = time.monotonic() + 30
            while [pid for pid in workers if _runs_report(pid)]:
                assert time.monotonic() < deadline, "a killed publish left its workers"
                time.sleep(0.05)
            return
        target = max(1, target // 2)
    raise AssertionError("every publish finished before its fault")


def _descendants(pid: int) -> list[int]:
    """The processes ``pid`` started, and theirs (Linux: /proc/PID/task/*/children)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
        for child in children:
            found += [child, *_descendants(child)]
    return found


def _runs_report(pid: int) -> bool:
    """True while ``pid`` runs ``perfwalk report`` (not a PID reused since)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return stat[0] not in (b"Z", b"X") and b"report" in cmdline


def _count(folder: Path, since: int = 0) -> int:
    """How many files of ``folder`` were written since ``since`` (ns)."""
    if not folder.exists():
        return 0
    written = 0
    for path in folder.rglob("*"):
        try:
            stat = path.stat()
        except FileNotFoundError:  # replaced while we looked
            continue
        written += path.is_file() and stat.st_mtime_ns >= since
    return written


@pytest.mark.slow
def test_faults_at_random_points_end_with_the_rows_of_an_uninterrupted_walk(
    tmp_path: Path, known_values_repo_copy: KnownHistory
) -> None:
    lab = Lab(tmp_path, known_values_repo_copy)
    code, _out, err = finished("run", "-c", str(lab.config))
    assert code == 1, err  # 1: the broken build
    expected = sorted(rows(lab.db, 1))
    assert len(expected) == 10 * 2
    code, _out, err = finished("report", "-c", str(lab.config), "--out", str(tmp_path / "ref"))
    assert code == 0, err
    site_files = _count(tmp_path / "ref")

    rng = random.Random(SEED)
    plan = _faults(rng)
    per_series = len(plan) // SERIES
    struck: dict[str, int] = {}
    for n in range(SERIES):
        series_id = n + 2
        started = False  # the first walk of a series starts it, the later ones resume it
        for fault in plan[n * per_series : (n + 1) * per_series]:
            if fault.phase == "publish":
                _strike_publish(lab, rng, site_files)
            else:
                _strike_walk(lab, fault, rng, resume=started)
                started = True
            what = f"{fault.phase} {fault.sig.name}"
            struck[what] = struck.get(what, 0) + 1
        code, out, err = finished("run", "-c", str(lab.config), "--resume")
        assert code == 1, err
        assert f"series {series_id} resumed and finished" in out
        got = rows(lab.db, series_id)
        assert len(got) == len(set(got)), f"series {series_id}: duplicated rows"
        assert sorted(got) == expected, f"series {series_id} differs from the uninterrupted walk"

    assert sum(struck.values()) == 25
    assert struck["publish SIGKILL"] == 3
    assert sum(v for k, v in struck.items() if k.endswith("SIGKILL")) == 20
    assert wait_gone(lab.leftovers()) == [], "a process of a walk is still running"
    print(f"faults: {dict(sorted(struck.items()))}; {SERIES} series × {len(expected)} rows equal")
    # the site published after the interrupted publishes is the one a full publish gives
    site, fresh = tmp_path / "site", tmp_path / "fresh"
    assert finished("report", "-c", str(lab.config), "--out", str(site))[0] == 0
    assert finished("report", "-c", str(lab.config), "--out", str(fresh), "--full")[0] == 0
    assert site_digests(site) == site_digests(fresh)
