"""The index's "last night" strip in Debian's headless chromium, at 1366 and 390 px: on
the first screen, its run's start and end written in the site's zone, not wider than
the screen; green while the last run is recent, red once the reader's clock is past
its stale_after, though the page was published while it was fresh (a static page: a
cron that stopped publishes nothing that could say so)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from perfwalk.model import Log, Status
from perfwalk.orchestrate.findings.changes import find_all
from perfwalk.report.site import PublishOptions, publish
from perfwalk.report.times import SiteTimes
from perfwalk.services.publish import listed_findings
from perfwalk.store import Store
from perfwalk.store.run_records import WALK, RunRecord
from tests.store.factories import checkout, new_series, repetition, result

ZONE = "Europe/Berlin"
WIDTHS = (1366, 390)
#: the last walk: it ended an hour before the site was published, and ran 40 minutes
ENDED = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(hours=1)
STARTED = ENDED - timedelta(minutes=40)
CHECKOUTS = 6


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A walk of 6 checkouts whose check fails from checkout 3 on and whose build fails
    at the last, recorded as the last run."""
    folder = tmp_path_factory.mktemp("night")
    with Store.open(f"sqlite:///{folder / 'store.db'}") as store:
        sid = store.create_series(new_series(name="nightly", step="commit", started_at=STARTED))
        for idx in range(CHECKOUTS):
            added = store.add_checkout(sid, checkout(idx))
            if idx == CHECKOUTS - 1:
                store.set_build(added, Status.NOEXIST, 1.0, Log.of(b"error\n"))
                continue
            store.set_build(added, Status.PASS, 1.0, Log.of(b"built\n"))
            status = Status.PASS if idx < 3 else Status.NOEXIT
            store.add_repetition(added, repetition(0, result("check", 1.0, status=status)))
        store.set_series_state(sid, "finished", ENDED)
        store.runs.add(RunRecord(WALK, "nightly", sid, STARTED, ENDED, CHECKOUTS, 0))
        changes = listed_findings(store, find_all(store, None))[0]  # the two breaks
        options = PublishOptions(changes=changes, times=SiteTimes(ZONE))
        publish(store, None, folder / "site", options)
    return folder / "site"


@pytest.fixture(params=WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def width(request: pytest.FixtureRequest) -> int:
    return int(request.param)


def _open(browser: Any, site: Path, width: int, now: datetime | None) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": width, "height": 768})
    if now is not None:  # the reader's clock, days later
        context.add_init_script(f"Date.now = () => {int(now.timestamp() * 1000)};")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto((site / "index.html").as_uri())
    page.wait_for_function("() => document.getElementById('last-night').dataset.checked")
    yield page
    context.close()
    assert errors == []


@pytest.fixture
def fresh(browser: Any, site: Path, width: int) -> Iterator[Any]:
    yield from _open(browser, site, width, None)


@pytest.fixture
def late(browser: Any, site: Path, width: int) -> Iterator[Any]:
    yield from _open(browser, site, width, ENDED + timedelta(days=3, minutes=5))


def _strip(page: Any) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(
        """() => {
          const el = document.getElementById('last-night');
          const box = el.getBoundingClientRect();
          const style = getComputedStyle(el);
          return {text: el.innerText, ran: el.querySelector('.ran').innerText,
                  top: box.top, bottom: box.bottom, right: box.right,
                  scroll: el.scrollWidth, client: el.clientWidth,
                  page: document.documentElement.scrollWidth,
                  classes: el.className, background: style.backgroundColor,
                  border: style.borderLeftColor};
        }"""
    )
    return found


def test_the_strip_shows_the_last_run_in_the_site_s_zone_on_the_first_screen(
    fresh: Any, width: int
) -> None:
    strip = _strip(fresh)
    print(width, strip)
    times = SiteTimes(ZONE)
    start, end = times.minute(STARTED), times.minute(ENDED)
    assert strip["ran"] in (f"{start}–{end[11:]}", f"{start}–{end}")  # the end's day if another
    assert strip["top"] >= 0  # the first screen
    assert strip["bottom"] <= 768
    assert strip["right"] <= width
    assert strip["scroll"] <= strip["client"]
    assert "nightly +6 checkouts" in strip["text"]
    assert "1 build broken, 1 test newly failing" in strip["text"]
    assert "stale" not in strip["classes"].split()
    assert strip["background"] == "rgb(243, 248, 245)"


def test_the_strip_turns_red_in_the_reader_s_browser_once_the_run_is_stale(
    late: Any, width: int
) -> None:
    strip = _strip(late)
    print(width, strip)
    assert "stale" in strip["classes"].split()
    assert "stale: no run for 3 days, more than 2 days ([watch] stale_after)" in strip["text"]
    assert strip["background"] == "rgb(253, 232, 232)"
    assert strip["border"] == "rgb(204, 0, 0)"
    assert strip["right"] <= width
    assert strip["scroll"] <= strip["client"]
