"""``perfwalk drill-env`` across hosts (``[[environment]] host``): the same two commits
built and measured on this machine and on the lab's dut, a real sshd in its own
network namespace (tests/lab). The benchmark reads which machine it runs on: ``ip
netns identify`` names the dut's namespace there and nothing here, and its level is
150 on a namespace's host, 100 on this machine (a step that follows the host, as one
that follows a kernel would)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from perfwalk.composites.env_drill import chosen_environments, drill_environments, env_target
from perfwalk.store import Store
from tests.lab.conftest import LabConfig

BODY = """
[[test]]
name = "bench"
command = '''
level=100; [ -n "$(ip netns identify $$)" ] && level=150
awk -v level="$level" -v seed="$$" \\
  'BEGIN {{ srand(seed); printf "VALUE %.3f ms time\\n", level * (1 + rand() / 200) }}'
'''
parser = "value"

[[environment]]
name = "here"
comment = "this machine"

[[environment]]
name = "on-dut"
comment = "the dut's kernel and network"
host = "dut"
"""


def test_a_step_that_follows_the_host_is_named_and_each_side_ran_on_its_host(
    lab_config: LabConfig, lab_repo: Path
) -> None:
    config = lab_config(BODY.format())
    log = ["git", "-C", str(lab_repo), "log", "--reverse", "--format=%H"]
    first, second = subprocess.run(log, capture_output=True, text=True, check=True).stdout.split()
    said: list[str] = []
    with Store.open(config.store.url) as store:
        target = env_target(
            store, config, chosen=None, between=(first, second), test="bench", name="time"
        )
        result = drill_environments(
            store, config, target, chosen_environments(config, None), say=said.append
        )
        row = store.env_drills.get(result.series_id)
        assert row is not None
        environment = {index: env for index, _at, env in row.sides}
        hosts = {
            (environment[stored.checkout_idx], stored.result.host)
            for stored in store.reparses.results(result.series_id)
        }
    assert hosts == {("here", "local"), ("on-dut", "dut")}, hosts
    assert result.answer.verdict == "environment", result.said()
    assert result.answer.moved_by == ("here", "on-dut")
    assert "follows here → on-dut" in result.said()
    for at in ("before", "after"):
        assert all(99 < v < 101 for v in result.values[(at, "here")]), result.values
        assert all(149 < v < 152 for v in result.values[(at, "on-dut")]), result.values
    assert any("in on-dut (on dut)" in line for line in said), said
