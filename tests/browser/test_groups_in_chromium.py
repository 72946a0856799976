"""Alert groups in Debian's headless chromium, at a laptop's width (1366 × 768) and a
phone's (390 × 844): a generated site of two walks on two hosts, 100 metrics each,
that stepped at two culprit commits (400 metric changes, the walk on the second host
not drilled) opens on two rows, each naming its author in view; the first plot of
the index starts within the first screen of the laptop; a group opens on its members,
and the switch shows the groups the first view leaves out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from perfwalk.model import Checkout, Commit, Direction, Log, Status, Value
from perfwalk.report import layout
from perfwalk.report.change_list import Culprit, ListedChange, TriageMark
from perfwalk.report.site import PublishOptions, publish
from perfwalk.store import NewRepetition, NewResult, NewSeries, Store
from tests.browser.test_widths_in_chromium import page

__all__ = ["page"]  # a fixture of this module too: each test at both widths
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
COMMITS = 40
TESTS = 10  # of 10 metrics each
STEPS = {12: 0.25, 28: 0.10}  # the culprits (commit numbers) and their steps
AUTHORS = {12: "Tomás Ferreira", 28: "Ada Lovelace"}
HOSTS = ("lab-a", "lab-b")
IMPROVED = "Grace Hopper"  # the author of a triaged improvement: not in the first view


@dataclass(frozen=True)
class Site:
    path: Path
    culprits: tuple[str, ...]  # the culprits' shas, newest first


def _sha(n: int) -> str:
    return f"{n + 1:040x}"


def _commit(n: int) -> Commit:
    author = AUTHORS.get(n, IMPROVED if n == 35 else "Dev")
    return Commit(_sha(n), T0 + timedelta(hours=n), f"{author} <a@example.org>", f"commit {n}")


def _level(n: int) -> float:
    level = 100.0
    for at, step in STEPS.items():
        if n >= at:
            level *= 1 + step
    return level


def _walk(store: Store, host: str, every: int) -> tuple[int, list[int]]:
    """A walk of every ``every``-th commit on ``host``: its series, and the commit
    number of each checkout."""
    sid = store.create_series(
        NewSeries(
            name=f"nightly on {host}",
            project="p",
            repo="/src/p",
            from_spec=_sha(0),
            to_spec=_sha(COMMITS - 1),
            step=f"commit/{every}",
            repetitions=2,
            between="keep",
            host=host,
            config_hash="0",
            config_text="",
            commands={},
            fingerprint={},
            started_at=T0,
        )
    )
    at = list(range(0, COMMITS, every))
    for idx, n in enumerate(at):
        since = tuple(_commit(k) for k in range(at[idx - 1] + 1 if idx else 0, n + 1))
        checkout = store.add_checkout(sid, Checkout(idx, _sha(n), since[-1].date, since))
        store.set_build(checkout, Status.PASS, 1.0, Log.of(b"built\n"))
        for rep in range(2):
            results = tuple(
                NewResult(
                    test=f"bench{t}",
                    status=Status.PASS,
                    message="",
                    duration=0.1,
                    exit_code=0,
                    command=f"run bench{t}",
                    stdout=Log.of(b""),
                    stderr=Log.of(b""),
                    values=tuple(
                        (
                            Value(f"m{m}", _level(n) * (1 + m / 10) * (1 + rep / 500), "us"),
                            Direction.LOWER,
                        )
                        for m in range(10)
                    ),
                )
                for t in range(TESTS)
            )
            started = since[-1].date + timedelta(minutes=rep)
            store.add_repetition(
                checkout,
                NewRepetition(
                    idx=rep,
                    started_at=started,
                    finished_at=started,
                    results=results,
                    between_status=None,
                    between_log=None,
                ),
            )
    store.set_series_state(sid, "finished", T0 + timedelta(days=2))
    return sid, at


def _changes(sid: int, host: str, at: list[int], *, drilled: bool) -> list[ListedChange]:
    """The changes of every metric of a walk at each culprit; the culprit named when
    the walk was ``drilled``."""
    found = []
    for culprit, step in [*STEPS.items(), (35, -0.05)]:
        after = next(i for i, n in enumerate(at) if n >= culprit)
        shas = tuple(_sha(k) for k in range(at[after - 1] + 1, at[after] + 1))
        named = Culprit(_sha(culprit), f"commit {culprit}", _commit(culprit).author, 90 + culprit)
        word = TriageMark("expected", "a faster compiler", "ann", T0) if step < 0 else None
        for t in range(TESTS):
            found += [
                ListedChange(
                    series_id=sid,
                    series_name=f"nightly on {host}",
                    test=f"bench{t}",
                    name=f"m{m}",
                    unit="us",
                    regression=step > 0,
                    before=_level(at[after - 1]),
                    after=_level(at[after]),
                    size=step,
                    low=step - 0.01,
                    high=step + 0.01,
                    confidence=0.9999,
                    before_idx=after - 1,
                    after_idx=after,
                    before_sha=_sha(at[after - 1]),
                    after_sha=_sha(at[after]),
                    date=_commit(at[after]).date,
                    commits=len(shas),
                    culprit=named if drilled else None,
                    triage=word,
                    range_shas=shas,
                    host=host,
                )
                for m in range(10)
            ]
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    folder = tmp_path_factory.mktemp("groups")
    url = f"sqlite:///{folder / 'store.db'}"
    with Store.open(url) as store:
        drilled, at_a = _walk(store, HOSTS[0], 1)
        walked, at_b = _walk(store, HOSTS[1], 3)
        changes = _changes(drilled, HOSTS[0], at_a, drilled=True)
        changes += _changes(walked, HOSTS[1], at_b, drilled=False)
        publish(store, None, folder / "site", PublishOptions(changes=changes))
    return Site(folder / "site", (_sha(28), _sha(12)))


def _in_view(page: Any, selector: str) -> dict[str, float]:
    """Where the first element of ``selector`` is, and the window's size."""
    found: dict[str, float] = page.evaluate(
        """(selector) => {
          const box = document.querySelector(selector).getBoundingClientRect();
          return {top: box.top, bottom: box.bottom, left: box.left, right: box.right,
                  width: window.innerWidth, height: window.innerHeight};
        }""",
        selector,
    )
    return found


def test_two_culprits_of_many_metrics_are_two_rows_with_their_authors_in_view(
    site: Site, page: Any, tmp_path: Path
) -> None:
    page.goto((site.path / layout.INDEX).as_uri())
    page.wait_for_load_state("load")
    rows = page.locator("table.groups > tbody > tr.group")
    shown = [rows.nth(i) for i in range(rows.count()) if rows.nth(i).is_visible()]
    print(f"{page.viewport_size['width']} px: {len(shown)} rows of {rows.count()} groups")
    assert len(shown) == 2  # the triaged improvement waits behind the switch
    for row, sha, author in zip(
        shown, site.culprits, ("Ada Lovelace", "Tomás Ferreira"), strict=True
    ):
        assert row.locator("a.culprit").inner_text().startswith(sha[:12])
        cell = row.locator("td.author")
        assert cell.inner_text() == author
        box = cell.bounding_box()
        size = page.viewport_size
        print(f"  {author}: x {box['x']:.0f}…{box['x'] + box['width']:.0f}, y {box['y']:.0f}")
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= size["width"]  # in view, no scrolling sideways
        assert box["y"] + box["height"] <= size["height"]
    assert (
        page.locator("summary:visible", has_text="100 metrics in 2 walks on 2 hosts").count() == 2
    )
    plot = _in_view(page, "div.plot")
    print(f"  first plot at y {plot['top']:.0f} (window {plot['height']:.0f})")
    if page.viewport_size["width"] == 1366:
        assert plot["top"] < plot["height"]  # starts within the first screen
    page.screenshot(path=str(tmp_path / f"groups-{page.viewport_size['width']}.png"))


def test_a_group_opens_on_its_members_and_the_switch_shows_all(site: Site, page: Any) -> None:
    page.goto((site.path / layout.INDEX).as_uri())
    page.wait_for_load_state("load")
    first = page.locator("table.groups > tbody.group:visible").first
    members = first.locator("table.members tbody tr")
    assert not members.first.is_visible()
    first.locator("summary").click()
    assert members.count() == 200
    assert members.first.is_visible()
    hidden = page.locator("td.author", has_text=IMPROVED)
    assert not hidden.is_visible()
    page.locator("label[for=all-changes]").click()
    assert hidden.is_visible()
    assert page.locator("table.groups > tbody > tr.group").count() == 3
