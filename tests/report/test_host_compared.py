"""The setup page says what differs between the host of a series and the host of the
series before it (its NIC's firmware, its microcode, SMT), and shows the kernel's
boot log as lines; untrusted text stays text."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from perfwalk.report.pages.setup import previous_of, setup_page
from perfwalk.report.times import UTC_TIMES
from perfwalk.store import Store
from tests.report.history import HOSTILE, _series

BEFORE = {
    "hostname": "dut",
    "cpu": "Xeon",
    "microcode": "0xb4",
    "smt": "on",
    "nic.ix0": "driver ixgbe; firmware-version 0x800003e7",
}
AFTER = {
    **BEFORE,
    "microcode": "0xb6",
    "smt": "off",
    "nic.ix0": f"driver ixgbe; firmware-version {HOSTILE}",
    "boot_log": "[0.0] Linux version 6.1\n[0.1] Command line: mitigations=off",
}


def test_the_setup_page_names_what_differs_from_the_previous_series_host(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path / 'store.db'}") as store:
        for name, fingerprint in (("first", BEFORE), ("again", BEFORE), ("after", AFTER)):
            store.create_series(
                dataclasses.replace(_series(name, "1day", None, ()), fingerprint=fingerprint)
            )
        first, again, after = sorted(store.list_series(), key=lambda s: s.id)
    earlier = previous_of([after, first, again])
    assert first.id not in earlier
    assert earlier[again.id].id == first.id
    assert earlier[after.id].id == again.id
    assert "Host compared" not in setup_page(first, UTC_TIMES)
    same = setup_page(again, UTC_TIMES, first)
    assert f'The same host fingerprint as <a href="../series-{first.id}/setup.html">' in same
    page = setup_page(after, UTC_TIMES, again)
    compared = page[page.index("<h2>Host compared: what differs from") :]
    compared = compared[: compared.index("</table>")]
    assert compared.count("<tr>") == 4  # the head, then microcode, nic.ix0, smt; no boot log
    assert '<td class="name">microcode</td><td class="name">0xb6</td>' in compared
    assert '<td class="name">0xb4</td>' in compared
    assert '<td class="name">smt</td><td class="name">off</td><td class="name">on</td>' in compared
    assert "<script>" not in page  # the hostile firmware string is text
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in compared
    assert (
        '<pre class="boot">[0.0] Linux version 6.1\n[0.1] Command line: mitigations=off</pre>'
        in page
    )
    assert '"boot_log"' not in page  # not in the fingerprint's JSON too
