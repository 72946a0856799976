"""The live page as ``perfwalk serve`` gives it, in Debian's headless chromium: it loads
itself again (no script: a ``refresh`` the page's content security policy lets be),
so a line a test prints after the page was opened (a panic) appears without the
reader doing anything; hostile output is shown as text, never run."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from perfwalk.report import layout
from perfwalk.report.pages.now import SERVED_REFRESH, now_page
from perfwalk.report.server import SiteServer
from perfwalk.report.site import publish
from perfwalk.report.times import SiteTimes
from perfwalk.store import Store
from perfwalk.store.live import LivePlace
from tests.fixtures.chromium import Watched
from tests.report.history import HOSTILE
from tests.store.factories import new_series


def test_the_served_live_page_shows_a_new_line_by_itself(watched: Watched, tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path / 'store.db'}") as store:
        sid = store.create_series(new_series(name="nightly", step="commit"))
        place = LivePlace(series_id=sid, checkout=0, commit="ab" * 20, repetition=0, step="test t")

        def tell(tail: str) -> None:
            now = datetime.now(UTC)
            store.live.write(
                place,
                "dut",
                command="sh t.sh",
                started_at=now,
                ended_at=None,
                updated_at=now,
                tail=tail,
            )

        def live() -> bytes:
            rows = store.live.now()
            return now_page(rows, datetime.now(UTC), SiteTimes(), served=True).encode()

        tell(f"booting\n{HOSTILE}\n")
        publish(store, None, tmp_path / "site")
        with SiteServer(tmp_path / "site", 0, made={layout.NOW: live}) as server:
            page: Any = watched.page
            page.goto(server.url + layout.NOW)
            assert "booting" in page.inner_text("pre.tail")
            assert "panic" not in page.inner_text("pre.tail")
            tell("booting\npanic: page fault\n")
            deadline = time.monotonic() + 6 * SERVED_REFRESH
            while "panic: page fault" not in page.inner_text("pre.tail"):
                assert time.monotonic() < deadline, "the page never loaded itself again"
                time.sleep(0.5)
            assert page.evaluate("window.pwned") is None
            watched.shot("now")
    assert watched.errors == []
    assert watched.dialogs == []
