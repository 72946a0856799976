"""The text parsers of the real tools in a real walk: ``perfwalk run`` over a git
repository of two commits, an iperf3 UDP test against its server on loopback (a
service of the test, stopped by the walk) read by ``iperf3-text``, and an fs_mark
test read by ``fs_mark``; their values are stored under the names the docs give."""

from __future__ import annotations

import json
from pathlib import Path

from perfwalk.store import Store
from tests.fixtures.receivers import free_port
from tests.fixtures.synthetic_repo import numbered_repo
from tests.services.walks import finished


def test_a_walk_stores_the_values_of_iperf3_text_and_fs_mark(
    tmp_path: Path, short_folder: Path
) -> None:
    numbered_repo(tmp_path / "repo", 2)
    port = free_port()
    config = tmp_path / "perfwalk.toml"
    config.write_text(f"""\
[project]
repo = {json.dumps(str(tmp_path / "repo"))}

[store]
url = "sqlite:///perfwalk.db"

[build]
steps = ["true"]

[run]
step = "commit"
repetitions = 1

[hosts.loop]
target = "local"
roles = ["source", "sink"]
vars = {{ addr = "127.0.0.1" }}

[[test]]
name = "udp"
role = "source"
command = "iperf3 -c {{host.sink.addr}} -p {port} -u -b 10M -t 1"
parser = "iperf3-text"
timeout = 60

[[test.service]]
role = "sink"
command = "iperf3 -s -B 127.0.0.1 -p {port}"
ready_port = {port}

[[test]]
name = "files"
role = "source"
command = "cd {short_folder} && fs_mark -d {short_folder}/d -s 4096 -n 50 -L 2 -S 0"
parser = "fs_mark"
timeout = 60
""")
    code, out, err = finished("run", "-c", str(config), timeout=300)
    print(out, err)
    assert code == 0, err
    with Store.open(f"sqlite:///{tmp_path / 'perfwalk.db'}") as store:
        stored = store.passed_values(1)
    names = sorted({(test, name, unit) for _c, _r, test, name, unit, _v, _d in stored})
    print(names)
    assert names == [
        ("files", "app_overhead", "us"),
        ("files", "files", "files/sec"),
        ("udp", "jitter", "ms"),
        ("udp", "lost_percent", "percent"),
        ("udp", "receiver", "bits/sec"),
        ("udp", "sender", "bits/sec"),
    ]
    senders = [v for _c, _r, test, name, _u, v, _d in stored if name == "sender"]
    assert len(senders) == 2  # a checkout each
    assert all(8e6 < sender < 12e6 for sender in senders)  # paced at 10 Mbit/s
