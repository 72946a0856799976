"""Conductor runs in the store, on both back-ends: what a listing and a run's page
read (the runs with their trials, worst status and values; every output of a run)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from perfwalk.model import Log, Status, Value
from perfwalk.store import NewStep, Store
from perfwalk.store.conduct import NewConductRun

T0 = datetime(2026, 3, 1, 12, tzinfo=UTC)


def _run(store: Store, name: str, trials: int, at: datetime) -> int:
    return store.conduct.create(
        NewConductRun(
            name=name,
            master=f"/lab/{name}",
            config_text="[Test]\n",
            players={"source": {"address": "10.0.0.2", "target": "local", "file": "s.cfg"}},
            trials=trials,
            started_at=at,
        )
    )


def _step(name: str, status: Status, out: bytes, err: bytes = b"") -> NewStep:
    return NewStep(
        phase="run",
        role="source",
        host="local",
        kind="command",
        name=name,
        command="iperf3 -c sink",
        status=status,
        started_at=T0,
        finished_at=T0 + timedelta(seconds=1),
        exit_code=0 if status is Status.PASS else 1,
        stdout=Log.of(out),
        stderr=Log.of(err),
    )


def test_summaries_count_trials_steps_worst_status_and_values(store_url: str) -> None:
    with Store.open(store_url) as store:
        assert store.conduct.summaries() == []
        older = _run(store, "a.cfg", 3, T0)
        store.conduct.add_trial(older, 1, [_step("s1", Status.PASS, b"1\n")])
        store.conduct.add_trial(
            older, 2, [_step("s1", Status.PASS, b"2\n"), _step("s2", Status.NOEXIT, b"")]
        )
        store.conduct.set_values(
            older, {1: (Value("rate", 1.0, "x"),), 2: (Value("rate", 2.0, "x"),)}, parser="value"
        )
        store.conduct.finish(older, "interrupted", T0 + timedelta(minutes=1))
        newer = _run(store, "b.cfg", 2, T0 + timedelta(hours=1))
        newest, oldest = store.conduct.summaries()
    assert (newest.run.id, oldest.run.id) == (newer, older)  # newest first
    assert (newest.trials_done, newest.steps, newest.worst, newest.values) == (0, 0, None, 0)
    assert (newest.newest_step, newest.run.parser, newest.run.state) == (0, None, "running")
    assert (oldest.trials_done, oldest.steps, oldest.values) == (2, 3, 2)
    assert oldest.worst is Status.NOEXIT
    assert oldest.run.parser == "value"
    assert oldest.newest_step > 0
    assert oldest.run.finished_at == T0 + timedelta(minutes=1)


def test_logs_are_every_output_of_the_run_and_no_other(store_url: str) -> None:
    hostile = b"<script>x</script>\x00\xff end"
    with Store.open(store_url) as store:
        first = _run(store, "a.cfg", 1, T0)
        store.conduct.add_trial(first, 1, [_step("s1", Status.PASS, hostile, b"warning\n")])
        other = _run(store, "b.cfg", 1, T0)
        store.conduct.add_trial(other, 1, [_step("s1", Status.PASS, b"other\n")])
        (step,) = store.conduct.steps(first)
        outputs = store.conduct.logs(first)
        assert set(outputs) == {step.stdout_log_id, step.stderr_log_id}
        assert outputs[step.stdout_log_id].data == hostile  # bytes as written
        assert outputs[step.stderr_log_id].data == b"warning\n"
        assert store.conduct.logs(other)[store.conduct.steps(other)[0].stdout_log_id].data == (
            b"other\n"
        )
        assert store.conduct.logs(12345) == {}


def test_parsing_again_replaces_the_values_and_their_parser(store_url: str) -> None:
    with Store.open(store_url) as store:
        run = _run(store, "a.cfg", 1, T0)
        store.conduct.set_values(run, {1: (Value("a", 1.0, "s"),)}, parser="value")
        store.conduct.set_values(run, {}, parser="regex 'pattern=(?P<value>x)'")
        (summary,) = store.conduct.summaries()
        assert (summary.values, summary.run.parser) == (0, "regex 'pattern=(?P<value>x)'")
        assert store.conduct.run(run).parser == "regex 'pattern=(?P<value>x)'"
