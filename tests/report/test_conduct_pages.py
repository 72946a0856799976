"""Conductor runs on the site: the index lists them newest first and links a page per
run with its values (a summary per value, then trial by trial) and every step of
every trial with its status, exit code and outputs; outputs and value names are
text, never markup; a run's page is written again only when the run changed."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

from perfwalk.model import Status, Value
from perfwalk.report import layout
from perfwalk.report.pages.conduct import INLINE_LIMIT
from perfwalk.report.site import publish
from perfwalk.services.conduct import ConductResult, make_parser, parse_run
from perfwalk.services.publish import store_state
from perfwalk.store import Store
from tests.conduct.runs import HOSTILE_NAME, play_local, store_run
from tests.fixtures.site_digests import site_digests


class _Links(HTMLParser):
    """The links of a page, with the text of each, and its element ids."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str]] = []
        self.ids: set[str] = set()
        self._href: str | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(found["id"] or "")
        if tag == "a":
            self._href, self._text = found.get("href") or "", ""

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            self.links.append((self._href, self._text))
            self._href = None


def _read(path: Path) -> _Links:
    parsed = _Links()
    parsed.feed(path.read_text(encoding="utf-8"))
    return parsed


def _digests(site: Path) -> dict[str, str]:
    """The pages' digests (:func:`site_digests`: not those that say the second of the
    publish that wrote them), the site's state left out."""
    return {
        name: digest
        for name, digest in site_digests(site).items()
        if layout.STATE_DIR not in Path(name).parts
    }


def _played(tmp_path: Path) -> tuple[ConductResult, ConductResult, Path]:
    """Two runs really played here (the first parsed), published."""
    parsed = play_local(tmp_path / "lab", trials=2, parser="value")
    plain = play_local(tmp_path / "lab", trials=1)
    site = tmp_path / "site"
    with Store.open(parsed.store) as store:
        publish(store, None, site)
    return parsed, plain, site


def test_the_index_links_each_run_page_newest_first(tmp_path: Path) -> None:
    parsed, plain, site = _played(tmp_path)
    index = (site / layout.INDEX).read_text(encoding="utf-8")
    assert "No series yet" in index  # no walk: the conductor runs all the same
    rows = re.findall(r'<tr data-conduct="(\d+)">(.*?)</tr>', index)
    assert [int(run) for run, _ in rows] == [plain.conduct_id, parsed.conduct_id]
    links = dict(_read(site / layout.INDEX).links)
    for result, values in ((parsed, "4 by value"), (plain, "no")):
        page = layout.conduct_page(result.conduct_id)
        assert links[page] == f"{result.conduct_id}: master.cfg"
        assert (site / page).is_file()
        row = dict(rows)[str(result.conduct_id)]
        assert '<td class="NOEXIT"><a href="' + page + '#trials">NOEXIT</a></td>' in row
        assert f'<td class="name">{values}</td>' in row
        assert "<td>finished</td>" in row


def test_a_run_page_shows_every_step_and_the_values(tmp_path: Path) -> None:
    parsed, _plain, site = _played(tmp_path)
    page = site / layout.conduct_page(parsed.conduct_id)
    text = page.read_text(encoding="utf-8")
    found = _read(page)
    assert {"trials", "values", "trial-1", "trial-2", "trial-1-run", "trial-2-reset"} <= found.ids
    for href, _text in found.links:  # every link of the page resolves
        path, _, anchor = href.partition("#")
        assert (page.parent / path).exists() if path else anchor in found.ids, href
    with Store.open(parsed.store) as store:
        steps = store.conduct.steps(parsed.conduct_id)
    assert len(steps) == 10
    for step in steps:  # a row each, with its status and exit code
        row = re.search(rf'<tr id="step-{step.id}">(.*?)</tr>', text, re.DOTALL)
        assert row, step
        status = f'<td class="{step.status.name}">{step.status.name}</td>'
        assert status in row.group(1) or f'<td class="{step.status.name}" title=' in row.group(1)
        code = "-" if step.exit_code is None else str(step.exit_code)
        assert f"<td>{code}</td>" in row.group(1)
    failed = [s for s in steps if s.name == "step2"]
    assert [(s.status, s.exit_code) for s in failed] == [(Status.NOEXIT, 3)] * 2
    # the summary per value: n, min, max, median, mean, sd, rsd
    rate = re.search(r'<td class="name">rate</td><td class="name">Mbit/s</td>(.*?)</tr>', text)
    assert rate
    assert re.findall(r"<td>([^<]*)</td>", rate.group(1)) == [
        "2",
        "941.5 Mbit/s",
        "941.5 Mbit/s",
        "941.5 Mbit/s",
        "941.5 Mbit/s",
        "0 bit/s",
        "0.0 %",
    ]
    assert "stdout: 1 line" in text  # outputs, folded


def test_hostile_outputs_and_value_names_stay_text(tmp_path: Path) -> None:
    parsed, _plain, site = _played(tmp_path)
    text = (site / layout.conduct_page(parsed.conduct_id)).read_text(encoding="utf-8")
    assert "<script" not in text  # neither the value's name nor the output's
    assert "<b>" not in text
    escaped = html.escape(HOSTILE_NAME, quote=True)
    assert f'<td class="name">{escaped}</td><td class="name">&lt;b&gt;u</td>' in text
    assert html.escape("<script>window.pwned=2</script>") in text  # the standard error
    assert "onerror" not in text


def test_a_long_output_is_cut_with_a_link_to_the_whole(tmp_path: Path) -> None:
    lines = [f"line {n}: {'x' * 60}\n" for n in range(1000)]
    url = f"sqlite:///{tmp_path / 'perfwalk.db'}"
    with Store.open(url) as store:
        conduct_id = store_run(store, [{"source.step1": "".join(lines)}])
        publish(store, None, tmp_path / "site")
        (step, *_others) = store.conduct.steps(conduct_id)
    whole = tmp_path / "site" / layout.conduct_output(conduct_id, step.stdout_log_id)
    assert whole.read_text() == "".join(lines)
    text = (tmp_path / "site" / layout.conduct_page(conduct_id)).read_text(encoding="utf-8")
    shown = re.search(r"<summary>stdout: 1000 lines</summary><pre>(.*?)</pre>", text, re.DOTALL)
    assert shown
    assert INLINE_LIMIT - 100 < len(shown.group(1)) <= INLINE_LIMIT
    assert shown.group(1).endswith("\n")  # cut after a whole line
    assert f'href="conduct-{conduct_id}/output-{step.stdout_log_id}.txt"' in text


def test_a_run_page_is_written_again_only_when_the_run_changed(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'perfwalk.db'}"
    site = tmp_path / "site"
    with Store.open(url) as store:
        first = store_run(store, [{"source.step1": "VALUE 1 s a\n"}] * 2)
        second = store_run(store, [{"source.step1": "VALUE 2 s a\n"}])
        publish(store, None, site)
        assert publish(store, None, site).written == 0  # nothing new
        before = _digests(site)
        parse_run(store, first, make_parser("value", []))
        report = publish(store, None, site)
        after = _digests(site)
        changed = {name for name in after if before.get(name) != after[name]}
        assert changed == {layout.conduct_page(first), layout.INDEX}
        assert report.written == 2
        assert "2 by value" in (site / layout.INDEX).read_text(encoding="utf-8")
        third = store_run(store, [{"source.step1": "VALUE 3 s a\n"}])
        publish(store, None, site)
        changed = {name for name, digest in _digests(site).items() if after.get(name) != digest}
        assert changed == {layout.conduct_page(third), layout.INDEX}
        assert layout.conduct_page(second) not in changed
        (site / layout.conduct_page(second)).unlink()  # a page removed by hand: written again
        assert publish(store, None, site).written == 2  # and the index, as ever
        assert (site / layout.conduct_page(second)).is_file()


def test_serving_sees_a_conductor_run_change(tmp_path: Path) -> None:
    """``perfwalk serve`` publishes again when the store's state changes: a new run,
    a trial stored, values parsed change it."""
    url = f"sqlite:///{tmp_path / 'perfwalk.db'}"
    with Store.open(url) as store:
        empty = store_state(store)
        conduct_id = store_run(store, [{"source.step1": "VALUE 1 s a\n"}])
        one = store_state(store)
        assert one != empty
        assert store_state(store) == one
        store.conduct.set_values(conduct_id, {1: (Value("a", 1.0, "s"),)}, parser="value")
        parsed = store_state(store)
        assert parsed != one
        store.conduct.finish(conduct_id, "interrupted", datetime(2026, 3, 2, tzinfo=UTC))
        assert store_state(store) != parsed
