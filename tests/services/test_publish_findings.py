"""The published site shows the excursions and drifts that the analysis finds besides
the steps: on the series table, in the plot data, in the series page's "Other
findings", and counted apart on the index, never as regressions. A real SQLite
store with known values, analysed and published by the publish use case."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.report import layout
from perfwalk.services.publish import detected_findings, publish_site
from perfwalk.store import Store
from tests.report.site_data import read_data
from tests.services.test_analyse import CONFIG, RATE, TIME, add_series

COUNT = 80
#: time (lower is better): 30 % slower at checkouts 20 to 22, then back: an excursion
DIP: list[float | None] = [13.0 if 20 <= i < 23 else 10.0 for i in range(COUNT)]
#: rate (higher is better): 2 % less, slowly over the 80 checkouts: a drift
SLOPE: list[float | None] = [1000 * (1 - 0.02 * i / (COUNT - 1)) for i in range(COUNT)]


@dataclass(frozen=True)
class Published:
    config: Config
    sid: int
    out: Path


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Published:
    """The series published once for the module (read-only)."""
    folder = tmp_path_factory.mktemp("findings")
    path = folder / "perfwalk.toml"
    path.write_text(CONFIG, encoding="utf-8")
    config = load_config(path)
    with Store.open(config.store.url) as store:
        sid = add_series(store, {TIME: DIP, RATE: SLOPE})
    publish_site(config, folder / "site")
    return Published(config, sid, folder / "site")


def test_the_analysis_finds_an_excursion_and_a_drift_and_no_change(site: Published) -> None:
    with Store.open(site.config.store.url, read_only=True) as store:
        changes, episodes = detected_findings(store, site.config)
    assert changes == []
    assert [(e.series_id, e.kind, e.name, e.first_idx, e.last_idx, e.worse) for e in episodes] == [
        (site.sid, "drift", "rate", 0, COUNT - 1, True),
        (site.sid, "excursion", "time", 20, 22, True),
    ]


def test_the_series_page_lists_them_under_other_findings(site: Published) -> None:
    sid, out = site.sid, site.out
    page = (out / layout.series_page(sid)).read_text(encoding="utf-8")
    findings = page.split("<h2>Other findings</h2>", 1)[1].split("</ul>", 1)[0]
    drift, excursion = re.findall(r"<li [^\n]*</li>", findings)
    checkout = f"series-{sid}/checkout.html#c="
    assert drift.startswith('<li class="drift"><b>drift</b> of bench.rate [ops/s]: ▼ -2.')
    assert f'over checkouts <a href="{checkout}0">0 (' in drift
    assert f'to <a href="{checkout}{COUNT - 1}">{COUNT - 1} (' in drift
    assert excursion.startswith('<li class="excursion"><b>excursion</b> of bench.time [ms]: ▲ +30.')
    assert "(worse)" in excursion
    assert f'over checkouts <a href="{checkout}20">20 (2024-' in excursion
    assert f'to <a href="{checkout}22">22 (2024-' in excursion
    assert "shaded blue: an excursion" in page  # the plots' key
    assert 'class="regression' not in page
    assert 'class="improvement' not in page


def test_the_table_marks_the_cells_the_excursion_spans(site: Published) -> None:
    sid, out = site.sid, site.out
    table = (out / layout.table_page(sid, 0)).read_text(encoding="utf-8")  # checkouts 0-49
    (time_row,) = [row for row in table.splitlines() if row.startswith('<tr><td class="name">time')]
    marked = re.findall(r'<td class="excursion" title="([^"]*)">', time_row)
    assert len(marked) == 3  # checkouts 20, 21 and 22
    for title in marked:
        assert re.search(r"; excursion: \+30\.\d % over checkouts 20–22, recovered$", title)
    (rate_row,) = [row for row in table.splitlines() if row.startswith('<tr><td class="name">rate')]
    assert "excursion" not in rate_row  # a drift marks no cell: it is drawn and listed
    assert "regression" not in table


def test_the_plot_data_carry_both(site: Published) -> None:
    sid, out = site.sid, site.out
    call, meta = read_data(out / layout.series_meta(sid))
    assert call == "meta"
    assert meta["changes"] == []
    drift, excursion = meta["episodes"]
    assert (drift["kind"], drift["name"], drift["from_pos"], drift["to_pos"]) == (
        "drift",
        "rate",
        0,
        COUNT - 1,
    )
    assert drift["key"] == layout.plot_key("bench", "ops/s")
    assert drift["size"] == pytest.approx(-0.02, abs=0.005)
    assert drift["before"] == pytest.approx(1000, rel=0.01)
    assert drift["after"] == pytest.approx(980, rel=0.01)
    assert (excursion["kind"], excursion["name"], excursion["from_pos"], excursion["to_pos"]) == (
        "excursion",
        "time",
        20,
        22,
    )
    assert excursion["key"] == layout.plot_key("bench", "ms")
    assert excursion["span"][2:] == [19.5, 22.5]  # shaded halfway to the checkouts around
    assert excursion["size"] == pytest.approx(0.30, abs=0.01)
    assert excursion["worse"] is True
    assert meta["keys"][excursion["key"]]["names"] == ["time"]


def test_the_index_counts_them_apart_from_changes(site: Published) -> None:
    out = site.out
    index = (out / layout.INDEX).read_text(encoding="utf-8")
    # no change, but the drift hides steps of 1 % (the min_change): the walk says it
    # could not see one, never "no changes found"
    assert '<p class="no-changes">no changes found</p>' not in index
    (blind,) = [line for line in index.splitlines() if "undecided: too noisy" in line]
    assert blind.endswith(".rate</li>"), blind
    # the walks table says so too: never "none" for a walk that could not see
    changes = '<td class="changes">1 metric undecided</td>'
    assert changes + '<td class="findings">1 excursion · 1 drift</td>' in index
    assert "regression" not in index.split("<h2>Plots</h2>")[0]
