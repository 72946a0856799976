"""The session of a use case: however its work ends (returned, Ctrl-C, a lost host, a
crash), the end is recorded as such, the hosts' work directories are removed, the
leases released and the store closed. Real store, real local host."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from perfwalk.errors import HostError, Interrupted, StoreError
from perfwalk.hosts.local import LocalHost
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.orchestrate.session.ending import Ending
from perfwalk.orchestrate.session.session import Leasing, Session, open_session
from perfwalk.store import Store


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'results.db'}"


@pytest.fixture
def other(url: str) -> Iterator[Store]:
    """The same store, as another process sees it."""
    opened = Store.open(url)
    yield opened
    opened.close()


def _session(url: str, *, expiry: float = 60.0) -> AbstractContextManager[Session]:
    return open_session(
        url,
        lambda _control: Topology.single(LocalHost("here")),
        purpose="a test of the session",
        leasing=Leasing(["lab-a", "lab-b"], wait=0.0, expiry=expiry),
    )


@pytest.mark.parametrize(
    ("raised", "ending"),
    [
        (None, Ending.FINISHED),
        (Interrupted(signal.SIGINT), Ending.INTERRUPTED),
        (HostError("host lab-a: the connection was lost"), Ending.FAILED),
        (RuntimeError("a crash"), Ending.FAILED),
    ],
)
def test_however_the_work_ends_it_is_recorded_and_the_hosts_and_leases_are_let_go(
    url: str, other: Store, raised: BaseException | None, ending: Ending
) -> None:
    ended: list[Ending] = []
    workdir: list[Path] = []
    caught: list[BaseException] = []
    try:
        with _session(url) as session, session.holding():
            workdir.append(Path(session.topology.workdir("here")))
            assert workdir[0].is_dir()  # made when the hosts are held
            assert [row.host for row in other.leases.list()] == ["lab-a", "lab-b"]
            with session.ending(ended.append):
                if raised is not None:
                    raise raised
    except BaseException as error:
        caught.append(error)
    assert caught == ([] if raised is None else [raised])  # raised again, as it was
    assert ended == [ending]
    assert not workdir[0].exists()  # the hosts' reset
    assert other.leases.list() == []
    with pytest.raises(StoreError, match="closed"):
        session.store.leases.list()


def test_a_second_session_on_a_leased_host_is_told_who_holds_it(url: str) -> None:
    with _session(url) as first, first.holding():
        with _session(url) as second, pytest.raises(HostError) as info, second.holding():
            pass
        assert "host leased by another run" in info.value.message
        assert "a test of the session" in info.value.message
        first.check()  # the first holds its leases still


def test_a_lease_broken_while_held_stops_the_work_at_the_next_check(url: str, other: Store) -> None:
    with _session(url, expiry=4.0) as session, session.holding():
        assert other.leases.break_lease("lab-a") is not None
        with pytest.raises(HostError, match="lab-a was broken"):
            _check_until(session, deadline=time.monotonic() + 30)


def _check_until(session: Session, deadline: float) -> None:
    """Check the session until it raises (the renewal notices within a beat)."""
    while time.monotonic() < deadline:
        session.check()
        time.sleep(0.1)
