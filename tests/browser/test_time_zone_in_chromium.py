"""One time zone per site, in Debian's headless chromium: a site configured for
Asia/Kolkata, opened by a browser whose own zone is America/Los_Angeles, writes every
date of its pages' text, its plots' axis ticks and their tooltips in Asia/Kolkata,
and says so once per page (the hover text was in UTC, the axis in the browser's
zone, the setup page said "UTC" and the commits "+0000")."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from perfwalk.model import Checkout, Commit, Direction, Log, Status, Value
from perfwalk.report import layout
from perfwalk.report.change_list import ListedChange
from perfwalk.report.site import PublishOptions, publish
from perfwalk.report.times import SiteTimes
from perfwalk.store import NewRepetition, NewResult, NewSeries, QuirkInfo, Store

ZONE = "Asia/Kolkata"
BROWSER_ZONE = "America/Los_Angeles"
TIMEOUT_MS = 15_000
#: every time of the site is 20:00 UTC on some day: 01:30 the next day in Kolkata,
#: 13:00 the same day in Los Angeles
T0 = datetime(2024, 5, 1, 20, 0, tzinfo=UTC)
CHECKOUTS = 8
KOLKATA = ZoneInfo(ZONE)
#: a date and time as the pages write them, or a date alone
WHEN = re.compile(r"\d{4}-\d\d-\d\d(?: \d\d:\d\d(?::\d\d)?)?")


def _moments() -> list[datetime]:
    return [T0 + timedelta(days=d) for d in range(CHECKOUTS + 1)]


def _kolkata_texts() -> set[str]:
    """Every text of a time of the site, in Kolkata, to the second, minute and day."""
    local = [m.astimezone(KOLKATA) for m in _moments()]
    return {
        f"{m:{form}}" for m in local for form in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d")
    }


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A walk of 8 daily checkouts at 20:00 UTC, a quirk and a change, published for
    Asia/Kolkata."""
    folder = tmp_path_factory.mktemp("zone")
    with Store.open(f"sqlite:///{folder / 'store.db'}") as store:
        sid = store.create_series(
            NewSeries(
                name="latency",
                project="demo",
                repo="/src/demo",
                from_spec="v1.0",  # the walk's ends as given (no times)
                to_spec="main",
                step="1day",
                repetitions=2,
                between="keep",
                host="local",
                config_hash="0",
                config_text="",
                commands={},
                fingerprint={},
                started_at=T0,
                quirks=(QuirkInfo("A", T0 + timedelta(days=3), None, "new compiler"),),
            )
        )
        for idx in range(CHECKOUTS):
            when = T0 + timedelta(days=idx)
            commit = Commit(f"{idx + 1:040x}", when, "Dev <d@example.org>", f"c{idx}", "", ())
            checkout = store.add_checkout(sid, Checkout(idx, commit.id, when, (commit,)))
            store.set_build(checkout, Status.PASS, 1.0, Log.of(b"built\n"))
            level = 80.0 if idx < 4 else 90.0
            for rep in range(2):
                result = NewResult(
                    test="lat",
                    status=Status.PASS,
                    message="",
                    duration=0.1,
                    exit_code=0,
                    command="lat",
                    stdout=Log.of(b""),
                    stderr=Log.of(b""),
                    values=((Value("p50", level + rep * 0.1, "us"), Direction.LOWER),),
                )
                store.add_repetition(
                    checkout,
                    NewRepetition(
                        idx=rep,
                        started_at=when,
                        finished_at=when,
                        results=(result,),
                        between_status=None,
                        between_log=None,
                    ),
                )
        store.set_series_state(sid, "finished", T0 + timedelta(days=CHECKOUTS))
        change = ListedChange(
            series_id=sid,
            series_name="latency",
            test="lat",
            name="p50",
            unit="us",
            regression=True,
            before=80.0,
            after=90.0,
            size=0.125,
            low=0.12,
            high=0.13,
            confidence=0.9999,
            before_idx=3,
            after_idx=4,
            before_sha=f"{4:040x}",
            after_sha=f"{5:040x}",
            date=T0 + timedelta(days=4),
            commits=1,
        )
        publish(
            store,
            None,
            folder / "site",
            PublishOptions(changes=[change], times=SiteTimes(ZONE)),
        )
    return folder / "site"


@pytest.fixture
def page(browser: Any) -> Any:
    """A page of a browser whose own time zone is not the site's."""
    context = browser.new_context(viewport={"width": 1366, "height": 768}, timezone_id=BROWSER_ZONE)
    seen = context.new_page()
    errors: list[str] = []
    seen.on("pageerror", lambda e: errors.append(str(e)))
    seen.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    assert seen.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone") == BROWSER_ZONE
    yield seen
    context.close()
    assert errors == []


PAGES = {
    "index": layout.INDEX,
    "series": layout.series_page(1),
    "setup": layout.setup_page(1),
    "checkout": layout.checkout_page(1, 4),
    "commits": layout.commits_page(1, 4),
}


@pytest.mark.parametrize("name", PAGES)
def test_every_date_of_a_page_is_in_the_site_s_zone_said_once(
    page: Any, site: Path, name: str
) -> None:
    path, _, fragment = PAGES[name].partition("#")
    page.goto((site / path).as_uri() + (f"#{fragment}" if fragment else ""))
    page.wait_for_load_state("load")
    page.wait_for_function("() => !document.querySelector('.pw-wait')", timeout=TIMEOUT_MS)
    text = page.inner_text("body")
    found = WHEN.findall(text)
    print(f"{name}: {len(found)} dates, e.g. {found[:4]}; zone said", text.count("times in "))
    assert found, "the page shows no date"
    strangers = sorted(set(found) - _kolkata_texts())
    assert strangers == [], f"dates not in {ZONE}: {strangers}"
    assert text.count(f"times in {ZONE}") == 1
    assert text.count("times in ") == 1
    assert "UTC" not in text
    assert "+0000" not in text


def _plot(page: Any, site: Path) -> dict[str, Any]:
    page.goto((site / layout.series_page(1)).as_uri())
    page.wait_for_load_state("load")
    page.locator("div.plot").first.scroll_into_view_if_needed()
    page.wait_for_function(
        "() => [...document.querySelectorAll('div.plot')].every(el => el.dataset.painted)",
        timeout=TIMEOUT_MS,
    )
    found: dict[str, Any] = page.evaluate(
        """() => {
          const el = document.querySelector('div.plot');
          const chart = echarts.getInstanceByDom(el);
          const axis = chart.getModel().getComponent('xAxis', 0);
          const ticks = axis.axis.getViewLabels().map(l => [l.tick.value, l.formattedLabel]);
          const option = chart.getOption();
          const points = option.series.find(s => s.id.startsWith('p|'));
          const tip = option.tooltip[0].formatter({
            seriesId: points.id, data: points.data[0], componentType: 'series'});
          const quirk = option.series.flatMap(s => (s.markLine && s.markLine.data) || [])
            .find(d => d.pwQuirk);
          return {ticks: ticks, tip: tip, first: points.data[0][0],
                  quirk: quirk ? quirk.pwTip : null};
        }"""
    )
    return found


def test_the_plot_s_axis_and_tooltips_are_in_the_site_s_zone(page: Any, site: Path) -> None:
    drawn = _plot(page, site)
    print("x ticks:", drawn["ticks"])
    print("tooltip:", drawn["tip"], "| quirk:", drawn["quirk"])
    assert drawn["ticks"], "the time axis has no labels"
    for ms, label in drawn["ticks"]:
        at = datetime.fromtimestamp(ms / 1000, UTC).astimezone(KOLKATA)
        assert label in (f"{at:%Y-%m-%d}", f"{at:%m-%d %H:%M}"), (ms, label, f"{at}")
    first = datetime.fromtimestamp(drawn["first"] / 1000, UTC).astimezone(KOLKATA)
    assert f"{first:%Y-%m-%d %H:%M}" == "2024-05-02 01:30"
    assert "2024-05-02 01:30" in drawn["tip"]
    assert drawn["quirk"] is not None
    assert "2024-05-05 01:30" in drawn["quirk"]


def _ticks(page: Any) -> dict[str, list[Any]]:
    """The first plot's x axis: its labels (instant, text) and its ticks (instants)."""
    found: dict[str, list[Any]] = page.evaluate(
        """() => {
          const chart = echarts.getInstanceByDom(document.querySelector('div.plot'));
          const axis = chart.getModel().getComponent('xAxis', 0).axis;
          return {labels: axis.getViewLabels().map(l => [l.tick.value, l.formattedLabel]),
                  ticks: axis.getTicksCoords().map(t => t.tickValue)};
        }"""
    )
    return found


def _local(ms: float) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC).astimezone(KOLKATA)


@pytest.mark.parametrize("width", [1366, 390])
def test_the_day_ticks_sit_at_the_zone_s_midnights(browser: Any, site: Path, width: int) -> None:
    """Each day's tick at Kolkata's midnight, labelled with that day (a tick sat at UTC
    midnight, 05:30 there, and was labelled with the day; at 390 px in UTC's words)."""
    context = browser.new_context(
        viewport={"width": width, "height": 768}, timezone_id=BROWSER_ZONE
    )
    try:
        seen = context.new_page()
        _plot(seen, site)
        drawn = _ticks(seen)
    finally:
        context.close()
    shown = [(f"{_local(ms):%Y-%m-%d %H:%M}", label) for ms, label in drawn["labels"]]
    print(f"{width} px:", shown)
    assert len(drawn["labels"]) >= 3
    for ms, label in drawn["labels"]:
        at = _local(ms)
        assert (at.hour, at.minute) == (0, 0), (label, f"{at}")
        assert label == f"{at:%Y-%m-%d}"
    assert {f"{_local(ms):%H:%M}" for ms in drawn["ticks"]} == {"00:00"}


def test_a_zoomed_axis_ticks_at_whole_hours_of_the_zone(page: Any, site: Path) -> None:
    """Zoomed to half a day, the ticks are whole hours of Kolkata's clock (they were
    UTC's: half past, there)."""
    _plot(page, site)
    start = T0 + timedelta(days=2, hours=1)
    page.evaluate(
        """([lo, hi]) => {
          const chart = echarts.getInstanceByDom(document.querySelector('div.plot'));
          chart.dispatchAction({type: 'dataZoom', startValue: lo, endValue: hi});
        }""",
        [start.timestamp() * 1000, (start + timedelta(hours=12)).timestamp() * 1000],
    )
    page.wait_for_timeout(400)  # the axis is ticked anew 80 ms after a zoom
    drawn = _ticks(page)
    shown = [(f"{_local(ms):%Y-%m-%d %H:%M}", label) for ms, label in drawn["labels"]]
    print("zoomed:", shown)
    assert len(drawn["labels"]) >= 3
    for ms, label in drawn["labels"]:
        at = _local(ms)
        assert at.minute == 0, (label, f"{at}")
        assert label == (f"{at:%Y-%m-%d}" if at.hour == 0 else f"{at:%m-%d %H:%M}")
        assert start <= at <= start + timedelta(hours=12)
