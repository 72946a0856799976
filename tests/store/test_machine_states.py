"""The machine's state of each repetition, on both back-ends: stored with the
repetition, read back by series, in the checkout's pack (with the loaded marks), and
a store of schema 6 upgraded without losing anything."""

from __future__ import annotations

import json

from sqlalchemy import Engine, select, text, update

from perfwalk.model import MachineState
from perfwalk.store import LATEST_VERSION, NewRepetition, Store, schema

from .factories import T0, checkout, new_series, result

HOSTILE = "<script>window.pwned=1</script>"
LOADED = MachineState(
    seconds=1.5,
    load1=5.25,
    cores=2,
    others_cpu=1.9,
    busy=((HOSTILE, 95.5), ("cc1", 40.0)),
    steal=0.0,
    mem_available=8_000_000_000,  # kB: beyond 32 bits
    freq_mhz=None,
    governor="unknown",
    turbo="unknown",
    runnable=3.5,
)
QUIET = MachineState(
    seconds=1.0,
    load1=0.5,
    cores=2,
    others_cpu=0.05,
    busy=(("sshd", 5.0),),
    steal=0.01,
    mem_available=1_000_000,
    freq_mhz=2400.0,
    governor="performance",
    turbo="off",
)


def _rep(idx: int, state: MachineState | None) -> NewRepetition:
    return NewRepetition(
        idx=idx,
        started_at=T0,
        finished_at=T0,
        results=(result("iperf", 900.0 + idx),),
        machine=state,
        machine_host="dut",
    )


def test_states_are_stored_with_their_repetitions_and_marked_in_the_pack(store: Store) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(3))
    for idx, state in enumerate((QUIET, LOADED, None)):
        store.add_repetition(checkout_id, _rep(idx, state))
    assert store.machine_states(series_id) == {(3, 0): QUIET, (3, 1): LOADED}
    [pack] = store.site.packs(series_id, 3, 3)
    assert json.loads(pack.head)["loaded"] == [1]
    reps = json.loads(pack.detail)["reps"]
    assert [r[4] is None for r in reps] == [False, False, True]
    loaded = reps[1][4]
    assert loaded["host"] == "dut"
    assert loaded["busy"] == [[HOSTILE, 95.5], ["cc1", 40.0]]  # as it is: pages escape it
    assert loaded["loaded"].startswith("load 5.25 > 2 cores; others used 1.90 CPUs")
    assert loaded["mem"] == 8_000_000_000
    quiet = reps[0][4]
    assert (quiet["loaded"], quiet["freq"], quiet["governor"], quiet["turbo"]) == (
        "",
        2400.0,
        "performance",
        "off",
    )


def test_a_store_of_schema_7_is_upgraded_and_its_packs_rebuilt(store_url: str, raw: Engine) -> None:
    with Store.open(store_url) as store:
        series_id = store.create_series(new_series())
        checkout_id = store.add_checkout(series_id, checkout(0))
        store.add_repetition(checkout_id, _rep(0, None))
    with raw.begin() as conn:  # back to what perfwalk wrote before schema 8
        conn.execute(text("DROP TABLE confirmation"))  # (of schema 9)
        conn.execute(text("DROP TABLE machine_state"))
        conn.execute(update(schema.checkout_pack).values(format=1))
        conn.execute(
            update(schema.meta).where(schema.meta.c.key == "schema_version").values(value="7")
        )
    with Store.open(store_url) as store:
        assert store.schema_version == LATEST_VERSION
        assert store.machine_states(series_id) == {}
        [pack] = store.site.packs(series_id, 0, 0)
        assert json.loads(pack.head)["loaded"] == []
        assert json.loads(pack.detail)["reps"][0][4] is None
        later = store.add_checkout(series_id, checkout(1))
        store.add_repetition(later, _rep(0, LOADED))
        assert store.machine_states(series_id) == {(1, 0): LOADED}
    with raw.connect() as conn:
        assert conn.scalar(select(schema.machine_state.c.host)) == "dut"
