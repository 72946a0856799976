"""Hosts that hang during a walk, on the lab: real sshd namespaces, a test that
hangs its host as a kernel panic would (the lab's panic.sh: every process of the
namespace stopped), a real timeout, and the lab's power switch (power.sh: every
process killed, the sshd started again) as the hosts' power_cycle, power_on and
power_off commands. The night of docs/lab.md ("An unattended night") is walked as
written there. Root only (skipped with the reason elsewhere, a failure under CI)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfwalk.lab import LabPlan
from perfwalk.model import Status
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import numbered_repo
from tests.lab.fixtures import ns_processes, running_lab

NAME = "pwtpower"  # a lab of its own: its hosts hang and go off
DOC = Path(__file__).resolve().parents[2] / "docs" / "lab.md"
NIGHT = "An unattended night on the lab"

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def power_lab() -> Iterator[LabPlan]:
    yield from running_lab(NAME, reboot_delay=0.5)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A project of 5 commits; commit k's n.txt holds k (its "kernel")."""
    path = tmp_path_factory.mktemp("kernels") / "repo"
    return path, numbered_repo(path, 5)


def _perfwalk(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "perfwalk", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=500,
    )
    print(f"$ perfwalk {' '.join(args)}  (exit {done.returncode})")
    print(done.stdout, done.stderr, sep="")
    return done


def _doc_block(heading: str, lab: LabPlan) -> str:
    """The first toml block of docs/lab.md after ``heading``, for lab ``lab``."""
    text = DOC.read_text(encoding="utf-8")
    after = text[text.index(f"## {heading}") :]
    found = re.search(r"```toml\n(.*?)```", after, re.DOTALL)
    assert found is not None, f"no toml block after {heading!r} in {DOC}"
    return found.group(1).replace("pwlab", lab.name)


def _night_config(lab: LabPlan, repo: Path, folder: Path, body: str) -> Path:
    """perfwalk.toml as the walkthrough makes it: the lab's hosts with at_end
    uncommented, the project, and ``body``."""
    hosts = lab.hosts_toml().replace('# at_end = "power_off"', 'at_end = "power_off"')
    folder.mkdir(exist_ok=True)
    path = folder / "perfwalk.toml"
    path.write_text(
        hosts
        + f'\n[project]\nrepo = "{repo}"\n\n[store]\nurl = "sqlite:///{folder}/perfwalk.db"\n'
        + "\n[build]\nsteps = []\n\n"
        + body,
        encoding="utf-8",
    )
    return path


def _console(lab: LabPlan) -> str:
    return lab.console_log(lab.namespace("dut")).read_text(errors="replace")


def test_a_night_with_a_hang_recovered_and_a_checkout_that_hangs_every_boot(
    power_lab: LabPlan, kernels: tuple[Path, list[str]], tmp_path: Path
) -> None:
    repo, shas = kernels
    config = _night_config(power_lab, repo, tmp_path / "night", _doc_block(NIGHT, power_lab))
    night = _perfwalk("run", "-c", str(config))
    out, progress = night.stdout, night.stderr  # the progress lines go to stderr
    assert night.returncode == 1, night.stderr  # not every test PASS: something to look at
    assert "series 1 finished: 5 checkouts × 3 repetitions; worst status NOTERM" in out
    assert "test failing net (status)" in out  # a kernel that panics is a break
    hung = re.findall(
        r"host dut hung: power-cycled after \d+ s without an answer; it answered", progress
    )
    assert len(hung) == 3  # checkout 2 once, checkout 3 twice
    assert "a host hung at 2 repetitions in a row of this checkout: no more" in progress
    assert "host dut powered off" in out  # at_end = "power_off"
    assert ns_processes(power_lab.namespace("dut")) == []  # and it is off

    with Store.open(f"sqlite:///{config.parent / 'perfwalk.db'}") as store:
        series = store.series(1)
        assert series.state == "finished"
        statuses = {}
        for checkout in store.checkouts(1):
            assert checkout.build_status is Status.PASS
            reps = store.repetitions(checkout.id)
            statuses[checkout.idx] = [rep.results[0].status for rep in reps]
            for rep in reps:
                (result,) = rep.results
                if result.status is Status.PASS:  # the kernel installed at this checkout
                    assert [v.value for v in result.values] == [float(checkout.idx)]
        assert statuses == {
            0: [Status.PASS] * 3,
            1: [Status.PASS] * 3,
            2: [Status.PASS, Status.NOTERM, Status.PASS],
            3: [Status.NOTERM, Status.NOTERM],  # it hangs at every boot: given up
            4: [Status.PASS] * 3,
        }
        checkout2 = store.checkouts(1)[2]
        first, hanging, after = store.repetitions(checkout2.id)
        (result,) = hanging.results
        assert result.message.startswith("timed out after 3 s; host dut hung: power-cycled after")
        steps = store.steps(hanging.id)
        (cycle,) = [s for s in steps if s.kind == "power cycle"]
        assert cycle.status is Status.PASS
        assert cycle.command == power_lab.power_command(power_lab.namespace("dut"), "cycle")
        (console,) = [s for s in steps if s.kind == "console"]
        tail = store.log(console.stdout_log_id).text()
        assert "panic: fatal trap 12 in kernel 2" in tail
        assert tail.rstrip().endswith("boot: pwtpower-dut starts its sshd")  # after the cycle
        assert after.between_log_id is not None  # its kernel installed again, then a reboot
        again = store.log(after.between_log_id).text()
        assert "[installed again after the power cycle of dut]" in again
        assert "rebooted: down after" in again
        assert first.between_status is None

    show = _perfwalk("show", "-c", str(config))
    assert show.returncode == 0
    assert re.search(
        rf"checkout 3 \({shas[3][:10]}\): a host hung at every repetition \(2 of 2\): a "
        "functional break",
        show.stdout,
    )
    assert f"checkout 2 ({shas[2][:10]}): repetition 1: host dut hung: power-cycled" in show.stdout
    log = _perfwalk("log", "-c", str(config), "1:2", "--repetition", "1")
    assert "power cycle of dut · PASS" in log.stdout
    assert "panic: fatal trap 12 in kernel 2" in log.stdout

    # the next morning: the dut is off; the next walk powers it on, and off at its end
    morning = _perfwalk(
        "run", "-c", str(config), "--from", shas[0], "--to", shas[0], "-n", "1", "--name", "am"
    )
    assert morning.returncode == 0, morning.stderr
    assert re.search(r"host dut did not answer \(.*\): powered on, answering after", morning.stdout)
    assert "host dut powered off" in morning.stdout
    assert ns_processes(power_lab.namespace("dut")) == []
    assert _console(power_lab).count("power off") == 2


def test_a_host_that_does_not_come_back_ends_the_walk_keeping_what_was_measured(
    power_lab: LabPlan, kernels: tuple[Path, list[str]], tmp_path: Path
) -> None:
    repo, _shas = kernels
    dut = power_lab.namespace("dut")
    cycle = power_lab.power_command(dut, "cycle")
    never_back = power_lab.power_command(dut, "off")  # a switch that never powers it on
    body = f"""
[run]
step = "commit"
to = "HEAD~3"
repetitions = 2

[install.dut]
files = ["n.txt"]

[[test]]
name = "net"
role = "dut"
command = '''
k=$(cat {{hostdir}}/n.txt)
if [ "$k" = 1 ]; then sh {power_lab.panic_script} {{host.dut.ns}} "hung for good"; fi
echo "VALUE $k n kernel"
'''
parser = "value"
timeout = 3
"""
    config = _night_config(power_lab, repo, tmp_path / "gone", body)
    text = config.read_text().replace(f'power_cycle = "{cycle}"', f'power_cycle = "{never_back}"')
    config.write_text(text.replace("reboot_timeout = 60", "reboot_timeout = 3"))
    try:
        walk = _perfwalk("run", "-c", str(config))
        assert walk.returncode == 2  # an error that names the host and what to check
        assert re.search(
            r"error: host dut hung: power-cycled after \d+ s without an answer, but it did not "
            r"answer within 3 s \(reboot_timeout\): the walk stops here",
            walk.stderr,
        )
        assert "host dut powered off" in walk.stdout  # at_end: a walk that failed too
        assert "hint: check host dut: its console, its power" in walk.stderr
        assert "perfwalk run --resume" in walk.stderr
        with Store.open(f"sqlite:///{config.parent / 'perfwalk.db'}") as store:
            assert store.series(1).state == "interrupted"
            kept = {
                (c.idx, rep.idx): rep.results[0].status
                for c in store.checkouts(1)
                for rep in store.repetitions(c.id)
            }
        assert kept == {(0, 0): Status.PASS, (0, 1): Status.PASS, (1, 0): Status.NOTERM}
    finally:  # the dut on again for what follows
        subprocess.run(["sh", str(power_lab.power_script), dut, "on"], check=True)


def test_a_walk_interrupted_powers_its_hosts_off_too(
    power_lab: LabPlan, kernels: tuple[Path, list[str]], tmp_path: Path
) -> None:
    repo, _shas = kernels
    body = """
[run]
step = "commit"
to = "HEAD~4"
repetitions = 1

[[test]]
name = "long"
role = "dut"
command = "sleep 4252"
parser = "value"
timeout = 120
"""
    config = _night_config(power_lab, repo, tmp_path / "stopped", body)
    dut = power_lab.namespace("dut")
    walk = subprocess.Popen(
        [sys.executable, "-m", "perfwalk", "run", "-c", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not any("sleep 4252" in p for p in ns_processes(dut)):
            assert walk.poll() is None, walk.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        walk.send_signal(signal.SIGINT)
        out, err = walk.communicate(timeout=120)
        assert walk.returncode == 130, err
        assert "host dut powered off" in out
        assert ns_processes(dut) == []
        with Store.open(f"sqlite:///{config.parent / 'perfwalk.db'}") as store:
            assert store.series(1).state == "interrupted"
            assert store.leases.list() == []
    finally:
        if walk.poll() is None:
            walk.kill()
            walk.communicate()
        subprocess.run(["sh", str(power_lab.power_script), dut, "on"], check=True)
