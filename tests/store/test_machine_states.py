"""The machine's state of each repetition, on both back-ends: the state of every host
it ran on, stored with the repetition, read back by series, in the checkout's pack
(with the loaded marks naming the loaded host), and older stores (schema 7, schema
9) upgraded without losing anything."""

from __future__ import annotations

import json
from collections.abc import Mapping

from sqlalchemy import Engine, MetaData, Table, select, text, update

from perfwalk.model import MachineState
from perfwalk.store import LATEST_VERSION, NewRepetition, Store, schema
from perfwalk.store.connect import Database
from perfwalk.store.machine import insert_state
from perfwalk.store.migrations import MIGRATIONS, migrate

from .factories import T0, checkout, new_series, older_series_row, result

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
    """A repetition measured on the host ``dut`` alone."""
    return _hosts_rep(idx, {} if state is None else {"dut": state})


def _hosts_rep(idx: int, states: Mapping[str, MachineState]) -> NewRepetition:
    return NewRepetition(
        idx=idx,
        started_at=T0,
        finished_at=T0,
        results=(result("iperf", 900.0 + idx),),
        machines=states,
    )


def test_states_are_stored_with_their_repetitions_and_marked_in_the_pack(store: Store) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(3))
    for idx, state in enumerate((QUIET, LOADED, None)):
        store.add_repetition(checkout_id, _rep(idx, state))
    assert store.machine_states(series_id) == {(3, 0): {"dut": QUIET}, (3, 1): {"dut": LOADED}}
    [pack] = store.site.packs(series_id, 3, 3)
    assert json.loads(pack.head)["loaded"] == [1]
    reps = json.loads(pack.detail)["reps"]
    assert [r[4] is None for r in reps] == [False, False, True]
    loaded = reps[1][4]
    assert loaded["host"] == "dut"
    assert loaded["busy"] == [[HOSTILE, 95.5], ["cc1", 40.0]]  # as it is: pages escape it
    assert loaded["loaded"].startswith("dut: load 5.25 > 2 cores; others used 1.90 CPUs")
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
        assert store.machine_states(series_id) == {(1, 0): {"dut": LOADED}}
    with raw.connect() as conn:
        assert conn.scalar(select(schema.machine_state.c.host)) == "dut"


def test_every_host_of_a_repetition_is_kept_and_a_loaded_one_is_named(store: Store) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(2))
    store.add_repetition(checkout_id, _hosts_rep(0, {"dut": QUIET, "sink": QUIET}))
    store.add_repetition(checkout_id, _hosts_rep(1, {"dut": QUIET, "sink": LOADED}))
    store.add_repetition(checkout_id, _hosts_rep(2, {"sink": QUIET}))  # dut not readable
    assert store.machine_states(series_id) == {
        (2, 0): {"dut": QUIET, "sink": QUIET},
        (2, 1): {"dut": QUIET, "sink": LOADED},
        (2, 2): {"sink": QUIET},
    }
    [pack] = store.site.packs(series_id, 2, 2)
    assert json.loads(pack.head)["loaded"] == [1]  # the sink was loaded, not the dut
    reps = json.loads(pack.detail)["reps"]
    quiet, loaded, alone = (r[4] for r in reps)
    assert (quiet["host"], quiet["loaded"]) == ("dut", "")
    assert [(h["host"], h["loaded"]) for h in quiet["hosts"]] == [("dut", ""), ("sink", "")]
    assert loaded["host"] == "sink"  # the one shown is the loaded one
    assert loaded["loaded"].startswith("sink: load 5.25 > 2 cores; others used 1.90 CPUs")
    assert "dut" not in loaded["loaded"]
    dut, sink = loaded["hosts"]
    assert (dut["host"], dut["loaded"], dut["freq"]) == ("dut", "", 2400.0)
    assert (sink["host"], sink["busy"]) == ("sink", [[HOSTILE, 95.5], ["cc1", 40.0]])
    assert sink["loaded"].startswith("load 5.25 > 2 cores")
    assert [h["host"] for h in alone["hosts"]] == ["sink"]


def test_a_store_of_schema_9_keeps_its_states_and_takes_every_host(
    store_url: str, db: Database, raw: Engine
) -> None:
    """Before schema 10 a repetition had the state of one host: upgraded, it keeps it."""
    assert migrate(lambda: db.write("make"), db.shown, MIGRATIONS[:9]) == 9
    with raw.begin() as conn:
        old = MetaData()
        tables = {
            name: Table(name, old, autoload_with=conn)
            for name in ("series", "checkout", "repetition")
        }
        series_id = conn.execute(
            tables["series"].insert().values(older_series_row(host="dut"))
        ).inserted_primary_key[0]
        checkout_id = conn.execute(
            tables["checkout"]
            .insert()
            .values(series_id=series_id, idx=0, sha="a" * 40, date=T0, quirks=[], build_status=1)
        ).inserted_primary_key[0]
        for idx, state in enumerate((QUIET, LOADED)):
            rep_id = conn.execute(
                tables["repetition"]
                .insert()
                .values(checkout_id=checkout_id, idx=idx, started_at=T0, finished_at=T0)
            ).inserted_primary_key[0]
            insert_state(conn, rep_id, "dut", state)  # the columns of schema 8 and 9
    with Store.open(store_url) as store:
        assert store.schema_version == LATEST_VERSION
        assert store.machine_states(series_id) == {(0, 0): {"dut": QUIET}, (0, 1): {"dut": LOADED}}
        [pack] = store.site.packs(series_id, 0, 0)
        assert json.loads(pack.head)["loaded"] == [1]
        store.add_repetition(checkout_id, _hosts_rep(2, {"dut": QUIET, "sink": LOADED}))
        assert store.machine_states(series_id)[(0, 2)] == {"dut": QUIET, "sink": LOADED}
