"""A differential profile its reader can trust: unresolved frames ([unknown], an
address, a library's name in brackets) inside the stacks of one side do not repaint
the functions under them, the flame graph's colour of a function agrees with the
table, functions whose change the counts cannot resolve are hidden (and counted),
and a side with too few samples is warned about."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfwalk.analysis.profile_diff import (
    DiffNode,
    FunctionShare,
    diff_functions,
    differential,
    few_samples,
    noise_text,
    resolved_stacks,
    shown_functions,
    unresolved,
)

#: the parent: crc32_block does nearly everything (53 samples, as in the review)
PARENT = {
    "bench;crc32_block": 51,
    "bench;entry_SYSCALL_64;do_syscall_64;__x64_sys_execve": 1,
    "bench;_dl_start_user;dl_main": 1,
}
#: the culprit: cksum_update takes a fifth; perf resolved no frame above the leaves,
#: so an [unknown] frame sits under every user-space stack (74 samples)
CULPRIT = {
    "bench;[unknown];crc32_block": 56,
    "bench;[unknown];cksum_update": 16,
    "bench;entry_SYSCALL_64;do_syscall_64;__split_vma": 1,
    "bench;[unknown];_dl_start_user;_dl_sysdep_start": 1,
}


def _node(tree: DiffNode, path: str) -> DiffNode:
    node = tree
    for name in path.split(";"):
        node = next(c for c in node["children"] if c["name"] == name)
    return node


def _names(tree: DiffNode) -> set[str]:
    found, pending = set(), [tree]
    while pending:
        node = pending.pop()
        found.add(node["name"])
        pending.extend(node["children"])
    return found


def test_an_unknown_frame_under_the_culprits_stacks_colours_a_function_by_its_own_change() -> None:
    diff = differential(PARENT, CULPRIT)
    rows = {f.name: f for f in diff.functions}
    crc = rows["crc32_block"]
    assert crc.self_delta == pytest.approx(100 * 56 / 74 - 100 * 51 / 53)  # -20.6 points
    box = _node(diff.tree, "bench;crc32_block")
    # the box is blue (a smaller share), by the function's own total change
    assert box["delta"] < 0
    assert box["delta"] == pytest.approx(crc.total_delta)
    assert (box["before"], box["value"]) == (51, 56)
    grown = _node(diff.tree, "bench;cksum_update")
    assert grown["delta"] == pytest.approx(rows["cksum_update"].total_delta)
    assert grown["delta"] > 0
    # no [unknown] box, no [unknown] row (its +100 points were the artefact)
    assert "[unknown]" not in _names(diff.tree)
    assert "[unknown]" not in rows
    assert diff.unresolved == (0, 73)


@pytest.mark.parametrize(
    "frame", ["[unknown]", "0x7f3a2b1c4d5e", "00007f3a2b1c4d5e", "[[kernel.kallsyms]]", "[vdso]"]
)
def test_every_spelling_of_an_unresolved_frame_is_left_out_inside_a_stack(frame: str) -> None:
    culprit = {stack.replace("[unknown]", frame): n for stack, n in CULPRIT.items()}
    plain = differential(PARENT, CULPRIT)
    spelled = differential(PARENT, culprit)
    assert spelled.functions == plain.functions
    assert spelled.tree == plain.tree
    assert unresolved(frame)


def test_named_frames_are_resolved() -> None:
    for frame in ("crc32_block", "main", "face", "[… 7 frames]", "f [clone .isra.0]", "beef"):
        assert not unresolved(frame)


def test_an_unresolved_leaf_keeps_its_samples_under_one_name() -> None:
    stacks, changed = resolved_stacks(
        {
            "prog;main;[unknown];0x7f3a2b1c4d5e": 3,
            "prog;main;7f3a2b1c99aa": 2,
            "prog;main;[[kernel.kallsyms]]": 4,
            "prog;main;work": 5,
        }
    )
    assert stacks == {
        "prog;main;[unknown]": 5,
        "prog;main;[kernel.kallsyms]": 4,
        "prog;main;work": 5,
    }
    assert changed == 9


@settings(max_examples=150, deadline=None)
@given(
    before=st.dictionaries(
        st.lists(st.sampled_from(["main", "run", "crc", "fill"]), min_size=1, max_size=5).map(
            ";".join
        ),
        st.integers(1, 200),
        min_size=1,
        max_size=20,
    ),
    where=st.integers(0, 10),
    frame=st.sampled_from(["[unknown]", "0xffffffff81000000", "[libc.so.6]"]),
)
def test_unresolved_frames_inserted_inside_stacks_change_nothing(
    before: dict[str, int], where: int, frame: str
) -> None:
    """Any side's stacks with an unresolved frame put between two of their frames give
    the same table and tree as without it."""
    after: dict[str, int] = {}
    for stack, n in before.items():
        frames = stack.split(";")
        if len(frames) > 1:
            at = 1 + where % (len(frames) - 1)
            frames = [*frames[:at], frame, *frames[at:]]
        joined = ";".join(frames)
        after[joined] = after.get(joined, 0) + n
    plain = differential(before, before)
    inserted = differential(before, after)
    assert inserted.functions == plain.functions == ()
    assert inserted.tree == plain.tree


def test_low_counts_hide_the_rows_within_the_noise_and_say_how_many() -> None:
    diff = differential(PARENT, CULPRIT)
    assert [f.name for f in diff.functions] == ["cksum_update", "crc32_block"]
    # moved by a sample or two: entry_SYSCALL_64, do_syscall_64, __x64_sys_execve,
    # __split_vma, _dl_start_user, dl_main, _dl_sysdep_start
    assert diff.hidden == 7
    assert (diff.before_samples, diff.after_samples) == (53, 74)
    assert noise_text(53, 74, diff.hidden) == (
        "53 vs 74 samples: ±1 sample = 1.9 pp; 7 rows within the noise of 53 vs 74 samples hidden"
    )
    assert noise_text(53, 74, 1).endswith("; 1 row within the noise of 53 vs 74 samples hidden")
    assert noise_text(53, 74, 0) == "53 vs 74 samples: ±1 sample = 1.9 pp"


def test_the_same_shares_with_many_samples_are_shown() -> None:
    """Counts a hundred times larger resolve the same small shares."""
    many = differential(
        {k: 100 * n for k, n in PARENT.items()}, {k: 100 * n for k, n in CULPRIT.items()}
    )
    assert many.hidden == 0
    assert {"do_syscall_64", "dl_main", "__split_vma"} <= {f.name for f in many.functions}


def test_the_table_is_sorted_by_the_self_change() -> None:
    """A caller whose total share moved more comes after a leaf whose self share moved."""
    rows = [
        FunctionShare("caller", 0.0, 0.0, 10.0, 60.0),
        FunctionShare("leaf", 20.0, 50.0, 20.0, 50.0),
        FunctionShare("shrunk", 60.0, 20.0, 60.0, 20.0),
        FunctionShare("same", 5.0, 5.0, 5.0, 5.0),
    ]
    shown, hidden = shown_functions(rows, 1000, 1000)
    assert [f.name for f in shown] == ["shrunk", "leaf", "caller"]
    assert hidden == 0
    # a stored table is shown the same way again: nothing more is hidden
    assert shown_functions(shown, 1000, 1000) == (shown, 0)


def test_a_side_under_the_minimum_is_warned_about_with_its_remedy() -> None:
    said = few_samples((53, 74), ("8dfcad64bb88", "5a17eab3792b"), 500)
    assert said is not None
    assert "53 at 8dfcad64bb88 and 74 at 5a17eab3792b" in said
    assert "fewer than the 500 of [test.profile] min_samples" in said
    assert "one sample moves a share by 1.9 points" in said
    assert "raise [test.profile] frequency" in said
    only = few_samples((499, 500), ("the parent", "the culprit"), 500)
    assert only is not None
    assert "499 at the parent," in only
    assert "the culprit" not in only
    assert few_samples((500, 9000), ("a", "b"), 500) is None


def test_a_table_stored_by_an_older_perfwalk_loses_its_unknown_row() -> None:
    """A drill's answer kept the table of the paths with their [unknown] frame (its
    total share +100 points): shown again, that row is no finding, the noise is hidden."""
    stored = diff_functions(PARENT, CULPRIT, top=20)
    assert stored[0].name == "[unknown]"
    shown, hidden = shown_functions(stored, 53, 74)
    assert [f.name for f in shown] == ["cksum_update", "crc32_block"]
    assert hidden == 7
