"""Role phases of a walk on the local host: where their commands and files are."""

from __future__ import annotations

from pathlib import Path

from perfwalk.model import Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.services.conftest import MakeConfig

LOCAL_DUT = """
[test.roles.dut]
startup = ["echo state at {commit} > dut-state.txt"]
fetch = ["dut-state.txt"]

[hosts.box]
target = "local"
roles = ["dut"]
"""


def test_a_relative_fetch_finds_the_file_startup_wrote_in_the_worktree(
    make_config: MakeConfig, tmp_path: Path
) -> None:
    config = make_config(extra=LOCAL_DUT)
    result = run_series(config, RunOptions(from_="2024-01-10", repetitions=1))
    assert result.worst is Status.PASS
    store = Store.open(config.store.url)
    try:
        checkouts = store.checkouts(result.series_id)
        assert checkouts
        for checkout in checkouts:
            (rep,) = store.repetitions(checkout.id)
            assert rep.results[0].status is Status.PASS, rep.results[0].message
            (fetched,) = store.artifacts(rep.id)
            assert (fetched.name, fetched.role, fetched.status) == (
                "dut-state.txt",
                "dut",
                Status.PASS,
            )
            data = store.log(fetched.stdout_log_id).data
            assert data == f"state at {checkout.sha}\n".encode()
    finally:
        store.close()
    assert not (tmp_path / "dut-state.txt").exists()
