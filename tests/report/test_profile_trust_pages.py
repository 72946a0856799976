"""The Profile section of a published drill page and try page: the flame graph's data
leaves the [unknown] frame out (a function's box is coloured by its own change, as its
row says), the rows within the noise of the counts are hidden and counted, and a side
with fewer samples than [test.profile] min_samples is warned about."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

from perfwalk.analysis.profile_diff import diff_functions
from perfwalk.config.model import Config, ProfileConfig, TestConfig
from perfwalk.model import Checkout, Status
from perfwalk.report import layout
from perfwalk.report.site import PublishOptions, publish
from perfwalk.store import Store
from perfwalk.store.profiles import NewProfile
from tests.analysis.test_profile_trust import CULPRIT, PARENT
from tests.report.history import TRY_HOSTILE_TEST, _commit, _series, config_for, make_fixed_store

HIDDEN = "7 rows within the noise of 53 vs 74 samples hidden"
WARNED = "fewer than the 500 of [test.profile] min_samples"


def _profile(test: str, stacks: dict[str, int]) -> NewProfile:
    return NewProfile(
        test=test,
        role="",
        host="local",
        tool="perf",
        event="cpu-clock",
        status=Status.PASS,
        message="",
        stacks=stacks,
    )


def _drill(store: Store, parent: int) -> int:
    """A drill series whose culprit (position 1) and parent (0) were profiled, its
    answer's table as an older perfwalk kept it (the paths' [unknown] row first)."""
    series = dataclasses.replace(_series("drill crc", "drill", parent, ()), kind="drill")
    sid = store.create_series(series)
    commits = [_commit(700 + n, 9) for n in range(2)]
    ids = []
    for idx, (commit, stacks) in enumerate(zip(commits, (PARENT, CULPRIT), strict=True)):
        checkout = store.add_checkout(
            sid, Checkout(index=idx, commit=commit.id, date=commit.date, since=(commit,))
        )
        ids.append(store.profiles.add(checkout, _profile("crc", stacks), limit=1 << 20))
    change = {"id": None, "before_sha": commits[0].id, "after_sha": commits[1].id}
    store.drills.start(sid, "crc", "elapsed", change)
    sides = [
        {"profile": pid, "series": sid, "checkout": idx, "samples": n, "host": "local"}
        for idx, (pid, n) in enumerate(zip(ids, (53, 74), strict=True))
    ]
    functions = [row.as_dict() for row in diff_functions(PARENT, CULPRIT, top=20)]
    profile = {"test": "crc", "before": sides[0], "after": sides[1], "functions": functions}
    answer = {"verdict": "culprit", "culprit": commits[1].id, "reason": "", "profile": profile}
    store.drills.finish(sid, "culprit", answer)
    return sid


def _published(folder: Path, *, least: int | None = None) -> tuple[Path, int, int]:
    fixed = make_fixed_store(folder / "store.db")
    config: Config = config_for(fixed.url, folder)
    if least is not None:
        profile = ProfileConfig(min_samples=least)
        tests = [
            TestConfig(name, "./prog", "value", profile=profile)
            for name in ("crc", TRY_HOSTILE_TEST)
        ]
        config = dataclasses.replace(config, tests=tuple(tests))
    with Store.open(fixed.url) as store:
        sides = {c.idx: c.id for c in store.checkouts(fixed.tried)}
        for idx, stacks in ((0, PARENT), (1, CULPRIT)):
            store.profiles.add(sides[idx], _profile(TRY_HOSTILE_TEST, stacks), limit=1 << 20)
        drill = _drill(store, fixed.daily)
        publish(store, config, folder / "site", PublishOptions())
    return folder / "site", drill, fixed.tried


def _section(site: Path, series_id: int) -> str:
    page = (site / layout.series_page(series_id)).read_text(encoding="utf-8")
    return page[page.index("<h2>Profile</h2>") :]


def _rows(section: str) -> list[str]:
    table = section[section.index('<table class="profile-changes">') :]
    table = table[: table.index("</table>")]
    return re.findall(r'<tr><td class="name"><code>(.*?)</code>', table)


def _tree(site: Path, series_id: int, test: str) -> dict[str, Any]:
    text = (site / layout.profile_diff_data(series_id, test)).read_text(encoding="utf-8")
    document = json.loads(text[text.index(",") + 1 : -3])
    tree: dict[str, Any] = document["tree"]
    return tree


def _names(tree: dict[str, Any]) -> set[str]:
    found, pending = set(), [tree]
    while pending:
        node = pending.pop()
        found.add(node["n"])
        pending.extend(node.get("c", ()))
    return found


def test_the_drill_and_try_pages_warn_hide_the_noise_and_agree_with_their_graph(
    tmp_path: Path,
) -> None:
    site, drill, tried = _published(tmp_path)
    for series_id, test in ((drill, "crc"), (tried, TRY_HOSTILE_TEST)):
        section = _section(site, series_id)
        assert "<strong>Warning:</strong> few samples: 53 at " in section, series_id
        assert WARNED in section
        assert "raise [test.profile] frequency" in section
        assert "53 vs 74 samples: ±1 sample = 1.9 pp" in section
        assert HIDDEN in section
        assert _rows(section) == ["cksum_update", "crc32_block"], series_id
        crc = section[section.index("<code>crc32_block</code>") :].split("</tr>")[0]
        assert 'class="flame-shrank">-20.6' in crc  # its self share fell
        # the graph's box of crc32_block: fewer samples' share after, blue as its row
        tree = _tree(site, series_id, test)
        assert "[unknown]" not in _names(tree)
        (bench,) = tree["c"]
        box = next(c for c in bench["c"] if c["n"] == "crc32_block")
        assert (box["b"], box["v"]) == (51, 56)
        assert box["v"] / tree["v"] < box["b"] / 53


def test_enough_samples_for_the_configured_minimum_warn_nothing(tmp_path: Path) -> None:
    site, drill, tried = _published(tmp_path, least=50)
    for series_id in (drill, tried):
        section = _section(site, series_id)
        assert "Warning:" not in section
        assert HIDDEN in section
