"""Which walks of a watch run at the same time: those that share no host."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from perfwalk.orchestrate.session.run_hosts import sharing_groups


def test_walks_on_disjoint_hosts_are_apart_and_sharing_ones_together() -> None:
    leases = {
        "nightly": ["local:lab"],
        "arm": ["arm-1"],
        "hourly": ["local:lab"],
        "fw": ["src", "dut"],
        "fw-sink": ["dut", "sink"],
    }
    assert sharing_groups(leases) == [["nightly", "hourly"], ["arm"], ["fw", "fw-sink"]]


def test_a_walk_that_shares_with_two_groups_joins_them_in_order() -> None:
    leases = {"a": ["h1"], "b": ["h2"], "c": ["h3"], "bridge": ["h3", "h1"]}
    assert sharing_groups(leases) == [["a", "c", "bridge"], ["b"]]


@given(
    st.dictionaries(
        st.text("abcdef", min_size=1, max_size=3),
        st.lists(st.sampled_from(["h1", "h2", "h3", "h4", "h5"]), max_size=3),
        max_size=8,
    )
)
def test_every_walk_is_in_one_group_and_groups_share_no_host(
    leases: dict[str, list[str]],
) -> None:
    groups = sharing_groups(leases)
    assert sorted(w for g in groups for w in g) == sorted(leases)
    hosts = [{h for w in g for h in leases[w]} for g in groups]
    for i, mine in enumerate(hosts):
        for other in hosts[i + 1 :]:
            assert not mine & other
    order = list(leases)
    for group in groups:  # in the order of the configuration
        assert group == sorted(group, key=order.index)
