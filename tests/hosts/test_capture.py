"""The bounded capture: head + tail, exact counts, memory independent of the input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfwalk.hosts.capture import Capture, omitted_marker


def feed_all(limit: int, chunks: list[bytes]) -> Capture:
    capture = Capture(limit)
    for chunk in chunks:
        capture.feed(chunk)
    return capture


def test_small_output_is_kept_whole() -> None:
    log = feed_all(10, [b"abc", b"", b"def"]).to_log()
    assert log.data == b"abcdef"
    assert log.total == 6
    assert not log.truncated


def test_exactly_twice_the_limit_is_not_truncated() -> None:
    log = feed_all(4, [b"0123", b"4567"]).to_log()
    assert log.data == b"01234567"
    assert not log.truncated


def test_over_the_limit_keeps_head_marker_tail() -> None:
    log = feed_all(4, [b"01", b"2345", b"6789", b"ab"]).to_log()
    assert log.data == b"0123" + omitted_marker(4) + b"89ab"
    assert log.data.count(b"[... 4 bytes omitted ...]") == 1
    assert log.total == 12
    assert log.truncated


def test_zero_limit_keeps_only_the_marker() -> None:
    log = feed_all(0, [b"hello"]).to_log()
    assert log.data == omitted_marker(5)
    assert log.truncated
    assert feed_all(0, []).to_log().data == b""


def test_negative_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="limit"):
        Capture(-1)


def test_tail_memory_is_bounded_by_the_limit_plus_one_chunk() -> None:
    capture = Capture(1000)
    for _ in range(10_000):
        capture.feed(b"x" * 300)
    assert capture.total == 3_000_000
    assert sum(len(chunk) for chunk in capture._tail) < 1000 + 300
    assert len(capture.to_log().data) <= 2000 + len(omitted_marker(capture.total))


@given(
    limit=st.integers(min_value=0, max_value=40),
    chunks=st.lists(st.binary(max_size=30), max_size=20),
)
def test_log_is_head_and_tail_of_the_stream(limit: int, chunks: list[bytes]) -> None:
    stream = b"".join(chunks)
    log = feed_all(limit, chunks).to_log()
    assert log.total == len(stream)
    if len(stream) <= 2 * limit:
        assert log.data == stream
        assert not log.truncated
    else:
        head, tail = stream[:limit], stream[len(stream) - limit :]
        assert log.data == head + omitted_marker(len(stream) - 2 * limit) + tail
        assert log.truncated
