"""A host whose commands run in a container image: real podman, a real image of
busybox made by the test (tests/fixtures/containers.py), LocalHost underneath."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfwalk.hosts import LocalHost
from perfwalk.hosts.base import INTERRUPTED
from perfwalk.hosts.container import ContainerHost
from tests.fixtures.containers import ENGINE, busybox_image

MARK = "/opt/inside"


@pytest.fixture(scope="module")
def image() -> Iterator[str]:
    with busybox_image({MARK: "in the image\n"}) as name:
        yield name


def _running(name_part: str) -> list[str]:
    done = subprocess.run(
        ["podman", "ps", "-a", "--format", "json"], capture_output=True, text=True, check=True
    )
    return [n for c in json.loads(done.stdout or "[]") for n in c["Names"] if name_part in n]


def test_a_command_runs_in_the_image_in_its_mounted_folder(image: str, tmp_path: Path) -> None:
    (tmp_path / "here.txt").write_text("from the worktree\n", encoding="utf-8")
    host = ContainerHost(LocalHost(), image, ENGINE, mounts=[str(tmp_path)])
    done = host.run(
        ["sh", "-c", f"cat {MARK} here.txt; pwd; echo made > out.txt"], cwd=str(tmp_path)
    )
    assert done.returncode == 0, done.stderr.text()
    assert done.stdout.text().splitlines() == ["in the image", "from the worktree", str(tmp_path)]
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == "made\n"  # written through
    assert not Path(MARK).exists()  # the file is the image's, not this machine's


def test_a_value_of_the_environment_reaches_the_command_but_never_the_command_line(
    image: str, tmp_path: Path
) -> None:
    host = ContainerHost(LocalHost(), image, ENGINE, mounts=[])
    secret = "s3cr3t value; $(touch /tmp/pwned)"
    done = host.run(["sh", "-c", 'echo "$TOKEN"'], env={"TOKEN": secret}, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr.text()
    assert done.stdout.text() == secret + "\n"
    assert not any(secret in word for word in done.argv)  # only -e TOKEN


def test_a_command_stopped_at_its_timeout_leaves_no_container(image: str, tmp_path: Path) -> None:
    host = ContainerHost(LocalHost(kill_grace=0.5), image, ENGINE, mounts=[])
    done = host.run(["sleep", "60"], timeout=2, cwd=str(tmp_path))
    assert done.timed_out
    name = done.argv[done.argv.index("--name") + 1]
    assert _running(name) == []


def test_an_interrupted_command_leaves_no_container(image: str, tmp_path: Path) -> None:
    host = ContainerHost(LocalHost(kill_grace=0.5), image, ENGINE, mounts=[])
    cancel = threading.Event()
    threading.Timer(2.0, cancel.set).start()
    done = host.run(["sleep", "60"], timeout=60, cwd=str(tmp_path), cancel=cancel)
    assert done.error == INTERRUPTED
    assert _running(done.argv[done.argv.index("--name") + 1]) == []


def test_an_image_that_does_not_exist_fails_the_command_with_the_engines_reason(
    tmp_path: Path,
) -> None:
    host = ContainerHost(LocalHost(), "localhost/perfwalk-no-such-image", ENGINE, mounts=[])
    done = host.run(["true"], cwd=str(tmp_path), timeout=60)
    assert done.returncode not in (0, None)
    assert "perfwalk-no-such-image" in done.stderr.text()
