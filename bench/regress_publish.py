"""Publishing the regress matrix of a year of nightly runs: 500 tests × 365 runs × 8 hosts.

Run: ``.venv/bin/python bench/regress_publish.py [--tests 500] [--runs 365] [--hosts 8]
[--store FILE] [--browser]``

Builds a store (or reuses ``--store FILE`` when it holds that history already)
through the real store API: 1.46 million results with their logs, most tests
passing, some broken from a night on, some flaky, some skipped, with messages.
Then measures, in the same run:

- ``perfwalk`` cold: a full publish into an empty directory (matrix pages and
  data, every run's page, every log in its pack), median of 3, each into a new
  directory;
- ``perfwalk`` nightly: the publish after one more night (one new run): what
  ``perfwalk regress --site`` costs every night, median of 3;
- ``perfwalk`` matrix only: a publish with no new run, median of 3;
- the peer, the lab tool's layout: the all-hosts page as one HTML table with every
  cell (``<td class=…><a href=log title=message>STATUS</a></td>``), the page the
  lab tool stopped building as "too slow and too large": time to write it, size;
- with ``--browser``, the time Debian's chromium takes to open the all-hosts page
  (``#pw-matrix.pw-ready``) and the peer page (``load``).

Prints the figures, the largest file of the site and the bytes the all-hosts page
loads, and PASS/FAIL against the goals: publish ≤ 5 s (the cold publish and the
nightly one), largest page ≤ 2 MB. Exits 1 on FAIL. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

try:
    from perfwalk.model import Log, Status
except ModuleNotFoundError:  # run from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from perfwalk.model import Log, Status

from perfwalk.report.html import esc
from perfwalk.report.matrix import MatrixOptions, MatrixReport, publish_matrix
from perfwalk.store import Store
from perfwalk.store.regress import NewRegressResult, NewRegressRun

GOAL_SECONDS = 5.0
GOAL_BYTES = 2 * 1024 * 1024
START = datetime(2025, 1, 1, 3, 0, tzinfo=UTC)


def plan_tests(tests: int, runs: int, rng: random.Random) -> list[tuple[str, str, float, int]]:
    """Per test: name, kind (pass, flaky, breaks, skip), flake rate, night it breaks."""
    planned = []
    for number in range(tests):
        draw = rng.random()
        kind = "pass"
        if draw < 0.05:
            kind = "flaky"
        elif draw < 0.09:
            kind = "breaks"
        elif draw < 0.11:
            kind = "skip"
        area = ("sys/kern", "sys/net", "lib/libc", "usr.bin", "sbin")[number % 5]
        planned.append(
            (f"{area}/test-{number:04d}", kind, rng.uniform(0.05, 0.3), rng.randrange(runs))
        )
    return planned


def night(
    planned: list[tuple[str, str, float, int]], day: int, rng: random.Random
) -> tuple[NewRegressResult, ...]:
    results = []
    for name, kind, rate, breaks in planned:
        status = Status.PASS
        if kind == "skip":
            status = Status.SKIP
        elif kind == "flaky" and rng.random() < rate:
            status = Status.FAIL
        elif kind == "breaks" and day >= breaks:
            status = (Status.FAIL, Status.NOEXIT, Status.NOTERM)[breaks % 3]
        message = f"run-regress-{breaks % 17}: wrong answer" if status is Status.FAIL else ""
        text = f"==== run-regress-{name} ====\n{'FAILED' if message else 'ok'}\n"
        results.append(NewRegressResult(name, status, Log.of(text.encode()), message, 0.4))
    return tuple(results)


def build(url: str, tests: int, runs: int, hosts: int) -> None:
    rng = random.Random(20260301)
    planned = plan_tests(tests, runs, rng)
    started = time.perf_counter()
    with Store.open(url) as store:
        for host in range(hosts):
            for day in range(runs):
                when = START + timedelta(days=day, minutes=7 * host)
                store.regress.add_run(
                    NewRegressRun(
                        host=f"lab-{host}",
                        started_at=when,
                        finished_at=when + timedelta(minutes=50),
                        results=night(planned, day, rng),
                        arch=("amd64", "arm64", "riscv64", "i386")[host % 4],
                        os="TestOS 7.8",
                        kernel=f"TestOS 7.8 #{day} {host}",
                        build="stock" if host % 2 else "custom",
                        commit=f"{day:040x}",
                        label="nightly",
                    )
                )
            print(
                f"  built host {host + 1}/{hosts}: {time.perf_counter() - started:.0f} s",
                flush=True,
            )


def has_history(url: str, tests: int, runs: int, hosts: int) -> bool:
    with Store.open(url) as store:
        found = store.regress.matrix()
    return len(found.runs) >= runs * hosts and len(found.tests) == tests


def one_more_night(url: str, tests: int, runs: int) -> None:
    rng = random.Random(len(str(time.time())))
    planned = plan_tests(tests, runs, random.Random(20260301))
    with Store.open(url) as store:
        newest = store.regress.runs("lab-0")[0]
        when = newest.started_at + timedelta(days=1)
        store.regress.add_run(
            NewRegressRun(
                host="lab-0",
                started_at=when,
                finished_at=when + timedelta(minutes=50),
                results=night(planned, runs, rng),
                arch="amd64",
            )
        )


def peer_page(url: str, out: Path) -> tuple[float, int]:
    """The lab tool's all-hosts page: one table, every cell in it."""
    started = time.perf_counter()
    with Store.open(url) as store:
        rows = store.regress.matrix()
    names = {t.id: t.name for t in rows.tests}
    head = "".join(f"<th>{esc(m.run.host)}<br>{m.run.started_at:%Y-%m-%d}</th>" for m in rows.runs)
    lines = [f"<table><tr><th>test</th>{head}</tr>"]
    for test_id, name in sorted(names.items(), key=lambda item: item[1]):
        cells = []
        for m in rows.runs:
            severity = m.statuses[test_id] if test_id < len(m.statuses) else 0
            if not severity:
                cells.append("<td></td>")
                continue
            status = Status(severity).name
            title = esc(m.messages.get(test_id, ""))
            cells.append(
                f'<td class="{status}"><a href="{m.run.id}/logs/{test_id}.log" '
                f'title="{title}">{status}</a></td>'
            )
        lines.append(f"<tr><th>{esc(name)}</th>{''.join(cells)}</tr>")
    lines.append("</table>")
    out.mkdir(parents=True, exist_ok=True)
    page = out / "regress.html"
    page.write_text("<!DOCTYPE html><html><body>" + "\n".join(lines) + "</body></html>")
    return time.perf_counter() - started, page.stat().st_size


def publish(url: str, out: Path, *, full: bool = False) -> MatrixReport:
    with Store.open(url) as store:
        return publish_matrix(store, out, MatrixOptions(full=full))


def site_size(site: Path) -> tuple[int, int]:
    """Files and bytes of a published site."""
    sizes = [path.stat().st_size for path in site.rglob("*") if path.is_file()]
    return len(sizes), sum(sizes)


def browser_seconds(page: str, ready: str | None) -> float | None:
    """Seconds until chromium has loaded ``page`` (a URI) and shows ``ready``."""
    if shutil.which("chromium") is None:
        return None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    with sync_playwright() as driver:
        chromium = driver.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"]
        )
        try:
            tab = chromium.new_page(viewport={"width": 1400, "height": 900})
            started = time.perf_counter()
            tab.goto(page, timeout=300_000, wait_until="load")
            if ready:
                tab.wait_for_function(
                    "ready => { const found = document.querySelector(ready); "
                    "return found !== null && found.textContent !== ''; }",
                    arg=ready,
                    timeout=300_000,
                )
            return time.perf_counter() - started
        finally:
            chromium.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tests", type=int, default=500)
    parser.add_argument("--runs", type=int, default=365, help="runs per host")
    parser.add_argument("--hosts", type=int, default=8)
    parser.add_argument("--store", type=Path, help="the SQLite store to build or reuse")
    parser.add_argument("--browser", action="store_true", help="time chromium opening the pages")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="perfwalk-bench-regress-"))
    try:
        kept = args.store or work / "history.db"
        cells = args.tests * args.runs * args.hosts
        print(
            f"history: {args.tests} tests × {args.runs} runs × {args.hosts} hosts = {cells:,} cells"
        )
        kept_url = f"sqlite:///{kept.resolve()}"
        if kept.exists() and has_history(kept_url, args.tests, args.runs, args.hosts):
            print(f"  reusing {kept}")
        else:
            build(kept_url, args.tests, args.runs, args.hosts)
        store = work / "store.db"  # the nights added below go to a copy
        shutil.copyfile(kept, store)
        url = f"sqlite:///{store}"
        colds = []
        for attempt in range(3):  # each into a new directory (kept: removing is slow)
            site = work / f"site-{attempt}"
            colds.append(publish(url, site, full=True))
        cold = sorted(colds, key=lambda r: r.seconds)[1]
        again = [publish(url, site).seconds for _ in range(3)]
        nightly = []
        for _ in range(3):
            one_more_night(url, args.tests, args.runs)
            nightly.append(publish(url, site))
        last = nightly[-1]
        peer_seconds, peer_bytes = peer_page(url, work / "peer")
        print()
        median_nightly = statistics.median(r.seconds for r in nightly)
        rows = [
            ("what", "seconds", "files"),
            ("perfwalk cold (all pages, all logs), median of 3", cold.seconds, cold.files_written),
            ("  the 3 cold publishes", " ".join(f"{r.seconds:.2f}" for r in colds), ""),
            ("perfwalk nightly (one new run), median of 3", median_nightly, last.files_written),
            ("perfwalk matrix only (no new run), median of 3", statistics.median(again), ""),
            ("peer: the lab tool all-hosts table", peer_seconds, 1),
        ]
        for label, seconds, files_written in rows:
            shown = f"{seconds:.2f}" if isinstance(seconds, float) else seconds
            print(f"{label:50} {shown:>8} {files_written:>8}".rstrip())
        print()
        files, size = site_size(site)
        print(f"site: {files} files, {size / 1024 / 1024:.0f} MiB")
        largest = max(cold.largest, last.largest, key=lambda found: found[1])
        print(f"largest file: {largest[0]} {largest[1] / 1024:.0f} KiB")
        print(f"all-hosts page loads {last.index_weight / 1024:.0f} KiB (page, script, data)")
        ratio = peer_bytes / last.index_weight
        print(f"peer page: {peer_bytes / 1024 / 1024:.1f} MiB, x{ratio:.0f} ours")
        if args.browser:
            matrix_page = (site / "regress" / "index.html").as_uri()
            ours = browser_seconds(matrix_page, "#pw-matrix.pw-ready table")
            theirs = browser_seconds((work / "peer" / "regress.html").as_uri(), None)
            run, test = max(1, args.runs * args.hosts // 2), max(1, args.tests // 2)
            a_log = (site / "regress" / "log.html").as_uri() + f"#run={run}&test={test}"
            log = browser_seconds(a_log, "#pw-log pre")
            if ours is None or theirs is None or log is None:
                print("browser: chromium or playwright missing")
            else:
                print(
                    f"chromium opens: perfwalk all-hosts {ours:.2f} s, "
                    f"peer {theirs:.2f} s (x{theirs / ours:.1f}); a log (run {run}, "
                    f"test {test}) {log:.2f} s"
                )
        ok_time = cold.seconds <= GOAL_SECONDS and median_nightly <= GOAL_SECONDS
        ok_size = largest[1] <= GOAL_BYTES and last.index_weight <= GOAL_BYTES
        print()
        print(
            f"goal: publish <= {GOAL_SECONDS:g} s -> {'PASS' if ok_time else 'FAIL'} "
            f"(cold {cold.seconds:.2f} s, nightly {median_nightly:.2f} s); largest page "
            f"<= 2 MiB -> {'PASS' if ok_size else 'FAIL'} ({largest[1] / 1024:.0f} KiB, "
            f"all-hosts {last.index_weight / 1024:.0f} KiB)"
        )
        return 0 if ok_time and ok_size else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
