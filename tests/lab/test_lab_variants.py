"""A variant with a runtime modifier on the lab: a ``tbf`` rate limit put on the dut's
interface towards the sink in each test's startup and taken away in its reset. The
variant's TCP throughput is the limit's, the plain checkout's is not, and the dut is
left as it was (its qdisc checked after the walk). Real sshd, real iperf3, real
namespaces (root; skipped with the reason elsewhere)."""

from __future__ import annotations

import statistics
import subprocess

from perfwalk.lab import LabPlan
from perfwalk.model import Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.lab.conftest import LabConfig
from tests.services.walks import finished, perfwalk, wait_for

LIMITED = """
[run]
step = "commit"
repetitions = 2

[[test]]
name = "tcp"
role = "source"
command = "iperf3 -c {host.sink.addr} -p 5211 -t 1 -J"
parser = "iperf3"
timeout = 30

[[test.service]]
role = "sink"
command = "iperf3 -s -p 5211"
ready_port = 5211

[[variant]]
name = "limited"
comment = "a 200 Mbit/s token bucket on the dut towards the sink"

[[variant.modifier]]
role = "dut"
apply = [
  "tc qdisc replace dev {host.dut.ifname_sink} root tbf rate 200mbit burst 64kb latency 50ms",
]
undo = ["tc qdisc del dev {host.dut.ifname_sink} root"]
"""


def _qdiscs(lab: LabPlan) -> str:
    interface = lab.host_vars()["dut"]["ifname_sink"]
    return subprocess.run(
        ["ip", "netns", "exec", lab.namespace("dut"), "tc", "qdisc", "show", "dev", interface],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_a_rate_limit_modifier_shows_in_its_variant_and_leaves_the_dut_as_it_was(
    lab: LabPlan, lab_config: LabConfig
) -> None:
    before = _qdiscs(lab)
    assert "tbf" not in before
    config = lab_config(LIMITED)
    result = run_series(config, RunOptions(variants=("limited",)))
    assert result.worst is Status.PASS
    assert _qdiscs(lab) == before, "the modifier was not undone on the dut"
    with Store.open(config.store.url) as store:
        [limited] = store.variant_series(result.series_id)

        def received(series_id: int) -> list[float]:
            return [
                row.value
                for row in store.values(series_id)
                if row.name == "receiver" and row.status is Status.PASS
            ]

        plain, slowed = received(result.series_id), received(limited.id)
        steps = [s for c in store.checkouts(limited.id) for r in store.repetitions(c.id)
                 for s in store.steps(r.id)]  # fmt: skip
    assert len(plain) == len(slowed) == 2 * 2
    print(
        f"received: plain {statistics.median(plain):.4g}, limited {statistics.median(slowed):.4g}"
    )
    # the limit is 200 Mbit/s: what the variant received is at most that, and well
    # below what the plain checkout received (veth pairs carry several Gbit/s)
    assert max(slowed) < 210e6, slowed
    assert statistics.median(plain) > 2 * statistics.median(slowed), (plain, slowed)
    applied = [s for s in steps if s.phase == "startup" and "tbf rate 200mbit" in s.command]
    undone = [s for s in steps if s.phase == "reset" and "qdisc del" in s.command]
    assert len(applied) == len(undone) == 2 * 2
    assert all(s.status is Status.PASS and s.role == "dut" for s in applied + undone)


#: the same variant, and a second modifier on the dut that holds the test there once the
#: limit is in place (for a kill -9); a plain test refuses to run on a limited dut
HELD = (
    LIMITED
    + """
[[variant.modifier]]
role = "dut"
apply = ["sleep 60"]
undo = ["true"]

[test.roles.dut]
startup = ["if tc qdisc show dev {host.dut.ifname_sink} | grep -q tbf; then exit 7; fi"]
"""
)


def _recorded(url: str) -> int:
    with Store.open(url) as store:
        return len(store.modifiers.on())


def test_a_limit_a_killed_walk_left_on_the_dut_is_undone_by_the_next_walk_over_ssh(
    lab: LabPlan, lab_config: LabConfig
) -> None:
    before = _qdiscs(lab)
    config = lab_config(HELD)
    cfg = str(config.path)
    walk = perfwalk("run", "-c", cfg, "--variants", "limited", capture=False)
    try:
        wait_for(lambda: "tbf" in _qdiscs(lab), "the limit on the dut", timeout=120)
        wait_for(lambda: _recorded(config.store.url) == 2, "the test held", timeout=60)
    finally:
        walk.kill()
        walk.wait(timeout=30)
    try:
        assert "tbf" in _qdiscs(lab), "kill -9: nothing undid it"
        code, out, err = finished("run", "-c", cfg, timeout=300)
        assert code == 0, out + err
        assert _qdiscs(lab) == before
    finally:  # whatever happened, the lab's later tests find the dut as it was
        if "tbf" in _qdiscs(lab):
            interface = lab.host_vars()["dut"]["ifname_sink"]
            remove = ["tc", "qdisc", "del", "dev", interface, "root"]
            subprocess.run(["ip", "netns", "exec", lab.namespace("dut"), *remove], check=False)
    undid = [line for line in out.splitlines() if line.startswith("undid ")]
    assert len(undid) == 2, out  # the modifier that held the test, then the limit
    assert "the modifier 1 of variant 'limited' on host dut (role dut)" in undid[0]
    assert "the modifier 0 of variant 'limited' on host dut (role dut)" in undid[1]
    assert undid[1].endswith(f"tc qdisc del dev {lab.host_vars()['dut']['ifname_sink']} root")
