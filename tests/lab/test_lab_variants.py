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
from perfwalk.orchestrate.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.lab.conftest import LabConfig

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
