"""``perfwalk try``: a real git project whose benchmark prints 100 ms with seeded noise
(sd 2 %); one patch makes it 10 % slower, another changes a comment. The try builds
both sides once, measures them in turns A B B A …, stops when the sequential test has
decided, and says so: worse (exit 1) for the slower patch, not worse for the other,
for three seeds (real processes, SQLite)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from perfwalk.analysis.sequential import Verdict, side
from perfwalk.config import load_config
from perfwalk.errors import UsageError
from perfwalk.orchestrate.findings.changes import find_changes
from perfwalk.services.try_change import TryOptions, run_try
from perfwalk.store import Store
from tests.fixtures.bad_paths import no_regular_files
from tests.fixtures.synthetic_repo import CommitSpec, make_repo

BENCH = r"""#!/bin/sh
# One value of about 100 ms: the n-th run draws the n-th value of the seed (sd 2 %).
cd "$(dirname "$0")" || exit 1
factor=1.00
n=$(cat "$TRY_COUNTER" 2>/dev/null || echo 0)
echo $((n + 1)) > "$TRY_COUNTER"
awk -v f="$factor" -v seed="$TRY_SEED" -v n="$n" 'BEGIN {
  srand(seed * 1000003 + n)
  u = rand(); if (u < 1e-12) u = 1e-12
  z = sqrt(-2 * log(u)) * cos(6.283185307179586 * rand())
  printf "VALUE %.4f ms latency\n", 100 * f * (1 + 0.02 * z)
}'
"""

SLOWER = """\
--- a/bench.sh
+++ b/bench.sh
@@ -3,3 +3,3 @@
 cd "$(dirname "$0")" || exit 1
-factor=1.00
+factor=1.10
 n=$(cat "$TRY_COUNTER" 2>/dev/null || echo 0)
"""

SAME = """\
--- a/bench.sh
+++ b/bench.sh
@@ -1,3 +1,3 @@
 #!/bin/sh
-# One value of about 100 ms: the n-th run draws the n-th value of the seed (sd 2 %).
+# One value of about 100 ms (the comment changed, nothing else).
 cd "$(dirname "$0")" || exit 1
"""

PERFWALK = (sys.executable, "-m", "perfwalk")

CONFIG = """\
[project]
repo = "project"

[build]
steps = ["true"]

[try]
max_repetitions = {most}

[[test]]
name = "bench"
command = "TRY_SEED={seed} TRY_COUNTER={counter} sh bench.sh"
parser = "value"

[test.metrics.latency]
min_change = 0.05
"""


def _project(tmp_path: Path, seed: int, most: int = 30) -> Path:
    make_repo(
        tmp_path / "project",
        [
            CommitSpec(
                datetime(2025, 1, 1, tzinfo=UTC),
                "A benchmark of 100 ms",
                {"bench.sh": BENCH},
                executable=("bench.sh",),
            )
        ],
    )
    (tmp_path / "slower.diff").write_text(SLOWER, encoding="utf-8")
    (tmp_path / "same.diff").write_text(SAME, encoding="utf-8")
    path = tmp_path / "perfwalk.toml"
    counter = tmp_path / "counter"
    path.write_text(CONFIG.format(seed=seed, counter=counter, most=most), encoding="utf-8")
    return path


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_patch_ten_percent_slower_is_worse_and_a_comment_is_the_same(
    tmp_path: Path, seed: int
) -> None:
    config = load_config(_project(tmp_path, seed))
    slower = run_try(config, TryOptions("HEAD", patches=(tmp_path / "slower.diff",)))
    decision = slower.decisions["bench.latency"]
    assert decision.verdict is Verdict.WORSE, decision.reason
    assert 0.05 < decision.change < 0.15
    assert [m.key for m in slower.worse] == ["bench.latency"]
    assert max(slower.repetitions) < 30, "it did not stop when decided"
    assert slower.stopped.startswith("every metric was decided")

    same = run_try(config, TryOptions("HEAD", patches=(tmp_path / "same.diff",)))
    decision = same.decisions["bench.latency"]
    assert decision.verdict is Verdict.SAME, decision.reason
    assert not same.worse

    with Store.open(config.store.url) as store:
        row = store.tries.get(slower.series_id)
        assert row is not None
        assert row.patches == (("slower.diff", SLOWER),)
        assert [v["verdict"] for v in row.verdicts] == ["worse"]
        assert row.stopped == slower.stopped
        assert store.series(slower.series_id).kind == "try"
        # its two sides are not a history: `changes` finds nothing in a try
        assert find_changes(store, config) == []


def test_the_sides_are_measured_in_turns_a_b_b_a(tmp_path: Path) -> None:
    config = load_config(_project(tmp_path, 4, most=6))
    done = run_try(config, TryOptions("HEAD", patches=(tmp_path / "same.diff",)))
    with Store.open(config.store.url) as store:
        started = sorted(
            (rep.started_at, "AB"[checkout.idx])
            for checkout in store.checkouts(done.series_id)
            for rep in store.repetitions(checkout.id)
        )
    order = [name for _at, name in started]
    assert order == [side(position) for position in range(len(order))]
    assert order[:8] == list("ABBAABBA")


def test_the_command_exits_1_when_a_metric_got_worse(tmp_path: Path) -> None:
    path = _project(tmp_path, 5)
    slower = str(tmp_path / "slower.diff")
    done = subprocess.run(
        [*PERFWALK, "-c", str(path), "try", "HEAD", "--format", "json", "--patch", slower],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    found = json.loads(done.stdout)
    assert found["worse"] == ["bench.latency"]
    text = subprocess.run(
        [*PERFWALK, "-c", str(path), "try", "HEAD", "--patch", str(tmp_path / "same.diff")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert text.returncode == 0, text.stderr
    assert "Difference at 95.0% confidence" in text.stdout or "No difference proven" in (
        text.stdout
    )
    assert "Mann-Whitney U" in text.stdout
    assert "verdict: same: equivalent within ±5 %" in text.stdout
    assert "nothing got worse" in text.stdout


def test_a_try_with_nothing_to_compare_or_a_patch_that_does_not_apply_is_refused(
    tmp_path: Path,
) -> None:
    config = load_config(_project(tmp_path, 6))
    with pytest.raises(UsageError, match="nothing to compare it with"):
        run_try(config, TryOptions("HEAD"))
    with pytest.raises(UsageError, match=r"--variant: no variant 'fast' in .*: it has no \[\["):
        run_try(config, TryOptions("HEAD", variant="fast"))
    with pytest.raises(UsageError, match=r"--patch .*nowhere\.diff: no such file"):
        run_try(config, TryOptions("HEAD", patches=(tmp_path / "nowhere.diff",)))
    bad = tmp_path / "bad.diff"
    bad.write_text(SLOWER.replace("factor=1.00", "factor=9.99"), encoding="utf-8")
    with pytest.raises(UsageError, match=r"side B .* did not build: patch bad.diff"):
        run_try(config, TryOptions("HEAD", patches=(bad,)))


def test_a_side_without_values_is_named_with_its_own_status_and_message(
    tmp_path: Path,
) -> None:
    """A base whose benchmark prints no number, a head whose does: the try stops at its
    first look naming side A, A's status and the parser's message (not B's PASS, the
    last repetition's)."""
    broken = BENCH.replace('printf "VALUE %.4f ms', 'printf "VALUE n/a %.4f ms')
    make_repo(
        tmp_path / "project",
        [
            CommitSpec(
                datetime(2025, 1, 1, tzinfo=UTC),
                "A benchmark that prints no number",
                {"bench.sh": broken},
                executable=("bench.sh",),
            ),
            CommitSpec(datetime(2025, 1, 2, tzinfo=UTC), "It prints one", {"bench.sh": BENCH}),
        ],
    )
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG.format(seed=7, counter=tmp_path / "counter", most=30), encoding="utf-8")
    with pytest.raises(UsageError) as raised:
        run_try(load_config(path), TryOptions("HEAD~1", "HEAD"))
    assert "side A gave no value in 3 repetitions; its last: bench FAIL (" in str(raised.value)
    assert "PASS" not in str(raised.value)
    assert raised.value.hint == "see its outputs: perfwalk log 1:0"


def test_a_patch_path_that_is_no_patch_file_is_named_for_what_it_is_and_never_waited_on(
    tmp_path: Path,
) -> None:
    """`try --patch` of a device, a FIFO no one writes, a directory, a file that cannot be
    read and one too large: each refused (exit 2) with what is wrong with that path, at
    once (the FIFO is not opened for a blocking read), and nothing is stored."""
    path = _project(tmp_path, 7)
    cases = no_regular_files(tmp_path)
    for patch, said in cases.items():
        done = subprocess.run(
            [*PERFWALK, "-c", str(path), "try", "HEAD", "--patch", str(patch)],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert done.returncode == 2, (patch, done.stdout, done.stderr)
        assert f"perfwalk: error: --patch {patch}{said}" in (done.stderr), done.stderr
        assert "hint: give a patch file (`git diff > fix.diff`)" in done.stderr
        assert "Traceback" not in done.stderr
    with Store.open(load_config(path).store.url) as store:
        assert store.list_series() == []


JITTER = BENCH.replace(
    '  printf "VALUE %.4f ms latency\\n", 100 * f * (1 + 0.02 * z)\n',
    '  printf "VALUE %.4f ms latency\\n", 100 * f * (1 + 0.02 * z)\n'
    '  printf "VALUE %.4f ms jitter\\n", 100 * (1 + 0.3 * (rand() - 0.5))\n',
)


def test_metric_names_the_one_metric_that_stops_the_try_and_says_worse(tmp_path: Path) -> None:
    # a second value scattered by ±15 % on both sides: undecided for long (its min_change
    # is the default 1 %); latency alone is asked about
    path = _project(tmp_path, 6)
    (tmp_path / "project" / "bench.sh").write_text(JITTER, encoding="utf-8")
    subprocess.run(["git", "-C", str(tmp_path / "project"), "commit", "-qam", "jitter"], check=True)
    config = load_config(path)
    slower = (tmp_path / "slower.diff",)

    done = run_try(config, TryOptions("HEAD", patches=slower, metric="bench.latency"))

    assert done.stopped.startswith("bench.latency was decided after"), done.stopped
    assert max(done.repetitions) < 30
    assert done.decisions["bench.latency"].verdict is Verdict.WORSE
    assert not done.decisions["bench.jitter"].final  # still undecided: it did not wait
    assert [m.key for m in done.worse] == ["bench.latency"]
    everything = run_try(config, TryOptions("HEAD", patches=slower))
    assert max(everything.repetitions) > max(done.repetitions)  # it waited for jitter

    with pytest.raises(UsageError, match=r"--metric nope\.x: not TEST\.VALUE") as unknown:
        run_try(config, TryOptions("HEAD", patches=slower, metric="nope.x"))
    assert "its tests: bench" in (unknown.value.hint or "")
    with pytest.raises(UsageError, match=r"they gave bench\.latency, bench\.jitter"):
        run_try(config, TryOptions("HEAD", patches=slower, metric="bench.nope"))

    # the metric asked about still undecided at the maximum: the try stops there, and
    # says so (it said the metric was decided)
    options = TryOptions("HEAD", patches=slower, metric="bench.jitter", max_repetitions=4)
    most = run_try(config, options)
    print(most.stopped, most.decisions["bench.jitter"])
    assert most.decisions["bench.jitter"].verdict is Verdict.UNDECIDED
    assert most.stopped == "the maximum of 4 repetitions per side was reached"
