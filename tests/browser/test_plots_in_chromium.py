"""Plots that show the step, in Debian's headless chromium at a laptop's width
(1366 px) and a phone's (390 px), on a generated site: a library's compression speed
(350 MB/s) and decompression speed (3 900 MB/s, 11 times more) each get a plot of
their own, where each one's step fills a good part of its y axis (on one shared axis
the smaller step was a flat line); the labels of two changes two checkouts apart do
not overprint each other."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from perfwalk.model import Checkout, Commit, Direction, Log, Status, Value
from perfwalk.report import layout
from perfwalk.report.change_list import ListedChange
from perfwalk.report.site import PublishOptions, publish
from perfwalk.store import NewRepetition, NewResult, NewSeries, Store

WIDTHS = ((1366, 768), (390, 844))
TIMEOUT_MS = 15_000
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
CHECKOUTS = 40
#: value name → (level before, level after, the checkout after its step)
LEVELS = {"compress": (350.0, 315.0, 20), "decompress": (3900.0, 4290.0, 22)}


def _value(name: str, idx: int, rep: int) -> float:
    before, after, at = LEVELS[name]
    level = after if idx >= at else before
    if name == "compress" and idx >= 22:
        level = 345.0  # back up: a second change two checkouts after the first
    return level * (1 + 0.002 * ((idx * 7 + rep * 3) % 5 - 2))


def _change(sid: int, name: str, before: float, after: float, at: int) -> ListedChange:
    size = after / before - 1
    return ListedChange(
        series_id=sid,
        series_name="zstd",
        test="zstd",
        name=name,
        unit="MB/s",
        regression=size < 0,
        before=before,
        after=after,
        size=size,
        low=size - 0.01,
        high=size + 0.01,
        confidence=0.9999,
        before_idx=at - 1,
        after_idx=at,
        before_sha=f"{at:040x}",
        after_sha=f"{at + 1:040x}",
        date=T0 + timedelta(days=at),
        commits=1,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A walk of 40 checkouts of one test, zstd, with two speeds in MB/s 11 times
    apart, each with a step, and the compression speed's second step two checkouts
    after its first."""
    folder = tmp_path_factory.mktemp("plots")
    url = f"sqlite:///{folder / 'store.db'}"
    with Store.open(url) as store:
        sid = store.create_series(
            NewSeries(
                name="zstd",
                project="zstd",
                repo="/src/zstd",
                from_spec="2024-05-01",
                to_spec="2024-06-09",
                step="1day",
                repetitions=2,
                between="keep",
                host="local",
                config_hash="0",
                config_text="",
                commands={},
                fingerprint={},
                started_at=T0,
            )
        )
        for idx in range(CHECKOUTS):
            when = T0 + timedelta(days=idx)
            commit = Commit(f"{idx + 1:040x}", when, "Dev <d@example.org>", f"c{idx}", "", ())
            checkout = store.add_checkout(sid, Checkout(idx, commit.id, when, (commit,)))
            store.set_build(checkout, Status.PASS, 1.0, Log.of(b"built\n"))
            for rep in range(2):
                result = NewResult(
                    test="zstd",
                    status=Status.PASS,
                    message="",
                    duration=0.1,
                    exit_code=0,
                    command="zstd -b",
                    stdout=Log.of(b""),
                    stderr=Log.of(b""),
                    values=tuple(
                        (Value(name, _value(name, idx, rep), "MB/s"), Direction.HIGHER)
                        for name in LEVELS
                    ),
                )
                latency = NewResult(
                    test="lat",
                    status=Status.PASS,
                    message="",
                    duration=0.1,
                    exit_code=0,
                    command="lat",
                    stdout=Log.of(b""),
                    stderr=Log.of(b""),
                    values=((Value("p50", 80.0 + rep, "us"), Direction.LOWER),),
                )
                started = when + timedelta(minutes=rep)
                store.add_repetition(
                    checkout,
                    NewRepetition(
                        idx=rep,
                        started_at=started,
                        finished_at=started,
                        results=(result, latency),
                        between_status=None,
                        between_log=None,
                    ),
                )
        store.set_series_state(sid, "finished", T0 + timedelta(days=CHECKOUTS))
        changes = [
            _change(sid, "compress", 350.0, 315.0, 20),
            _change(sid, "compress", 315.0, 345.0, 22),
            _change(sid, "decompress", 3900.0, 4290.0, 22),
        ]
        publish(store, None, folder / "site", PublishOptions(changes=changes))
    return folder / "site"


@pytest.fixture(params=WIDTHS, ids=lambda size: f"{size[0]}px")
def page(request: pytest.FixtureRequest, browser: Any) -> Any:
    width, height = request.param
    context = browser.new_context(viewport={"width": width, "height": height})
    seen = context.new_page()
    errors: list[str] = []
    seen.on("pageerror", lambda e: errors.append(str(e)))
    seen.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield seen
    context.close()
    assert errors == []


def _drawn(page: Any, site: Path) -> None:
    page.goto((site / layout.series_page(1)).as_uri())
    page.wait_for_load_state("load")
    page.locator("div.plot").first.scroll_into_view_if_needed()
    page.wait_for_function(
        "() => [...document.querySelectorAll('div.plot')].every(el => el.dataset.painted)",
        timeout=TIMEOUT_MS,
    )


def _steps(page: Any) -> dict[str, float]:
    """Per value name, its step's share of the y axis of the plot it is drawn in."""
    found: dict[str, float] = page.evaluate(
        """() => {
          const levels = {compress: [350, 315], decompress: [3900, 4290]};
          const shares = {};
          for (const el of document.querySelectorAll('div.plot')) {
            const chart = echarts.getInstanceByDom(el);
            const names = chart.getOption().series
              .filter(s => s.id.startsWith('s|')).map(s => s.id.split('|')[2]);
            const [lo, hi] = chart.getModel().getComponent('yAxis', 0).axis.scale.getExtent();
            for (const name of names.filter(n => n in levels)) {
              const [a, b] = levels[name];
              shares[name] = Math.abs(b - a) / (hi - lo);
            }
          }
          return shares;
        }"""
    )
    return found


def test_metrics_ten_times_apart_each_show_their_step(page: Any, site: Path) -> None:
    _drawn(page, site)
    shares = _steps(page)
    print("step / y range:", {k: round(v, 3) for k, v in shares.items()})
    assert set(shares) == set(LEVELS)
    for name, share in shares.items():
        assert share >= 0.2, f"{name}'s step is {share:.1%} of its y axis: a flat line"
    titles = page.eval_on_selector_all("div.plot", "els => els.map(el => el.dataset.title)")
    assert titles == ["lat [µs]", "zstd [MB/s]: compress", "zstd [MB/s]: decompress"]


def test_a_unit_is_spelled_one_way_on_its_plot(page: Any, site: Path) -> None:
    """A value in "us": its title, axis name, ticks and tooltip all say µs."""
    _drawn(page, site)
    said: dict[str, Any] = page.evaluate(
        """() => {
          const el = document.querySelector('div.plot');
          const chart = echarts.getInstanceByDom(el);
          const axis = chart.getModel().getComponent('yAxis', 0);
          const ticks = axis.axis.getViewLabels().map(l => l.formattedLabel);
          const points = chart.getOption().series.find(s => s.id.startsWith('p|'));
          const tip = chart.getOption().tooltip[0].formatter({
            seriesId: points.id, data: points.data[0], componentType: 'series'});
          return {title: el.dataset.title, name: axis.option.name, ticks: ticks, tip: tip};
        }"""
    )
    print("lat's plot says:", said)
    texts = [said["title"], said["name"], *said["ticks"], said["tip"]]
    assert said["title"] == "lat [µs]"
    assert all(" us" not in t and "[us]" not in t and t != "us" for t in texts), texts
    assert said["name"] in ("µs", "")  # a phone's plot leaves the unit to its title


def _label_boxes(page: Any) -> list[list[Any]]:
    """The change bands' labels as drawn on the canvas: [text, x, y, width, height]
    in page pixels, of every plot."""
    found: list[list[Any]] = page.evaluate(
        """() => {
          const out = [];
          for (const el of document.querySelectorAll('div.plot')) {
            const chart = echarts.getInstanceByDom(el);
            const box = el.getBoundingClientRect();
            chart.getZr().storage.getDisplayList(true).forEach(d => {
              const text = d.getTextContent && d.getTextContent();
              if (!text || text.ignore || text.invisible || !text.style || !text.style.text) return;
              if (!/better|worse/.test(text.style.text)) return;
              text.updateTransform();
              const r = text.getBoundingRect().clone();
              if (text.transform) r.applyTransform(text.transform);
              /* zrender measures a line's ink, not its height: a line of the label's
               * font size around the middle of what it measured */
              const tall = Math.max(r.height, text.style.fontSize || 12) + 2;
              const y = r.y + r.height / 2 - tall / 2;
              out.push([text.style.text, box.left + r.x, box.top + y, r.width, tall]);
            });
          }
          return out;
        }"""
    )
    return found


def _overlap(a: list[Any], b: list[Any]) -> bool:
    return a[1] < b[1] + b[3] and b[1] < a[1] + a[3] and a[2] < b[2] + b[4] and b[2] < a[2] + a[4]


def test_labels_of_close_changes_do_not_overprint(page: Any, site: Path) -> None:
    _drawn(page, site)
    boxes = _label_boxes(page)
    print("change labels:", [[b[0], *(round(v) for v in b[1:])] for b in boxes])
    wide = page.viewport_size["width"] >= 600
    if wide:  # a phone's plots leave them to the bands' tooltips
        assert len(boxes) == 3
    clashes = [(a[0], b[0]) for n, a in enumerate(boxes) for b in boxes[n + 1 :] if _overlap(a, b)]
    assert clashes == []
