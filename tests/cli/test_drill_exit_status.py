"""`perfwalk drill`'s exit status, from the command run as a real process on a real
repository: a drill that rules a change out (NO-CHANGE) has answered, like one that
names a culprit, and exits 0; one that stays undecided exits 4 (``exits.UNDECIDED``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from perfwalk.cli import exits
from tests.fixtures.commands import perfwalk
from tests.fixtures.noisy_repo import CONFIG, noisy_history


def _drill(
    tmp_path: Path, *, size: float, budget: tuple[str, ...] = ()
) -> tuple[int, dict[str, Any]]:
    ids = noisy_history(tmp_path / "repo", commits=8, step_at=4, size=size, salt=7)
    config = tmp_path / "perfwalk.toml"
    config.write_text(CONFIG.format(repo=tmp_path / "repo"), encoding="utf-8")
    between = ["--between", ids[0], ids[-1], "--test", "latency", "--value", "latency"]
    done = perfwalk("drill", "-c", str(config), *between, *budget, "--format", "json")
    assert not done.stderr, done.stderr
    (answer,) = json.loads(done.stdout)["drills"]
    return done.returncode, answer


def test_a_drill_that_finds_no_change_between_its_ends_exits_0(tmp_path: Path) -> None:
    code, answer = _drill(tmp_path, size=0)
    assert answer["verdict"] == "no-change", answer["reason"]
    assert "do not differ convincingly" in answer["reason"]
    assert code == exits.OK == 0
    # the commits do not make it: the environment may
    assert re.search(
        r"docs/drill.md\), then `perfwalk drill-env --between [0-9a-f]{12} [0-9a-f]{12} "
        r"--metric latency.latency`$",
        answer["next"],
    ), answer["next"]


def test_a_drill_that_stays_undecided_exits_4(tmp_path: Path) -> None:
    code, answer = _drill(tmp_path, size=6, budget=("--max-builds", "2"))
    assert answer["verdict"] == "undecided", answer["reason"]
    assert "the budget of 2 builds is spent" in answer["reason"]
    assert code == exits.UNDECIDED == 4


def test_a_no_change_names_the_environments_to_drill_when_the_file_has_them(
    tmp_path: Path,
) -> None:
    from perfwalk.cli.drill_commands import _environment_next
    from perfwalk.config import load_config
    from perfwalk.orchestrate.drilling.target import DrillTarget

    noisy_history(tmp_path / "repo", commits=3, step_at=1, size=0, salt=7)
    config = tmp_path / "perfwalk.toml"
    environments = '\n[[environment]]\nname = "a"\n[[environment]]\nname = "b"\n'
    config.write_text(CONFIG.format(repo=tmp_path / "repo") + environments, encoding="utf-8")
    target = DrillTarget("1" * 40, "2" * 40, "latency", "latency", 1, {"id": "1:5"})
    said = _environment_next(load_config(config), target)
    assert said == (
        "no commit makes it: does it follow the environment? `perfwalk drill-env 1:5 --metric "
        "latency.latency` measures both commits in each of the 2 [[environment]]s"
    )
