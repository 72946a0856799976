"""The index opens on its "Changes": newest first, each with its culprit (to its
drill), its range (to the commits) or "not drilled", its triage; greyed when not to
act on; then the walks, drills and zooms nested under their walk. The plots'
metadata, the checkout pages' banners and the commit log get the same facts as
data. Commit subjects and authors stay text everywhere."""

from __future__ import annotations

import dataclasses
import re
from datetime import timedelta
from pathlib import Path

from perfwalk.report import layout
from perfwalk.report.change_list import Culprit, DrillMark, ListedChange, TriageMark
from perfwalk.report.pages.change_table import changes_section
from perfwalk.report.pages.index import SeriesSummary, index_page, nested
from perfwalk.report.site import PublishOptions, publish
from perfwalk.report.times import UTC_TIMES
from perfwalk.store import Store
from tests.fixtures.site_digests import site_digests
from tests.report.conftest import Published
from tests.report.history import HOSTILE, T0, config_for, make_fixed_store
from tests.report.site_data import read_data

EVIL = "<script>alert(1)</script> \"'&"
EVIL_HTML = "&lt;script&gt;alert(1)&lt;/script&gt; &quot;&#x27;&amp;"


def _change(**changed: object) -> ListedChange:
    base = ListedChange(
        series_id=1,
        series_name="nightly",
        test="bench",
        name="time",
        unit="ms",
        regression=True,
        before=10.0,
        after=13.0,
        size=0.3,
        low=0.28,
        high=0.32,
        confidence=0.999,
        before_idx=4,
        after_idx=5,
        before_sha="a" * 40,
        after_sha="b" * 40,
        date=T0,
        commits=3,
    )
    return dataclasses.replace(base, **changed)  # type: ignore[arg-type]


def _rows(html: str) -> list[str]:
    """The rows of the changes, in their groups' tables, in order."""
    body = html.split('<table class="changes groups">', 1)[1]
    body = re.split(r"</tbody>\n</table>\n(?!</details>)", body, maxsplit=1)[0]
    return re.findall(r'<tr class="(?!group)[^\n]*</tr>', body)


def test_the_changes_are_newest_first_with_culprit_range_or_not_drilled() -> None:
    culprit = _change(
        date=T0 + timedelta(days=2),
        culprit=Culprit("c" * 40, f"Fix {EVIL}", f"{EVIL} <e@example.org>", 7),
        drill=DrillMark(7, "culprit", "b" * 40, "c" * 40),
    )
    narrowed = _change(
        name="rss",
        unit="KiB",
        date=T0 + timedelta(days=1),
        drill=DrillMark(8, "range", "d" * 40, "e" * 40, "a commit between did not build"),
    )
    undrilled = _change(name="cpu", regression=False, size=-0.1, low=-0.12, high=-0.08)
    html = changes_section(layout.INDEX, [undrilled, culprit, narrowed], UTC_TIMES)
    first, second, third = _rows(html)
    assert first.startswith('<tr class="regression"><td><a href="series-1/checkout.html#c=5">')
    assert (
        f'<a href="series-7.html" title="culprit found by drill 7; by {EVIL_HTML} '
        f'&lt;e@example.org&gt;" class="culprit">cccccccccccc Fix {EVIL_HTML}</a>'
    ) in first
    assert "<td>10.0 ms → 13.0 ms</td>" in first
    assert (
        '<td class="delta">▲ +30.0 % (series 1), 95 % interval +28.0 % … +32.0 % '
        '<span class="worse">worse</span></td>' in first
    )
    assert "<td>99.90 %</td>" in first
    assert '<td class="state confirmed">confirmed</td>' in first
    assert '<span class="triage untriaged">untriaged</span>' in first
    assert "bench.rss" in second
    assert (
        '<a href="series-8.html">drill 8</a>: narrowed to '
        '<a href="series-1/commits.html#c=5" class="range">dddddddddd..eeeeeeeeee</a> '
        "(a commit between did not build)"
    ) in second
    assert third.startswith('<tr class="improvement">')
    assert (
        '<td class="delta">▼ -10.0 % (series 1), 95 % interval -12.0 % … -8.0 % '
        '<span class="better">better</span></td>'
    ) in third
    assert '<span class="undrilled">not drilled</span>' in third
    assert "<script>" not in html


def test_a_change_not_to_act_on_is_greyed_with_its_reason() -> None:
    (row,) = _rows(changes_section(layout.INDEX, [_change(note=f"suspect: {EVIL}")], UTC_TIMES))
    assert row.startswith('<tr class="noted regression">')
    assert f'bench.time<br><span class="note">suspect: {EVIL_HTML}</span>' in row


def test_a_refuted_change_is_shown_apart_greyed_with_its_chain() -> None:
    why = f"refuted by drill 7 (NO-CHANGE: {EVIL})"
    refuted = _change(
        name="rss",
        state="refuted",
        chain=("detected in walk 1 at > 99.99 %, both sides quiet", why),
        note=why,
        unconfirmed=why,
    )
    html = changes_section(layout.INDEX, [refuted, _change()], UTC_TIMES)
    listed, ruled_out = html.split('<h3 id="ruled-out">Ruled out</h3>')
    (row,) = _rows(listed)
    assert "bench.time" in row
    (apart,) = _rows(ruled_out)
    assert apart.startswith('<tr class="noted regression">')  # greyed
    assert (
        '<td class="state refuted" title="detected in walk 1 at &gt; 99.99 %, both sides '
        f'quiet; refuted by drill 7 (NO-CHANGE: {EVIL_HTML})">refuted</td>'
    ) in apart
    only = changes_section(layout.INDEX, [refuted], UTC_TIMES)
    assert only.index('<p class="no-changes">no changes found</p>') < only.index("Ruled out")


def test_no_changes_says_so() -> None:
    assert '<p class="no-changes">no changes found</p>' in changes_section(
        layout.INDEX, [], UTC_TIMES
    )


def test_each_triage_state_shows_with_who_when_why() -> None:
    for state in ("acknowledged", "expected", "invalid", "fixed"):
        mark = TriageMark(state, f"because {EVIL}", "ann", T0, "BUG-9")  # type: ignore[arg-type]
        (row,) = _rows(changes_section(layout.INDEX, [_change(triage=mark)], UTC_TIMES))
        assert (
            f'<span class="triage {state}" title="because {EVIL_HTML} — ann, 2024-03-01 12:00 '
            f'(BUG-9)">{state}</span>'
        ) in row


def test_the_index_opens_on_the_changes_then_nests_variants_zooms_and_drills(
    published: Published,
) -> None:
    index = (published.site / layout.INDEX).read_text(encoding="utf-8")
    body = index.split("<body>", 1)[1]
    assert body.index("<h2>Changes</h2>") < body.index("<table") < body.index("<h2>Walks</h2>")
    first = body.split("<table", 1)[1].split("</table>", 1)[0]
    assert first.startswith(' class="changes groups">')
    sender, real, fast = _rows(index)
    assert "iperf.sender" in sender  # the same date: by series and metric
    assert f"000000000000 Fix {_hostile_html()}</a>" in sender
    assert '<span class="triage expected" title="the new toolchain' in sender
    assert "make.real" in real
    assert '<span class="triage untriaged">untriaged</span>' in real
    assert f"{published.fixed.fast}: daily {_hostile_html()} (fast) · variant fast</a>" in fast
    assert "iperf.sender" in fast
    assert '<span class="undrilled">not drilled</span>' in fast
    walks = body.split('<table class="series">', 1)[1].split("</table>", 1)[0]
    daily, variant, fine = re.findall(r"<tr class=[^\n]*</tr>", walks)  # its variant first
    assert daily.startswith(f'<tr class="top" data-series="{published.fixed.daily}">')
    assert variant.startswith(f'<tr class="nested" data-series="{published.fixed.fast}">')
    assert "<td>variant fast</td>" in variant
    assert fine.startswith(f'<tr class="nested" data-series="{published.fixed.fine}">')
    assert '<td class="name depth-1">↳ <a href="series-2.html">' in fine
    assert "<td>zoom</td>" in fine


def _hostile_html() -> str:
    return (
        HOSTILE.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#x27;")
    )


def test_drills_and_zooms_sit_under_their_walk_in_any_order(published: Published) -> None:
    with Store.open(published.fixed.url, read_only=True) as store:
        walk, fine = (store.series(published.fixed.daily), store.series(published.fixed.fine))
    assert walk is not None
    assert fine is not None
    drill = dataclasses.replace(fine, id=9, parent_id=fine.id, kind="drill")
    orphan = dataclasses.replace(fine, id=10, parent_id=99)  # its walk is gone: at the top

    def summary(series: object) -> SeriesSummary:
        return SeriesSummary(series, None, None, 0, {}, ())  # type: ignore[arg-type]

    every = [summary(s) for s in (drill, fine, orphan, walk)]  # newest first
    assert [(s.series.id, depth) for s, depth in nested(every)] == [
        (10, 0),
        (walk.id, 0),
        (fine.id, 1),
        (9, 2),
    ]
    html = index_page(every)
    assert '<td class="name depth-2">↳ <a href="series-9.html">' in html
    assert "<td>drill</td>" in html


def test_plots_and_banners_get_the_facts_as_data(published: Published) -> None:
    daily = published.fixed.daily
    _call, meta = read_data(published.site / layout.series_meta(daily))
    sender = next(c for c in meta["changes"] if c["name"] == "sender")
    assert sender["delta"] == f"-19.8 % (drill {published.fixed.fine})"  # the drill's size
    assert sender["confidence"] == "99.98 %"
    assert sender["state"] == "confirmed"
    assert sender["chain"][-1].startswith(f"confirmed by drill {published.fixed.fine} (CULPRIT")
    assert sender["after_idx"] == 3
    assert sender["culprit"]["subject"].startswith("Fix <script>window.pwned=1")  # text
    assert sender["culprit"]["href"] == layout.series_page(published.fixed.fine)
    assert sender["culprit"]["anchor"] == layout.commit_anchor(f"{31:040x}")
    assert sender["open"] == layout.series_page(published.fixed.fine)  # the drill
    assert sender["triage"] == "expected"
    real = next(c for c in meta["changes"] if c["name"] == "real")
    assert real["range"]["verdict"] == "narrowed to"
    assert real["open"] == layout.checkout_page(daily, 3)  # no culprit: the checkout
    assert real["triage"] == "untriaged"


def test_a_triage_rewrites_the_index_and_the_plot_data_and_the_site_shows_it(
    tmp_path: Path,
) -> None:
    fixed = make_fixed_store(tmp_path / "store.db")
    config = config_for(fixed.url, tmp_path)
    site = tmp_path / "site"
    sender, real, fast = fixed.changes
    said = TriageMark("acknowledged", "looking", "bob", T0 + timedelta(days=5))
    triaged = (
        sender,
        dataclasses.replace(real, triage=said),
        dataclasses.replace(fast, triage=said),
    )
    with Store.open(fixed.url) as store:
        publish(store, config, site, PublishOptions(changes=fixed.changes))
        before = site_digests(site)
        report = publish(store, config, site, PublishOptions(changes=triaged))
        after = site_digests(site)
        publish(store, config, tmp_path / "scratch", PublishOptions(changes=triaged))
    assert not report.full
    changed = {name for name in after if before.get(name) != after[name]}
    assert {layout.INDEX, layout.series_meta(fixed.daily)} <= changed
    assert fixed.fast is not None
    assert {layout.series_meta(fixed.fast), layout.series_page(fixed.daily)} <= changed
    assert not any(name.startswith("series-2") for name in changed)
    index = (site / layout.INDEX).read_text(encoding="utf-8")
    assert '<span class="triage acknowledged" title="looking — bob, 2024-03-06 12:00">' in index
    assert 'class="triage untriaged"' not in index
    _call, meta = read_data(site / layout.series_meta(fixed.daily))
    assert {c["name"]: c["triage"] for c in meta["changes"]} == {
        "sender": "expected",
        "real": "acknowledged",
    }
    assert site_digests(tmp_path / "scratch") == after  # incremental = from scratch


def test_the_commit_log_data_keeps_hostile_subjects_as_text(published: Published) -> None:
    """The commits page draws from this data with textContent (the browser test shows
    it): the subject arrives as written, inside JSON, never as markup of the file."""
    _call, data = read_data(published.site / layout.commits_data(published.fixed.daily, 0))
    (hostile,) = [c for c in data["3"][3] if c[0] == f"{31:040x}"]
    assert hostile[3].startswith("Fix <script>window.pwned=1</script>")


def _groups(html: str) -> list[str]:
    """The groups' rows of the changes table."""
    return re.findall(r'<tr class="group [^\n]*</tr>', html)


def test_many_metrics_of_two_culprits_are_two_rows_with_their_author() -> None:
    """100 metrics in two walks stepping at two culprits: two rows, newest first, each
    naming its culprit, its author and its spread; the members behind each."""
    changes = []
    for n, (sha, author) in enumerate((("c" * 40, EVIL), ("d" * 40, "Ada Lovelace"))):
        culprit = Culprit(sha, f"commit {n}", f"{author} <a@example.org>", 7 + n)
        for series in (1, 2):
            changes += [
                _change(
                    series_id=series,
                    host=f"host-{series}",
                    name=f"m{metric}",
                    date=T0 + timedelta(days=n),
                    culprit=culprit,
                    before_sha=f"{n}" * 40,
                    after_sha=sha,
                )
                for metric in range(50)
            ]
    html = changes_section(layout.INDEX, changes, UTC_TIMES)
    newer, older = _groups(html)
    assert "dddddddddddd commit 1</a>" in newer
    assert '<td class="name author">Ada Lovelace</td>' in newer
    assert f'<td class="name author">{EVIL_HTML}</td>' in older
    assert html.count('">50 metrics in 2 walks on 2 hosts</summary>') == 2
    assert '<summary title="group dddddddddddd: `perfwalk triage dddddddddddd` says' in html
    assert len(_rows(html)) == 200
    assert html.count('<tbody class="group acting"') == 2
    assert '<input type="checkbox" id="all-changes" class="change-view">' in html  # off
    assert "<script>" not in html


def test_the_first_view_is_the_untriaged_regressions_and_a_switch_shows_all() -> None:
    said = TriageMark("acknowledged", "looking", "bob", T0)
    better = _change(name="cpu", regression=False, size=-0.1, after_sha="e" * 40)
    triaged = _change(triage=said, after_sha="f" * 40)
    acting = _change(name="rss", after_sha="9" * 40, date=T0 - timedelta(days=1))
    html = changes_section(layout.INDEX, [better, triaged, acting], UTC_TIMES)
    assert re.findall(r'<tbody class="group (\w+)"', html) == ["quiet", "quiet", "acting"]
    assert "show all 3 groups (1 untriaged regression shown, 2 others" in html
    quiet = changes_section(layout.INDEX, [better, triaged], UTC_TIMES)
    assert '<input type="checkbox" id="all-changes" class="change-view" checked>' in quiet
