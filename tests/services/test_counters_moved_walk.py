"""What moved with a change, on real parts: a real git history whose benchmark, from
commit 4 on, sends every operation's UDP datagram on loopback twice; a real
``[[snapshot]]`` (``cat /proc/net/snmp``) around it, in a network namespace the test
creates so that no other traffic of the machine reaches its counters; a random number
of refused TCP connections per repetition besides (counters that move at random, with
no step); walked with ``perfwalk run`` in a real subprocess.

The UDP counters per operation (``per = ["bench.ops"]``) are ranked first at the
change, ×2.0; the TCP counters are not listed. Shown in ``perfwalk changes`` (JSON:
``counters``; text: the top 3), ``perfwalk show``, the series page (escaped) and the
banner of the checkout page at the change, in a real browser.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.config import load_config
from perfwalk.report import layout
from perfwalk.store import Store
from tests.browser.test_site_in_chromium import _uri, _wait_for_drawing
from tests.fixtures.chromium import Watched
from tests.fixtures.commands import perfwalk
from tests.fixtures.synthetic_repo import CommitSpec, make_repo

COMMITS, DOUBLED_AT = 8, 4

#: each operation sends (and receives) per_op.txt datagrams to a socket of its own on
#: 127.0.0.1; then a random number of connections to a closed port, refused
BENCH = """\
import random, socket
per_op = int(open("per_op.txt").read())
sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sink.bind(("127.0.0.1", 0))
source = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
ops = random.randint(100, 300)
for _ in range(ops):
    for _ in range(per_op):
        source.sendto(b"x", sink.getsockname())
        sink.recv(16)
closed = socket.socket()
closed.bind(("127.0.0.1", 0))
port = closed.getsockname()[1]
for _ in range(random.randint(0, 300)):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except ConnectionRefusedError:
        pass
print(f"VALUE {ops} ops ops")
print(f"VALUE {open('latency.txt').read().strip()} ms latency")
"""

CONFIG = """\
[project]
repo = "{repo}"

[build]
steps = ["true"]

[run]
step = "commit"

[analysis]
suspect_load = false

[[test]]
name = "bench"
command = "python3 bench.py"
parser = "value"
timeout = 60

[[snapshot]]
name = "snmp"
command = "cat /proc/net/snmp"
per = ["bench.ops"]

# the UDP datagrams sent, under a name with markup and a terminal escape
[[snapshot]]
name = "marked"
command = "awk '/^Udp: [0-9]/ {{ print \\"<b>sent</b>\\\\033[31m: \\" $5 }}' /proc/net/snmp"
per = ["bench.ops"]
"""

MARKED = "<b>sent</b>\x1b[31m"


def history(path: Path) -> None:
    start = datetime(2024, 1, 1, tzinfo=UTC)
    make_repo(
        path,
        [
            CommitSpec(
                date=start + timedelta(days=i),
                message=f"commit {i}" + (": send each datagram twice" if i == DOUBLED_AT else ""),
                files={
                    "bench.py": BENCH,
                    "per_op.txt": "2\n" if i >= DOUBLED_AT else "1\n",
                    "latency.txt": "130\n" if i >= DOUBLED_AT else "100\n",
                },
            )
            for i in range(COMMITS)
        ],
    )


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The history walked (4 repetitions a commit) in a network namespace of its own
    (loopback up, no other traffic in its counters); its folder."""
    if os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.skip("needs root, unshare and ip: the walk runs in a network namespace of its own")
    folder = tmp_path_factory.mktemp("counters")
    history(folder / "repo")
    config = folder / "perfwalk.toml"
    config.write_text(CONFIG.format(repo=folder / "repo"), encoding="utf-8")
    done = subprocess.run(
        [
            *("unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"),
            *(sys.executable, "-m", "perfwalk", "-c", str(config), "run"),
            *("--from", "2024-01-01", "-n", "4", "--name", "udp"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=folder,
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr
    print(done.stdout[-2000:])
    published = perfwalk("-c", str(config), "report", "--out", str(folder / "site"), cwd=folder)
    assert published.returncode == 0, published.stderr
    return folder


def test_the_counter_that_doubles_per_operation_is_ranked_first(walked: Path) -> None:
    config = walked / "perfwalk.toml"
    store = Store.open(load_config(config).store.url)
    try:  # every snapshot of the walk with the seconds between its two commands
        spans = store.series_snapshots(1)
    finally:
        store.close()
    assert len(spans) == 2 * COMMITS * 4
    assert all(s.seconds is not None and 0 < s.seconds < 60 for s in spans)

    listed = perfwalk("-c", str(config), "changes", "--format", "json", cwd=walked)
    (change,) = json.loads(listed.stdout)["changes"]
    assert change["id"] == f"1:{DOUBLED_AT}"
    counters = change["counters"]
    print([(c["counter"], c["text"], c["p"], c["cliffs_delta"]) for c in counters])
    first = counters[0]
    assert first["counter"] in ("UdpInDatagrams", "UdpOutDatagrams", MARKED)
    assert (first["test"], first["per"]) == ("bench", "bench.ops")
    assert first["snapshot"] == ("marked" if first["counter"] == MARKED else "snmp")
    assert first["ratio"] == pytest.approx(2.0)
    assert first["text"].startswith("×2.0 [")
    assert first["cliffs_delta"] == 1.0
    names = {c["counter"] for c in counters}
    assert {"UdpInDatagrams", "UdpOutDatagrams", MARKED} <= names
    assert not names & {"TcpActiveOpens", "TcpAttemptFails", "TcpOutRsts"}

    text = perfwalk("-c", str(config), "--color", "never", "changes", cwd=walked).stdout
    print(text)
    assert "moved with it: " in text
    assert "per bench.ops ×2.0 [2.0, 2.0] (snmp); " in text
    assert "\x1b" not in text
    shown = perfwalk("-c", str(config), "show", cwd=walked).stdout
    assert f"change 1:{DOUBLED_AT}: moved with it: " in shown
    assert "\x1b" not in shown

    page = (walked / "site" / layout.series_page(1)).read_text(encoding="utf-8")
    moved = page[page.index('<h2 id="moved">What moved with it</h2>') :]
    assert f'id="moved-1-{DOUBLED_AT}"' in moved
    rows = moved[: moved.index("</table>")].split("<tr>")[2:]
    assert "Udp" in rows[0] or "sent" in rows[0]
    assert "<td>×2.0 [2.0, 2.0]</td>" in rows[0]
    assert "&lt;b&gt;sent&lt;/b&gt;\\x1b[31m" in moved  # escaped, the escape neutralised
    assert "<b>sent" not in page
    assert "\x1b" not in page
    assert "TcpActiveOpens" not in moved
    # the checkout page's banner (drawn from the series' data) links to it
    meta = (walked / "site" / layout.series_meta(1)).read_text(encoding="utf-8")
    assert f'"href":"series-1.html#moved-1-{DOUBLED_AT}"' in meta.replace(" ", "")


def test_the_banner_at_the_change_leads_to_the_table(walked: Path, watched: Watched) -> None:
    """In a real browser: the checkout page at the change says what moved with it, the
    counter with markup as text, and its link opens the series page at the table."""
    site = walked / "site"
    page = watched.page
    page.goto(_uri(site, layout.checkout_page(1, DOUBLED_AT)))
    _wait_for_drawing(page)
    banner = page.locator("div.pw-banner")
    text = banner.inner_text()
    assert "moved with it: " in text
    assert "per bench.ops ×2.0 [2.0, 2.0]" in text
    assert "<b>sent</b>" in text  # shown as text, not markup
    assert banner.locator("b:text-is('sent')").count() == 0
    with page.expect_navigation():
        banner.locator("a:has-text('moved'), a:has-text('per bench.ops')").first.click()
    assert page.url.endswith(f"{layout.series_page(1)}#moved-1-{DOUBLED_AT}"), page.url
    assert page.locator(f"#moved-1-{DOUBLED_AT}").is_visible()
    assert not watched.dialogs
    assert not watched.errors, watched.errors
