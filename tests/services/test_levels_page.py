"""The levels a walk's pages show: every level of the whole series on its page, and
on each table page the whole level of a row's last checkout, even when that level
began on an earlier page. A real walk of the known-values history (100 ms before its
commit 20, 130 ms from it on), published as ``perfwalk publish`` does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.report import layout
from perfwalk.services.publish import publish_store
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KNOWN_STEP_AT, KnownHistory
from tests.services.conftest import MakeConfig


def _cells(row: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]


@pytest.mark.slow
def test_the_series_page_lists_every_level_and_a_later_table_page_the_whole_last_one(
    make_config: MakeConfig,
    known_values_repo_copy: KnownHistory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # table pages of 12 checkouts: the level from commit 20 (checkout 10) begins on
    # the first page and goes on over the second
    monkeypatch.setattr(layout, "TABLE_COLUMNS", 12)
    monkeypatch.setattr(layout, "PLOT_BLOCK", 12)
    history = known_values_repo_copy
    config = make_config()
    run_series(config, RunOptions(step="commit/2", repetitions=2))
    site = tmp_path / "site"
    with Store.open(config.store.url) as store:
        (series,) = store.list_series()
        rows = store.checkouts(series.id)
        publish_store(store, config, site)
    position = {row.idx: history.index(row.sha) for row in rows}
    measured = [
        row.idx for row in rows if row.build_status is not None and row.build_status.name == "PASS"
    ]
    before = [idx for idx in measured if position[idx] < KNOWN_STEP_AT]
    after = [idx for idx in measured if position[idx] >= KNOWN_STEP_AT]
    assert len(rows) > 12
    assert before
    assert after
    first_after = after[0]
    assert first_after < 12  # on the first table page

    page = (site / layout.series_page(series.id)).read_text(encoding="utf-8")
    section = page.split('<h2 id="levels">Levels</h2>', 1)[1].split("</table>", 1)[0]
    body = section.split("<tbody>", 1)[1]
    levels = [_cells(row) for row in re.findall(r"<tr>(.*?)</tr>", body)]
    assert len(levels) == 2  # one metric, two levels, the newest first
    (name, newest, median, _rsd, extremes, n, then), older = levels[0], levels[1]
    assert name.startswith("latency.")
    assert newest == f"#{after[0]}–#{after[-1]} latest"
    assert median == "130.0 ms"
    assert (extremes, n, then) == ("130.0 ms … 130.0 ms", str(len(after)), "")
    assert older[0] == f"#{before[0]}–#{before[-1]}"
    assert older[1:5] == ["100.0 ms", "±0.0 %", "100.0 ms … 100.0 ms", str(len(before))]
    assert older[5] == "▲ +30.0 % worse"
    assert (
        'class="regression">▲ +30.0 % <span class="worse">worse</span>' in body
    )  # lower is better

    second = (site / layout.table_page(series.id, 1)).read_text(encoding="utf-8")
    row = next(line for line in second.splitlines() if '<td class="name">latency ' in line)
    since, median, rsd, extremes, n = _cells(row)[-5:]
    on_page = [idx for idx in after if idx >= 12]
    assert len(on_page) < len(after)  # the page holds only a part of the level …
    assert since == f"#{first_after}"  # … and gives it whole, from where it began
    assert (median, rsd, extremes, n) == (
        "130.0 ms",
        "±0.0 %",
        "130.0 ms … 130.0 ms",
        str(len(after)),
    )
    assert f"checkouts {first_after}–{after[-1]}" in row
