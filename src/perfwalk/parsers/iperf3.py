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
    as_object,
    find_object,
    number_at,
    object_at,
    optional_number,
)

_WHERE = "iperf3 JSON"


def _protocol(doc: JsonObject, end: JsonObject) -> str:
    test_start = as_object(doc.get("start", {}), f"{_WHERE} start").get("test_start")
    if isinstance(test_start, dict) and isinstance(test_start.get("protocol"), str):
        return str(test_start["protocol"]).upper()
    return "UDP" if "sum" in end else "TCP"


def parse(text: str) -> tuple[Value, ...]:
    doc = find_object(text, ("start", "end"), "iperf3")
    error = doc.get("error")
    if error is not None:
        raise ParseError(f"iperf3 reported an error: {error}")
    end = object_at(doc, "end", _WHERE)
    where = f"{_WHERE} end"
    if _protocol(doc, end) != "UDP":
        sent = object_at(end, "sum_sent", where)
        received = object_at(end, "sum_received", where)
        values = [
            Value("sender", number_at(sent, "bits_per_second", f"{where}.sum_sent"), "bits/sec"),
            Value(
                "receiver",
                number_at(received, "bits_per_second", f"{where}.sum_received"),
                "bits/sec",
            ),
        ]
        retransmits = optional_number(sent, "retransmits", f"{where}.sum_sent")
        if retransmits is not None:
            values.append(Value("retransmits", retransmits, "retransmits"))
        return tuple(values)
    sent_key = "sum_sent" if "sum_sent" in end else "sum"
    received_key = "sum_received" if "sum_received" in end else "sum"
    sent = object_at(end, sent_key, where)
    received = object_at(end, received_key, where)
    received_where = f"{where}.{received_key}"
    return (
        Value("sender", number_at(sent, "bits_per_second", f"{where}.{sent_key}"), "bits/sec"),
        Value("receiver", number_at(received, "bits_per_second", received_where), "bits/sec"),
        Value("jitter", number_at(received, "jitter_ms", received_where), "ms"),
        Value("lost_percent", number_at(received, "lost_percent", received_where), "percent"),
    )
