"""``perfwalk drill-env`` across container images (``[[environment]] image``): real
podman, real images made by the test (busybox and a file or two,
tests/fixtures/containers.py), a real git repository, the real command line, SQLite.

The project's build copies the image's ``/opt/level`` into the worktree (100 where
there is none); its benchmark prints that level, times the image's ``/opt/factor``
when there is one, with a little noise. The image ``old`` has level 100; ``new`` has
the same level and a factor of 1.5 (its tests run slower); ``rebuilt`` has level 200
(its builds make a slower program). Neither commit changes anything measured."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.fixtures.commands import perfwalk_with
from tests.fixtures.containers import ENGINE, busybox_image
from tests.fixtures.synthetic_repo import CommitSpec, make_repo

BUILD = """\
if [ -f /opt/level ]; then cp /opt/level level.txt; echo "level from the image"
else echo 100 > level.txt; echo "level of this machine"; fi
"""

BENCH = """\
[ -z "$FAIL_HERE" ] || { echo "told to fail" >&2; exit 3; }
factor=1; [ -f /opt/factor ] && factor=$(cat /opt/factor)
awk -v level="$(cat level.txt)" -v factor="$factor" -v seed="$$" \\
  'BEGIN { srand(seed); printf "VALUE %.3f ms time\\n", level * factor * (1 + rand() / 200) }'
"""

CONFIG = """\
[project]
repo = "project"
[build]
steps = ["sh build.sh"]
[run]
repetitions = 3
[[test]]
name = "bench"
command = "sh bench.sh"
parser = "value"
[[environment]]
name = "machine"
comment = "this machine, no image"
[[environment]]
name = "old"
image = "{old}"
engine = {engine}
[[environment]]
name = "new"
comment = "the same level, tests 1.5 times slower"
image = "{new}"
engine = {engine}
[[environment]]
name = "rebuilt"
image = "{rebuilt}"
engine = {engine}
[[environment]]
name = "failing"
comment = "the old image, its benchmark told to fail"
image = "{old}"
engine = {engine}
run_env = {{ FAIL_HERE = "1" }}
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[str]]]:
    folder = tmp_path_factory.mktemp("images")
    start = datetime(2025, 1, 1, tzinfo=UTC)
    commits = make_repo(
        folder / "project",
        [
            CommitSpec(start, "A benchmark", {"build.sh": BUILD, "bench.sh": BENCH, "n": "0\n"}),
            CommitSpec(start + timedelta(days=1), "notes", {"n": "1\n"}),
        ],
    )
    with (
        busybox_image({"/opt/level": "100\n"}) as old,
        busybox_image({"/opt/level": "100\n", "/opt/factor": "1.5\n"}) as new,
        busybox_image({"/opt/level": "200\n"}) as rebuilt,
    ):
        config = folder / "perfwalk.toml"
        text = CONFIG.format(old=old, new=new, rebuilt=rebuilt, engine=json.dumps(ENGINE))
        config.write_text(text, encoding="utf-8")
        yield config, commits


def _drill(
    config: Path, commits: list[str], environments: str, *more: str
) -> subprocess.CompletedProcess[str]:
    """``perfwalk drill-env`` of bench.time between the two commits, in ``environments``."""
    between = ("--between", commits[0], commits[1], "--metric", "bench.time")
    return perfwalk_with(config, "drill-env", *between, "--environments", environments, *more)


def _drill_env(config: Path, commits: list[str], environments: str) -> dict[str, object]:
    done = _drill(config, commits, environments, "--format", "json")
    assert done.returncode in (0, 1), done.stdout + done.stderr
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


def _medians(answer: dict[str, object]) -> dict[tuple[str, str], float]:
    rows = answer["medians"]
    assert isinstance(rows, list)
    return {(at, env): median for at, env, median, _n in rows}


def test_a_step_that_follows_the_image_its_tests_run_in(project: tuple[Path, list[str]]) -> None:
    config, commits = project
    answer = _drill_env(config, commits, "old,new")
    assert answer["verdict"] == "environment", answer
    assert answer["moved_by"] == ["old", "new"]
    assert "follows old → new" in str(answer["said"])
    medians = _medians(answer)
    for at in ("before", "after"):
        assert 99 < medians[(at, "old")] < 101, medians
        assert 149 < medians[(at, "new")] < 152, medians  # the tests ran in the image


def test_a_build_made_in_its_image(project: tuple[Path, list[str]]) -> None:
    config, commits = project
    answer = _drill_env(config, commits, "machine,rebuilt")
    assert answer["verdict"] == "environment", answer
    medians = _medians(answer)
    for at in ("before", "after"):
        assert 99 < medians[(at, "machine")] < 101, medians  # built on this machine
        assert 199 < medians[(at, "rebuilt")] < 202, medians  # built in the image
    logs = perfwalk_with(config, "log", f"{answer['series']}:2", "--build")
    assert "level from the image" in logs.stdout, logs.stdout + logs.stderr


def test_an_image_that_does_not_exist_stops_the_drill_naming_it(
    project: tuple[Path, list[str]], tmp_path: Path
) -> None:
    config, commits = project
    broken = tmp_path / "perfwalk.toml"
    text = config.read_text(encoding="utf-8").replace(
        'repo = "project"', f'repo = "{config.parent / "project"}"'
    )
    broken.write_text(
        text + '[[environment]]\nname = "gone"\nimage = "localhost/perfwalk-no-such-image"\n'
        f"engine = {json.dumps(ENGINE)}\n",
        encoding="utf-8",
    )
    done = _drill(broken, commits, "old,gone")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "did not build in gone" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_side_whose_test_fails_is_named_with_its_failure_and_its_log(
    project: tuple[Path, list[str]],
) -> None:
    config, commits = project
    done = _drill(config, commits, "old,failing")
    assert done.returncode == 2, done.stdout + done.stderr
    said = done.stderr
    series = re.search(
        r"has too few values \(before in failing: 0 \(NOEXIT on local: exit 3; "
        r"perfwalk log (\d+):2\)",
        said,
    )
    assert series is not None, said
    log = perfwalk_with(config, "log", f"{series.group(1)}:2")
    assert "told to fail" in log.stdout, log.stdout + log.stderr
