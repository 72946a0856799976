"""The cachegrind instrument on real processes under the real valgrind: a process
tree summed, the exit status passed through, every file read back and removed, the
two lines read back counting as the whole files do; and a host whose PATH has no
valgrind: no metric (never a zero), said once per test and host."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from perfwalk.config.model import InstrumentConfig
from perfwalk.hosts import FakeHost, LocalHost, Rule
from perfwalk.orchestrate.hosts.topology import Member
from perfwalk.orchestrate.instruments.cachegrind import Cachegrind
from perfwalk.orchestrate.instruments.instruments import Instruments
from perfwalk.parsers.cachegrind import parse_tree

CACHEGRIND = (InstrumentConfig("cachegrind"),)

pytestmark = pytest.mark.skipif(
    shutil.which("valgrind") is None or shutil.which("cc") is None,
    reason="needs valgrind and cc (Debian: apt-get install valgrind gcc)",
)

WORK = """\
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  static unsigned char buf[1 << 16];
  unsigned long s = 0;
  for (long i = 0; i < n; i++) { buf[(i * 2654435761u) & 0xffff] += i; s += buf[i & 0xffff]; }
  printf("%lu\\n", s);
  return 0;
}
"""


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small C program that loops as many times as its argument says."""
    folder = tmp_path_factory.mktemp("work")
    (folder / "work.c").write_text(WORK)
    subprocess.run(["cc", "-O1", "-o", "work", "work.c"], cwd=folder, check=True)
    return folder / "work"


def _measure(tmp_path: Path, command: str) -> tuple[int | None, dict[str, float], list[str]]:
    member = Member("local", LocalHost(), local=True)
    instruments = Instruments({"cachegrind": Cachegrind()})
    armed = instruments.arm("t", CACHEGRIND, member, str(tmp_path / "run"))
    done = member.host.run([*armed.prefix, "sh", "-c", command], timeout=120)
    values, notes = armed.read(done)
    assert list(tmp_path.glob("run.*")) == []  # read back and removed
    return done.returncode, {v.name: v.value for v in values}, list(notes)


def test_a_process_tree_is_summed_and_its_exit_status_kept(tmp_path: Path, work: Path) -> None:
    code, one, notes = _measure(tmp_path, f"exec {work} 100000")
    assert (code, notes) == (0, [])
    code, tree, notes = _measure(tmp_path, f"{work} 100000; {work} 200000 | cat; exit 3")
    print("one process", one, "tree", tree)
    assert (code, notes) == (3, [])
    # the tree holds the program twice (the second loop twice as long), a shell, a cat
    assert tree["cachegrind.instructions"] > 3 * one["cachegrind.instructions"]
    assert tree["cachegrind.cycles"] > tree["cachegrind.instructions"]
    # the same command counts the same instructions again (a deterministic program)
    _code, again, _notes = _measure(tmp_path, f"exec {work} 100000")
    assert abs(again["cachegrind.instructions"] / one["cachegrind.instructions"] - 1) < 1e-3


def test_the_lines_read_back_count_as_the_whole_file(tmp_path: Path, work: Path) -> None:
    member = Member("local", LocalHost(), local=True)
    cachegrind = Cachegrind()
    path = str(tmp_path / "run")
    member.host.run([*cachegrind.wrapper(member, path), str(work), "1000"], timeout=120)
    (whole,) = tmp_path.glob("run.out.*")
    counts = parse_tree(whole.read_text())
    values, problem = cachegrind.read(member, path)
    assert problem == ""
    assert counts.processes == 1
    assert [v.value for v in values] == [counts.instructions, counts.cycles]


def test_a_file_cut_short_stores_nothing_and_says_so(tmp_path: Path, work: Path) -> None:
    member = Member("local", LocalHost(), local=True)
    cachegrind = Cachegrind()
    path = str(tmp_path / "run")
    command = f"{work} 1000; {work} 2000"
    member.host.run([*cachegrind.wrapper(member, path), "sh", "-c", command], timeout=120)
    outputs = sorted(tmp_path.glob("run.out.*"))
    assert len(outputs) == 3
    text = outputs[1].read_text()
    outputs[1].write_text(text[: text.rindex("summary:") + 12])  # cut in its summary
    outputs[2].write_text("")  # and one empty
    values, problem = cachegrind.read(member, path)
    print(problem)
    assert values == ()
    assert "the output of 2 of 3 processes on host local is incomplete" in problem
    assert list(tmp_path.glob("run.*")) == []


def test_a_run_that_wrote_no_output_says_what_valgrind_said(tmp_path: Path) -> None:
    member = Member("local", LocalHost(), local=True)
    log = tmp_path / "run.log.1"
    log.write_text("==1== Cachegrind\n--1-- warning: L3 cache found\n==1== fatal: cannot map\n")
    values, problem = Cachegrind().read(member, str(tmp_path / "run"))
    assert values == ()
    assert problem.startswith("no process wrote an output on host local: ")
    assert "fatal: cannot map" in problem
    assert "warning" not in problem
    assert not log.exists()


def test_a_path_without_valgrind_measures_nothing_and_says_so_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "echo"):
        (bin_dir / tool).symlink_to(shutil.which(tool) or f"/bin/{tool}")
    monkeypatch.setenv("PATH", str(bin_dir))
    member = Member("local", LocalHost(), local=True)
    instruments = Instruments({"cachegrind": Cachegrind()})
    first = instruments.arm("t", CACHEGRIND, member, str(tmp_path / "a"))
    done = member.host.run([*first.prefix, "sh", "-c", "echo VALUE 1 s x"], timeout=60)
    values, notes = first.read(done)
    again = instruments.arm("t", CACHEGRIND, member, str(tmp_path / "b"))
    other = instruments.arm("u", CACHEGRIND, member, str(tmp_path / "c"))
    print(notes)
    assert done.returncode == 0
    assert done.stdout.text() == "VALUE 1 s x\n"
    assert values == ()  # no metric, never a zero
    assert len(notes) == 1
    assert notes[0].startswith("cachegrind: not measured on host local: valgrind's cachegrind")
    assert notes[0].endswith("install valgrind on that host (Debian: apt-get install valgrind)")
    assert again.notes == ()
    assert again.prefix == ()
    assert len(other.notes) == 1  # another test's first result says it too


def test_a_remote_host_without_valgrind_is_asked_once() -> None:
    host = FakeHost([Rule("valgrind", returncode=127, stderr="sh: 1: valgrind: not found")])
    member = Member("dut", host, local=False)
    instruments = Instruments({"cachegrind": Cachegrind()})
    for test in ("t", "t", "u"):
        armed = instruments.arm(test, CACHEGRIND, member, "/tmp/x")
        assert not armed.measuring
    assert len([c for c in host.calls if c.argv[0] == "valgrind"]) == 1
    assert "exit 127: sh: 1: valgrind: not found" in armed.notes[0]
