"""A try's page and the index's "Tries": the fixed store's try (a hostile patch, a
hostile test and metric, a failed repetition) shown escaped, apart from the walks and
without plots; its page follows its verdict when it changes; and a real try (real git,
real processes) published and listed as kind try."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.errors import UsageError
from perfwalk.quantities import format_value
from perfwalk.report import layout
from perfwalk.report.pages.tries import metric_anchor
from perfwalk.report.site import PublishOptions, publish
from perfwalk.services.publish import publish_site
from perfwalk.services.try_change import TryOptions, run_try
from perfwalk.store import Store
from perfwalk.untrusted import show_controls
from tests.report.conftest import Published, publish_fixed
from tests.report.history import HOSTILE, TRY_HOSTILE_TEST, TRY_PATCH
from tests.services.test_try import SLOWER, _project


class _Tables(HTMLParser):
    """The text of every cell of every table, by the table's class; the text of every
    ``pre`` and ``summary``, and every link's target."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[str]]] = {}
        self.pres: list[str] = []
        self.summaries: list[str] = []
        self.links: list[str] = []
        self._table: list[list[str]] | None = None
        self._cell: list[str] | None = None
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table":
            self._table = self.tables.setdefault(found.get("class") or "", [])
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []
        elif tag in ("pre", "summary"):
            self._text = []
        elif tag == "a":
            self.links.append(found.get("href") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = None
        elif tag in ("td", "th") and self._cell is not None and self._table:
            self._table[-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag in ("pre", "summary") and self._text is not None:
            (self.pres if tag == "pre" else self.summaries).append("".join(self._text))
            self._text = None

    def handle_data(self, data: str) -> None:
        for part in (self._cell, self._text):
            if part is not None:
                part.append(data)


def _read(path: Path) -> tuple[str, _Tables]:
    text = path.read_text(encoding="utf-8")
    parsed = _Tables()
    parsed.feed(text)
    return text, parsed


def test_the_try_page_shows_sides_verdicts_values_and_patches_escaped(
    published: Published,
) -> None:
    site, tried = published.site, published.fixed.tried
    text, page = _read(site / layout.series_page(tried))
    assert "<script>" not in text
    assert "<img" not in text
    assert 'class="plot"' not in text  # no plot of two checkouts
    # the sides: A and B, B with its patches and variant, each build linking its log
    sides = page.tables["try-sides"]
    assert [row[0] for row in sides[1:]] == ["A", "B"]
    assert f"+ patch <fast>{HOSTILE}.diff" in sides[2][3]
    assert f"as variant notso {HOSTILE}" in sides[2][3]
    assert sides[1][2] == f"Fix {HOSTILE}"  # A's commit subject, as written
    with Store.open(published.fixed.url) as store:
        builds = [c.build_log_id for c in store.checkouts(tried)]
    for idx, log_id in enumerate(builds):
        assert log_id is not None
        assert layout.href(
            layout.series_page(tried), layout.logs_page(tried, idx, layout.log_anchor(log_id))
        ) in html.unescape(text)
    # the verdicts: in words, the change and its interval, A + B, Mann-Whitney, why
    verdicts = page.tables["try-verdicts"]
    sender, hostile = verdicts[1], verdicts[2]
    assert sender[:6] == [
        "iperf.sender (higher is better)",
        "bits/sec",
        "B worse",
        "-10.0 % [-10.4 %, -9.6 %]",
        "4 + 3",
        "0.0286",
    ]
    assert hostile[0] == f"{TRY_HOSTILE_TEST}.v {HOSTILE} (lower is better)"
    assert hostile[2:4] == ["same", "0.0 % [-0.3 %, +0.3 %]"]
    assert hostile[6] == f"equivalent within ±1 % {HOSTILE}"
    assert f"Stopped: every metric was decided {HOSTILE}." in html.unescape(text)
    # the values in the order measured: B's failed repetition has none
    values = page.tables["try-values"]
    assert [row[0] for row in values] == 2 * ["repetition", "0", "1", "2", "3"]
    assert values[1:5] == [
        ["0", "940.0 Mbit/s", "846.0 Mbit/s"],
        ["1", "943.8 Mbit/s", "849.4 Mbit/s"],
        ["2", "937.2 Mbit/s", "–"],
        ["3", "941.9 Mbit/s", "847.7 Mbit/s"],
    ]
    assert f'id="{metric_anchor("iperf", "sender")}"' in text
    ministat = [p for p in page.pres if p.startswith("x A\n+ B\n")]
    assert len(ministat) == 2
    assert "Difference at 95.0% confidence" in ministat[0]
    assert "No difference proven at 95.0% confidence" in ministat[1]
    # the patches: the long one folded, both as text (controls shown, not obeyed)
    assert page.summaries == [f"patch 1: <fast>{HOSTILE}.diff (65 lines)", "Statuses"]
    assert show_controls(TRY_PATCH) in page.pres
    assert "-a\n+b\n" in page.pres
    assert "\x1b" not in text


def test_the_try_tables_statistics_are_per_side_never_pooled(published: Published) -> None:
    text, _page = _read(published.site / layout.series_page(published.fixed.tried))
    row = next(line for line in text.splitlines() if '<td class="name">sender ' in line)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    side, median, _rsd, extremes, n = cells[-5:]
    assert side == "A<br>B"
    a = [9.4e08, 9.4376e08, 9.3718e08, 9.4188e08]  # as the try's value table shows them
    b = [8.46e08, 8.4938e08, 8.4769e08]
    unit = "bits/sec"
    a_median = format_value(sorted(a)[1] / 2 + sorted(a)[2] / 2, unit)
    assert median.split("<br>") == [a_median, format_value(sorted(b)[1], unit)]
    assert extremes.split("<br>") == [
        f"{format_value(min(a), unit)} … {format_value(max(a), unit)}",
        f"{format_value(min(b), unit)} … {format_value(max(b), unit)}",
    ]
    assert n == "4<br>3"


def test_the_index_lists_the_try_apart_from_the_walks(published: Published) -> None:
    tried = published.fixed.tried
    text, page = _read(published.site / layout.INDEX)
    tries = page.tables["tries"]
    assert tries[0] == ["try", "started", "A → B", "verdict"]
    assert tries[1][0] == str(tried)
    assert tries[1][2].startswith(f"{600:040x}"[:12] + " → ")
    assert tries[1][3] == "B worse"
    assert layout.series_page(tried) in page.links
    assert f'data-series="{tried}"' not in text  # not a walk's row
    for members in re.findall(r'class="plot" data-base="" data-series="([^"]+)"', text):
        assert str(tried) not in members.split()  # nor in a plot


def test_the_try_page_follows_its_verdict(tmp_path: Path) -> None:
    published = publish_fixed(tmp_path)
    tried = published.fixed.tried
    with Store.open(published.fixed.url) as store:
        row = store.tries.get(tried)
        assert row is not None
        better = [dict(v, verdict="better", change=0.1, low=0.05, high=0.15) for v in row.verdicts]
        store.tries.finish(tried, better, "decided again")
        again = publish(store, published.config, published.site, PublishOptions())
    assert not again.full
    _text, page = _read(published.site / layout.series_page(tried))
    assert [row[2] for row in page.tables["try-verdicts"][1:]] == ["B better", "B better"]
    _text, index = _read(published.site / layout.INDEX)
    assert index.tables["tries"][1][3] == "B better"


def test_a_real_try_is_published_and_listed_as_a_try(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _project(tmp_path, 7)
    config = load_config(path)
    done = run_try(config, TryOptions("HEAD", patches=(tmp_path / "slower.diff",)))
    decision = done.decisions["bench.latency"]
    publish_site(config, tmp_path / "site")
    _text, page = _read(tmp_path / "site" / layout.series_page(done.series_id))
    [verdict] = page.tables["try-verdicts"][1:]
    assert verdict[0] == "bench.latency (lower is better)"
    assert verdict[2] == {"worse": "B worse", "same": "same"}.get(decision.verdict.value, "?")
    assert verdict[4] == f"{decision.count_a} + {decision.count_b}"
    values = page.tables["try-values"]
    assert len(values) - 1 == max(done.repetitions)
    metric = done.metrics[0]
    # "85.2 s": three or four significant digits with the unit
    assert [float(row[1].split()[0]) for row in values[1:]] == pytest.approx(metric.a, rel=5e-3)
    assert [float(row[2].split()[0]) for row in values[1:]] == pytest.approx(metric.b, rel=5e-3)
    assert SLOWER in page.pres
    _text, index = _read(tmp_path / "site" / layout.INDEX)
    assert index.tables["tries"][1][0] == str(done.series_id)
    assert "series" not in index.tables  # no walk: the try is not one
    assert main(["-c", str(path), "list"]) == 0
    header, row = capsys.readouterr().out.splitlines()[:2]
    assert header.split()[:3] == ["id", "kind", "name"]
    assert re.match(rf" *{done.series_id}\s+try\s+try .+ vs [0-9a-f]{{12}}\s+finished", row), row


def test_a_try_whose_b_did_not_build_has_a_page_without_verdict(tmp_path: Path) -> None:
    config = load_config(_project(tmp_path, 8))
    bad = tmp_path / "bad.diff"
    bad.write_text(SLOWER.replace("factor=1.00", "factor=9.99"), encoding="utf-8")
    with pytest.raises(UsageError, match="did not build"):
        run_try(config, TryOptions("HEAD", patches=(bad,)))
    publish_site(config, tmp_path / "site")
    with Store.open(config.store.url) as store:
        [series] = store.list_series()
    text, page = _read(tmp_path / "site" / layout.series_page(series.id))
    assert f"No verdict: the try ended ({series.state}) before it decided." in text
    sides = page.tables["try-sides"]
    assert [row[4] for row in sides[1:]] == ["PASS", "NOEXIST"]  # B's build, to its log
    _text, index = _read(tmp_path / "site" / layout.INDEX)
    assert index.tables["tries"][1][3] == series.state
