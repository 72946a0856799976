"""Parsers: a test's output text in, named values out.

Every parser is a pure function ``text -> tuple[Value, ...]``: no I/O, no clock.
It raises :class:`~perfwalk.errors.ParseError`, whose message says what it looked
for, when it finds no value, and no other exception whatever the text (garbage,
binary, truncated JSON, empty). Each tool has its own module; its docstring
lists the value names and units it emits (docs/parsers.md shows each on an
example). ``get_parser`` turns a test's ``parser`` and ``parser_options`` config
keys into a parser, checking them.

======================  ==============================================================
name                    values
======================  ==============================================================
``iperf3``              ``sender``, ``receiver`` (bits/sec); TCP ``retransmits``;
                        UDP ``jitter`` (ms), ``lost_percent`` (percent)
``iperf3-text``         the same values, from iperf3's text report
``tcpbench``            ``sender`` (bits/sec): the mean of the interval rates, without
                        the first and last from 5 intervals on (``receiver`` for -s)
``udpbench``            ``sender``, ``receiver`` (bits/sec); ``lost_percent``
``netperf``             ``throughput`` (bits/sec); UDP_STREAM ``sender``,
                        ``receiver``, ``lost_percent``; RR ``transaction_rate``
``hyperfine``           ``mean``, ``median``, ``min``, ``max``, ``stddev`` (s);
                        ``<command>.mean`` ... with several commands
``time-p``              ``real``, ``user``, ``sys`` (s), of the last block
``gnu-time``            ``real``, ``user``, ``sys`` (s), ``max_rss`` (KiB)
``fio``                 ``<job>.<read|write>.bw`` (bytes/sec), ``.iops`` (iops),
                        ``.clat`` (ns)
``fs_mark``             ``files`` (files/sec), ``app_overhead`` (us)
``gbench``              ``<name>.real_time``, ``.cpu_time`` (time_unit),
                        ``.items_per_second`` (items/s), ``.bytes_per_second``
                        (bytes/sec)
``pytest-benchmark``    ``<name>.min``, ``.max``, ``.mean``, ``.median``, ``.stddev``
                        (s), ``<name>.ops`` (ops/s)
``gotest``              ``<Benchmark>.<unit>`` (``ns/op``, ``B/op``, ``allocs/op``,
                        ``MB/s``, custom); repeated lines averaged
``value``               ``VALUE <number> <unit> <name>`` lines, as written
``regex``               configured: options ``pattern``, ``name``, ``unit``, ``units``,
                        ``scale``; a value per named group of a match
``hdrhistogram``        ``latency.p50``, ``.p90``, ``.p99`` (options ``percentiles``,
                        ``unit``, ``name``), ``latency.mean``; the histogram whole
``bpftrace-hist``       ``<map>.p50`` ... per ``hist()``/``lhist()`` map; the histograms
``dtrace-quantize``     ``<key>.p50`` ... per ``quantize()`` block; the histograms
======================  ==============================================================
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from perfwalk.errors import ConfigError
from perfwalk.model import Value
from perfwalk.parsers import (
    bpftrace_hist,
    dtrace_quantize,
    fio,
    fs_mark,
    gbench,
    gnu_time,
    gotest,
    hdrhistogram,
    hyperfine,
    iperf3,
    iperf3_text,
    netperf,
    pytest_benchmark,
    regex,
    tcpbench,
    time_p,
    udpbench,
    value,
)

Parser = Callable[[str], tuple[Value, ...]]

_FIXED: dict[str, Parser] = {
    "iperf3": iperf3.parse,
    iperf3_text.NAME: iperf3_text.parse,
    tcpbench.NAME: tcpbench.parse,
    udpbench.NAME: udpbench.parse,
    netperf.NAME: netperf.parse,
    "hyperfine": hyperfine.parse,
    "time-p": time_p.parse,
    "gnu-time": gnu_time.parse,
    "fio": fio.parse,
    fs_mark.NAME: fs_mark.parse,
    "gbench": gbench.parse,
    "pytest-benchmark": pytest_benchmark.parse,
    "gotest": gotest.parse,
    "value": value.parse,
}
_CONFIGURABLE: dict[str, Callable[[Mapping[str, object], str], Parser]] = {
    "regex": regex.make,
    hdrhistogram.NAME: hdrhistogram.make,
    bpftrace_hist.NAME: bpftrace_hist.make,
    dtrace_quantize.NAME: dtrace_quantize.make,
}

PARSER_NAMES: tuple[str, ...] = (*_FIXED, *_CONFIGURABLE)


def get_parser(
    name: str, options: Mapping[str, object] | None = None, *, key: str = "parser"
) -> Parser:
    """The parser called ``name``, made with ``options``.

    ``key`` is the config key that holds the name (``parser``); errors in the
    options name ``<key>_options.<option>``. An unknown name, options given to a
    parser that takes none, or bad options are a :class:`ConfigError`.
    """
    options_key = f"{key}_options"
    if options is not None and not isinstance(options, Mapping):
        raise ConfigError(
            f"expected a table of parser options, got {type(options).__name__}",
            key=options_key,
        )
    if isinstance(name, str) and name in _FIXED:
        if options:
            raise ConfigError(
                f"the {name} parser takes no options, got {', '.join(map(str, options))}",
                key=options_key,
                hint=f"remove {options_key}; only these parsers take options: "
                + ", ".join(_CONFIGURABLE),
            )
        return _FIXED[name]
    if isinstance(name, str) and name in _CONFIGURABLE:
        return _CONFIGURABLE[name](options or {}, options_key)
    raise ConfigError(
        f"unknown parser {name!r}: expected the name of a parser",
        key=key,
        hint="valid parsers: " + ", ".join(PARSER_NAMES),
    )
