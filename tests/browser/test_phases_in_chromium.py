"""The checkout page's snapshots and phase steps in Debian's headless chromium: the
counters that changed with their difference, the unchanged folded, every step with its
output folded and read from the logs file when opened, a fetched file linked; hostile
counter names, commands and outputs shown as text; no console error."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from perfwalk.model import Log, Status
from perfwalk.report import layout
from perfwalk.report.site import publish
from perfwalk.store import NewSnapshot, NewStep, Store
from tests.fixtures.chromium import Watched
from tests.store.factories import T0, checkout, new_series, repetition

HOSTILE = "<img src=x onerror=window.pwned=1>"


def _step(phase: str, kind: str, name: str, command: str, out: bytes, **more: Any) -> NewStep:
    return NewStep(
        test="iperf",
        phase=phase,
        role="dut",
        host="box",
        kind=kind,
        name=name,
        command=command,
        status=more.pop("status", Status.PASS),
        started_at=T0,
        finished_at=T0 + timedelta(seconds=1.5),
        exit_code=more.pop("exit_code", 0),
        stdout=Log.of(out),
        **more,
    )


STEPS = (
    _step("startup", "command", "sysctl -w x=1", "sysctl -w x=1", b"x = 1\n"),
    _step("snapshot-before", "snapshot", "net", "nstat -az", b"UdpOutDatagrams 5 0.0\n"),
    _step("snapshot-after", "snapshot", "net", "nstat -az", b"UdpOutDatagrams 9 0.0\n"),
    _step("collect", "command", HOSTILE, HOSTILE, f"collected {HOSTILE}\n".encode()),
    _step("collect", "fetch", "/var/log/kern.log", "/var/log/kern.log", b"kernel: hello\n"),
    _step(
        "reset",
        "command",
        "false",
        "false",
        b"",
        status=Status.NOEXIT,
        exit_code=1,
        message="exit 1",
    ),
)
SNAPSHOT = NewSnapshot(
    test="iperf",
    name="net",
    role="dut",
    host="box",
    parser="counters",
    before={"UdpOutDatagrams": 5, HOSTILE: 1, "IpInReceives": 7, "Gone": 2},
    after={"UdpOutDatagrams": 9, HOSTILE: 4, "IpInReceives": 7, "New": 18446744073709551615},
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    folder = tmp_path_factory.mktemp("phases")
    with Store.open(f"sqlite:///{folder / 'store.db'}") as store:
        series_id = store.create_series(new_series())
        checkout_id = store.add_checkout(series_id, checkout(0))
        store.set_build(checkout_id, Status.PASS, 1.0, Log.of(b"make: done\n"))
        rep = dataclasses.replace(repetition(0), steps=STEPS, snapshots=(SNAPSHOT,))
        store.add_repetition(checkout_id, rep)
        store.set_series_state(series_id, "finished", T0 + timedelta(days=1))
        publish(store, None, folder / "site")
    return folder / "site", series_id


def _open(page: Any, site: Path, path: str) -> None:
    file, _, anchor = path.partition("#")
    page.goto((site / file).as_uri() + f"#{anchor}")
    page.wait_for_function("() => document.getElementById('pw-page').dataset.drawn")


def test_the_checkout_page_shows_snapshots_and_steps_as_text(
    site: tuple[Path, int], watched: Watched
) -> None:
    folder, series_id = site
    page = watched.page
    _open(page, folder, layout.checkout_page(series_id, 0))
    rows = page.eval_on_selector_all(
        "#snapshots table.pw-counters:not(details table) tbody tr",
        "rows => rows.map(r => [...r.cells].map(c => c.textContent))",
    )
    assert rows == [
        ["UdpOutDatagrams", "5", "9", "+4"],
        [HOSTILE, "1", "4", "+3"],
        ["New", "new", "18446744073709551615", ""],
        ["Gone", "2", "gone", ""],
    ]
    assert page.locator("#snapshots details summary").inner_text() == "1 unchanged counters"
    steps = page.locator("#steps")
    text = steps.inner_text()
    for phase in ("startup", "snapshot-before", "snapshot-after", "collect", "reset"):
        assert phase in text
    assert HOSTILE in text  # a hostile command, as text
    assert "NOEXIT" in text
    # a folded output, read from the block's logs file when opened
    collect = page.locator(f"#steps tr:has-text('{HOSTILE}') details.pw-output").first
    collect.locator("summary").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('#steps details.pw-output pre')].length > 0"
    )
    assert f"collected {HOSTILE}" in collect.locator("pre").inner_text()
    # a fetched file: folded like an output, linked to its place in the logs
    fetched = page.locator("#steps tr:has-text('kern.log') details.pw-output summary").first
    assert fetched.inner_text() == "file"
    fetched.click()
    link = page.locator("#steps tr:has-text('kern.log') details.pw-output a").first
    link.wait_for()
    watched.shot("phases-checkout")
    link.click()
    page.wait_for_function("() => document.querySelector('.pw-target') !== null")
    assert "kernel: hello" in page.locator(".pw-target").inner_text()
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert not watched.dialogs
    assert not watched.errors, watched.errors


def test_the_logs_page_shows_the_steps_outputs(site: tuple[Path, int], watched: Watched) -> None:
    folder, series_id = site
    page = watched.page
    _open(page, folder, layout.logs_page(series_id, 0))
    page.wait_for_function("() => document.body.innerText.includes('kernel: hello')")
    text = page.inner_text("body")
    assert f"collected {HOSTILE}" in text
    assert "UdpOutDatagrams 9 0.0" in text
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert not watched.errors, watched.errors
