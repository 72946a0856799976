"""The symbol list of a binary and its difference from the previous one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from perfwalk.analysis.symbols import (
    MINUS,
    Symbol,
    code_moves,
    diff_symbols,
    format_symbols,
    parse_nm,
)

GNU_NM = """\
                 w __cxa_finalize@GLIBC_2.2.5
                 U printf@GLIBC_2.2.5
0000000000001000 T _init
0000000000001139 T work
0000000000001149 T main
0000000000004010 B completed.0

prog.o:
0000000000001149 t helper
not a line at all
zzzz T bad_address
"""


def test_parse_keeps_the_defined_symbols_sorted() -> None:
    assert parse_nm(GNU_NM) == (
        Symbol(0x1000, "_init", "T"),
        Symbol(0x1139, "work", "T"),
        Symbol(0x1149, "helper", "t"),
        Symbol(0x1149, "main", "T"),
        Symbol(0x4010, "completed.0", "B"),
    )


def test_the_kept_text_reads_back() -> None:
    symbols = parse_nm(GNU_NM)
    text = format_symbols(symbols)
    assert text.splitlines()[0] == "0000000000001000 T _init"
    assert parse_nm(text) == symbols


def test_added_removed_moved() -> None:
    before = parse_nm("1000 T main\n1010 T work\n1020 T gone\n")
    after = parse_nm("1000 T main\n1018 T work\n1030 T helper\n")
    diff = diff_symbols(before, after)
    assert diff.added == (Symbol(0x1030, "helper", "T"),)
    assert diff.removed == (Symbol(0x1020, "gone", "T"),)
    assert diff.moved == ((Symbol(0x1010, "work", "T"), Symbol(0x1018, "work", "T")),)
    assert diff.stat() == f"+1 {MINUS}1 ~1"
    assert diff.text() == (
        "+0000000000001030 T helper\n"
        "-0000000000001020 T gone\n"
        "~work 0000000000001010 -> 0000000000001018 (+8)\n"
    )


def test_a_name_defined_twice_is_paired_in_address_order() -> None:
    before = parse_nm("10 t helper\n20 t helper\n")
    after = parse_nm("10 t helper\n20 t helper\n30 t helper\n")
    diff = diff_symbols(before, after)
    assert (len(diff.added), len(diff.removed), len(diff.moved)) == (1, 0, 0)
    assert diff.added[0].address == 0x30


def test_a_type_change_alone_is_no_change() -> None:
    assert diff_symbols(parse_nm("10 T f\n"), parse_nm("10 t f\n")).unchanged


_symbols = st.lists(
    st.builds(
        Symbol,
        st.integers(0, 2**20),
        st.sampled_from(["main", "work", "helper", "a", "b", "c.0"]),
        st.sampled_from(["T", "t", "D", "B"]),
    ),
    max_size=30,
)


@given(_symbols)
def test_a_list_against_itself_is_unchanged(symbols: list[Symbol]) -> None:
    diff = diff_symbols(symbols, list(reversed(symbols)))
    assert diff.unchanged
    assert diff.stat() == f"+0 {MINUS}0 ~0"
    assert diff.text() == ""


@given(_symbols, _symbols)
def test_the_counts_add_up(before: list[Symbol], after: list[Symbol]) -> None:
    diff = diff_symbols(before, after)
    back = diff_symbols(after, before)
    assert len(after) == len(before) + len(diff.added) - len(diff.removed)
    assert (len(back.added), len(back.removed), len(back.moved)) == (
        len(diff.removed),
        len(diff.added),
        len(diff.moved),
    )
    assert all(a.name == b.name and a.address != b.address for a, b in diff.moved)
    assert len(diff.text().splitlines()) == len(diff.added) + len(diff.removed) + len(diff.moved)


@given(_symbols)
def test_format_and_parse_round_trip(symbols: list[Symbol]) -> None:
    assert parse_nm(format_symbols(symbols)) == tuple(sorted(symbols))


def test_sizes_of_nm_s_are_kept_and_read_back() -> None:
    listed = parse_nm(
        "0000000000001139 0000000000000010 T work\n"
        "0000000000001000 T _init\n"
        "                 U printf@GLIBC_2.2.5\n"
        "0000000000004010 0000000000000001 b completed.0\n"
    )
    assert [(s.name, s.size) for s in listed] == [
        ("_init", None),
        ("work", 16),
        ("completed.0", 1),
    ]
    text = format_symbols(listed)
    assert "0000000000001139 0000000000000010 T work\n" in text
    assert [(s.name, s.size) for s in parse_nm(text)] == [(s.name, s.size) for s in listed]


def test_code_moves_tell_moved_functions_from_changed_ones() -> None:
    before = parse_nm("1000 20 T main\n1040 30 T work\n1080 10 t helper\n2000 8 D table\n")
    after = parse_nm(
        "1000 20 T main\n1010 30 T pad\n1050 30 T work\n1090 18 t helper\n2010 8 D table\n"
    )
    moves = code_moves(diff_symbols(before, after), before, after)
    assert moves.moved == (("helper", 16), ("work", 16))  # the data symbol is no function
    assert moves.resized == (("helper", 16, 24),)
    assert (moves.added, moves.removed, moves.sized) == (1, 0, 2)
    assert not moves.only_moved
    assert moves.text() == (
        "2 functions moved (helper +16 B, work +16 B), 1 function changed size "
        "(helper 16 → 24 B), 1 added"
    )
    kept = parse_nm("1000 20 T main\n1010 30 T pad\n1050 30 T work\n1090 10 t helper\n")
    assert code_moves(diff_symbols(before, kept), before, kept).only_moved
    unsized = parse_nm("1000 T main\n1040 T work\n")
    moved = parse_nm("1000 T main\n1050 T work\n")
    unknown = code_moves(diff_symbols(unsized, moved), unsized, moved)
    assert not unknown.only_moved
    assert unknown.text() == "1 function moved, none with a known size"
    # a stub without a size (as _fini) moves beside functions with one: they decide
    stub = parse_nm("1000 20 T main\n1040 30 T work\n1080 T _fini\n")
    later = parse_nm("1000 20 T main\n1050 30 T work\n1090 T _fini\n")
    assert code_moves(diff_symbols(stub, later), stub, later).only_moved
