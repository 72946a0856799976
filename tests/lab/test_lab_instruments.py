"""The rusage instrument over ssh: a test on a lab host (a real sshd in a network
namespace) has its process tree's resources measured there by the wrapper that host's
``python3`` runs, stored beside the test's value (root; skipped with the reason
elsewhere)."""

from __future__ import annotations

from pathlib import Path

from perfwalk.config.instruments import INSTRUMENT_METRICS, RUSAGE
from perfwalk.lab import LabPlan
from perfwalk.model import Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.lab.conftest import LabConfig

FILL_MIB = 32

RUSAGE_OVER_SSH = """
[run]
step = "commit"
repetitions = 2

[[test]]
name = "fill"
role = "source"
command = '''python3 -c "m = bytearray(b'x') * (32 << 20); print('VALUE', len(m), 'B filled')"'''
parser = "value"
timeout = 60

[[test.instrument]]
kind = "rusage"
"""


def test_rusage_is_measured_on_the_ssh_host_of_the_tests_command(
    lab: LabPlan, lab_config: LabConfig
) -> None:
    config = lab_config(RUSAGE_OVER_SSH)
    result = run_series(config, RunOptions())
    assert result.worst is Status.PASS
    declared = {m.name for m in INSTRUMENT_METRICS[RUSAGE]}
    with Store.open(f"sqlite:///{Path(config.path).parent / 'perfwalk.db'}") as store:
        results = [
            r
            for checkout in store.checkouts(result.series_id)
            for rep in store.repetitions(checkout.id)
            for r in rep.results
        ]
    assert len(results) == 2 * 2
    for found in results:
        assert (found.host, found.status) == ("src", Status.PASS), found.message
        values = {v.name: v.value for v in found.values}
        assert declared <= set(values), found.message
        assert values["rusage.max_rss"] >= FILL_MIB * 1024  # KiB, on that host
        assert values["rusage.user_cpu"] >= 0
        assert "rusage" not in found.message  # measured: no note
