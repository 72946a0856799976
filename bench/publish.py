"""Publishing a long history: perfwalk's site against asv's ``publish``.

    .venv/bin/python bench/publish.py [--checkouts 10000] [--work DIR] [--paints 3]

Builds (once, kept in --work) a git repository and a store of CHECKOUTS checkouts ×
100 metrics (10 tests × 10 values) × 5 repetitions, then measures in one run:

1. full publish: wall time of ``report.site.publish`` into an empty folder (both
   cores), and the peak memory of the publishing processes together;
2. incremental publish after one more checkout is stored (the pages it affects);
3. time to first paint of the heaviest plot page in Debian's headless chromium:
   the series page, whose first plot holds 2 values × CHECKOUTS × 5 points
   (100 000 at 10 000 checkouts); the median of --paints loads; and the index at
   1366 × 768: its size, where its first plot starts and when it is drawn;
4. the peer: asv's ``asv publish`` on the same values converted to asv's result
   format (one benchmark per metric, the mean as result and the 5 repetitions as
   samples), asv installed by this script into its own throwaway venv.

Every publish lists the store's two steps (at 1/3 and 2/3 of the history, every
metric: 200 changes) as the analysis would, so that the site shows them grouped
into two alert groups (one row each) and marks them on its tables and plots.

Goals (issue 4): full ≤ 10 s, incremental ≤ 1 s, first paint ≤ 1 s, peak ≤ 1 GiB;
(issue 30) the index's first plot starts within the first screen at 1366 × 768.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from perfwalk.report import layout
from perfwalk.report.server import SiteServer
from perfwalk.store import Store
from perfwalk.store.packs import from_little_endian
from publish_store import Shape, add_checkout, make_repo, make_store

ASV_VERSION = "0.6.6"
GOALS = {"full": 10.0, "incremental": 1.0, "paint": 1.0, "memory": 1024.0}
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

#: run in a child process, so that its memory (and its workers') is measured alone
PUBLISH = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[4])
from perfwalk.report.site import PublishOptions, publish
from perfwalk.store import Store
from perfwalk.store.packs import from_little_endian
from publish_store import two_steps
url, out, workers, total = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[5])
with Store.open(url) as store:
    started = time.perf_counter()
    changes = two_steps(store, total)
    options = PublishOptions(workers=workers, store_url=url, changes=changes)
    report = publish(store, None, out, options)
    seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "written": report.written, "full": report.full,
                  "checkouts": report.checkouts}))
"""


def tree_rss_mib(pid: int) -> float:
    """Resident memory of a process and all its descendants, in MiB."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
        todo += [int(c) for c in children]
    return total / 1024


def run_publish(
    url: str, out: Path, workers: int, total: int
) -> tuple[dict[str, object], float, float]:
    """(the child's report, its wall time, the peak memory of its process tree), the
    store's steps of a history of ``total`` checkouts listed."""
    started = time.perf_counter()
    here = str(Path(__file__).resolve().parent)
    child = subprocess.Popen(
        [sys.executable, "-c", PUBLISH, url, str(out), str(workers), here, str(total)],
        stdout=subprocess.PIPE,
        text=True,
    )
    peak = 0.0
    while child.poll() is None:
        peak = max(peak, tree_rss_mib(child.pid))
        time.sleep(0.02)
    wall = time.perf_counter() - started
    output = child.stdout.read() if child.stdout else ""
    if child.returncode != 0:
        raise SystemExit(f"publishing failed (exit {child.returncode})")
    return json.loads(output), wall, peak


def first_paint(site: Path, page: str, loads: int) -> tuple[list[float], list[float], int]:
    """(first contentful paint ms, heaviest plot drawn ms, its points) per load."""
    from playwright.sync_api import sync_playwright

    paints, plots, points = [], [], 0
    with SiteServer(site, 0) as server, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(loads):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            tab = context.new_page()
            tab.goto(server.url + page)
            tab.wait_for_function(
                "() => window.perfwalk && window.perfwalk.painted", timeout=60_000
            )
            plots.append(float(tab.evaluate("window.perfwalk.painted")))
            paints.append(
                float(
                    tab.evaluate(
                        "performance.getEntriesByName('first-contentful-paint')[0].startTime"
                    )
                )
            )
            points = int(
                tab.evaluate(
                    """() => {
                      const chart = echarts.getInstanceByDom(document.querySelector('div.plot'));
                      return chart.getOption().series
                        .filter(s => s.type === 'scatter').reduce((n, s) => n + s.data.length, 0)
                        + chart.getOption().series.filter(s => s.type === 'line')
                        .reduce((n, s) => n + s.data.length, 0);
                    }"""
                )
            )
            context.close()
        browser.close()
    return paints, plots, points


def index_view(site: Path) -> tuple[float, float, int]:
    """The index at 1366 × 768: where its first plot starts (px from the top), when it
    is drawn (ms), and how many rows its Changes table shows."""
    from playwright.sync_api import sync_playwright

    with SiteServer(site, 0) as server, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        tab = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
        tab.goto(server.url + layout.INDEX)
        tab.wait_for_function("() => window.perfwalk && window.perfwalk.painted", timeout=60_000)
        drawn = float(tab.evaluate("window.perfwalk.painted"))
        top = float(tab.evaluate("document.querySelector('div.plot').getBoundingClientRect().top"))
        rows = sum(
            1 for row in tab.locator("table.groups > tbody > tr.group").all() if row.is_visible()
        )
        browser.close()
    return top, drawn, rows


# -- asv ----------------------------------------------------------------------------------


def asv_python(work: Path) -> Path:
    venv = work / "asv-venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", f"asv=={ASV_VERSION}"], check=True
        )
    return python


def asv_project(work: Path, url: str, repo: Path) -> Path:
    """The store's series converted to asv's result format (results v2)."""
    project = work / "asv-project"
    shutil.rmtree(project, ignore_errors=True)
    results = project / "results"
    machine = results / "bench"
    machine.mkdir(parents=True)
    (project / "asv.conf.json").write_text(
        json.dumps(
            {
                "version": 1,
                "project": "bench",
                "project_url": "https://example.org/",
                "repo": str(repo),
                "branches": ["main"],
                "environment_type": "virtualenv",
                "results_dir": "results",
                "html_dir": "html",
            }
        )
    )
    params = {
        "arch": "x86_64",
        "cpu": "bench",
        "machine": "bench",
        "num_cpu": "2",
        "os": "Linux",
        "ram": "24GB",
    }
    (machine / "machine.json").write_text(json.dumps({**params, "version": 1}))
    benchmarks: dict[str, object] = {"version": 2}
    with Store.open(url) as store:
        series = store.list_series()[0]
        rows = store.checkouts(series.id)
        for start in range(0, len(rows), 500):
            part = rows[start : start + 500]
            samples: dict[int, dict[str, list[float]]] = {}
            for pack in store.site.packs(series.id, part[0].idx, part[-1].idx):
                head = json.loads(pack.head)
                width = len(head["reps"])
                values = from_little_endian(pack.vals)
                for m, (test, name, unit, _direction) in enumerate(head["metrics"]):
                    bench = f"{test}.{name}"
                    samples.setdefault(pack.idx, {})[bench] = [
                        v for v in values[m * width : (m + 1) * width] if not math.isnan(v)
                    ]
                    if bench not in benchmarks:
                        benchmarks[bench] = {
                            "name": bench,
                            "code": "",
                            "params": [],
                            "param_names": [],
                            "type": "track",
                            "unit": unit,
                            "version": "1",
                            "timeout": 60,
                        }
            for row in part:
                date = int(row.date.timestamp() * 1000)
                document = {
                    "commit_hash": row.sha,
                    "env_name": "existing-py",
                    "date": date,
                    "params": {**params, "python": "3.11"},
                    "python": "3.11",
                    "requirements": {},
                    "env_vars": {},
                    "result_columns": [
                        "result",
                        "params",
                        "version",
                        "started_at",
                        "duration",
                        "stats_ci_99_a",
                        "stats_ci_99_b",
                        "stats_q_25",
                        "stats_q_75",
                        "stats_number",
                        "stats_repeat",
                        "samples",
                        "profile",
                    ],
                    "results": {
                        bench: [
                            [statistics.fmean(values)],
                            [],
                            "1",
                            date,
                            1.0,
                            None,
                            None,
                            None,
                            None,
                            None,
                            None,
                            [values],
                        ]
                        for bench, values in samples.get(row.idx, {}).items()
                    },
                    "durations": {},
                    "version": 2,
                }
                (machine / f"{row.sha[:8]}-existing-py.json").write_text(
                    json.dumps(document, separators=(",", ":"))
                )
    (results / "benchmarks.json").write_text(json.dumps(benchmarks))
    return project


def asv_publish(python: Path, project: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [str(python), "-m", "asv", "publish", "--no-pull"],
        cwd=project,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


# -- the run ------------------------------------------------------------------------------


def verdict(figure: float, goal: float) -> str:
    return "PASS" if figure <= goal else "FAIL"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkouts", type=int, default=10_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/perfwalk-bench-publish"))
    parser.add_argument("--paints", type=int, default=3, help="page loads in chromium")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-asv", action="store_true", help="skip the peer")
    args = parser.parse_args()
    shape = Shape(checkouts=args.checkouts)
    work: Path = args.work / shape.label()
    work.mkdir(parents=True, exist_ok=True)
    built = work / "store.db"
    commits = make_repo(work / "repo", shape.checkouts + 1)
    if not built.exists():
        print(f"building the store: {shape.values:,} values (once; kept in {work})", flush=True)
        started = time.perf_counter()
        make_store(f"sqlite:///{built}.new", shape, commits)
        (work / "store.db.new").rename(built)
        print(f"  built in {time.perf_counter() - started:.0f} s", flush=True)
    started = time.perf_counter()
    with Store.open(f"sqlite:///{built}") as store:  # a store built by an older perfwalk
        version = store.schema_version
    if time.perf_counter() - started > 1:
        print(f"  store upgraded to schema {version} in {time.perf_counter() - started:.0f} s")
    run_db = work / "run.db"
    shutil.copyfile(built, run_db)
    url = f"sqlite:///{run_db}"
    site = work / "site"
    shutil.rmtree(site, ignore_errors=True)

    print(
        f"store: {shape.checkouts:,} checkouts × {shape.metrics} metrics × "
        f"{shape.repetitions} repetitions = {shape.values:,} values",
        flush=True,
    )
    full, full_wall, peak = run_publish(url, site, args.workers, shape.checkouts)
    files = sum(1 for p in site.rglob("*") if p.is_file())
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file()) / 2**20

    with Store.open(url) as store:
        series_id = store.list_series()[0].id
        add_checkout(
            store,
            series_id,
            shape=shape,
            position=shape.checkouts,
            commit=commits[shape.checkouts],
            rng=random.Random(2),
            total=shape.checkouts,
        )
    incremental, _wall, _peak = run_publish(url, site, args.workers, shape.checkouts)

    page = layout.series_page(series_id)
    paints, plots, points = first_paint(site, page, args.paints)
    index_kib = (site / layout.INDEX).stat().st_size / 1024
    top, drawn, rows = index_view(site)

    asv_seconds = None
    if not args.no_asv:
        python = asv_python(args.work)
        project = asv_project(work, url, work / "repo")
        asv_seconds = asv_publish(python, project)

    full_s = float(full["seconds"])  # type: ignore[arg-type]
    inc_s = float(incremental["seconds"])  # type: ignore[arg-type]
    plot_ms = statistics.median(plots)
    print()
    print(f"{'measure':38s} {'figure':>12s} {'goal':>10s}")
    print(
        f"{'full publish (2 cores)':38s} {full_s:10.2f} s {GOALS['full']:8.1f} s  "
        f"{verdict(full_s, GOALS['full'])}  ({files:,} files, {size:,.0f} MiB, "
        f"command {full_wall:.2f} s)"
    )
    print(
        f"{'peak memory, all processes':38s} {peak:8.0f} MiB {GOALS['memory']:6.0f} MiB  "
        f"{verdict(peak, GOALS['memory'])}"
    )
    print(
        f"{'incremental publish, one checkout':38s} {inc_s:10.2f} s {GOALS['incremental']:8.1f} s  "
        f"{verdict(inc_s, GOALS['incremental'])}  ({incremental['written']} files)"
    )
    print(f"{'first contentful paint (median)':38s} {statistics.median(paints):9.0f} ms")
    print(
        f"{'heaviest plot drawn (median)':38s} {plot_ms:9.0f} ms {1000 * GOALS['paint']:7.0f} ms  "
        f"{verdict(plot_ms / 1000, GOALS['paint'])}  ({points:,} points on it, "
        f"loads {', '.join(f'{p:.0f}' for p in plots)} ms)"
    )
    print(
        f"{'index: first plot starts at (1366x768)':38s} {top:8.0f} px {768:8.0f} px  "
        f"{verdict(top, 768)}  (drawn at {drawn:.0f} ms; {index_kib:,.0f} KiB; "
        f"{rows} rows of changes)"
    )
    if asv_seconds is not None:
        print(f"{'asv publish, same data':38s} {asv_seconds:10.2f} s")
        print(f"{'perfwalk full publish vs asv':38s} {asv_seconds / full_s:9.1f} x faster")
    failed = [
        k
        for k, v in (
            ("full", full_s),
            ("incremental", inc_s),
            ("paint", plot_ms / 1000),
            ("memory", peak),
        )
        if v > GOALS[k]
    ]
    failed += ["index"] if top > 768 else []
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
