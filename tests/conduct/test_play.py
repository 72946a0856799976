"""A Conductor master/player set written for the test lab, played over ssh with two
trials: every step stored per trial and phase, spawned servers stopped, a summary per
trial; an unreachable player is an error that names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.errors import HostError
from perfwalk.lab import LabPlan
from perfwalk.model import Status
from perfwalk.services.conduct import ConductOptions, conduct
from perfwalk.store import Store
from tests.lab.fixtures import ns_processes


def _write_set(lab: LabPlan, where: Path) -> Path:
    sink = lab.host_vars()["sink"]["addr"]
    (where / "master.cfg").write_text(
        "# a Conductor test for the perfwalk test lab\n"
        "[Test]\ntrials: 2\n\n[Clients]\nsource: source.cfg\nsink: sink.cfg\ndut: dut.cfg\n"
    )
    (where / "sink.cfg").write_text(
        f"[Master]\nplayer: {sink}\nconductor: 10.0.0.1\ncmdport: 6970\nresultsport: 6971\n\n"
        "[Startup]\nstep1: hostname\n\n"
        "[Run]\nspawn1: iperf3 -s -p 5301\n\n"
        "[Collect]\nstep1: head -3 /proc/net/snmp\n\n"
        "[Reset]\nstep1: echo reset sink\n"
    )
    (where / "source.cfg").write_text(
        "[Master]\nplayer = 10.0.0.2          # the source\nconductor = 10.0.0.1\n"
        "cmdport = 6970\nresultsport = 6971\n\n[Startup]\nstep1 = hostname\n\n[Run]\n"
        f"timeout20 = for i in 1 2 3 4 5 6 7 8 9 10; do iperf3 -c {sink} -p 5301 -t 1 && "
        "break; sleep 0.3; done\n\n[Collect]\nstep1 = echo collected\n\n"
        "[Reset]\nstep1 = echo reset source\n"
    )
    (where / "dut.cfg").write_text(
        "[Coordinator]\nplayer: 10.0.0.3\nconductor: 10.0.0.1\n\n"
        "[Startup]\nstep1: sysctl -n net.ipv4.ip_forward\n\n"
        "[Run]\nstep1: timeout5:cat /proc/net/dev\nstep2: sh -c 'exit 3'\n\n"
        "[Collect]\nstep1: cat /proc/net/dev\n\n[Reset]\nstep1: true\n"
    )
    return where / "master.cfg"


def _options(lab: LabPlan, **extra: object) -> ConductOptions:
    mapping = {
        lab.host_vars()["sink"]["addr"]: lab.namespace("sink"),
        "10.0.0.2": lab.namespace("src"),
        "dut": lab.namespace("dut"),
    }
    return ConductOptions(
        mapping=mapping,
        ssh_config=lab.ssh_config,
        known_hosts=lab.known_hosts,
        **extra,  # type: ignore[arg-type]
    )


def test_two_trials_are_played_and_every_step_is_stored(
    conduct_lab: LabPlan, tmp_path: Path
) -> None:
    master = _write_set(conduct_lab, tmp_path)
    seen: list[int] = []
    result = conduct(master, _options(conduct_lab), on_trial=lambda t: seen.append(t.trial))
    assert seen == [1, 2]
    assert result.worst is Status.NOEXIT  # dut's step2 exits 3, as written
    with Store.open(result.store) as store:
        run = store.conduct.run(result.conduct_id)
        assert (run.trials, run.state) == (2, "finished")
        assert run.players["sink"]["target"] == conduct_lab.namespace("sink")
        steps = store.conduct.steps(result.conduct_id)
        assert {s.trial for s in steps} == {1, 2}
        for trial in (1, 2):
            mine = [s for s in steps if s.trial == trial]
            phases = {(s.phase, s.role) for s in mine}
            assert ("startup", "sink") in phases
            assert ("run", "source") in phases
            assert ("collect", "dut") in phases
            assert ("reset", "sink") in phases
            client = next(s for s in mine if s.role == "source" and s.phase == "run")
            assert client.status is Status.PASS
            assert b"receiver" in store.log(client.stdout_log_id).data
            failed = next(s for s in mine if s.name == "step2" and s.role == "dut")
            assert (failed.status, failed.exit_code) == (Status.NOEXIT, 3)
            spawned = next(s for s in mine if s.kind == "service" and s.phase == "run")
            assert spawned.name == "spawn1"
            server_log = next(s for s in mine if s.name == "spawn1 log")
            assert b"Server listening" in store.log(server_log.stdout_log_id).data
            assert all(s.started_at <= s.finished_at for s in mine)
    assert not [p for p in ns_processes(conduct_lab.namespace("sink")) if "iperf3" in p]


def test_the_cli_prints_a_summary_per_trial(
    conduct_lab: LabPlan, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    master = _write_set(conduct_lab, tmp_path)
    maps = []
    for address, target in _options(conduct_lab).mapping.items():
        maps += ["--map", f"{address}={target}"]
    code = main(
        ["conduct", str(master), "--ssh-config", str(conduct_lab.ssh_config), "-t", "1", *maps]
    )
    out = capsys.readouterr().out
    assert code == 1  # the step that exits 3
    assert "trial 1:" in out
    assert ["run", "dut", "2", "NOEXIT"] in [line.split()[:4] for line in out.splitlines()]
    assert "conductor run 1: 1 trials" in out


def test_an_unreachable_player_is_an_error_naming_it(conduct_lab: LabPlan, tmp_path: Path) -> None:
    master = _write_set(conduct_lab, tmp_path)
    options = _options(conduct_lab)
    mapping = dict(options.mapping)
    mapping["dut"] = "pwtcond-nowhere"
    with pytest.raises(HostError, match=r"player dut .* is unreachable") as info:
        conduct(master, ConductOptions(mapping=mapping, ssh_config=conduct_lab.ssh_config))
    assert info.value.hint is not None
    assert "--map" in info.value.hint
