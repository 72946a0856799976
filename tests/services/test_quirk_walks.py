"""Quirks on real walks of the known-values repository: which change they explain,
the quirks a walk applies before its first build, and quirks over a range."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.orchestrate.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory
from tests.services.conftest import MakeConfig


def _open(config_path: Path) -> Store:
    return Store.open(f"sqlite:///{config_path.parent / 'perfwalk.db'}")


def _changes(capsys: pytest.CaptureFixture[str], config_path: Path) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["changes", "-c", str(config_path)])
    return code, capsys.readouterr().out


#: the known value plus a little noise that the commit and the repetition decide (< 1.3 %)
JITTER = (
    "sh bench.sh | awk -v c=$(cat commit.txt) -v r=$PERFWALK_REPETITION"
    " '{print $1, $2 + (c * 7 % 5) / 4 + r / 4, $3, $4}'"
)
#: a checkout every 12 hours: the value steps from 100 to 130 ms at 2024-01-06 00:00
#: (commit 20), the checkout before is 2024-01-05 12:00
STEP = RunOptions(step="12hours")


def _commands_quirk(at: str) -> str:
    return f"""
[[quirk]]
at = "{at}"
comment = "the tool was rebuilt"
commands = ["echo rebuilding the tool"]
"""


def test_a_quirk_crossed_one_checkout_earlier_does_not_explain_a_step(
    make_config: MakeConfig,
    known_values_repo_copy: KnownHistory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the quirk is crossed one checkout before the step, between 01-05 00:00 and 12:00
    known = known_values_repo_copy
    config = make_config(command=JITTER, extra=_commands_quirk("2024-01-05 06:00"))
    result = run_series(config, STEP)
    store = _open(config.path)
    rows = store.checkouts(result.series_id)
    store.close()
    step_at = next(r.idx for r in rows if known.value_of(r.sha) == 130)
    assert [r.idx for r in rows if r.quirks] == [step_at - 1]
    code, out = _changes(capsys, config.path)
    assert f"between checkout {step_at - 1} " in out
    assert "known cause" not in out
    assert code == 1  # an unexplained regression


def test_a_quirk_crossed_in_the_interval_of_the_step_explains_it(
    make_config: MakeConfig,
    known_values_repo_copy: KnownHistory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    known = known_values_repo_copy
    config = make_config(command=JITTER, extra=_commands_quirk("2024-01-05 18:00"))
    result = run_series(config, STEP)
    store = _open(config.path)
    rows = store.checkouts(result.series_id)
    store.close()
    step_at = next(r.idx for r in rows if known.value_of(r.sha) == 130)
    assert [r.idx for r in rows if r.quirks] == [step_at]
    code, out = _changes(capsys, config.path)
    assert f"between checkout {step_at - 1} " in out
    assert "known cause: quirk A: the tool was rebuilt" in out
    assert code == 0
