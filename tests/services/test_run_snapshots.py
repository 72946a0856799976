"""[[snapshot]]s around a real walk on the local host: /proc/net/snmp read before and
after a test that sends UDP datagrams to 127.0.0.1; the difference is in the store
and in the published checkout page's data."""

from __future__ import annotations

import json
import re
from pathlib import Path

from perfwalk.model import Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.publish import publish_site
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.services.conftest import MakeConfig

#: datagrams the test sends to a socket of its own on 127.0.0.1 (loopback only)
SENT = 200

UDP = f"""\
import socket
sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sink.bind(("127.0.0.1", 0))
source = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range({SENT}):
    source.sendto(b"x", sink.getsockname())
"""

SNAPSHOTS = """
[[snapshot]]
name = "snmp"
command = "cat /proc/net/snmp"

[[snapshot]]
name = "broken"
command = "echo '<b>no counters</b>'; exit 3"
"""


def test_a_snapshot_shows_the_udp_datagrams_the_test_sent(
    make_config: MakeConfig, tmp_path: Path
) -> None:
    script = tmp_path / "udp.py"
    script.write_text(UDP, encoding="utf-8")
    config = make_config(command=f"python3 {script} && sh bench.sh", extra=SNAPSHOTS)
    result = run_series(config, RunOptions(from_="2024-01-10", to="2024-01-11", repetitions=1))
    assert result.worst is Status.PASS  # the broken snapshot leaves the test's status alone
    store = Store.open(config.store.url)
    try:
        checkout = store.checkouts(result.series_id)[0]
        (rep,) = store.repetitions(checkout.id)
        snmp, broken = store.snapshots(rep.id)
        assert (snmp.name, snmp.test, snmp.status, snmp.message) == (
            "snmp",
            "latency",
            Status.PASS,
            "",
        )
        assert snmp.before is not None
        assert snmp.after is not None
        assert snmp.after["UdpOutDatagrams"] - snmp.before["UdpOutDatagrams"] >= SENT
        assert (broken.status, broken.before, broken.after) == (Status.NOEXIT, None, None)
        assert "exit 3" in broken.message
        phases = [(s.phase, s.name) for s in store.steps(rep.id) if s.kind == "snapshot"]
        assert phases == [
            ("snapshot-before", "snmp"),
            ("snapshot-before", "broken"),
            ("snapshot-after", "snmp"),
            ("snapshot-after", "broken"),
        ]
    finally:
        store.close()

    site = tmp_path / "site"
    publish_site(config, site)
    data = (site / f"series-{result.series_id}" / "data" / "checkouts-0.js").read_text()
    entry = json.loads(re.search(r',"c":\[(.*)\]\}\);', data, re.S).group(1).split(',{"idx"')[0])
    shown = {snap[2]: snap for snap in entry["ph"]["n"]}
    changed = {row[0]: row for row in shown["snmp"][7]}
    before, after, delta = changed["UdpOutDatagrams"][1:]
    assert int(after) - int(before) == int(delta) >= SENT
    assert shown["broken"][5] == "NOEXIT"
    steps = entry["ph"]["s"]
    assert {step[3] for step in steps} >= {"snapshot-before", "snapshot-after"}
