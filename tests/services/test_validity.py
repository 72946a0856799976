"""Benchmark validity on real walks: a C program that spins on clock_gettime profiled
with the real perf, a test whose receiver gets a tenth of what its sender sends (iperf3's
own report), a metric flat over a real git history whose commits change its hot file,
and a region of a few microseconds timed with clock_gettime — each said with its
evidence by ``perfwalk show`` and on the series page (escaped); and none of it on a
healthy CPU-bound loop."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.config import load_config
from perfwalk.services.publish import publish_site
from tests.fixtures.profiled_repo import BUILD, perf_can_record, profiled_history
from tests.fixtures.synthetic_repo import CommitSpec, make_repo
from tests.services.walks import finished

WHY_NOT = perf_can_record()
needs_perf = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
BOX = "Is this benchmark measuring the right thing?"

SPIN = """\
#include <stdio.h>
#include <time.h>

int main(void) {
  struct timespec start, now;
  unsigned long reads = 0;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    clock_gettime(CLOCK_MONOTONIC, &now);
    reads++;
  } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 100000000L);
  printf("VALUE %lu reads clock_reads\\n", reads);
  return 0;
}
"""

#: a few microseconds of work between two clock reads, and a loop of 50 ms
TIMED = """\
#include <stdio.h>
#include <time.h>

static volatile unsigned sink;

static long timed(unsigned rounds) {
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  unsigned x = 1;
  for (unsigned i = 0; i < rounds; i++) x = x * 2654435761u + i;
  sink = x;
  clock_gettime(CLOCK_MONOTONIC, &end);
  return (end.tv_sec - start.tv_sec) * 1000000000L + (end.tv_nsec - start.tv_nsec);
}

int main(int argc, char **argv) {
  unsigned rounds = argc > 1 && argv[1][0] == 'l' ? 50000000u : 2000u;
  printf("VALUE %ld ns elapsed\\n", timed(rounds));
  return 0;
}
"""


def _report(sender: float, receiver: float) -> str:
    """iperf3's text report of a UDP test (as iperf3 3.9 writes it), in Mbits/sec."""
    return f"""\
Connecting to host 127.0.0.1, port 47031
[  5] local 127.0.0.1 port 57826 connected to 127.0.0.1 port 47031
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-2.00   sec  23.8 MBytes  {sender} Mbits/sec  0.000 ms  0/763 (0%)  sender
[  5]   0.00-2.00   sec  2.38 MBytes  {receiver} Mbits/sec  0.007 ms  690/763 (90%)  receiver

iperf Done.
"""


def _config(tmp_path: Path, repo: Path, body: str, build: str = "true") -> Path:
    path = tmp_path / "perfwalk.toml"
    path.write_text(
        f"""\
[project]
repo = {json.dumps(str(repo))}

[build]
steps = [{json.dumps(build)}]

[run]
step = "commit"
repetitions = 2

{body}""",
        encoding="utf-8",
    )
    return path


def _walk_and_show(config: Path) -> str:
    code, _out, err = finished("run", "-c", str(config), timeout=300)
    assert code == 0, err
    code, out, err = finished("show", "1", "-c", str(config))
    assert code == 0, err
    print(out)
    return out


def _page(config: Path, tmp_path: Path) -> str:
    site = tmp_path / "site"
    publish_site(load_config(config), site)
    return (site / "series-1.html").read_text(encoding="utf-8")


def _repo(path: Path, files: list[dict[str, str]], subjects: list[str] | None = None) -> Path:
    start = datetime(2024, 5, 1, tzinfo=UTC)
    make_repo(
        path,
        [
            CommitSpec(
                date=start + timedelta(days=i),
                message=subjects[i] if subjects else f"commit {i}",
                files=content,
            )
            for i, content in enumerate(files)
        ],
    )
    return path


@needs_perf
def test_a_clock_spin_profiled_with_perf_is_said_to_measure_the_clock(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", [{"spin.c": SPIN, "n.txt": f"{i}\n"} for i in range(2)])
    body = """\
[[test]]
name = "spin"
command = "./spin"
parser = "value"
timeout = 60

[test.profile]
tool = "perf"
frequency = 5000
"""
    config = _config(tmp_path, repo, body, "cc -O2 -g -fno-omit-frame-pointer -o spin spin.c")
    out = _walk_and_show(config)
    assert BOX in out
    said = next(line for line in out.splitlines() if "spin: " in line)
    assert "reading the clock" in said
    assert float(said.split("spin: ")[1].split(" %")[0]) > 50
    assert "clock_gettime" in out  # the frames as evidence
    page = _page(config, tmp_path)
    assert BOX in page
    assert "reading the clock" in page


@needs_perf
def test_a_healthy_cpu_bound_loop_profiled_with_perf_gets_no_warning(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    profiled_history(repo)
    body = """\
[[test]]
name = "crc"
command = "./prog"
parser = "value"
timeout = 60

[test.profile]
tool = "perf"
frequency = 5000
"""
    config = _config(tmp_path, repo, body, BUILD)
    out = _walk_and_show(config)
    assert BOX not in out
    assert BOX not in _page(config, tmp_path)


def test_a_receiver_far_below_its_sender_is_said_and_a_healthy_one_is_not(
    tmp_path: Path,
) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "udp.out").write_text(_report(1000, 95.3), encoding="utf-8")
    (reports / "tcp.out").write_text(_report(941, 940), encoding="utf-8")
    repo = _repo(tmp_path / "repo", [{"n.txt": f"{i}\n"} for i in range(3)])
    body = "".join(
        f"""\
[[test]]
name = "{name}"
command = {json.dumps(f"cat {reports / (name + '.out')}")}
parser = "iperf3-text"

"""
        for name in ("udp", "tcp")
    )
    config = _config(tmp_path, repo, body)
    out = _walk_and_show(config)
    said = [line.strip() for line in out.splitlines() if "its receiver gets" in line]
    assert said == [
        "udp.receiver: its receiver gets 9.5 % of what its sender sends (95.3 Mbit/s "
        "of 1.00 Gbit/s, the medians over 3 checkouts; below 50.0 % at 3 of them): it "
        "measures what is dropped, not throughput"
    ]
    assert "tcp" not in "".join(out.split(BOX)[1:])
    page = _page(config, tmp_path)
    assert "<b>udp.receiver</b>: its receiver gets 9.5 %" in page


def test_a_metric_flat_while_its_hot_file_changed_at_every_commit(tmp_path: Path) -> None:
    count = 8
    # untrusted subjects: markup for the page, a terminal's escape for perfwalk show
    subjects = [f"hot: <b>faster</b> path {i} & more \x1b[2J" for i in range(count)]
    files = [
        {
            "src/hot.c": f"int hot(void) {{ return {i}; }}\n",
            "bench.sh": "echo 'VALUE 1000 ops done'\n",
        }
        for i in range(count)
    ]
    repo = _repo(tmp_path / "repo", files, subjects)
    body = """\
[validity]
flat_checkouts = 6
flat_commits = 5

[[test]]
name = "bench"
command = "sh bench.sh"
parser = "value"

[test.validity]
hot_paths = ["src/hot.c"]
"""
    config = _config(tmp_path, repo, body)
    out = _walk_and_show(config)
    assert "bench.done: flat (±0.0 %) over 8 checkouts (#0 to #7) while " in out
    assert "7 commits changed src/hot.c" in out
    assert "\x1b" not in out
    page = _page(config, tmp_path)
    assert "hot: &lt;b&gt;faster&lt;/b&gt; path 7 &amp; more" in page
    assert "<b>faster</b>" not in page
    # the same history when the test's hot path is a file no commit changed: nothing said
    text = config.read_text(encoding="utf-8").replace('["src/hot.c"]', '["src/cold.c"]')
    config.write_text(text, encoding="utf-8")
    code, out, err = finished("show", "1", "-c", str(config))
    assert code == 0, err
    assert BOX not in out
    assert BOX not in _page(config, tmp_path)  # the page is written again: its settings moved


@needs_cc
def test_a_region_of_microseconds_is_said_and_a_long_loop_is_not(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", [{"timed.c": TIMED, "n.txt": f"{i}\n"} for i in range(2)])
    body = """\
[[test]]
name = "tiny"
command = "./timed"
parser = "value"

[[test]]
name = "loop"
command = "./timed long"
parser = "value"
"""
    config = _config(tmp_path, repo, body, "cc -O1 -o timed timed.c")
    out = _walk_and_show(config)
    said = [line.strip() for line in out.splitlines() if "below the floor" in line]
    assert len(said) == 1, out
    assert said[0].startswith("tiny.elapsed: the median of its 4 values is ")
    assert "below the floor of 10.0 µs" in said[0]
    assert "loop." not in "".join(out.split(BOX)[1:])
