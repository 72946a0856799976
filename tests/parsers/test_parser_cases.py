"""Cases the captured outputs do not show: older formats, edge cases, documented choices."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping

import pytest

from perfwalk.errors import ConfigError, ParseError
from perfwalk.model import Value
from perfwalk.orchestrate.walk.parsing import ParseWorker
from perfwalk.parsers import get_parser
from perfwalk.parsers.gnu_time import clock_seconds
from perfwalk.parsers.jsontext import find_object
from perfwalk.parsers.values import mean_of_repeats, require
from tests.parsers.golden import GOLDEN


def parse(name: str, text: str, options: dict[str, object] | None = None) -> dict[str, float]:
    return {v.name: v.value for v in get_parser(name, options)(text)}


# jsontext -------------------------------------------------------------------


def test_find_object_takes_the_last_document_with_the_keys() -> None:
    text = 'note {not json}\n{"k": 1}\n{"k": 2, "x": {"k": 3}}\ntrailer {'
    assert find_object(text, ("k",), "tool") == {"k": 2, "x": {"k": 3}}


def test_find_object_does_not_take_an_object_nested_in_a_truncated_one() -> None:
    inner = json.dumps({"start": {}, "end": {"sum_sent": {}}})
    text = '{"start": {}, "server_output_json": ' + inner + ', "end": {"sum'
    with pytest.raises(ParseError, match=r"no iperf3 JSON found.*'start', 'end'"):
        find_object(text, ("start", "end"), "iperf3")


def test_find_object_rejects_nan() -> None:
    with pytest.raises(ParseError):
        find_object('{"k": NaN}', ("k",), "tool")


def test_json_type_errors_name_the_path() -> None:
    end = {"sum_sent": {"bits_per_second": "fast"}, "sum_received": {"bits_per_second": 1}}
    text = json.dumps({"start": {}, "end": end})
    with pytest.raises(ParseError, match=r"end\.sum_sent\.bits_per_second: expected a number"):
        parse("iperf3", text)


# values ---------------------------------------------------------------------


def test_mean_of_repeats_keeps_first_order_and_unit() -> None:
    values = [Value("a", 1.0, "s"), Value("b", 5.0, "B"), Value("a", 2.0, "s")]
    assert mean_of_repeats(values) == (Value("a", 1.5, "s"), Value("b", 5.0, "B"))
    assert mean_of_repeats([Value("a", 1e308, "s")] * 3) == (Value("a", 1e308, "s"),)


def test_require_rejects_no_value_and_infinite_values() -> None:
    with pytest.raises(ParseError, match="no value found: looked for the thing"):
        require([], "the thing")
    with pytest.raises(ParseError, match="x: inf is not a finite number"):
        require([Value("x", float("inf"), "s")], "x")


# iperf3 ---------------------------------------------------------------------


def test_iperf3_udp_with_only_end_sum() -> None:
    """iperf3 before 3.x with sum_sent/sum_received for UDP gave only end.sum."""
    total = {"bits_per_second": 9.5e8, "jitter_ms": 0.02, "lost_percent": 1.5}
    text = json.dumps({"start": {}, "end": {"sum": total}})
    assert parse("iperf3", text) == {
        "sender": 9.5e8,
        "receiver": 9.5e8,
        "jitter": 0.02,
        "lost_percent": 1.5,
    }


def test_iperf3_tcp_without_retransmits() -> None:
    """Systems that do not report retransmits give no retransmits value."""
    end = {"sum_sent": {"bits_per_second": 2.0}, "sum_received": {"bits_per_second": 1.0}}
    text = json.dumps({"start": {"test_start": {"protocol": "TCP"}}, "end": end})
    assert parse("iperf3", text) == {"sender": 2.0, "receiver": 1.0}


def test_iperf3_interrupted_without_end() -> None:
    with pytest.raises(ParseError, match=r"iperf3 JSON end: no 'sum_sent'"):
        parse("iperf3", json.dumps({"start": {}, "intervals": [], "end": {}}))


def test_iperf3_error_after_other_output() -> None:
    text = "starting\n" + (GOLDEN / "iperf3/error-refused.out").read_text()
    with pytest.raises(ParseError, match=r"^iperf3 reported an error: unable to connect"):
        parse("iperf3", text)


# hyperfine ------------------------------------------------------------------


def test_hyperfine_empty_results() -> None:
    with pytest.raises(ParseError, match="no command was measured"):
        parse("hyperfine", '{"results": []}')


def test_hyperfine_truncated_second_document_keeps_the_first() -> None:
    """A killed run: the complete document of the first command is used."""
    text = (GOLDEN / "hyperfine/stdout-two.out").read_text()
    cut = text.rindex('"command": "sleep 0.02"')
    assert set(parse("hyperfine", text[:cut])) == {"mean", "median", "min", "max", "stddev"}


# time -p --------------------------------------------------------------------


def test_time_p_last_block_and_decimal_comma() -> None:
    text = "real 9.00\nuser 1.00\nsys 1.00\noutput\n  real 0,25\r\nuser 0,10\nsys 0,05\n"
    assert parse("time-p", text) == {"real": 0.25, "user": 0.10, "sys": 0.05}


def test_time_p_incomplete_last_block_is_not_mixed_with_the_one_before() -> None:
    assert parse("time-p", "real 9\nuser 1\nsys 1\nreal 2\n") == {"real": 2.0}


def test_time_p_block_starts_at_real() -> None:
    """A block whose real line was glued to other output does not swallow the next real."""
    text = "progress...real 9\nuser 1\nsys 1\nreal 2\nuser 0.5\nsys 0.25\n"
    assert parse("time-p", text) == {"real": 2.0, "user": 0.5, "sys": 0.25}


def test_time_p_ignores_words_in_other_lines() -> None:
    with pytest.raises(ParseError, match="'real <seconds>'"):
        parse("time-p", "the real 1.0 thing\nuser: 3\n")


# GNU time -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("clock", "seconds"),
    [("0:00.10", 0.1), ("1:02.50", 62.5), ("1:02:03", 3723.0), ("12", 12.0)],
)
def test_clock_seconds(clock: str, seconds: float) -> None:
    assert clock_seconds(clock) == pytest.approx(seconds)


def test_gnu_time_hours_and_last_report() -> None:
    report = (GOLDEN / "gnu-time/verbose.out").read_text()
    long_run = report.replace("0:00.10", "1:02:03").replace(
        "Maximum resident set size (kbytes): 1692", "Maximum resident set size (kbytes): 2048"
    )
    assert "1:02:03" in long_run
    assert parse("gnu-time", report + long_run) == {
        "real": 3723.0,
        "user": 0.0,
        "sys": 0.0,
        "max_rss": 2048.0,
    }


def test_gnu_time_crlf() -> None:
    text = (GOLDEN / "gnu-time/verbose.out").read_text().replace("\n", "\r\n")
    assert parse("gnu-time", text)["real"] == 0.1


# fio ------------------------------------------------------------------------


def fio_job(name: str, **directions: Mapping[str, object]) -> dict[str, object]:
    return {"jobname": name, "error": 0, **directions}


def test_fio_kib_bandwidth_and_microsecond_clat_of_old_fio() -> None:
    read = {"io_bytes": 4096, "bw": 100, "iops": 25.0, "clat": {"mean": 2.5}}
    write = {"io_bytes": 0, "bw": 0, "iops": 0.0}
    text = json.dumps({"jobs": [fio_job("old", read=read, write=write)]})
    assert parse("fio", text) == {
        "old.read.bw": 102400.0,
        "old.read.iops": 25.0,
        "old.read.clat": 2500.0,
    }


def test_fio_jobs_with_one_name_are_summed() -> None:
    def read(bw: int, iops: float, mean: float, n: int) -> dict[str, object]:
        clat = {"mean": mean, "N": n}
        return {"io_bytes": 1, "bw_bytes": bw, "bw": 0, "iops": iops, "clat_ns": clat}

    jobs = [
        fio_job("j", read=read(100, 10.0, 1000.0, 1)),
        fio_job("j", read=read(50, 5.0, 4000.0, 3)),
    ]
    assert parse("fio", json.dumps({"jobs": jobs})) == {
        "j.read.bw": 150.0,
        "j.read.iops": 15.0,
        "j.read.clat": 3250.0,
    }


def test_fio_job_error() -> None:
    job = {"jobname": "bad", "error": 5, "read": {"io_bytes": 0}}
    with pytest.raises(ParseError, match="fio job 'bad' reported error 5"):
        parse("fio", json.dumps({"jobs": [job]}))


def test_fio_without_io() -> None:
    job = fio_job("idle", read={"io_bytes": 0}, write={"io_bytes": 0})
    with pytest.raises(ParseError, match=r"io_bytes > 0"):
        parse("fio", json.dumps({"jobs": [job]}))


# Google Benchmark -----------------------------------------------------------


def test_gbench_skipped_entries_give_no_value() -> None:
    entries = [
        {"name": "BM_a", "skipped": True, "skip_message": "later"},
        {"name": "BM_b", "real_time": 2.0, "cpu_time": 1.0, "time_unit": "ms"},
    ]
    text = json.dumps({"context": {}, "benchmarks": entries})
    assert parse("gbench", text) == {"BM_b.real_time": 2.0, "BM_b.cpu_time": 1.0}


def test_gbench_all_failed_names_them() -> None:
    entries = [{"name": "BM_a", "error_occurred": True, "error_message": "no device"}]
    with pytest.raises(ParseError, match="BM_a: no device"):
        parse("gbench", json.dumps({"context": {}, "benchmarks": entries}))


@pytest.mark.parametrize(
    "unit", ["", "<b>ms</b>", "ms\u202e", "seconds", "NS", "x" * 1_000_000], ids=str.__len__
)
def test_gbench_takes_only_the_time_units_it_writes(unit: str) -> None:
    """Found by tests/parsers/test_parser_robustness.py: "time_unit": "" gave times
    without a unit; a pushed file's time_unit was any string (HTML, 1 MB) and became
    the unit of its values."""
    entries = [{"name": "BM_a", "real_time": 2.0, "cpu_time": 1.0, "time_unit": unit}]
    with pytest.raises(ParseError, match=r"time_unit: .* is not one of ns, us, ms, s") as refused:
        parse("gbench", json.dumps({"context": {}, "benchmarks": entries}))
    assert len(str(refused.value)) < 200
    for known in ("ns", "us", "ms", "s"):
        entries[0]["time_unit"] = known
        assert (
            parse("gbench", json.dumps({"context": {}, "benchmarks": entries}))["BM_a.cpu_time"]
            == 1.0
        )


# pytest-benchmark -----------------------------------------------------------


def test_pytest_benchmark_shared_names_use_fullname() -> None:
    stats = {"mean": 1.0, "ops": 1.0}
    entries = [
        {"name": "test_a", "fullname": "t/test_x.py::test_a", "stats": stats},
        {"name": "test_a", "fullname": "t/test_y.py::test_a", "stats": stats},
        {"name": "test_b", "fullname": "t/test_y.py::test_b", "stats": stats},
    ]
    text = json.dumps({"machine_info": {}, "benchmarks": entries})
    assert list(parse("pytest-benchmark", text)) == [
        "t/test_x.py::test_a.mean",
        "t/test_x.py::test_a.ops",
        "t/test_y.py::test_a.mean",
        "t/test_y.py::test_a.ops",
        "test_b.mean",
        "test_b.ops",
    ]


# go test --------------------------------------------------------------------


def test_gotest_suffix_and_sub_benchmark_names() -> None:
    """The last -<digits> is taken for the GOMAXPROCS suffix, even without one (-cpu 1)."""
    text = (
        "BenchmarkX/size-16-8 \t 100\t 10 ns/op\r\n"
        "BenchmarkX/size-16-8 \t 100\t 20 ns/op\n"
        "BenchmarkX/size-16   \t 100\t 40 ns/op\n"
        "BenchmarkY-4 100 1.5e+03 ns/op 2 things\n"
        "BenchmarkZ-4 \t--- FAIL: BenchmarkZ\n"
        "    BenchmarkW-4 100 1 ns/op\n"
    )
    assert get_parser("gotest")(text) == (
        Value("BenchmarkX/size-16.ns/op", 15.0, "ns/op"),
        Value("BenchmarkX/size.ns/op", 40.0, "ns/op"),
        Value("BenchmarkY.ns/op", 1500.0, "ns/op"),
        Value("BenchmarkY.things", 2.0, "things"),
    )


def test_gotest_stops_at_a_malformed_pair() -> None:
    assert parse("gotest", "BenchmarkA-2 10 5 ns/op 7 8 9 B/op\n") == {"BenchmarkA.ns/op": 5.0}


# VALUE lines ----------------------------------------------------------------


def test_value_lines() -> None:
    text = (
        "VALUE 3960000000 bits/sec receiver\n"
        "  VALUE -1.5E-3 s offset time\r\n"
        "SUBVALUE 1 s sub\n"
        "VALUE nan s broken\n"
        "VALUE 1e999 s huge\n"
        "VALUE .5 ratio half\n"
        "VALUE 2 s\n"
    )
    assert get_parser("value")(text) == (
        Value("receiver", 3960000000.0, "bits/sec"),
        Value("offset time", -0.0015, "s"),
        Value("half", 0.5, "ratio"),
    )


# regex ----------------------------------------------------------------------


def test_regex_scale_and_default_name() -> None:
    parser = get_parser("regex", {"pattern": r"took (?P<value>\S+) s", "unit": "ms", "scale": 1000})
    assert parser("took 0.5 s\ntook x s\ntook 2 s") == (
        Value("value", 500.0, "ms"),
        Value("value", 2000.0, "ms"),
    )


def test_regex_optional_groups_fall_back_to_options() -> None:
    options = {
        "pattern": r"(?m)^(?:(?P<name>\w+): )?(?P<value>\d+)(?: (?P<unit>\w+))?$",
        "name": "n",
        "unit": "u",
    }
    assert get_parser("regex", options)("a: 1 kg\n2\nb: 3") == (
        Value("a", 1.0, "kg"),
        Value("n", 2.0, "u"),
        Value("b", 3.0, "u"),
    )


def test_regex_no_match_says_the_pattern() -> None:
    parser = get_parser("regex", {"pattern": r"rate=(?P<value>\d*)", "unit": "pps"})
    with pytest.raises(ParseError, match=r"rate=\(\?P<value>"):
        parser("rate= rate=x")


def test_regex_scale_past_the_float_range() -> None:
    parser = get_parser("regex", {"pattern": r"(?P<value>\S+)", "unit": "s", "scale": 1e300})
    with pytest.raises(ParseError, match="not a finite number"):
        parser("1e300")


# regex: a value per named group --------------------------------------------------------

#: lz4's benchmark: the speeds of a level, the line written over with \r, then "N#"
LZ4 = {
    "pattern": r"(?m)(?P<compress>[0-9.]+) MB/s ?, ?(?P<decompress>[0-9.]+) MB/s(?=\r *\d+#|$)",
    "unit": "MB/s",
}
LZ4_SPEEDS = (Value("compress", 558.1, "MB/s"), Value("decompress", 5415.6, "MB/s"))


@pytest.mark.parametrize(
    "text",
    [
        # lz4 1.10: ", " between the speeds; progress first, its last line kept
        " |-lz4corpus         :  11578560 ->\r"
        " /-lz4corpus         :  11578560 ->   4176168 (2.773), 551.0 MB/s, 5011.2 MB/s\r"
        " =-lz4corpus         :  11578560 ->   4176168 (2.773), 558.1 MB/s, 5415.6 MB/s\r 1#\n",
        # lz4 1.9: " ," between them
        " =-lz4corpus         :  11578560 ->   4176168 (2.773), 558.1 MB/s ,5415.6 MB/s\r 1#\n",
        # what a terminal shows (the "1#" over the progress line's start), pasted
        " 1#lz4corpus  :  11578560 ->   4176168 (2.773), 558.1 MB/s, 5415.6 MB/s\n",
        " 1#lz4corpus  :  11578560 ->   4176168 (2.773), 558.1 MB/s ,5415.6 MB/s",
    ],
)
def test_regex_a_value_per_group_in_both_lz4_spellings(text: str) -> None:
    assert get_parser("regex", LZ4)(text) == LZ4_SPEEDS


def test_regex_a_group_that_took_no_part_gives_no_value() -> None:
    parser = get_parser(
        "regex",
        {
            "pattern": r"(?m)^(?P<compress>[0-9.]+) MB/s(?:, (?P<decompress>[0-9.]+) MB/s)?$",
            "unit": "MB/s",
        },
    )
    assert parser("551.0 MB/s\n558.1 MB/s, 5415.6 MB/s\n") == (
        Value("compress", 551.0, "MB/s"),
        Value("compress", 558.1, "MB/s"),
        Value("decompress", 5415.6, "MB/s"),
    )


def test_regex_units_and_scale_per_group() -> None:
    parser = get_parser(
        "regex",
        {
            "pattern": r"c=(?P<compress>\S+) d=(?P<decompress>\S+) t=(?P<took>\S+)",
            "unit": "s",
            "units": {"compress": "MB/s", "decompress": "KB/s"},
            "scale": {"decompress": 1000, "took": 0.001},
        },
    )
    assert parser("c=1.5 d=2 t=3000") == (
        Value("compress", 1.5, "MB/s"),
        Value("decompress", 2000.0, "KB/s"),
        Value("took", 3.0, "s"),
    )


def test_regex_one_scale_for_every_group() -> None:
    parser = get_parser(
        "regex", {"pattern": r"(?P<a>\d+) (?P<b>\d+)", "units": {"a": "ms", "b": "ms"}, "scale": 2}
    )
    assert parser("1 2") == (Value("a", 2.0, "ms"), Value("b", 4.0, "ms"))


def test_regex_the_name_group_prefixes_the_groups_values() -> None:
    parser = get_parser(
        "regex",
        {"pattern": r"(?m)^(?:(?P<name>\w+): )?(?P<rx>\d+) (?P<tx>\d+)$", "unit": "pps"},
    )
    assert parser("eth0: 1 2\n3 4\n") == (
        Value("eth0.rx", 1.0, "pps"),
        Value("eth0.tx", 2.0, "pps"),
        Value("rx", 3.0, "pps"),
        Value("tx", 4.0, "pps"),
    )


def test_regex_unit_per_group_beats_the_unit_group_which_beats_unit() -> None:
    parser = get_parser(
        "regex",
        {
            "pattern": r"(?P<value>\d+) (?P<unit>[a-z]+)? ?(?P<other>\d+)",
            "unit": "s",
            "units": {"other": "B"},
            "name": "first",
        },
    )
    assert parser("1 ms 2") == (Value("first", 1.0, "ms"), Value("other", 2.0, "B"))
    assert parser("1  2") == (Value("first", 1.0, "s"), Value("other", 2.0, "B"))


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("a=nan b=2", (Value("b", 2.0, "u"),)),
        ("a=NaN b=inf", ()),
        ("a=1e999 b=-Infinity", ()),
        ("a=" + "9" * 400 + " b=1", (Value("b", 1.0, "u"),)),
        ("a=1e308 b=- ", (Value("a", 1e308, "u"),)),
    ],
)
def test_regex_groups_whose_text_is_no_finite_number(text: str, found: tuple[Value, ...]) -> None:
    parser = get_parser("regex", {"pattern": r"a=(?P<a>\S*) b=(?P<b>\S*)", "unit": "u"})
    if found:
        assert parser(text) == found
    else:
        with pytest.raises(ParseError, match="with a number in a group 'a' or 'b'"):
            parser(text)


def test_regex_a_group_scaled_past_the_float_range() -> None:
    parser = get_parser(
        "regex", {"pattern": r"(?P<a>\S+) (?P<b>\S+)", "unit": "s", "scale": {"b": 1e300}}
    )
    with pytest.raises(ParseError, match="b: inf is not a finite number"):
        parser("1 1e300")


@pytest.mark.parametrize(
    ("options", "bad_key", "words", "hint"),
    [
        (
            {**LZ4, "units": {"compres": "MB/s"}},
            "t.parser_options.units.compres",
            "no group 'compres' in the pattern; its groups: compress, decompress",
            "did you mean compress?",
        ),
        (
            {"pattern": LZ4["pattern"], "units": {"compress": "MB/s"}},
            "t.parser_options.units",
            "no unit for the group decompress",
            'units = { decompress = "MB/s" }',
        ),
        (
            {**LZ4, "units": {"compress": ""}},
            "t.parser_options.units.compress",
            "non-empty string",
            None,
        ),
        ({**LZ4, "units": ["MB/s"]}, "t.parser_options.units", "expected a table", None),
        (
            {**LZ4, "scale": {"decompres": 2}},
            "t.parser_options.scale.decompres",
            "no group 'decompres'",
            "did you mean decompress?",
        ),
        ({**LZ4, "scale": {"compress": "2"}}, "t.parser_options.scale.compress", "number", None),
        (
            {**LZ4, "name": "speed"},
            "t.parser_options.name",
            "no group 'value' for this name to name; its values are named by their groups: "
            "compress, decompress",
            "remove name",
        ),
        ({**LZ4, "scales": {}}, "t.parser_options.scales", "unknown option", "did you mean scale?"),
        (
            {"pattern": r"(?P<name>\w+) (?P<unit>\w+)", "unit": "s"},
            "t.parser_options.pattern",
            "no named group for a number",
            "(?P<compress>",
        ),
    ],
)
def test_regex_bad_group_options_name_their_key(
    options: dict[str, object], bad_key: str, words: str, hint: str | None
) -> None:
    with pytest.raises(ConfigError) as caught:
        get_parser("regex", options, key="t.parser")
    assert caught.value.key == bad_key
    assert words in caught.value.message
    if hint is not None:
        assert hint in (caught.value.hint or "")


def test_regex_catastrophic_group_is_stopped_by_the_parse_limit() -> None:
    """A pattern that backtracks for hours on its input is stopped at the limit."""
    parser = get_parser("regex", {"pattern": r"(?P<speed>(\d+)+)x$", "unit": "MB/s"})
    started = time.monotonic()
    with ParseWorker() as worker, pytest.raises(ParseError, match=r"no answer after 0.5 s"):
        worker.parse(parser, "1" * 40 + "!\n", limit=0.5, label="parser 'regex' of test t")
    assert time.monotonic() - started < 60
