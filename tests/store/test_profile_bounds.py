"""A profile nothing real could have given is stored all the same, bounded: counts
of 2^63, 2^96 and 10^29 (a profiler's error, or a hostile one), stacks 5 000 frames
deep. Its message says what each bound changed. On SQLite and PostgreSQL."""

from __future__ import annotations

from perfwalk.folded import MOST_FRAMES, MOST_SAMPLES, bound_stacks, parse_folded
from perfwalk.model import Status
from perfwalk.store import Store
from perfwalk.store.profiles import NewProfile
from tests.store.factories import checkout, new_series

DEEP = ";".join(["main", *(f"rec{i}" for i in range(4998)), "leaf"])  # 5 000 frames
STACKS = {"main;at_2_63": 2**63, "main;at_2_96": 2**96, "main;huge": 10**29, DEEP: 5, "main;ok": 3}


def test_impossible_counts_and_depths_are_stored_bounded(store: Store) -> None:
    series = store.create_series(new_series())
    at = store.add_checkout(series, checkout(0))
    new = NewProfile("crc", "", "local", "command", "prof", Status.PASS, "", STACKS)
    store.profiles.add(at, new, limit=1 << 20)
    (profile,) = store.profiles.at(at)
    assert profile.status is Status.PASS
    assert profile.samples == MOST_SAMPLES
    assert profile.stacks["main;at_2_96"] == MOST_SAMPLES
    assert profile.stacks["main;ok"] == 3
    (deep,) = [stack for stack in profile.stacks if stack.endswith(";leaf")]
    frames = deep.split(";")
    assert len(frames) == MOST_FRAMES
    assert frames[-2] == f"[… {5000 - MOST_FRAMES + 1} frames]"
    assert frames[: MOST_FRAMES - 2] == DEEP.split(";")[: MOST_FRAMES - 2]
    assert profile.message == (
        f"1 stack deeper than {MOST_FRAMES} frames (up to 5000): the frames between the "
        f"{MOST_FRAMES - 2} outermost and the leaf folded into one; 3 stacks with a count of "
        f"{MOST_SAMPLES} samples or more (no profiler takes that many: its error) counted "
        f"as {MOST_SAMPLES}; {3 * MOST_SAMPLES + 8} samples in all, more than {MOST_SAMPLES}: "
        f"counted as {MOST_SAMPLES}"
    )


def test_folded_text_with_impossible_counts_is_read_bounded() -> None:
    text = f"main;a {'9' * 5000}\nmain;b {2**64}\nmain;d 2147483648\n"
    text += "main;c 00000000000000000000012\nmain;a 1\n"
    assert parse_folded(text) == {
        "main;a": MOST_SAMPLES,
        "main;b": MOST_SAMPLES,
        "main;c": 12,
        "main;d": MOST_SAMPLES,
    }
    bounded, notes = bound_stacks({"x;y": 4})
    assert (bounded, notes) == ({"x;y": 4}, [])
