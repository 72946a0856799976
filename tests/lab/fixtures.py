"""A real lab (network namespaces, sshd, veths) for the tests that need hosts.

Each test folder that needs one makes its own, under its own name, so labs of
several names run side by side. Without root (or without the tools) the tests
are skipped with the reason; under CI, which runs as root, that is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfwalk.lab import LabPlan
from perfwalk.services import lab as lab_service

#: The Debian packages a lab needs (also in the report of issue 5).
PACKAGES = {"sshd": "openssh-server", "ssh": "openssh-client", "socat": "socat",
            "iperf3": "iperf3", "ip": "iproute2"}  # fmt: skip


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def lab_missing() -> str | None:
    """Why no lab can be made here, or None."""
    if not sys.platform.startswith("linux"):
        return "the lab needs Linux network namespaces"
    if os.geteuid() != 0:
        return "the lab needs root (network namespaces, veths, a route); CI runs as root"
    missing = [pkg for tool, pkg in PACKAGES.items() if not shutil.which(tool, path=_PATH)]
    if missing:
        return f"the lab needs the Debian packages {' '.join(sorted(set(missing)))}"
    return None


_PATH = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"


def require_lab() -> None:
    """Skip (fail under CI) when no lab can be made."""
    required(lab_missing(), "the lab tests")


def required(why: str | None, tests: str) -> None:
    """Skip the test for the reason ``why`` (None: it can run); under CI, which must run
    ``tests``, fail."""
    if why is not None:
        if in_ci():
            pytest.fail(f"CI must run {tests}: {why}", pytrace=False)
        pytest.skip(why)


def running_lab(name: str, *, reboot_delay: float = 0.5) -> Iterator[LabPlan]:
    """Make lab ``name`` for the duration of a fixture, then remove it (a prefix that
    another lab of this machine has is skipped)."""
    require_lab()
    lab_service.down(name)  # leftovers of an earlier, killed session
    status = lab_service.up(name, reboot_delay=reboot_delay)
    assert status.up, status
    try:
        yield status.plan
    finally:
        lab_service.down(name)


def ns_processes(namespace: str) -> list[str]:
    """The command lines of the processes that run in a lab namespace."""
    pids = subprocess.run(
        ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=False
    ).stdout.split()
    lines = []
    for pid in pids:
        try:
            raw = Path(f"/proc/{pid}/cmdline").read_bytes()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X"):
            lines.append(raw.replace(b"\0", b" ").decode(errors="replace").strip())
    return lines
