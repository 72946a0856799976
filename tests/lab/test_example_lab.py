"""The lab example (examples/lab/), end to end as its README runs it: a lab of its own,
the dut-configuration repository, the walk commit by commit (install on the dut over
ssh, iperf3 TCP and UDP through the dut, 3 repetitions), the analysis, the lab down.
The tbf rate limit must be found where it was added and where it was removed, and it
all must take at most 5 minutes. Root only (skipped with the reason elsewhere)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from perfwalk.config import load_config
from perfwalk.orchestrate.findings.change_events import ChangeEvent
from perfwalk.orchestrate.findings.changes import find_changes
from perfwalk.store import Store
from tests.lab.fixtures import running_lab

NAME = "pwtexample"  # a lab of its own: runs beside the other lab tests
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "lab"
LIMIT_S = 300.0


def _perfwalk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "perfwalk", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=LIMIT_S,
    )


def _run(*argv: str) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def _found(events: list[ChangeEvent], known: dict[str, object]) -> ChangeEvent:
    """The event whose range is exactly (previous, commit] of a known change."""
    for event in events:
        if (event.before.sha, event.after.sha) == (known["previous"], known["commit"]):
            return event
    ranges = [(e.before.sha[:12], e.after.sha[:12], e.kind) for e in events]
    raise AssertionError(f"{known['subject']!r} not found; the changes found: {ranges}")


@pytest.mark.slow
@pytest.mark.timeout(2 * LIMIT_S)
def test_the_lab_example_finds_the_rate_limit_where_it_was_added_and_removed(
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    with contextmanager(running_lab)(NAME) as plan:  # perfwalk lab up … lab down
        made = subprocess.run(
            [sys.executable, str(EXAMPLE / "make_example.py"), str(tmp_path),
             "--hosts", str(plan.directory / "hosts.toml")],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        config_path = tmp_path / "perfwalk.toml"
        walked = _perfwalk("run", "-c", str(config_path))
        assert walked.returncode == 0, walked.stdout + walked.stderr
        assert "15 checkouts × 3 repetitions; worst status PASS" in walked.stdout

        limit, unlimit = json.loads((tmp_path / "known-changes.json").read_text())
        with Store.open(f"sqlite:///{tmp_path / 'perfwalk.db'}") as store:
            events = find_changes(store, load_config(config_path))
        added, removed = _found(events, limit), _found(events, unlimit)
        for event, kind in ((added, "regression"), (removed, "improvement")):
            assert event.kind == kind
            changed = {(m.test, m.name) for m in event.metrics}
            assert ("tcp", "receiver") in changed or ("udp", "receiver") in changed, changed
            for m in event.metrics:
                print(f"{kind} at {event.after.sha[:12]}: {m.test}.{m.name} {m.size:+.0%}")

        changes = _perfwalk("changes", "-c", str(config_path), "--all")
        print(changes.stdout)
        assert changes.returncode == 1  # a regression without a known cause
        assert limit["commit"][:10] in changes.stdout
        assert unlimit["commit"][:10] in changes.stdout
    elapsed = time.monotonic() - started
    print(f"lab up, example, walk of 15 commits, analysis, lab down: {elapsed:.0f} s")
    assert elapsed <= LIMIT_S

    namespaces = _run("ip", "netns", "list")
    assert NAME not in namespaces
    routes = _run("ip", "route", "show", "type", "unreachable")
    assert str(plan.prefix) not in routes
    assert not plan.directory.exists()
