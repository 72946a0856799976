"""A walk measured with A/B variants on the site: the fixed store's daily walk (series
1) and its variant ``fast`` (series 3, kind variant), whose patch did not apply at
checkout 4. The variants stand as adjacent columns under each checkout, each with
its own build, statuses and summaries; the walk's plots draw a line per variant;
the variant's own pages link back to its walk."""

from __future__ import annotations

import re
import statistics
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path

from perfwalk.model import Checkout, Commit, Direction, Log, Status, Value
from perfwalk.report import layout
from perfwalk.report.context import zoom_links
from perfwalk.report.site import publish
from perfwalk.store import NewRepetition, NewResult, NewSeries, Store
from perfwalk.store.records import SeriesKind
from tests.report.conftest import Published
from tests.report.history import FAST_UNPATCHED, T0
from tests.report.site_data import read_data


class _Table(HTMLParser):
    """The rows of the first ``table.checkouts``: per row its cells' (tag, attributes,
    text, links)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[tuple[str, dict[str, str | None], str, list[str]]]] = []
        self._inside = 0
        self._cell: tuple[str, dict[str, str | None], list[str], list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table" and "checkouts" in (found.get("class") or "").split():
            self._inside += 1
        elif self._inside and tag == "tr":
            self.rows.append([])
        elif self._inside and tag in ("td", "th"):
            self._cell = (tag, found, [], [])
        elif self._inside and tag == "a" and self._cell is not None:
            self._cell[3].append(found.get("href") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._inside:
            self._inside -= 1
        elif self._inside and tag in ("td", "th") and self._cell is not None:
            kind, attrs, text, links = self._cell
            self.rows[-1].append((kind, attrs, "".join(text).strip(), links))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell[2].append(data)


def _table(page: Path) -> _Table:
    parsed = _Table()
    parsed.feed(page.read_text(encoding="utf-8"))
    assert parsed.rows, page
    return parsed


def _row(table: _Table, name: str) -> list[tuple[str, dict[str, str | None], str, list[str]]]:
    return next(row for row in table.rows if row and row[0][2].startswith(name))


def test_each_checkout_has_a_column_per_variant_under_one_header(published: Published) -> None:
    daily, fast = published.fixed.daily, published.fixed.fast
    assert fast is not None
    table = _table(published.site / layout.series_page(daily))
    top, second = table.rows[0], table.rows[1]
    checkouts = [cell for cell in top if cell[1].get("colspan") == "2"]
    assert len(checkouts) == 6  # each checkout over its two columns
    assert checkouts[0][3] == [layout.checkout_page(daily, 0)]
    assert [cell[2] for cell in second] == ["base", "fast"] * 6
    assert second[2 * 3][3] == [layout.checkout_page(daily, 3)]
    assert second[2 * 3 + 1][3] == [layout.checkout_page(fast, 3)]  # the variant's own page
    commit = _row(table, "commit")
    assert [cell[1].get("colspan") for cell in commit[1:7]] == ["2"] * 6  # shared


def test_a_variant_whose_patch_did_not_apply_is_noexist_in_its_own_column(
    published: Published,
) -> None:
    daily, fast = published.fixed.daily, published.fixed.fast
    assert fast is not None
    build = _row(_table(published.site / layout.series_page(daily)), "build")[1:13]
    statuses = [cell[2] for cell in build]
    assert statuses[2 * FAST_UNPATCHED : 2 * FAST_UNPATCHED + 2] == ["PASS", "NOEXIST"]
    assert statuses[2:4] == ["NOEXIST", "NOEXIST"]  # checkout 1: neither built
    assert statuses.count("NOEXIST") == 3
    (log,) = build[2 * FAST_UNPATCHED + 1][3]
    assert log.startswith(layout.logs_shell(fast) + f"#c={FAST_UNPATCHED}&to=log-")
    repetitions = _row(_table(published.site / layout.series_page(daily)), "repetitions")
    assert [c[2] for c in repetitions[1:13]] == [
        *("5/reboot", "3/reboot") * 1,
        *("0/reboot", "0/reboot"),
        *("5/reboot", "3/reboot") * 2,
        *("5/reboot", "0/reboot"),
        *("5/reboot", "3/reboot"),
    ]


def test_each_value_row_has_each_variants_summaries_and_last_level(
    published: Published,
) -> None:
    daily, fast = published.fixed.daily, published.fixed.fast
    assert fast is not None
    table = _table(published.site / layout.series_page(daily))
    real = _row(table, "real")
    cells = real[1:13]
    assert cells[2 * FAST_UNPATCHED + 1][2] == ""  # not built: no value
    base_values = [float(c[2].split()[0]) for c in cells[0::2] if c[2]]
    fast_values = [float(c[2].split()[0]) for c in cells[1::2] if c[2]]
    assert len(base_values) == 5
    assert len(fast_values) == 4
    assert all(v < b for v, b in zip(fast_values, base_values, strict=False))  # 10 % faster
    unit, variants, since, *_rest = real[13:]
    assert unit[2] == "sec"
    assert variants[2] == "basefast"
    assert since[2] == "#3#0"
    html = (published.site / layout.series_page(daily)).read_text(encoding="utf-8")
    row = next(line for line in html.splitlines() if '<td class="name">real ' in line)
    assert '<td class="variant">base<br>fast</td>' in row
    # each variant's last level: the base stepped at checkout 3 (its regression), the
    # fast variant has no change: its level is all its checkouts
    found = re.search(
        r'class="variant">base<br>fast</td><td><span[^>]*>#(\d+)</span><br><span[^>]*>#(\d+)'
        r"</span></td><td>([^<]+)<br>([^<]+)</td>.*?<td>(\d+)<br>(\d+)</td></tr>",
        row,
    )
    assert found is not None, row
    base_from, fast_from, base_median, fast_median, base_n, fast_n = found.groups()
    base_since = [float(c[2].split()[0]) for c in cells[2 * 3 :: 2] if c[2]]  # from checkout 3 on
    assert (base_from, fast_from) == ("3", "0")
    assert (int(base_n), int(fast_n)) == (len(base_since), 4)
    for shown, values in ((base_median, base_since), (fast_median, fast_values)):
        assert shown.endswith(" s")  # seconds, as every value of the row
        assert abs(float(shown.split()[0]) - statistics.median(values)) < 0.051


def test_the_variants_change_is_marked_in_its_column(published: Published) -> None:
    daily = published.fixed.daily
    html = (published.site / layout.series_page(daily)).read_text(encoding="utf-8")
    row = next(line for line in html.splitlines() if '<td class="name">sender ' in line)
    cells = re.findall(r"<td[^>]*>.*?</td>", row)[1:13]
    marked = [n for n, cell in enumerate(cells) if 'class="regression"' in cell]
    assert marked == [6, 7]  # checkout 3: the walk's change and the variant's, each its own
    assert "regression: ▼ -20.0 % (series " in cells[7]
    assert "worse between checkouts 2 and 3 (confirmed)" in cells[7]


def test_the_walk_page_sums_up_each_variant(published: Published) -> None:
    daily, fast = published.fixed.daily, published.fixed.fast
    assert fast is not None
    html = (published.site / layout.series_page(daily)).read_text(encoding="utf-8")
    section = html.split("<h2>Variants</h2>", 1)[1].split("</table>", 1)[0]
    base_row, fast_row = re.findall(r"<tr><td class=\"name\">.*?</tr>", section)
    assert f'<td><a href="{layout.series_page(daily)}">series {daily}</a></td>' in base_row
    assert f'<td><a href="{layout.series_page(fast)}">series {fast}</a></td>' in fast_row
    assert "<td>6</td><td>1</td>" in base_row  # six checkouts, one build failed
    assert "<td>6</td><td>2</td>" in fast_row  # and the patch that did not apply
    assert '<td class="changes">1 regression</td>' in fast_row
    changes = html.split("<h2>Changes</h2>", 1)[1].split("</table>", 1)[0]
    assert "· variant fast</a>" in changes  # its changes listed with the walk's


def test_the_variants_page_links_back_to_its_walk(published: Published) -> None:
    daily, fast = published.fixed.daily, published.fixed.fast
    assert fast is not None
    html = (published.site / layout.series_page(fast)).read_text(encoding="utf-8")
    crumbs = html.split('<nav class="crumbs">', 1)[1].split("</nav>", 1)[0]
    assert f'<a href="{layout.series_page(daily)}">series {daily}</a>' in crumbs
    assert (
        f' · variant <b>fast</b> of <a href="{layout.series_page(daily)}">series {daily}</a>'
        in html
    )
    own = _table(published.site / layout.series_page(fast))
    assert [cell[2] for cell in own.rows[1]][:2] != ["base", "fast"]  # a table of its own
    for shell in (layout.checkout_shell(fast), layout.setup_page(fast)):
        page = (published.site / shell).read_text(encoding="utf-8")
        assert f'<a href="../{layout.series_page(daily)}">series {daily}</a>' in page
    setup = (published.site / layout.setup_page(fast)).read_text(encoding="utf-8")
    assert '<td class="name">variant</td><td class="name">fast</td>' in setup


def test_the_walks_plots_draw_each_variant_named_by_it(published: Published) -> None:
    daily, fast = published.fixed.daily, published.fixed.fast
    assert fast is not None
    html = (published.site / layout.series_page(daily)).read_text(encoding="utf-8")
    plots = re.findall(r'<div class="plot"[^>]*>', html)
    assert plots
    for div in plots:
        assert f'data-series="{daily} {fast}"' in div  # the walk's first: the columns' order
        assert 'data-variants="1"' in div
    _call, walk_meta = read_data(published.site / layout.series_meta(daily))
    _call, fast_meta = read_data(published.site / layout.series_meta(fast))
    assert walk_meta["variant"] == "base"
    assert fast_meta["variant"] == "fast"
    assert fast_meta["name"] == f"series {fast}: variant fast of series {daily}"
    make = layout.plot_key("make", "sec")
    assert walk_meta["keys"][make]["names"] == ["real", "user"]
    assert fast_meta["keys"][make]["names"] == ["real"]  # its own, not the walk's
    (change,) = fast_meta["changes"]
    assert (change["name"], change["after_idx"]) == ("sender", 3)
    assert change["open"] == layout.checkout_page(fast, 3)  # not a drill of the walk
    index = (published.site / layout.INDEX).read_text(encoding="utf-8")
    assert "data-variants" not in index  # the index names its lines by series


def test_a_variant_or_a_try_is_no_zoom_of_a_walk(published: Published) -> None:
    with Store.open(published.fixed.url, read_only=True) as store:
        every = store.list_series()
        zooms = zoom_links(every, {s.id: store.checkouts(s.id) for s in every})
    shown = {z.series_id for per in zooms.values() for zs in per.values() for z in zs}
    assert published.fixed.fine in shown
    assert published.fixed.fast not in shown
    assert published.fixed.tried not in shown


def test_a_try_inside_a_walks_interval_is_no_zoom_of_it(tmp_path: Path) -> None:
    """A try of two commits between two checkouts of a walk: its two sides are no finer
    history, and no walk zooms into a try."""
    commit = Commit(f"{2:040x}", T0, "Dev <d@example.org>", "two", "", ())
    url = f"sqlite:///{tmp_path / 'zoom.db'}"
    _hostile_store(url)
    with Store.open(url) as store:
        tried = store.create_series(_series("try", None, None))
        for idx in range(2):  # both sides between the walk's checkouts (T0, T0 + 1 day)
            store.add_checkout(
                tried, Checkout(idx, commit.id, T0 + timedelta(hours=6 + idx), (commit,), ())
            )
        every = store.list_series()
        zooms = zoom_links(every, {s.id: store.checkouts(s.id) for s in every})
    assert zooms == {}


HOSTILE_VARIANT = '<img src=x onerror="window.pwned=4">'  # 36 characters: fits the column


def _series(kind: SeriesKind, parent: int | None, variant: str | None) -> NewSeries:
    return NewSeries(
        name=f"w ({variant})" if variant else kind,
        project="p",
        repo="/src/p",
        from_spec="2024-03-01",
        to_spec="2024-03-02",
        step="1day",
        repetitions=2,
        between="keep",
        host="local",
        config_hash="h",
        config_text="",
        commands={},
        fingerprint={},
        started_at=T0,
        parent_id=parent,
        kind=kind,
        variant=variant,
    )


def _hostile_store(url: str) -> tuple[int, int]:
    """A walk of two checkouts and one variant named with markup (the configuration
    refuses such a name; a store written otherwise may hold one)."""
    commit = Commit(f"{1:040x}", T0, "Dev <d@example.org>", "one", "", ())

    with Store.open(url) as store:
        walk = store.create_series(_series("walk", None, None))
        variant = store.create_series(_series("variant", walk, HOSTILE_VARIANT))
        for sid, value in ((walk, 10.0), (variant, 9.0)):
            for idx in range(2):
                checkout = store.add_checkout(
                    sid,
                    Checkout(idx, commit.id, T0 + timedelta(days=idx), (commit,), ()),
                )
                store.set_build(checkout, Status.PASS, 1.0, Log.of(b"ok\n"))
                for rep in range(2):
                    result = NewResult(
                        test="t",
                        status=Status.PASS,
                        message="",
                        duration=1.0,
                        exit_code=0,
                        command="t",
                        stdout=Log.of(b""),
                        stderr=Log.of(b""),
                        values=((Value("v", value + rep, "ms"), Direction.LOWER),),
                    )
                    store.add_repetition(
                        checkout,
                        NewRepetition(
                            idx=rep,
                            started_at=T0,
                            finished_at=T0,
                            results=(result,),
                            between_status=None,
                            between_log=None,
                        ),
                    )
    return walk, variant


def test_a_hostile_variant_name_stays_text(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    walk, variant = _hostile_store(url)
    site = tmp_path / "site"
    with Store.open(url) as store:
        publish(store, None, site)
    escaped = "&lt;img src=x onerror=&quot;window.pwned=4&quot;&gt;"
    for page in site.rglob("*.html"):
        assert "<img" not in page.read_text(encoding="utf-8"), page
    walk_page = (site / layout.series_page(walk)).read_text(encoding="utf-8")
    assert f">{escaped}</a></th>" in walk_page  # its column's header
    assert f'<td class="variant">base<br>{escaped}</td>' in walk_page
    assert f'<td class="name">{escaped}</td>' in walk_page  # the Variants section
    index = (site / layout.INDEX).read_text(encoding="utf-8")
    assert f"<td>variant {escaped}</td>" in index
    _call, meta = read_data(site / layout.series_meta(variant))  # JSON: text, not markup
    assert meta["variant"] == HOSTILE_VARIANT
