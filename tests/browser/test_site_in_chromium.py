"""The published site in a real browser: the three clicks from the index to a log
line, a click on a plot point, no console error, and hostile text that stays text."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from perfwalk.composites.demo import DemoResult
from perfwalk.report import layout
from tests.fixtures.chromium import Watched
from tests.report.conftest import Published, publish_fixed
from tests.report.history import HOSTILE

PAINT_TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Published:
    return publish_fixed(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(scope="module")
def file_links(tmp_path_factory: pytest.TempPathFactory) -> Published:
    return publish_fixed(tmp_path_factory.mktemp("files"), file_url=FILE_URL)


#: a forge's view of a file as a commit left it (``[project] file_url``)
FILE_URL = "https://git.example.org/netstack/blob/{commit}/{path}"


@pytest.fixture(scope="module")
def demo(demo_result: DemoResult) -> DemoResult:
    return demo_result


def _wait_for_plots(page: Any) -> None:
    """Until the first plot is painted; plots paint as they come into view, and a page
    taken back from the history may be scrolled away from it."""
    page.locator("div.plot").first.scroll_into_view_if_needed()
    page.wait_for_function(
        "() => [...document.querySelectorAll('div.plot')].slice(0, 1)"
        ".every(el => el.dataset.painted)",
        timeout=PAINT_TIMEOUT_MS,
    )
    assert page.evaluate("document.querySelector('div.plot').dataset.painted") != "error"


def _wait_for_drawing(page: Any) -> None:
    """Until pages.js has drawn the checkout, logs, commits or log page."""
    page.wait_for_function(
        "() => document.getElementById('pw-page').dataset.drawn", timeout=PAINT_TIMEOUT_MS
    )


def _uri(site: Path, path: str) -> str:
    """The file:// address of a site path that may end in ``#…``."""
    file, _, anchor = path.partition("#")
    return (site / file).as_uri() + (f"#{anchor}" if anchor else "")


def _point_on(page: Any) -> tuple[float, float, int]:
    """Screen position of a repetition point of the first plot, and its checkout."""
    found = page.evaluate(
        """() => {
          const el = document.querySelector('div.plot');
          el.scrollIntoView();
          const chart = echarts.getInstanceByDom(el);
          const series = chart.getOption().series;
          const at = series.findIndex(s => s.type === 'scatter');
          const data = series[at].data;
          const point = data[Math.floor(data.length / 2)];
          const [x, y] = chart.convertToPixel({seriesIndex: at}, [point[0], point[1]]);
          const box = el.getBoundingClientRect();
          return [box.left + x, box.top + y, point[2]];
        }"""
    )
    return float(found[0]), float(found[1]), int(found[2])


@pytest.mark.slow
def test_demo_site_from_the_index_to_a_log_line(demo: DemoResult, watched: Watched) -> None:
    demo_site = demo.site
    # the six weeks' slowdown (the extra night's is the other one)
    slower, _night = [d for d in demo.drills if d.event.direction == "slower"]
    page = watched.page
    page.goto((demo_site / layout.INDEX).as_uri())
    _wait_for_plots(page)
    watched.shot("1-index")
    page.click("table.series tr.top a >> text=checksum nightly")  # the walk, not a drill
    found = re.search(r"series-(\d+)\.html$", page.url)
    assert found, page.url
    sid = int(found.group(1))
    _wait_for_plots(page)
    watched.shot("2-series")
    with page.expect_navigation():  # the zoom row: the drill of the slowdown
        drill = layout.series_page(slower.series_id or 0)
        page.click(f"tr:has(td.name:text-is('zoom')) a[href='{drill}']")
    page.wait_for_selector("text=CULPRIT: the culprit")
    assert page.locator("article.culprit h3").inner_text().endswith("add -l to count lines")
    watched.shot("2b-drill")
    page.go_back()
    _wait_for_plots(page)
    x, y, checkout = _point_on(page)
    page.mouse.move(x, y)
    page.wait_for_selector("text=repetition", timeout=5000)  # the tooltip
    watched.shot("3-tooltip")
    with page.expect_navigation():
        page.mouse.click(x, y)
    assert page.url.endswith(layout.checkout_page(sid, checkout)), page.url
    _wait_for_drawing(page)
    watched.shot("4-checkout")
    page.click("table.repetitions td.PASS a >> nth=0")  # a repetition's status → its log
    assert "/" + layout.logs_page(sid, checkout, "result-") in page.url
    _wait_for_drawing(page)
    line = page.locator("section.result.pw-target pre.log > a >> nth=0")
    line.wait_for(timeout=PAINT_TIMEOUT_MS)
    anchor = line.get_attribute("id")
    line.click()
    assert page.url.endswith("&to=" + anchor)
    # the line, marked (by the page's hashchange handler, a moment after the click)
    page.locator(f"#{anchor}.pw-target").wait_for(timeout=PAINT_TIMEOUT_MS)
    assert page.locator(f"#{anchor}.pw-target").count() == 1
    watched.shot("5-log")
    assert not watched.errors, watched.errors


def test_hostile_history_runs_no_script(hostile: Published, watched: Watched) -> None:
    page = watched.page
    daily = hostile.fixed.daily
    large = next((hostile.site / layout.series_dir(daily)).glob("log-*.txt"))
    for path in (
        layout.INDEX,
        layout.series_page(daily),
        layout.checkout_page(daily, 3),
        layout.logs_page(daily, 3),
        layout.logs_page(daily, 1),
        layout.logs_page(daily, 5),
        layout.commits_page(daily, 3),
        layout.log_page(daily, int(large.stem.split("-")[1])),
        layout.setup_page(daily),
    ):
        page.goto(_uri(hostile.site, path))
        if path in (layout.INDEX, layout.series_page(daily)):
            _wait_for_plots(page)
            watched.shot("hostile-" + path.replace("/", "-"))
        elif "#" in path:
            _wait_for_drawing(page)
        else:
            page.wait_for_load_state("load")
        assert page.evaluate("typeof window.pwned") == "undefined", path
        text = page.inner_text("body")
        assert HOSTILE in text or "&lt;script" not in text, path
    page.goto(_uri(hostile.site, layout.commits_page(daily, 3)))
    _wait_for_drawing(page)
    text = page.inner_text("body")
    assert f"Fix {HOSTILE}" in text  # the commit subject, shown as written
    assert "\\x1b[1mbold\\x1b[0m" in text  # ANSI codes visible, not interpreted
    page.goto(_uri(hostile.site, layout.checkout_page(daily, 3)))
    _wait_for_drawing(page)
    assert f"fs {HOSTILE}" in page.inner_text("table.repetitions")  # the test's name
    page.goto(_uri(hostile.site, layout.logs_page(daily, 3)))
    _wait_for_drawing(page)
    text = page.inner_text("body")
    assert "<script>window.pwned=3</script>" in text
    assert "invalid utf-8: \ufffd\ufffd end" in text
    assert "\\x1b[31mred\\x1b[0m <b onmouseover='x'>" in text
    lines = page.evaluate(  # each line follows its anchor, as written
        "[...document.querySelectorAll('pre.log > a')]"
        ".map(a => a.nextSibling ? a.nextSibling.textContent.split('\\n')[0] : '')"
    )
    assert "<script>window.pwned=3</script>" in lines
    assert "\\x1b[31mred\\x1b[0m <b onmouseover='x'>" in lines
    assert "invalid utf-8: \ufffd\ufffd end" in lines
    watched.shot("hostile-logs")
    page.goto(_uri(hostile.site, layout.checkout_page(daily, 2)))
    _wait_for_drawing(page)
    outlier = page.locator("table.repetitions td.outlier").first
    assert "from the summary" in (outlier.get_attribute("title") or "")
    assert not watched.dialogs
    assert not watched.errors, watched.errors


def _drawn_marks(page: Any, title: str) -> dict[str, Any]:
    """The marks of the summary lines of the plot titled ``title``, once drawn: per
    line, its shaded spans (name, colour; not the quirks' ranges) and its lines between
    two points."""
    page.evaluate(f"document.querySelector('div.plot[data-title=\"{title}\"]').scrollIntoView()")
    page.wait_for_function(
        f"() => document.querySelector('div.plot[data-title=\"{title}\"]').dataset.painted",
        timeout=PAINT_TIMEOUT_MS,
    )
    found: dict[str, Any] = page.evaluate(
        """(title) => {
          const el = document.querySelector(`div.plot[data-title="${title}"]`);
          const out = {};
          echarts.getInstanceByDom(el).getOption().series
            .filter(s => s.type === 'line')
            .forEach(s => {
              const areas = ((s.markArea && s.markArea.data) || []).filter(a => !a[0].pwQuirk);
              const lines = ((s.markLine && s.markLine.data) || []).filter(d => d.length === 2);
              out[s.name] = {
                areas: areas.map(a => [a[0].name, a[0].itemStyle.color]),
                lines: lines.map(l => [l[0].name, l[0].coord[1], l[1].coord[1]]),
              };
            });
          return out;
        }""",
        title,
    )
    return found


def test_excursions_and_drifts_are_drawn_apart_from_changes(
    hostile: Published, watched: Watched
) -> None:
    page = watched.page
    page.goto(_uri(hostile.site, layout.series_page(hostile.fixed.daily)))
    _wait_for_plots(page)
    make = _drawn_marks(page, "make [s]")  # the walk's lines: its variant "base"
    (change,) = make["base: real"]["areas"]
    assert change[0].startswith("▲ +25.0 % worse")
    (excursion,) = make["base: user"]["areas"]
    assert excursion[0] == "excursion +3.1 %"
    assert excursion[1] != change[1]  # a colour of its own, not a regression's
    assert make["fast: real"]["areas"] == []  # the variant's own findings: none there
    iperf = _drawn_marks(page, "iperf [count]")
    assert iperf["base: retransmits"]["lines"] == [["drift +5.0 %", 5.0, 5.25]]
    assert iperf["base: retransmits"]["areas"] == []
    watched.shot("findings")
    assert not watched.errors, watched.errors


def test_conductor_run_pages_open_from_the_index_without_errors(
    hostile: Published, watched: Watched
) -> None:
    """From the index's "Conductor runs" to each run's page: no console error, every
    output unfolded shows the hostile text as text, the long output's link opens it
    whole."""
    page = watched.page
    page.goto(_uri(hostile.site, layout.INDEX))
    page.wait_for_load_state("load")
    parsed, broken = hostile.fixed.conduct
    rows = page.locator("table.conduct tbody tr")
    assert [rows.nth(i).get_attribute("data-conduct") for i in range(rows.count())] == [
        str(broken),
        str(parsed),
    ]
    page.locator(f'tr[data-conduct="{broken}"] td.name a').click()
    page.wait_for_load_state("load")
    assert page.url.endswith(layout.conduct_page(broken))
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    text = page.inner_text("body")
    assert f"conductor run {broken}: {HOSTILE}.cfg" in text  # the title, as written
    assert "<script>window.pwned=3</script>" in text  # an output
    assert "\\x1b[31mred\\x1b[0m <b onmouseover='x'>" in text  # ANSI codes visible
    assert page.evaluate("typeof window.pwned") == "undefined"
    watched.shot("conduct-broken")
    with page.expect_navigation():
        page.locator("td.output a").first.click()
    assert "pps line 1199: 1488095" in page.inner_text("body")  # the whole output
    page.goto(_uri(hostile.site, layout.conduct_page(parsed)))
    page.wait_for_load_state("load")
    summary = page.inner_text("table.conduct-summary")
    assert f"x {HOSTILE}" in summary  # a value's name, as written
    assert page.locator("table.conduct-summary tr.unstable").count() == 1
    page.locator('table.conduct-trials a[href="#trial-2-run"]').click()
    assert page.evaluate("location.hash") == "#trial-2-run"
    assert page.evaluate("typeof window.pwned") == "undefined"
    watched.shot("conduct-parsed")


def test_the_try_page_opens_from_the_index_without_errors(
    hostile: Published, watched: Watched
) -> None:
    """From the index's "Tries" to the try's page and on to B's build log: no console
    error, the folded patch unfolded shows the hostile text as text."""
    page = watched.page
    tried = hostile.fixed.tried
    page.goto(_uri(hostile.site, layout.INDEX))
    _wait_for_plots(page)
    with page.expect_navigation():
        page.locator("table.tries td.name a").first.click()
    assert page.url.endswith(layout.series_page(tried)), page.url
    page.wait_for_load_state("load")
    assert page.locator("table.try-verdicts td.verdict.worse").inner_text() == "B worse"
    page.locator("details > summary").first.click()
    assert f"-/* {HOSTILE} */" in page.inner_text("details pre.patch")
    assert page.evaluate("typeof window.pwned") == "undefined"
    watched.shot("try")
    with page.expect_navigation():
        page.locator("table.try-sides tr:has(th:text-is('B')) td.PASS a").click()
    _wait_for_drawing(page)
    assert "built side B" in page.inner_text("body")
    assert page.evaluate("typeof window.pwned") == "undefined"
    watched.shot("try-build-log")
    assert not watched.dialogs


def test_a_walks_plots_draw_a_line_per_variant_and_open_its_checkouts(
    hostile: Published, watched: Watched
) -> None:
    """The daily walk (series 1) and its variant ``fast`` (series 3): each plot of the
    walk's page draws each variant's lines, named by the variant, a variant's colour
    the same in every plot; a click on a point of the variant opens its checkout."""
    page = watched.page
    daily, fast = hostile.fixed.daily, hostile.fixed.fast
    assert fast is not None
    page.goto(_uri(hostile.site, layout.series_page(daily)))
    _wait_for_plots(page)
    page.evaluate("document.querySelectorAll('div.plot').forEach(el => el.scrollIntoView())")
    page.wait_for_function(
        "() => [...document.querySelectorAll('div.plot')].every(el => el.dataset.painted)",
        timeout=PAINT_TIMEOUT_MS,
    )
    drawn: dict[str, list[list[str]]] = page.evaluate(
        """() => {
          const out = {};
          document.querySelectorAll('div.plot').forEach(el => {
            out[el.dataset.title] = echarts.getInstanceByDom(el).getOption().series
              .filter(s => s.type === 'line')
              .map(s => [s.name, s.color, s.id.split('|')[1]]);
          });
          return out;
        }"""
    )
    assert [name for name, _c, _s in drawn["iperf [bit/s]"]] == [
        "base: sender",
        "base: receiver",
        "fast: sender",
        "fast: receiver",
    ]
    assert [name for name, _c, _s in drawn["make [s]"]] == [
        "base: real",
        "base: user",
        "fast: real",  # the variant measures no make.user
    ]
    colours: dict[str, set[str]] = {}
    for lines in drawn.values():
        for _name, colour, sid in lines:
            colours.setdefault(sid, set()).add(colour)
    assert set(colours) == {str(daily), str(fast)}
    assert all(len(c) == 1 for c in colours.values())  # one colour per variant everywhere
    assert colours[str(daily)] != colours[str(fast)]
    found = page.evaluate(
        """(sid) => {
          const el = document.querySelector('div.plot');
          el.scrollIntoView();
          const chart = echarts.getInstanceByDom(el);
          const series = chart.getOption().series;
          const at = series.findIndex(s => s.type === 'scatter' && s.id.split('|')[1] === sid);
          const point = series[at].data[0];
          const [x, y] = chart.convertToPixel({seriesIndex: at}, [point[0], point[1]]);
          const box = el.getBoundingClientRect();
          return [box.left + x, box.top + y, point[2]];
        }""",
        str(fast),
    )
    x, y, checkout = float(found[0]), float(found[1]), int(found[2])
    page.mouse.move(x, y)
    page.wait_for_selector("text=fast: sender", timeout=5000)  # the tooltip names it
    watched.shot("variants")
    with page.expect_navigation():
        page.mouse.click(x, y)
    assert page.url.endswith(layout.checkout_page(fast, checkout)), page.url
    _wait_for_drawing(page)
    assert page.inner_text("p.pw-variants") == "variants: base · fast"
    with page.expect_navigation():  # the same checkout, measured plain
        page.click("p.pw-variants a >> text=base")
    assert page.url.endswith(layout.checkout_page(daily, checkout)), page.url
    _wait_for_drawing(page)
    assert page.inner_text("p.pw-variants") == "variants: base · fast"
    assert page.locator("p.pw-variants b").inner_text() == "base"
    assert not watched.errors, watched.errors


def test_each_file_of_a_commit_links_to_the_forge_at_that_commit(
    file_links: Published, hostile: Published, watched: Watched
) -> None:
    """With ``[project] file_url``, each file a commit page lists opens as that commit
    left it, its path percent-encoded segment by segment (a hostile name stays one
    path); without it, each file opens the commit."""
    page = watched.page
    daily = file_links.fixed.daily
    links = "ul.files a"
    page.goto(_uri(file_links.site, layout.commits_page(daily, 3)))
    _wait_for_drawing(page)
    found = page.eval_on_selector_all(links, "els => els.map(a => [a.textContent, a.href])")
    print(found)
    assert found, "no file linked"
    for name, href in found:
        commit = href.split("/blob/")[1].split("/")[0]
        assert len(commit) == 40
        path = "/".join(quote(part, safe="!~*'()") for part in name.split("/"))
        assert href == f"https://git.example.org/netstack/blob/{commit}/{path}"
    assert any("%3Cevil%3E%20%26%20'name'.c" in href for _, href in found)
    page.goto(_uri(hostile.site, layout.commits_page(daily, 3)))
    _wait_for_drawing(page)
    plain = page.eval_on_selector_all(links, "els => els.map(a => a.href)")
    assert plain
    assert all(href.startswith("https://git.example.org/c/") for href in plain)
