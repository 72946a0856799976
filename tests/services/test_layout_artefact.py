"""The layout-artefact verdict in real walks of a small C project built by cc at each
checkout, its symbol list kept (``[build] symbols``), with an instrument: ``cachegrind``
(the padding commit: a count that does not vary), ``rusage`` (the work commit).

The project is the demo's benchmark without its layout protection: ``main`` (in
``.text.startup``) and then the rest of bench.c come before the timed ``work``, so a
commit that only adds a small function to bench.c moves ``work`` by 16 bytes, as the
demo's bench.c-only commits once did. How much such a move costs is this machine's
to say, and a test cannot rely on it: the benchmark pays it itself, in wall time only
(it sleeps when ``work`` lies in the second half of a 32-byte block, as a loop that
now straddles a boundary would wait), its own work unchanged. What is checked is the
verdict perfwalk gives:

- the padding commit: wall time moved, the instructions did not, the symbol lists
  show ``work`` moved and no function changed size → "layout artefact: code moved,
  not changed", and ``perfwalk changes`` does not fail (exit 0);
- a commit that quadruples the work: wall time and user CPU time both moved → the
  code, never a layout artefact.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from perfwalk.cli import exits
from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.model import Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.report import layout
from perfwalk.services.publish import publish_site
from perfwalk.services.run import run_series
from tests.fixtures.synthetic_repo import CommitSpec, make_repo
from tests.services.walks import walk_config

pytestmark = pytest.mark.skipif(
    any(shutil.which(tool) is None for tool in ("cc", "nm")),
    reason="needs cc and nm (Debian: apt-get install gcc binutils)",
)

BENCH = """\
#include <stdint.h>
#include <stdio.h>
#include <time.h>
long work(long n);
{pad}
int main(void) {
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  long sum = work({turns});
{cost}  clock_gettime(CLOCK_MONOTONIC, &end);
  double ms = (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6;
  printf("sum %ld\\nVALUE %.3f ms elapsed\\n", sum, ms);
  return 0;
}
"""
PAD = "__attribute__((used, noinline)) int pad(int x) { return x * 3 + 1; }"
#: what the layout costs in the first fixture: time, not work (the same instructions
#: run in either layout, only the time asked of nanosleep differs)
COST = """\
  struct timespec penalty = {0, 1000000 + 199000000 * (long)(((uintptr_t)&work >> 4) & 1)};
  nanosleep(&penalty, NULL);
"""
WORK = """\
long work(long n) {
  long s = 0;
  for (long i = 0; i < {turns}; i++) s += i ^ (s >> 3);
  return s;
}
"""
#: the padded walk: its checkouts, the first after the step, its repetitions
PADDED = (8, 4, 3)
#: the walk whose work quadruples: longer, as the user CPU time of the same work spreads
#: by 16 % from one run to the next on a VM whose host is busy (the work doubled in a
#: walk of 8 × 3 was undecided under the suite's load: "too noisy to see changes below
#: 209 % … most likely step … +97.7 %"; 4 times the work in 12 × 4 is told in 300 of
#: 300 simulated walks of that spread)
QUADRUPLED = (12, 6, 4)


def _project(tmp_path: Path, *, padded: bool) -> tuple[Path, int]:
    """The commits of :data:`PADDED` (``padded``: the first after its step adds the
    padding function, the layout costs time, the work is small) or :data:`QUADRUPLED`
    (the work quadruples there, the layout costs nothing); the others change a text
    file only. Its configuration, and the checkout of the step."""
    checkouts, step, repetitions = PADDED if padded else QUADRUPLED
    start = datetime(2024, 6, 1, tzinfo=UTC)
    commits = []
    for i in range(checkouts):
        after = i >= step
        commits.append(
            CommitSpec(
                start + timedelta(hours=i),
                f"commit {i}",
                {
                    "bench.c": BENCH.replace("{pad}", PAD if padded and after else "")
                    .replace("{cost}", COST if padded else "")
                    .replace("{turns}", "3000000" if padded else "50000000"),
                    "work.c": WORK.replace("{turns}", "n" if padded or not after else "4 * n"),
                    "notes.txt": f"{i}\n",
                },
            )
        )
    make_repo(tmp_path / "repo", commits)
    path = tmp_path / "perfwalk.toml"
    instrument = "cachegrind" if padded else "rusage"
    text = walk_config(
        tmp_path / "repo",
        "./bench",
        test="bench",
        repetitions=repetitions,
        extra=f'[[test.instrument]]\nkind = "{instrument}"\n',
    )
    text = text.replace(
        'steps = ["true"]', 'steps = ["cc -O2 -o bench bench.c work.c"]\nsymbols = "bench"'
    )
    path.write_text(text)
    return path, step


def _changes(
    path: Path, capsys: pytest.CaptureFixture[str], step: int
) -> tuple[int, dict[str, Any]]:
    """``perfwalk changes`` of the walk: its exit status, and the changes of the
    metrics at checkout ``step``, by metric."""
    status = main(["changes", "-c", str(path), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    print(json.dumps({key: report[key] for key in ("changes", "floors")})[:6000])
    events = report["changes"]
    found = {
        metric["name"]: metric
        for event in events
        if event["after"]["idx"] == step
        for metric in event["metrics"]
    }
    return status, found


def _walked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *, padded: bool
) -> tuple[Path, int, dict[str, Any]]:
    """The walk of the project (``padded``, else the work quadrupled): its config, and
    what ``perfwalk changes`` says of it (:func:`_changes`)."""
    path, step = _project(tmp_path, padded=padded)
    result = run_series(load_config(path), RunOptions())
    assert result.worst is Status.PASS
    status, found = _changes(path, capsys, step)
    print("exit", status, json.dumps(found, indent=1))
    return path, status, found


@pytest.mark.slow
def test_a_commit_that_only_moved_the_code_is_a_layout_artefact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, status, found = _walked(tmp_path, capsys, padded=True)
    assert "elapsed" in found, found
    verdict = found["elapsed"]["verdict"]
    assert verdict["state"] == "layout artefact"
    because = verdict["chain"][-1]
    assert because.startswith("layout artefact: code moved, not changed: ")
    assert "its instruments did not move" in because
    assert "bench: " in because
    assert "work +16 B" in because
    assert "none changed size" in because
    assert "1 added" in because  # pad
    assert "cachegrind.instructions 0.0 % (no change" in verdict["chain"][0]
    # it does not fail a check: nothing to act on, nothing undecided
    assert status == exits.OK
    # the site lists it with its state, its evidence in the state's tooltip
    site = tmp_path / "site"
    publish_site(load_config(path), site)
    page = (site / layout.INDEX).read_text()
    cell = re.search(
        r'<td class="state layout artefact" title="([^"]*)">layout artefact</td>', page
    )
    assert cell is not None, page
    assert html.escape("layout artefact: code moved, not changed: ") in cell.group(1)


def test_a_commit_that_changed_the_work_is_the_code_in_both_witnesses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _path, status, found = _walked(tmp_path, capsys, padded=False)
    # the user CPU time quadrupled: the load of this machine does not hide that
    assert "rusage.user_cpu" in found, found
    assert found["rusage.user_cpu"]["regression"] is True
    for metric in found.values():
        assert metric["verdict"]["state"] != "layout artefact", metric
    # the wall time, where this machine's noise lets it be found, moved with it
    if "elapsed" in found:
        chain = found["elapsed"]["verdict"]["chain"]
        assert "rusage.user_cpu +" in chain[0]
        assert chain[0].endswith("→ the code")
        assert not any(line.startswith("layout artefact") for line in chain)
    if any(m["verdict"]["state"] == "confirmed" for m in found.values()):
        assert status == exits.FOUND  # a regression to act on fails a check
