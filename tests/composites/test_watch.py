"""The daily loop on real repositories: `perfwalk watch --once` continues the named
walks with what landed, drills the new changes, publishes and says what is new; a
second watch on the same store stops at once; walks on disjoint hosts run together."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from perfwalk.cli import exits
from perfwalk.cli.main import main
from perfwalk.composites.watch import WatchCycle, watch_forever
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.store import Store
from tests.fixtures.noisy_repo import CONFIG as NOISY_CONFIG
from tests.fixtures.noisy_repo import add_noisy_commits, noisy_history
from tests.fixtures.receivers import Hook, Mailbox

#: A walk every 4th commit of a noisy line (sd 1 around 100 ms), drilled within a
#: budget.
CONFIG = (
    NOISY_CONFIG
    + """
[[walk]]
name = "nightly"
from = "{first}"
step = "commit/4"

[watch]
site = "site"
drill_builds = 12
drill_repetitions = 300
"""
)


def _config(tmp_path: Path, ids: list[str], extra: str = "") -> Config:
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG.format(repo=tmp_path / "repo", first=ids[0]) + extra, encoding="utf-8")
    return load_config(path)


def _measured(config: Config) -> list[tuple[str, int, str]]:
    """(commit, repetition, series kind) of every stored repetition."""
    with Store.open(config.store.url) as store:
        return sorted(
            (checkout.sha, repetition.idx, series.kind)
            for series in store.list_series()
            for checkout in store.checkouts(series.id)
            for repetition in store.repetitions(checkout.id)
        )


def _walked(config: Config) -> list[str]:
    with Store.open(config.store.url) as store:
        (series,) = [s for s in store.list_series() if s.kind == "walk"]
        return [c.sha for c in store.checkouts(series.id)]


@pytest.mark.slow
def test_a_cycle_measures_what_landed_drills_the_new_regression_and_then_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mailbox: Mailbox, hook: Hook
) -> None:
    ids = noisy_history(tmp_path / "repo", commits=24, step_at=10**6, size=0, salt=3)
    receivers = [
        f"mailto://127.0.0.1:{mailbox.port}?from=perfwalk@localhost&to=dev@localhost",
        f"json://127.0.0.1:{hook.port}/perf",
    ]
    config = _config(
        tmp_path,
        ids,
        '\n[report]\nbase_url = "https://perf.example.org"\n\n'
        f"[notify]\nurls = {json.dumps(receivers)}\n",
    )
    watch = ["watch", "--once", "-c", str(config.path)]

    # 7 checkouts of a line with 1 % noise cannot see a change of 1 % (its min_change):
    # undecided (4), not "nothing changed"
    assert main(watch) == exits.UNDECIDED
    out = capsys.readouterr().out
    assert "walk nightly: series 1" in out
    assert "no new changes" in out
    assert "series 1 'walk nightly': undecided: too noisy to see changes below " in out
    assert _walked(config) == [ids[i] for i in (0, 4, 8, 12, 16, 20, 23)]
    # … and its most likely step measured again, by the cycle's re-measure loop
    assert "walk nightly: re-measure of 1:" in out
    assert "(the most likely step of latency.latency, " in out
    before = _measured(config)
    stepped = {row[0] for row in before if row[1] >= 3}  # its two checkouts
    assert len(stepped) == 2
    before = [row for row in before if row[1] < 3]
    site = tmp_path / "site" / "index.html"
    assert f"site: {site}" in out

    # overnight: 16 commits, the third of them 20 % slower
    ids += add_noisy_commits(
        tmp_path / "repo", 24, lambda i: 120 if i >= 26 else 100, count=16, slower_at=26
    )
    assert main(watch) == 1  # a new regression nobody triaged
    out = capsys.readouterr().out
    # only the new checkouts were measured; the earlier repetitions are as they were
    # (the checkout the change's re-measure measured before it, two out from the
    # change's own, has more: the re-measures, from 3 on)
    walked = _walked(config)
    assert walked == [ids[i] for i in (0, 4, 8, 12, 16, 20, 23, 27, 31, 35, 39)]
    after = _measured(config)
    earlier = [row for row in after if row[0] in walked[:7] and row[2] == "walk"]
    assert [row for row in earlier if row[1] < 3] == before
    assert {row[0] for row in earlier if row[1] >= 3} == {ids[16], *stepped}
    assert "walk nightly: re-measure of 1:7: held after 3 + 3 repetitions, interleaved" in out
    with Store.open(config.store.url) as store:
        (drill,) = store.drills.all()
        assert drill.verdict == "culprit"
        assert drill.answer is not None
        assert drill.answer["culprit"] == ids[26]
        assert drill.answer["builds"] <= 12
        assert store.seen.keys() == {(1, ids[23], ids[27])}
    # the size the drill measured, the drill's word in the chain
    assert re.search(
        rf"new regression \(confirmed\): latency\.latency ▲ \+(19|20|21)(\.\d)? % "
        rf"\(drill {drill.series_id}\) worse ",
        out,
    ), out
    assert f"; confirmed by drill {drill.series_id} (CULPRIT {ids[26][:8]}, " in out
    assert f"culprit found by drill {drill.series_id}: {ids[26][:10]} Make it slower" in out
    assert "perfwalk triage 1:7 --state acknowledged" in out
    assert f'href="series-{drill.series_id}.html"' in site.read_text(encoding="utf-8")
    # one mail and one webhook, each naming the culprit
    assert "notify: 2 queued, 2 sent, 0 failed" in out
    (mail,) = mailbox.texts()
    (post,) = hook.posts
    for told in (mail, json.dumps(post)):
        assert ids[26][:10] in told
        assert "Make it slower" in told
        assert "latency.latency" in told
        assert "https://perf.example.org/series-1.html" in told

    # the index opens on the changes: the culprit, linked to its drill's page
    index = site.read_text(encoding="utf-8")
    first = index[index.index("<table") : index.index("</table>")]
    assert 'class="changes groups"' in first
    assert ids[26][:12] in first
    assert f'href="series-{drill.series_id}.html"' in first
    assert "untriaged" in first
    # above it, last night: the cycle, the walk's 4 new checkouts and their regression
    strip = re.search(r'<p id="last-night" class="last-night"[^>]*>.*?</p>', index)
    assert strip is not None
    said = re.sub(r"<[^>]*>", "", strip.group(0))
    assert said.startswith("last watch cycle ")
    assert "nightly +4 checkouts · 1 new regression, 0 builds broken" in said

    # a person's word: expected; `changes` passes, the next cycle's site says so
    triage = ["triage", "1:7", "-c", str(config.path), "--state", "expected"]
    assert main([*triage, "--reason", "the new checksum is slower by design"]) == 0
    assert main(["changes", "-c", str(config.path)]) == 0
    capsys.readouterr()

    # a night with nothing new: nothing measured, nothing drilled, nothing new to tell
    assert main(watch) == 0
    out = capsys.readouterr().out
    index = site.read_text(encoding="utf-8")
    first = index[index.index("<table") : index.index("</table>")]
    assert "expected" in first
    assert "untriaged" not in first
    assert "walk nightly: nothing new" in out
    assert "no new changes" in out
    said = re.sub(r"<[^>]*>", "", index)
    assert "nightly +0 checkouts · 0 new regressions, 0 builds broken" in said
    assert _measured(config) == after
    with Store.open(config.store.url) as store:
        assert len(store.drills.all()) == 1
    assert "notify: 0 queued, 0 sent, 0 failed" in out
    assert (len(mailbox.mails), len(hook.posts)) == (1, 1)  # nothing sent again


def test_watch_needs_a_named_walk(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ids = noisy_history(tmp_path / "repo", commits=2, step_at=10**6, size=0, salt=3)
    config = _config(tmp_path, ids)
    text = config.path.read_text(encoding="utf-8")
    config.path.write_text(text[: text.index("[[walk]]")], encoding="utf-8")
    assert main(["watch", "--once", "-c", str(config.path)]) == 2
    err = capsys.readouterr().err
    assert "has no [[walk]]: watch continues the named walks" in err


def _wait_for(check: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what}")
        time.sleep(0.1)


@pytest.mark.slow
def test_a_second_watch_on_the_same_store_stops_at_once_naming_the_holder(
    tmp_path: Path,
) -> None:
    ids = noisy_history(tmp_path / "repo", commits=4, step_at=10**6, size=0, salt=3)
    config = _config(tmp_path, ids)
    text = config.path.read_text(encoding="utf-8")
    config.path.write_text(text.replace("[watch]\n", "[watch]\ninterval = 3600\n"), "utf-8")
    first = subprocess.Popen(
        [sys.executable, "-m", "perfwalk", "watch", "-c", str(config.path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for((tmp_path / "site" / "index.html").exists, "the first cycle")
        began = time.monotonic()
        second = subprocess.run(
            [sys.executable, "-m", "perfwalk", "watch", "--once", "-c", str(config.path)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        waited = time.monotonic() - began
    finally:
        os.kill(first.pid, signal.SIGTERM)
        first.communicate(timeout=60)
    assert second.returncode == 2
    assert "another watch runs on the store" in second.stderr
    assert f"(pid {first.pid})" in second.stderr
    assert "a watch of repo" in second.stderr
    assert waited < 30  # at once: it did not wait for the lease (the cycle is hours away)
    assert first.returncode == 143  # stopped by SIGTERM, as a walk is


@pytest.mark.slow
def test_walks_on_disjoint_hosts_run_together_and_those_sharing_one_queue(
    tmp_path: Path,
) -> None:
    # Each walk's test leaves its mark (its worktree's name) and waits up to 20 s for a
    # second one. Two walks that run at the same time both see the other's mark (value
    # 1 each); when they queue behind each other, the first cannot (value 0).
    meet = tmp_path / "meet"
    bench = (
        f"touch {meet}/$(basename $(dirname {{worktree}})); i=0; "
        f'while [ $i -lt 400 ] && [ "$(ls {meet} | wc -l)" -lt 2 ]; do sleep 0.05; i=$((i+1)); '
        f'done; [ "$(ls {meet} | wc -l)" -ge 2 ] && echo "VALUE 1 walks met" '
        '|| echo "VALUE 0 walks met"'
    )
    ids = noisy_history(tmp_path / "repo", commits=2, step_at=10**6, size=0, salt=3)
    text = CONFIG.format(repo=tmp_path / "repo", first=ids[0])
    text = text[: text.index("[[walk]]")].replace(
        'command = "sh bench.sh"', f"command = {json.dumps(bench)}"
    )
    text = text.replace("repetitions = 3", "repetitions = 1")
    text += """
[hosts.bench-a]
lease = "bench-a"

[hosts.bench-b]
lease = "bench-b"
"""
    for b_host, met in (("bench-b", [1.0, 1.0]), ("bench-a", [0.0, 1.0])):
        meet.mkdir()
        folder = tmp_path / b_host
        folder.mkdir()
        path = folder / "perfwalk.toml"
        walks = "".join(
            f'\n[[walk]]\nname = "{name}"\nfrom = "{ids[1]}"\nhost = "{host}"\n'
            for name, host in (("a", "bench-a"), ("b", b_host))
        )
        path.write_text(text + walks, encoding="utf-8")
        config = load_config(path)
        # a few checkouts cannot see a change of 1 %: undecided, and both walked
        assert main(["watch", "--once", "-c", str(path)]) == exits.UNDECIDED
        with Store.open(config.store.url) as store:
            values = sorted(v.value for s in store.list_series() for v in store.values(s.id))
            walked = sorted(s.walk or "" for s in store.list_series())
        assert (walked, values) == (["a", "b"], met)
        for mark in meet.iterdir():
            mark.unlink()
        meet.rmdir()


def test_watch_runs_a_cycle_every_interval_from_start_to_start(tmp_path: Path) -> None:
    ids = noisy_history(tmp_path / "repo", commits=3, step_at=10**6, size=0, salt=3)
    config = _config(tmp_path, ids)
    config = dataclasses.replace(config, watch=dataclasses.replace(config.watch, interval=3600.0))
    cycles: list[WatchCycle] = []
    slept: list[float] = []
    watch_forever(config, cycles.append, sleep=slept.append, cycles=2)
    assert [len(c.walks) for c in cycles] == [1, 1]
    first, second = (c.walks[0].run for c in cycles)
    assert first is not None
    assert second is not None
    assert (first.nothing_new, second.nothing_new) == (False, True)
    (pause,) = slept  # between the two cycles only
    assert 3600 - cycles[0].seconds - 5 < pause <= 3600 - cycles[0].seconds
