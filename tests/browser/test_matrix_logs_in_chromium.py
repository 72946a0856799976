"""The regress matrix's logs in Debian's headless chromium, from file:// and from a
web server: each log inflated from its pack (a run split over packs, a large log
in a pack of its own, a truncated log, a run's own output), a click from a cell,
moving between logs of different packs, and hostile text that stays text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from perfwalk.model import Log, Status
from perfwalk.report import matrix_logs
from perfwalk.report.matrix import MatrixOptions, publish_matrix
from perfwalk.report.matrix_paths import INDEX, LOG_PAGE, log_link
from perfwalk.report.server import SiteServer
from perfwalk.store import Store
from perfwalk.store.regress import NewRegressResult, NewRegressRun
from tests.fixtures.chromium import Watched
from tests.regress.packs import index_of, read_log
from tests.regress.test_matrix_logs import CUT, LARGE, build

HOSTILE = b"<script>alert('log')</script> <img src=x onerror=alert(2)> \xff\xfe\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """(site, store URL): the runs of test_matrix_logs plus a hostile one, in small packs."""
    folder = tmp_path_factory.mktemp("matrix-logs")
    url = f"sqlite:///{folder / 'store.db'}"
    build(url)
    with Store.open(url) as store:
        run = store.regress.runs()[0]
        store.regress.add_run(
            NewRegressRun(
                host="<b>h3</b>",
                started_at=run.started_at.replace(day=20),
                finished_at=run.finished_at.replace(day=20),
                results=(
                    NewRegressResult(
                        "<i>hostile</i>",
                        Status.FAIL,
                        Log.of(HOSTILE),
                        "<img src=x onerror=alert(3)>",
                    ),
                ),
            )
        )
    limit, matrix_logs.PACK_BYTES = matrix_logs.PACK_BYTES, 400
    try:
        with Store.open(url) as store:
            publish_matrix(store, folder / "site", MatrixOptions())
    finally:
        matrix_logs.PACK_BYTES = limit
    (folder / "site" / "style.css").write_text(
        "/* the site's style, written by `perfwalk report` */\n"
    )
    return folder / "site", url


def shown(page: Any, uri: str) -> str:
    page.goto(uri)
    return wait_for_text(page)


def wait_for_text(page: Any) -> str:
    page.wait_for_function(
        "() => { const pre = document.querySelector('#pw-log pre'); "
        "return pre !== null && pre.textContent !== ''; }"
    )
    text: str = page.locator("#pw-log pre").text_content()
    return text


def cases(site: Path, url: str) -> list[tuple[int, int | str, bytes, int | None]]:
    """(run, test, log, bytes produced when cut) of a log in each kind of place."""
    found = []
    with Store.open(url) as store:
        runs = store.regress.runs()
        split = next(r for r in runs if len(index_of(site)[str(r.id)]) > 1)
        last = dict(store.regress.result_logs(split.id))
        tail = max(last)  # its last log: in its second pack or later
        found.append((split.id, tail, last[tail].data, None))
        for run in runs:
            for test_id, log in store.regress.result_logs(run.id):
                if log.data == LARGE or (log.truncated and len(found) < 3):
                    cut = log.total if log.truncated else None
                    found.append((run.id, test_id, log.data, cut))
        with_output = next(r for r in runs if r.log_id is not None)
        found.append((with_output.id, "run", store.log(with_output.log_id).data, None))  # type: ignore[arg-type]
    assert any(data == LARGE for _r, _t, data, _c in found)
    assert any(cut == CUT.total for _r, _t, _d, cut in found)
    return found


@pytest.mark.parametrize("served", [False, True], ids=["file", "http"])
def test_each_kind_of_log_is_inflated_in_the_page(
    site: tuple[Path, str], watched: Watched, served: bool
) -> None:
    folder, url = site
    page = watched.page
    with SiteServer(folder, 0) as server:
        root = server.url if served else folder.as_uri() + "/"
        for run, test, data, cut in cases(folder, url):
            page.goto("about:blank")
            text = shown(page, root + log_link(run, test))
            assert text == data.decode("utf-8", errors="replace"), (run, test)
            assert read_log(folder, run, test).data == data
            note = page.locator("#pw-log .pw-note")
            if cut is None:
                assert note.count() == 0
            else:
                assert (
                    note.text_content() == f"{cut} bytes produced; the head and the tail are kept"
                )
        # another log of another pack, in the same page: the hash changes, the log follows
        run, test, data, _cut = cases(folder, url)[0]
        page.evaluate(f"() => {{ window.location.hash = '#run={run}&test={test}'; }}")
        page.wait_for_function(
            "expected => (document.querySelector('#pw-log pre') || {}).textContent === expected",
            arg=data.decode("utf-8", errors="replace"),
        )
    assert watched.errors == []


def test_a_hostile_log_from_its_cell_stays_text(site: tuple[Path, str], watched: Watched) -> None:
    folder, _url = site
    page = watched.page
    page.goto((folder / INDEX).as_uri())
    page.wait_for_selector("#pw-matrix.pw-ready table.pw-grid")
    row = page.locator("table.pw-grid tbody tr", has_text="<i>hostile</i>")
    cell = row.locator("td.FAIL a").first
    assert cell.get_attribute("title") == "<img src=x onerror=alert(3)>"
    cell.click()
    text = wait_for_text(page)
    assert text == HOSTILE.decode("utf-8", errors="replace")
    assert page.locator("#pw-log h2").text_content() == "<i>hostile</i>"
    assert page.locator("#pw-log .pw-status").text_content() == "FAIL"
    assert page.locator("#pw-log .pw-message").text_content() == "<img src=x onerror=alert(3)>"
    assert page.locator("img").count() == 0
    assert page.locator("#pw-log i, #pw-log script").count() == 0
    assert watched.dialogs == []
    assert watched.errors == []


def test_a_log_that_is_not_published_says_so(site: tuple[Path, str], watched: Watched) -> None:
    folder, _url = site
    page = watched.page
    page.goto((folder / LOG_PAGE).as_uri() + "#run=99999&test=1")
    page.wait_for_function(
        "() => /not published/.test(document.querySelector('#pw-log').textContent)"
    )
    assert page.locator("#pw-log").text_content() == "run 99999 is not published"
