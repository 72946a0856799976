"""Hostile profiles, end to end: a walk of a real git repository whose profiler
(``[test.profile] tool = "command"``) writes what the repository holds for each
commit: stacks thousands of frames deep, counts of 2^63, 2^96 and 5 000 digits, a
100 000-character function name, more stacks than the stored limit. The walk
finishes with every value, a walk stopped in the middle resumes, the drill names
the culprit and the site is published with its differential flame graph."""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.folded import MOST_FRAMES, MOST_SAMPLES
from perfwalk.model import Status
from perfwalk.store import Store
from perfwalk.store.profiles import ProfileRow
from tests.fixtures.synthetic_repo import CommitSpec, make_repo
from tests.services.walks import finished, walk, walk_config

#: the latency of each commit: the third is slower (the culprit a drill finds)
VALUES = (100, 100, 130, 130)
DEPTHS = (1_000, 3_000, 5_000)
LONG_NAME = "f" * 100_000

BENCH_SH = 'echo "VALUE $(cat value.txt) ms latency"\n'
#: the profiler: writes this commit's stacks to the file it is given, then runs the
#: test (after a pause at a commit that has pause-here, until the test says go on)
PROFILE_SH = """\
out=$1; shift
cp profile.folded "$out"
if [ -f pause-here ] && [ ! -e {go} ]; then touch {paused}; sleep 20; fi
exec "$@"
"""


def deep(depth: int, leaf: str) -> str:
    return ";".join(["main", *(f"rec{i}" for i in range(depth - 1)), leaf])


def deep_stacks(position: int) -> str:
    """Stacks 1 000, 3 000 and 5 000 frames deep, a function of 100 000 characters;
    the slower commits spend more in the deepest and in the long one."""
    heavy = 50 if VALUES[position] > VALUES[0] else 10
    return (
        f"{deep(DEPTHS[0], 'leaf_a')} 10\n{deep(DEPTHS[1], 'leaf_b')} 10\n"
        f"{deep(DEPTHS[2], 'leaf_c')} {heavy}\nmain;shallow 20\nmain;{LONG_NAME}<b> {heavy}\n"
    )


def hostile_stacks(position: int) -> str:
    """Counts no profiler can have taken, a frame name of 100 000 characters, 3 000
    stacks (more than the stored limit holds), beside valid ones."""
    lines = [
        f"main;at_2_63 {2**63}",
        f"main;at_2_96 {2**96}",
        "main;huge 100000000000000000000000000000",
        f"main;digits {'9' * 5000}",
        f"main;{LONG_NAME} 7",
        f"main;work {VALUES[position]}",
        *(f"main;many;stack_{n:04d} 1" for n in range(3000)),
    ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Project:
    config: Config
    ids: list[str]
    paused: Path  # the profiler paused (the walk can be stopped)
    go: Path  # the profiler no longer pauses


def project(tmp_path: Path, stacks: str, *, pause_at: int | None = None) -> Project:
    paused, go = tmp_path / "paused", tmp_path / "go"
    start = datetime(2025, 5, 1, tzinfo=UTC)
    spec = []
    for position, value in enumerate(VALUES):
        files = {
            "bench.sh": BENCH_SH,
            "profile.sh": PROFILE_SH.format(go=go, paused=paused),
            "value.txt": f"{value}\n",
            "profile.folded": HOSTILE[stacks](position),
        }
        if position == pause_at:
            files["pause-here"] = ""
        spec.append(
            CommitSpec(date=start + timedelta(hours=position), message=f"c{position}", files=files)
        )
    repo = tmp_path / "repo"
    ids = make_repo(repo, spec)
    path = tmp_path / "perfwalk.toml"
    profiler = '[test.profile]\ntool = "command"\ncommand = "sh profile.sh {profile}"\n'
    path.write_text(
        walk_config(
            repo,
            "sh bench.sh",
            test="lat",
            timeout=60,
            extra=f"{profiler}limit = 131072\n\n[analysis]\nsuspect_load = false\n",
        ),
        encoding="utf-8",
    )
    return Project(load_config(path), ids, paused, go)


HOSTILE = {"deep": deep_stacks, "hostile": hostile_stacks}


def profiles(config: Config) -> list[ProfileRow]:
    with Store.open(config.store.url) as store:
        return [p for s in store.list_series() for p in store.profiles.in_series(s.id)]


def test_deep_stacks_and_long_names_are_walked_drilled_and_published(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = project(tmp_path, "deep")
    c = str(made.config.path)
    code, out, err = finished("run", "-c", c)
    assert code == 0, out + err
    between = ("--between", made.ids[1], made.ids[2], "--test", "lat", "--value", "latency")
    monkeypatch.setenv("COLUMNS", "100")  # the drill's terminal
    code, out, err = finished("drill", *between, "-c", c)
    assert code == 0, out + err
    assert f"CULPRIT {made.ids[2][:12]}" in out
    rows = out[out.index("self before") :].splitlines()[1:]
    names = [row.rpartition("%  ")[2] for row in rows]
    assert "leaf_c" in names
    assert "f" * 38 + "…" in names  # cut to what the 100 columns leave
    assert max(len(row) for row in rows) == 100
    site = tmp_path / "site"
    code, out, err = finished("report", "-c", c, "--out", str(site))
    assert code == 0, out + err
    (diff,) = site.glob("series-*/data/profile-d*.js")
    text = diff.read_text(encoding="ascii")
    assert '"n":"leaf_c"' in text
    assert text.count('"n":"rec') == MOST_FRAMES - 3  # the outermost frames, shared
    stored = [p for p in profiles(made.config) if p.series_id == 1]
    assert [p.status for p in stored] == [Status.PASS] * len(VALUES)
    for profile in stored:
        assert max(stack.count(";") + 1 for stack in profile.stacks) == MOST_FRAMES
        assert "frames" in profile.message  # the note: deeper stacks were folded
    page = (site / "series-1" / "data" / f"profile-{stored[0].id}.js").read_text(encoding="ascii")
    assert "frames" in page  # the note, on the profile's page
    drill = (site / "series-2.html").read_text(encoding="utf-8")
    assert f"<code>{LONG_NAME}&lt;b&gt;</code>" in drill  # the page: the whole name, escaped


def test_impossible_counts_and_sizes_never_stop_a_walk_nor_its_resume(tmp_path: Path) -> None:
    """The walk is stopped (SIGTERM) while the profiler of its second checkout runs,
    as a walk that crashed there would be; ``run --resume`` runs that profiled run
    again and finishes, every value stored."""
    made = project(tmp_path, "hostile", pause_at=1)
    c = str(made.config.path)
    first = walk(made.config.path)
    try:
        deadline = time.monotonic() + 120
        while not made.paused.exists() and first.poll() is None:
            assert time.monotonic() < deadline, "the walk never reached the second profile"
            time.sleep(0.05)
        assert first.poll() is None, first.communicate()
        os.kill(first.pid, signal.SIGTERM)
        out, err = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert b"SIGTERM" in out + err
    made.go.touch()
    code, out_text, err_text = finished("run", "--resume", "-c", c)
    assert code == 0, out_text + err_text
    assert "resumed and finished" in out_text

    with Store.open(made.config.store.url) as store:
        values = [round(v.value) for v in store.values(1)]
        stored = store.profiles.in_series(1)
    assert sorted(values) == sorted(v for v in VALUES for _ in range(3))  # every value
    assert [(p.checkout_idx, p.status) for p in stored] == [(i, Status.PASS) for i in range(4)]
    for profile in stored:
        assert profile.values == (("latency", float(VALUES[profile.checkout_idx]), "ms"),)
        assert profile.samples == MOST_SAMPLES  # bounded: no database integer overflows
        assert profile.stacks["main;huge"] == MOST_SAMPLES
        assert profile.stacks["main;digits"] == MOST_SAMPLES
        assert profile.stacks[f"main;{LONG_NAME}"] == 7  # a long name kept whole
        assert profile.cut  # more stacks than the limit: the lightest cut, and said
        assert f"4 stacks with a count of {MOST_SAMPLES} samples or more" in profile.message
    site = tmp_path / "site"
    code, out_text, err_text = finished("report", "-c", c, "--out", str(site))
    assert code == 0, out_text + err_text
