"""iperf3 ``--json``: TCP or UDP, normal or reverse (``-R``), one or more streams.

Values come from the totals of the ``end`` section (with ``-P N`` the sums of all
streams, never one stream):

- ``sender``, ``receiver`` (``bits/sec``): ``end.sum_sent`` / ``end.sum_received``;
- ``retransmits`` (``retransmits``): TCP, from the sender, when the OS reports it;
- ``jitter`` (``ms``) and ``lost_percent`` (``percent``): UDP, as the receiver saw them.

iperf3 versions that give UDP only ``end.sum`` have it used for both sides.
A JSON ``error`` (no server, server busy, interrupted test) is a ParseError with
iperf3's own message.
"""

from __future__ import annotations

from perfwalk.errors import ParseError
from perfwalk.model import Value
from perfwalk.parsers.jsontext import (
    JsonObject,
    find_object,
    number_at,
    object_at,
    optional_number,
)

_END = "iperf3 JSON end"


def _protocol(doc: JsonObject, end: JsonObject) -> str:
    test_start = object_at(doc, "start", "iperf3 JSON").get("test_start")
    if isinstance(test_start, dict) and isinstance(test_start.get("protocol"), str):
        return str(test_start["protocol"]).upper()
    return "UDP" if "sum" in end else "TCP"


def _bits_per_second(end: JsonObject, key: str) -> float:
    return number_at(object_at(end, key, _END), "bits_per_second", f"{_END}.{key}")


def _tcp(end: JsonObject) -> tuple[Value, ...]:
    values = (
        Value("sender", _bits_per_second(end, "sum_sent"), "bits/sec"),
        Value("receiver", _bits_per_second(end, "sum_received"), "bits/sec"),
    )
    sent = object_at(end, "sum_sent", _END)
    retransmits = optional_number(sent, "retransmits", f"{_END}.sum_sent")
    if retransmits is None:
        return values
    return (*values, Value("retransmits", retransmits, "retransmits"))


def _udp(end: JsonObject) -> tuple[Value, ...]:
    sent_key = "sum_sent" if "sum_sent" in end else "sum"
    received_key = "sum_received" if "sum_received" in end else "sum"
    received = object_at(end, received_key, _END)
    where = f"{_END}.{received_key}"
    return (
        Value("sender", _bits_per_second(end, sent_key), "bits/sec"),
        Value("receiver", _bits_per_second(end, received_key), "bits/sec"),
        Value("jitter", number_at(received, "jitter_ms", where), "ms"),
        Value("lost_percent", number_at(received, "lost_percent", where), "percent"),
    )


def parse(text: str) -> tuple[Value, ...]:
    doc = find_object(text, ("start", "end"), "iperf3")
    error = doc.get("error")
    if error is not None:
        raise ParseError(f"iperf3 reported an error: {error}")
    end = object_at(doc, "end", "iperf3 JSON")
    return _udp(end) if _protocol(doc, end) == "UDP" else _tcp(end)
