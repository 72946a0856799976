"""`perfwalk lab up|down|status` and `perfwalk hosts`: idempotent, side by side with
another lab, nothing left behind; and the plan's checks, which need no root."""

from __future__ import annotations

import ipaddress
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.errors import UsageError
from perfwalk.lab import LabPlan, lab_plan
from perfwalk.services import lab as lab_service
from perfwalk.store import Store
from perfwalk.store.leases import Holder
from tests.lab.conftest import LabConfig
from tests.lab.fixtures import ns_processes, require_lab


def _namespaces() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    return [line.split()[0] for line in out.stdout.splitlines() if line.strip()]


def _routes() -> str:
    return subprocess.run(["ip", "route"], capture_output=True, text=True, check=True).stdout


def test_up_is_idempotent_beside_another_lab_and_down_leaves_nothing(
    lab: LabPlan, capsys: pytest.CaptureFixture[str]
) -> None:
    require_lab()
    try:
        assert main(["lab", "up", "--name", "pwtcli"]) == 0
        first = capsys.readouterr().out
        plan = lab_service.status("pwtcli").plan
        assert plan.prefix != lab.prefix
        assert "pwtcli-dut   yes     pid" in first
        assert first.count("answers") == 3
        assert f"route unreachable {plan.prefix}: yes" in first
        assert main(["lab", "up", "--name", "pwtcli"]) == 0  # again: nothing new
        assert main(["lab", "status", "--name", "pwtcli"]) == 0
        assert capsys.readouterr().out.count("answers") == 6
        sshd = [p for p in ns_processes("pwtcli-src") if "sshd" in p]
        assert len(sshd) == 1  # the second up did not start another
        # the two labs are separate networks: src of one cannot reach the sink of the other
        other_sink = lab.host_vars()["sink"]["addr"]
        reach = subprocess.run(
            ["ip", "netns", "exec", "pwtcli-src", "ip", "route", "get", other_sink],
            capture_output=True,
            text=True,
            check=False,
        )
        assert "dev eth0" in reach.stdout or reach.returncode != 0
        assert ipaddress.ip_address(other_sink) not in plan.prefix
        assert set(lab.namespaces) <= set(_namespaces())
    finally:
        assert main(["lab", "down", "--name", "pwtcli"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("removed")
    assert not [ns for ns in _namespaces() if ns.startswith("pwtcli-")]
    assert str(plan.prefix) not in _routes()
    assert not plan.directory.exists()
    assert main(["lab", "down", "--name", "pwtcli"]) == 0  # again: nothing to do
    assert set(lab.namespaces) <= set(_namespaces())  # the other lab is untouched
    assert main(["lab", "status", "--name", "pwtcli"]) == 1


def test_lab_traffic_cannot_leave_the_machine(lab: LabPlan) -> None:
    route = subprocess.run(
        ["ip", "route", "get", lab.host_vars()["sink"]["addr"]],
        capture_output=True,
        text=True,
        check=False,
    )
    assert route.returncode != 0 or "unreachable" in route.stdout
    assert f"unreachable {lab.prefix}" in _routes()


def test_hosts_lists_the_hosts_and_breaks_a_lease(
    lab: LabPlan, lab_config: LabConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    config = lab_config('[[test]]\nname = "t"\nrole = "dut"\ncommand = "true"\nparser = "value"\n')
    with Store.open(config.store.url) as store:
        holder = Holder.this_process("a run that was killed")
        assert store.leases.take([lab.namespace("dut")], holder, expiry=3600, now=_now()) == []
    assert main(["hosts", "-c", str(config.path)]) == 0
    out = capsys.readouterr().out
    assert f"dut    {lab.namespace('dut')}" in out
    assert "addr=" in out
    assert "a run that was killed" in out
    assert main(["hosts", "-c", str(config.path), "--break", "dut"]) == 0
    assert "broke the lease on" in capsys.readouterr().out
    assert main(["hosts", "-c", str(config.path)]) == 0
    assert "no leases" in capsys.readouterr().out
    assert main(["hosts", "-c", str(config.path), "--break", "dut"]) == 2
    assert "no lease on" in capsys.readouterr().err


def _now() -> datetime:
    return datetime.now(UTC)


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"name": "Bad-Name"}, "bad lab name"),
        ({"prefix": "8.8.0.0/16"}, "not a private network"),
        ({"prefix": "10.1.2.0/24"}, "too small"),
        ({"prefix": "10.1.2.0/33"}, "bad lab prefix"),
        ({"directory": Path("/tmp/lab")}, "under /tmp"),
        ({"reboot_delay": -1.0}, "reboot-delay"),
    ],
)
def test_bad_lab_settings_are_refused_with_a_remedy(kwargs: dict[str, object], said: str) -> None:
    with pytest.raises(UsageError, match=said) as info:
        lab_plan(**kwargs)  # type: ignore[arg-type]
    assert info.value.hint or "reboot-delay" in said


def test_the_plan_of_a_lab() -> None:
    plan = lab_plan("pwx", prefix="10.99.0.0/16")
    assert plan.namespaces == ("pwx-src", "pwx-dut", "pwx-sink")
    assert plan.host_vars()["sink"]["addr"] == "10.99.2.2"
    assert plan.host_vars()["src"]["gw"] == "10.99.1.1"
    config = plan.ssh_config_text()
    assert "ProxyCommand ip netns exec pwx-dut socat - TCP:%h:%p,nodelay" in config
    assert "StrictHostKeyChecking yes" in config
    sshd = plan.sshd_config_text("pwx-dut")
    assert "MaxSessions 200" in sshd
    assert "PasswordAuthentication no" in sshd
    start = plan.start_script_text("pwx-dut")
    assert "unshare --uts --mount" in start
    assert "mount --bind" in start
    assert 'roles = ["dut"]' in plan.hosts_toml()
    assert lab_plan("pwx").prefix != lab_plan("pwy").prefix


def test_a_lab_whose_default_prefix_another_lab_has_takes_the_next(lab: LabPlan) -> None:
    taken = (lab.prefix,)
    name = next(n for n in ("pwa", "pwb", "pwc", "pwd", "pwe") if lab_plan(n).prefix != lab.prefix)
    assert lab_plan(name, taken=taken).prefix == lab_plan(name).prefix
    same = lab_plan(lab.name, taken=taken).prefix
    assert same != lab.prefix
    assert int(same.network_address) == int(lab.prefix.network_address) + (
        1 << 16
    ) or same.overlaps(ipaddress.IPv4Network("10.200.0.0/16"))


def test_without_root_the_lab_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    assert main(["lab", "up", "--name", "pwtnoroot"]) == 2
    err = capsys.readouterr().err
    assert "perfwalk lab needs root" in err
    assert "hint: run it with sudo" in err
