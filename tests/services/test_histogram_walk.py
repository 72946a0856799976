"""A latency distribution in a real walk: a git repository whose program records
latencies with the real HdrHistogram library (Java) and prints its percentile table;
commit 5 makes the slow 2 % of the samples slower (the tail worse, the median not).
``perfwalk run`` stores every repetition's histogram whole and its percentiles as
values; ``perfwalk changes`` names the change of ``latency.p99`` at that commit; the
published site draws the heatmap over the checkouts and each repetition's histogram."""

from __future__ import annotations

import html
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from perfwalk.report import layout
from perfwalk.store import Store
from tests.fixtures.latency_recorder import HDR_JAR, SOURCE, require_hdr
from tests.fixtures.synthetic_repo import CommitSpec, make_repo
from tests.services.walks import finished

COMMITS = 8
WORSE_AT = 5  # from this commit on the slow samples take 5000 µs and more, not 1000


def latency_repo(path: Path) -> None:
    start = datetime(2024, 5, 1, tzinfo=UTC)
    make_repo(
        path,
        [
            CommitSpec(
                date=start + timedelta(days=n),
                message=f"rpc: change {n}" + (" (a slower slow path)" if n == WORSE_AT else ""),
                files={
                    "Record.java": SOURCE,
                    "slow.txt": "5000\n" if n >= WORSE_AT else "1000\n",
                },
            )
            for n in range(COMMITS)
        ],
    )


def latency_config(tmp_path: Path) -> Path:
    config = tmp_path / "perfwalk.toml"
    command = f"java -cp {HDR_JAR}:out Record 10000 2 $(cat slow.txt)"
    config.write_text(f"""\
[project]
repo = {json.dumps(str(tmp_path / "repo"))}

[store]
url = "sqlite:///perfwalk.db"

[build]
steps = [{json.dumps(f"javac -cp {HDR_JAR} -d out Record.java")}]

[run]
step = "commit"
repetitions = 3

[analysis]
suspect_load = false

[[test]]
name = "rpc"
command = {json.dumps(command)}
parser = "hdrhistogram"
parser_options = {{ percentiles = [50, 90, 99], unit = "us" }}
timeout = 120
""")
    return config


def test_a_walk_finds_the_tail_change_of_a_latency_histogram(tmp_path: Path) -> None:
    require_hdr()
    latency_repo(tmp_path / "repo")
    config = latency_config(tmp_path)
    code, out, err = finished("run", "-c", str(config), timeout=900)
    print(out, err)
    assert code == 0, err

    with Store.open(f"sqlite:///{tmp_path / 'perfwalk.db'}") as store:
        rows = store.histograms.of_series(1)
        values = store.passed_values(1)
    assert len(rows) == COMMITS * 3  # every repetition's histogram, whole
    assert {(r.test, r.histogram.name, r.histogram.unit) for r in rows} == {
        ("rpc", "latency", "us")
    }
    assert all(r.histogram.count == 10000 for r in rows)
    p99 = {(c, r): v for c, r, _t, name, _u, v, _d in values if name == "latency.p99"}
    assert all(v < 1500 for (c, _r), v in p99.items() if c < WORSE_AT)
    assert all(v >= 5000 for (c, _r), v in p99.items() if c >= WORSE_AT)

    code, out, err = finished(
        "changes", "-c", str(config), "--series", "1", "--all", "--format", "json", timeout=300
    )
    assert code in (0, 1, 4), err
    changes = [
        (change["after"]["idx"], metric["name"])
        for change in json.loads(out)["changes"]
        for metric in change["metrics"]
        if metric["test"] == "rpc"
    ]
    print(changes)
    assert (WORSE_AT, "latency.p99") in changes
    code, text, err = finished("changes", "-c", str(config), "--series", "1", "--all")
    print(text)
    assert "latency.p99" in text

    site = tmp_path / "site"
    code, out, err = finished("report", "-c", str(config), "--out", str(site), timeout=300)
    assert code == 0, err
    page = (site / layout.series_page(1)).read_text()
    (found,) = re.findall(r'<div class="heatmap" data-heatmap="([^"]*)"', page)
    heatmap = json.loads(html.unescape(found))
    print(heatmap["title"], heatmap["y"][0], heatmap["y"][-1])
    assert heatmap["title"] == "rpc: latency [us]"
    assert len(heatmap["x"]) == COMMITS
    edges = heatmap["edges"]
    slower = {x for x, y, share in heatmap["cells"] if edges[y] >= 5000 and share > 0}
    print(sorted(slower))
    assert slower == set(range(WORSE_AT, COMMITS))  # the slower tail, from commit 5
    assert "latency.p99" in page


#: bpftrace's map as a role's run command prints it (the saved output of the real tool,
#: tests/golden/parsers/bpftrace-hist): the role's parser reads it
BPFTRACE = Path(__file__).resolve().parents[1] / "golden" / "parsers" / "bpftrace-hist"


HOSTILE = "<img src=x onerror=alert(1)>\"'&"


def test_a_roles_histograms_are_stored_under_the_roles_name(tmp_path: Path) -> None:
    """Two roles whose parsers read histograms of the same name: each is stored, named
    as the role's values are (``sink.usecs``), none hides the other; a map named with
    markup (the tool's output is untrusted) reaches the published page escaped."""
    make_repo(
        tmp_path / "repo",
        [CommitSpec(datetime(2024, 5, 1, tzinfo=UTC), "one", {"n": "1\n"})],
    )
    saved = tmp_path / "bpftrace.out"
    text = (BPFTRACE / "three-maps.out").read_text()
    saved.write_text(text.replace("@lat[bpftrace]:", f"@lat[{HOSTILE}]:"))
    config = tmp_path / "perfwalk.toml"
    config.write_text(f"""\
[project]
repo = {json.dumps(str(tmp_path / "repo"))}

[store]
url = "sqlite:///perfwalk.db"

[build]
steps = []

[run]
step = "commit"
repetitions = 1

[hosts.loop]
target = "local"
roles = ["source", "sink"]

[[test]]
name = "both"
role = "source"
command = "echo VALUE 1 s run"
parser = "value"

[test.roles.source]
run = [{json.dumps(f"cat {saved}")}]
parser = "bpftrace-hist"

[test.roles.sink]
run = [{json.dumps(f"cat {saved}")}]
parser = "bpftrace-hist"
""")
    code, out, err = finished("run", "-c", str(config), timeout=300)
    print(out, err)
    assert code == 0, err
    with Store.open(f"sqlite:///{tmp_path / 'perfwalk.db'}") as store:
        names = sorted(r.histogram.name for r in store.histograms.of_series(1))
    print(names)
    assert names == sorted(
        f"{role}.{name}"
        for role in ("sink", "source")
        for name in ("bytes", f"lat[{HOSTILE}]", "usecs")
    )
    site = tmp_path / "site"
    code, out, err = finished("report", "-c", str(config), "--out", str(site), timeout=300)
    assert code == 0, err
    page = (site / layout.series_page(1)).read_text()
    assert page.count('<div class="heatmap"') == 6
    assert "<img" not in page
    assert html.escape(f"both: source.lat[{HOSTILE}] [us]") in page
