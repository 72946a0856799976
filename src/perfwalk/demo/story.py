"""The history of the demo project, commit by commit, as data.

``checksum`` is a small C tool that prints the CRC-32 of files, with its own
benchmark (``bench``). Six weeks of work by four people, from Monday
2026-01-05 to Sunday 2026-02-15, with these known events (labels in
:data:`CHANGES`):

* ``old-build-fixed`` (Wed 2026-01-14): the Makefile drops ``-Werror``. Before
  it, GCC 12's ``-Waddress`` warning about ``fs->name != NULL`` in main.c
  fails the build; the Makefile does not change before it, so its diff is a
  patch that builds every older checkout (the demo's quirk).
* ``slower`` (Wed 2026-01-21): ``-l`` counts lines in a second pass over each
  block: ``bench`` takes about a third longer.
* ``broken`` (Wed 2026-01-28, 16:05) … ``broken-fixed`` (Thu 2026-01-29,
  09:50): a new header is included but was never added; nothing builds in
  between (four commits, in the evening and the night).
* ``faster`` (Thu 2026-02-05): the newline count moves into the CRC loop:
  ``bench`` is back to its old time, a quarter less than just before.

Every other commit changes documents, tests, the Makefile or the code in ways
that do not change the speed of the benchmarked loop. ``bench`` links crc32.o
first and compiles it with ``-falign-functions=4096``, so that an edit of bench.c
cannot move the timed code within a page: GCC puts ``main`` in ``.text.startup``,
which the linker places before all other code, and a new libc call adds PLT
entries before it, so a ``printf`` added to bench.c moved ``crc32_update`` by 16
bytes and made the loop 3-5 % faster or slower on some machines, a real
code-layout effect that a walk (in rounds, above all) rightly reported. Times are UTC; each
author has a time zone (shown by git). ``{{label}}`` in a body becomes the
abbreviated id of the labelled commit.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from perfwalk.demo import texts

# Operations on the tree, applied in order to the files of the previous commit.


@dataclass(frozen=True)
class Put:
    """Create or replace a file with ``text``."""

    path: str
    text: str


@dataclass(frozen=True)
class Source:
    """Create or replace a file with the package data file ``files/<name>``."""

    path: str
    name: str


@dataclass(frozen=True)
class Edit:
    """Replace the one occurrence of ``old`` in a file with ``new``."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Vector:
    """Add a test vector (CRC and size of ``text``) to tests/vectors.txt."""

    text: str


@dataclass(frozen=True)
class Note:
    """Add an item to the "Unreleased" list of CHANGELOG.md."""

    text: str


Op = Put | Source | Edit | Vector | Note


@dataclass(frozen=True)
class Author:
    name: str
    email: str
    tz: str  # git's +HHMM offset


@dataclass(frozen=True)
class Change:
    """One commit: when (day from 2026-01-05, UTC time), who, why, what."""

    day: int
    time: str
    author: str
    subject: str
    body: str
    ops: tuple[Op, ...]
    label: str = ""


AUTHORS: dict[str, Author] = {
    "ada": Author("Ada Lindqvist", "ada@checksum.example.org", "+0100"),
    "tomas": Author("Tomás Ferreira", "tomas@checksum.example.org", "+0000"),
    "priya": Author("Priya Raman", "priya.raman@checksum.example.org", "-0500"),
    "jonas": Author("Jonas Becker", "jb@checksum.example.org", "+0100"),
}

START = "2026-01-05"  # day 0, a Monday

_SUMMARY = '\necho "$((total - failed)) passed, $failed failed"\n'


def crc(data: bytes) -> int:
    """The CRC-32 the demo tool prints for ``data``."""
    return zlib.crc32(data)


def check(line: str) -> Edit:
    """Add a check to tests/run.sh, before its summary line."""
    return Edit("tests/run.sh", _SUMMARY, "\n" + line + "\n" + _SUMMARY)


def usage(old: str, new: str) -> Edit:
    return Edit("docs/usage.md", old, new)


def bench_md(old: str, new: str) -> Edit:
    return Edit("docs/benchmark.md", old, new)


def api_md(old: str, new: str) -> Edit:
    return Edit("docs/api.md", old, new)


def makefile(old: str, new: str) -> Edit:
    return Edit("Makefile", old, new)


def readme(old: str, new: str) -> Edit:
    return Edit("README.md", old, new)


def man(old: str, new: str) -> Edit:
    return Edit("checksum.1", old, new)


_LINES_INPUT = b"a\nb\nc\n"
_NO_FINAL_NEWLINE = b"a\nb"
_ONE_LINE = b"a\n"

_README_END = "builds `checksum` and `bench`, a benchmark of the CRC loop.\n"

_UNTRUSTED_SUBJECT = (
    "docs: file names such as \"$(touch /tmp/x)\" or '<script>alert(1)</script>'"
    " are printed as they are"
)


CHANGES: tuple[Change, ...] = (
    # Week 1: the first version, its tests and documents.
    Change(
        0,
        "09:12",
        "ada",
        "Initial import of checksum",
        "checksum prints the CRC-32 and the size of files, like cksum(1) but with\n"
        "the polynomial of zlib, gzip and PNG, so that its output can be compared\n"
        "with what those formats store.\n\n"
        "The CRC loop reads four bytes at a time (slicing-by-4). bench times it\n"
        "on a buffer in memory and prints its result in the lab's VALUE format,\n"
        "so that the loop's speed can be followed from commit to commit.",
        (
            Put("Makefile", texts.MAKEFILE),
            Put("checksum.h", texts.CHECKSUM_H),
            Source("crc32.c", "crc32-1.c"),
            Source("main.c", "main-1.c"),
            Source("bench.c", "bench-1.c"),
            Put("README.md", texts.README),
            Put("LICENSE", texts.LICENSE),
            Put(".gitignore", texts.GITIGNORE),
        ),
        label="first",
    ),
    Change(
        0,
        "10:47",
        "ada",
        "Add test vectors and make check",
        "tests/run.sh sums each vector of tests/vectors.txt with ./checksum and\n"
        "compares the CRC and the size. The first vectors are the CRC-32 check\n"
        'value ("123456789" gives 0xcbf43926), the empty input and two short\n'
        "strings.",
        (
            Put("tests/run.sh", texts.RUN_SH),
            Put("tests/vectors.txt", texts.VECTORS),
            Vector("123456789"),
            Vector(""),
            Vector("a"),
            Vector("abc"),
        ),
    ),
    Change(
        0,
        "14:30",
        "tomas",
        "tests: add longer vectors",
        "Inputs longer than one word, so that the four-byte loop runs more than\n"
        "once, and one that ends in a partial word.",
        (
            Vector("message digest"),
            Vector("abcdefghijklmnopqrstuvwxyz"),
            Vector("The quick brown fox jumps over the lazy dog"),
        ),
    ),
    Change(
        0,
        "16:55",
        "ada",
        "README: describe the output format",
        "",
        (
            readme(
                _README_END,
                _README_END + "\n## Output\n\n"
                "Each line is the CRC as an unsigned decimal number, the size in bytes\n"
                "and the file name. For the standard input the name is left out:\n\n"
                "    $ printf 123456789 | checksum\n"
                "    3421780262 9\n",
            ),
        ),
    ),
    Change(
        1,
        "08:40",
        "tomas",
        "main: add -x to print the CRC in hexadecimal",
        "zip -v, pngcheck and most web pages show a CRC-32 as eight hexadecimal\n"
        "digits. -x prints it that way, with leading zeros, so that the two can\n"
        "be compared by eye.",
        (
            Source("main.c", "main-2.c"),
            readme(
                "    3421780262 9\n",
                "    3421780262 9\n\n`-x` prints the CRC in hexadecimal: `cbf43926 9`.\n",
            ),
        ),
    ),
    Change(
        1,
        "11:05",
        "ada",
        "Add CHANGELOG.md",
        "One line per change that a user notices, under the release that brings\n"
        "it; the next release's changes go under Unreleased.",
        (Put("CHANGELOG.md", texts.CHANGELOG),),
    ),
    Change(
        1,
        "13:20",
        "priya",
        "Add AUTHORS",
        "",
        (Put("AUTHORS", texts.AUTHORS),),
    ),
    Change(
        1,
        "15:45",
        "tomas",
        "tests: check -x output",
        "run.sh gets an expect() helper for checks that are not vectors; the\n"
        "first one is the check value in hexadecimal.",
        (Put("tests/run.sh", texts.RUN_SH_2),),
    ),
    Change(
        2,
        "09:30",
        "tomas",
        "crc32: explain the slicing-by-4 tables",
        "A comment at the top of crc32.c says what table[k] holds and why four\n"
        "tables make the loop faster. No code change.",
        (Source("crc32.c", "crc32-2.c"),),
    ),
    Change(
        2,
        "12:10",
        "ada",
        "docs: add a usage page",
        "",
        (Put("docs/usage.md", texts.USAGE_MD),),
    ),
    Change(
        2,
        "15:00",
        "priya",
        "docs/usage.md: fix the example for standard input",
        "The pipe was the wrong way round: gzip has to decompress before\n"
        "checksum can sum what it writes.",
        (usage("    checksum data.gz | gzip -dc\n", "    gzip -dc data.gz | checksum\n"),),
    ),
    Change(
        2,
        "17:25",
        "ada",
        "README: link to docs/usage.md",
        "",
        (
            readme(
                "`-x` prints the CRC in hexadecimal: `cbf43926 9`.\n",
                "`-x` prints the CRC in hexadecimal: `cbf43926 9`. See\n"
                "[docs/usage.md](docs/usage.md) for every option.\n",
            ),
        ),
    ),
    Change(
        3,
        "08:55",
        "ada",
        "main: read in 64 KiB blocks",
        "4 KiB reads cost one system call per page. Reading 64 KiB at a time cuts\n"
        "the number of calls by 16; the buffer moves off the stack. The CRC loop\n"
        "itself does not change, and neither does bench.",
        (Source("main.c", "main-3.c"),),
    ),
    Change(
        3,
        "11:40",
        "tomas",
        "tests: add a vector with every printable ASCII character",
        "",
        (Vector("".join(chr(c) for c in range(0x21, 0x7F))),),
    ),
    Change(
        3,
        "14:15",
        "priya",
        "CHANGELOG: note the larger read size",
        "",
        (Note("Files are read in 64 KiB blocks."),),
    ),
    Change(
        3,
        "16:30",
        "jonas",
        "gitignore: ignore editor backup files",
        "",
        (Put(".gitignore", texts.GITIGNORE + "*~\n*.swp\n"),),
    ),
    Change(
        4,
        "09:05",
        "ada",
        "docs: describe the exit status",
        "",
        (
            usage(
                "way zip and PNG tools show it. `-V` prints the version.\n",
                "way zip and PNG tools show it. `-V` prints the version.\n\n"
                "## Exit status\n\n"
                "`checksum` exits with 0 when it summed every file, and with 1 when a\n"
                "file could not be opened or read; it carries on with the next file, so\n"
                "that one missing file does not hide the others. Each error is reported\n"
                "on a seperate line on the standard error.\n",
            ),
        ),
    ),
    Change(
        4,
        "13:35",
        "tomas",
        "tests: add a UTF-8 vector",
        "checksum sums bytes, not characters: the vector has two-byte characters.",
        (Vector("naïve café"),),
    ),
    Change(
        4,
        "14:05",
        "priya",
        "main: say why a read failed",
        'A failed read printed "read error" and nothing else. Print the reason\n'
        'from errno, as for a failed open: "Is a directory" is the usual one.',
        (Source("main.c", "main-4.c"),),
    ),
    Change(
        4,
        "15:20",
        "ada",
        "docs: add benchmark notes",
        "What bench measures, what its output means, and why it keeps the best\nround.",
        (Put("docs/benchmark.md", texts.BENCHMARK_MD),),
    ),
    Change(
        4,
        "17:40",
        "jonas",
        "README: add build requirements",
        "",
        (
            readme(
                "## Build\n\n    make\n",
                "## Build\n\nA C99 compiler and make (BSD or GNU):\n\n    make\n",
            ),
        ),
    ),
    Change(
        5,
        "10:15",
        "ada",
        "bench: print the compiler version",
        "A benchmark result without the compiler that built it is hard to\n"
        "compare. The version goes on a comment line, which parsers skip.",
        (Source("bench.c", "bench-2.c"),),
    ),
    Change(
        6,
        "19:30",
        "tomas",
        "docs: add a page on how the CRC is computed",
        "",
        (Put("docs/crc.md", texts.CRC_MD),),
    ),
    # Week 2: the build is fixed for newer compilers; install targets.
    Change(
        7,
        "08:30",
        "ada",
        "Add CONTRIBUTING.md",
        "",
        (Put("CONTRIBUTING.md", texts.CONTRIBUTING),),
    ),
    Change(
        7,
        "10:10",
        "jonas",
        "tests: stop early when ./checksum was not built",
        'Every vector failed with "not found"; one message saying what to do is\nenough.',
        (
            Edit(
                "tests/run.sh",
                'cd "$(dirname "$0")/.." || exit 2\n',
                'cd "$(dirname "$0")/.." || exit 2\n\n'
                "if [ ! -x ./checksum ]; then\n"
                '\techo "tests/run.sh: no ./checksum; run make first" >&2\n'
                "\texit 2\n"
                "fi\n",
            ),
        ),
    ),
    Change(
        7,
        "13:45",
        "priya",
        "docs/crc.md: fix the polynomial",
        "0x04c11db6 has the x^0 term missing; the polynomial is 0x04c11db7.",
        (Edit("docs/crc.md", "(0x04c11db6 in", "(0x04c11db7 in"),),
    ),
    Change(
        7,
        "16:20",
        "tomas",
        "tests: add a vector of 64 bytes",
        "",
        (Vector("a" * 64),),
    ),
    Change(
        8,
        "09:20",
        "jonas",
        "crc32: byte-swap the words on big-endian hosts",
        "Slicing-by-4 reads four bytes as one little-endian word. On a\n"
        "big-endian host (a PowerPC in qemu) every CRC of four bytes or more\n"
        "was wrong. Swap the word there; on little-endian hosts the #if leaves\n"
        "the code as it was.",
        (Source("crc32.c", "crc32-3.c"),),
    ),
    Change(
        8,
        "11:00",
        "ada",
        "CHANGELOG: the big-endian fix",
        "",
        (Note("Correct CRCs on big-endian hosts."),),
    ),
    Change(
        8,
        "14:40",
        "tomas",
        "docs/crc.md: explain the byte order",
        "",
        (
            Edit(
                "docs/crc.md",
                '`crc32.c` does ("slicing-by-4").\n',
                '`crc32.c` does ("slicing-by-4").\n\n'
                "The word is read in little-endian order whatever the host: byte 0 of\n"
                "the message must meet the lowest byte of the CRC. Big-endian hosts\n"
                "swap it after the load.\n",
            ),
        ),
    ),
    Change(
        8,
        "17:05",
        "priya",
        "README: say where it was tested",
        "",
        (
            readme(
                "## Build\n",
                "## Platforms\n\n"
                "Tested on Linux (x86-64, arm64), FreeBSD and OpenBSD (amd64), and on a\n"
                "big-endian PowerPC in qemu.\n\n## Build\n",
            ),
        ),
    ),
    Change(
        9,
        "10:20",
        "ada",
        "build: do not build with -Werror by default",
        "GCC 12 warns about the NULL test of file_sum.name in print_sum()\n"
        "(-Waddress: the address of an array is never NULL), and -Werror turns\n"
        "the warning into an error: checksum did not build at all with the\n"
        "compiler of Debian 12.\n\n"
        "A compiler upgrade must not break the build of a release. The default\n"
        "CFLAGS lose -Werror; `make warnings` builds with -Wextra -Werror for\n"
        "developers. The test itself goes in a separate commit.",
        (
            makefile("CFLAGS =\t-O2 -Wall -Werror\n", "CFLAGS =\t-O2 -Wall\n"),
            makefile(
                "check: checksum\n\tsh tests/run.sh\n",
                "check: checksum\n\tsh tests/run.sh\n\n"
                "# What a developer builds before sending a patch: every warning is an error.\n"
                "warnings: clean\n"
                '\t$(MAKE) CFLAGS="-O2 -Wall -Wextra -Werror"\n',
            ),
            makefile(".PHONY: all check clean\n", ".PHONY: all check clean warnings\n"),
        ),
        label="old-build-fixed",
    ),
    Change(
        9,
        "13:00",
        "tomas",
        "CONTRIBUTING: run make warnings before sending",
        "",
        (
            Edit(
                "CONTRIBUTING.md",
                "- run `make check` before sending;\n",
                "- run `make check` and `make warnings` before sending;\n",
            ),
        ),
    ),
    Change(
        9,
        "15:50",
        "priya",
        "tests: cover lengths that are not a multiple of four",
        "The byte loop after the word loop had only been run by the 3-byte\nvector.",
        (Vector("abcde"), Vector("abcdefg")),
    ),
    Change(
        10,
        "09:15",
        "ada",
        "main: drop the always-true NULL test of the file name",
        "fs->name is an array; its address is never NULL (GCC 12: -Waddress).\n"
        "`make warnings` passes again.",
        (Source("main.c", "main-5.c"),),
    ),
    Change(
        10,
        "11:30",
        "jonas",
        "docs: fix typos",
        "",
        (
            usage("on a seperate line", "on a separate line"),
            bench_md("every occurence.", "every occurrence."),
        ),
    ),
    Change(
        10,
        "16:10",
        "tomas",
        "CHANGELOG: builds without -Werror",
        "",
        (Note("The default build no longer uses -Werror; `make warnings` does."),),
    ),
    Change(
        11,
        "08:50",
        "jonas",
        "Makefile: add install and uninstall targets",
        "PREFIX and DESTDIR as usual, for packagers.",
        (
            makefile(
                "PROGS =\t\tchecksum bench\n",
                "PROGS =\t\tchecksum bench\nPREFIX =\t/usr/local\nBINDIR =\t$(PREFIX)/bin\n",
            ),
            makefile(
                "clean:\n",
                "install: checksum\n"
                "\tmkdir -p $(DESTDIR)$(BINDIR)\n"
                "\tcp checksum $(DESTDIR)$(BINDIR)/checksum\n"
                "\tchmod 755 $(DESTDIR)$(BINDIR)/checksum\n\n"
                "uninstall:\n"
                "\trm -f $(DESTDIR)$(BINDIR)/checksum\n\n"
                "clean:\n",
            ),
            makefile(
                ".PHONY: all check clean warnings\n",
                ".PHONY: all check clean install uninstall warnings\n",
            ),
        ),
    ),
    Change(
        11,
        "12:25",
        "ada",
        "README: document make install",
        "",
        (
            readme(
                _README_END,
                _README_END + "\n    make install PREFIX=$HOME/.local\n\n"
                "installs `checksum` in $HOME/.local/bin.\n",
            ),
        ),
    ),
    Change(
        11,
        "14:05",
        "priya",
        "tests: add the pangram with a final period",
        "One byte more than the pangram vector, and a different CRC.",
        (Vector("The quick brown fox jumps over the lazy dog."),),
    ),
    Change(
        11,
        "17:30",
        "tomas",
        "docs/benchmark.md: show a sample output",
        "",
        (
            bench_md(
                "- `throughput`: bytes per second (higher is better).\n",
                "- `throughput`: bytes per second (higher is better).\n\n"
                "For example:\n\n"
                "    # cc 12.2.0\n"
                "    # 50 rounds of 20 x 65536 bytes, crc 1f0a5c2e\n"
                "    VALUE 53.27 us checksum\n"
                "    VALUE 1.23e+09 bytes/sec throughput\n",
            ),
        ),
    ),
    Change(
        12,
        "11:45",
        "jonas",
        "Add .editorconfig",
        "Tabs for C and the Makefile, spaces in Markdown.",
        (Put(".editorconfig", texts.EDITORCONFIG),),
    ),
    # Week 3: the stream API, then -l (a second pass over the data).
    Change(
        14,
        "09:00",
        "ada",
        "Add a stream API: struct cksum, cksum_init() and cksum_update()",
        "main.c and bench.c both kept a CRC and a byte count side by side.\n"
        "struct cksum holds the running sums of one stream, so that a new sum\n"
        "(the line count asked for in #7) is added in one place.\n\n"
        "Nothing changes in what is computed. bench now times cksum_update(),\n"
        "which is what the tool calls; the time is the same.",
        (
            Edit(
                "checksum.h",
                "\n#endif /* CHECKSUM_H */\n",
                texts.STREAM_API + "\n#endif /* CHECKSUM_H */\n",
            ),
            Source("crc32.c", "crc32-4.c"),
            Source("main.c", "main-6.c"),
            Source("bench.c", "bench-3.c"),
        ),
    ),
    Change(
        14,
        "11:20",
        "tomas",
        "docs: describe the library API",
        "",
        (Put("docs/api.md", texts.API_MD),),
    ),
    Change(
        14,
        "14:50",
        "priya",
        "tests: add a 100-byte vector",
        "",
        (Vector("0123456789" * 10),),
    ),
    Change(
        14,
        "17:15",
        "jonas",
        "README: quote the install example",
        "$HOME with a space in it broke the example.",
        (
            readme(
                "    make install PREFIX=$HOME/.local\n", '    make install PREFIX="$HOME/.local"\n'
            ),
        ),
    ),
    Change(
        15,
        "08:45",
        "tomas",
        "docs/api.md: crc32_update() stays",
        "",
        (
            api_md(
                "    crc = crc32_update(crc, b, nb);\n",
                "    crc = crc32_update(crc, b, nb);\n\n"
                "It stays: the stream API is built on it, not a replacement.\n",
            ),
        ),
    ),
    Change(
        15,
        "13:30",
        "priya",
        "CHANGELOG: the stream API",
        "",
        (Note("A stream API, `struct cksum`, for programs that link crc32.o."),),
    ),
    Change(
        15,
        "13:55",
        "ada",
        "checksum.h: comment each field of struct cksum",
        "",
        (
            Edit(
                "checksum.h",
                "\tuint32_t\tcrc;\n\tuint64_t\tsize;\n",
                "\tuint32_t\tcrc;\t/* CRC-32 of the bytes so far */\n"
                "\tuint64_t\tsize;\t/* number of bytes so far */\n",
            ),
        ),
    ),
    Change(
        15,
        "16:40",
        "jonas",
        "tests: add a vector of one space",
        "read(1) in run.sh trims blanks around the text, but not inside it:\n"
        "check that a space in the middle survives.",
        (Vector("a b"),),
    ),
    Change(
        16,
        "09:35",
        "ada",
        "docs/usage.md: a table of the options",
        "",
        (
            usage(
                "`-x` prints the CRC in hexadecimal (eight digits, with leading zeros), the\n"
                "way zip and PNG tools show it. `-V` prints the version.\n",
                "| option | effect |\n"
                "|---|---|\n"
                "| `-x` | the CRC in hexadecimal (eight digits, with leading zeros) |\n"
                "| `-V` | print the version and exit |\n",
            ),
        ),
    ),
    Change(
        16,
        "15:40",
        "priya",
        "checksum: add -l to count lines",
        "wc -l and checksum in one read of a file: -l adds the number of newline\n"
        "characters after the size.\n\n"
        "cksum_update() counts the newlines of each block with count_lines(),\n"
        "so that every user of the stream API has the count in struct cksum.\n\n"
        "Closes #7.",
        (
            Edit(
                "checksum.h",
                "\tuint64_t\tsize;\t/* number of bytes so far */\n",
                "\tuint64_t\tsize;\t/* number of bytes so far */\n"
                "\tuint64_t\tlines;\t/* number of newline characters so far */\n",
            ),
            Source("crc32.c", "crc32-5.c"),
            Source("main.c", "main-7.c"),
        ),
        label="slower",
    ),
    Change(
        16,
        "18:05",
        "priya",
        "tests: cover -l",
        "",
        (
            check(
                f'expect "-l" "$(printf \'a\\nb\\nc\\n\' | ./checksum -l)" '
                f'"{crc(_LINES_INPUT)} 6 3"'
            ),
        ),
    ),
    Change(
        17,
        "09:10",
        "ada",
        "docs/usage.md: document -l",
        "",
        (
            usage("    checksum [-Vx] [file ...]\n", "    checksum [-lVx] [file ...]\n"),
            usage(
                "| `-V` | print the version and exit |\n",
                "| `-l` | add the number of lines (newline characters) after the size |\n"
                "| `-V` | print the version and exit |\n",
            ),
        ),
    ),
    Change(
        17,
        "12:00",
        "tomas",
        "CHANGELOG: -l",
        "",
        (Note("`-l` prints the number of lines after the size."),),
    ),
    Change(
        17,
        "15:25",
        "jonas",
        "README: an example with -l",
        "",
        (
            readme(
                "[docs/usage.md](docs/usage.md) for every option.\n",
                "[docs/usage.md](docs/usage.md) for every option.\n\n"
                "`-l` adds the number of lines, as `wc -l` counts them:\n\n"
                "    $ checksum -l README.md\n"
                "    2211096327 1604 52 README.md\n",
            ),
        ),
    ),
    Change(
        18,
        "08:35",
        "ada",
        "docs/api.md: the lines field",
        "",
        (
            api_md(
                "`c.crc` and `c.size` hold the CRC and the number of bytes.",
                "`c.crc`, `c.size` and `c.lines` hold the CRC, the number of bytes and\n"
                "the number of newline characters.",
            ),
        ),
    ),
    Change(
        18,
        "11:50",
        "tomas",
        "tests: add a pangram without repeated letters",
        "",
        (Vector("Pack my box with five dozen liquor jugs"),),
    ),
    Change(
        18,
        "14:20",
        "priya",
        "docs/benchmark.md: how to compare two builds",
        "",
        (
            bench_md(
                "the closest to what the loop costs.",
                "the closest to what the loop costs.\n\n"
                "To compare two builds, run each one ten times and give the two lists\n"
                "of `checksum` values to ministat(1): it says whether the difference\n"
                "is larger than the noise, and by how much.\n\n"
                "Other remarks:",
            ),
        ),
    ),
    Change(
        18,
        "17:45",
        "ada",
        "Makefile: make clean removes core files",
        "",
        (makefile("\trm -f *.o $(PROGS)\n", "\trm -f *.o *.core core $(PROGS)\n"),),
    ),
    Change(
        19,
        "10:30",
        "tomas",
        "Add a manual page",
        "checksum.1 in mdoc; make install puts it in $(PREFIX)/share/man/man1.",
        (
            Put("checksum.1", texts.MANPAGE),
            makefile(
                "BINDIR =\t$(PREFIX)/bin\n",
                "BINDIR =\t$(PREFIX)/bin\nMANDIR =\t$(PREFIX)/share/man/man1\n",
            ),
            makefile(
                "\tchmod 755 $(DESTDIR)$(BINDIR)/checksum\n",
                "\tchmod 755 $(DESTDIR)$(BINDIR)/checksum\n"
                "\tmkdir -p $(DESTDIR)$(MANDIR)\n"
                "\tcp checksum.1 $(DESTDIR)$(MANDIR)/checksum.1\n",
            ),
            makefile(
                "\trm -f $(DESTDIR)$(BINDIR)/checksum\n",
                "\trm -f $(DESTDIR)$(BINDIR)/checksum $(DESTDIR)$(MANDIR)/checksum.1\n",
            ),
        ),
    ),
    Change(
        20,
        "16:00",
        "tomas",
        "checksum.1: describe -l",
        "",
        (
            man(".Op Fl Vx\n", ".Op Fl lVx\n"),
            man(
                ".It Fl V\n",
                ".It Fl l\nPrint the number of newline characters after the size.\n.It Fl V\n",
            ),
        ),
    ),
    # Week 4: a header is split off and forgotten; the build is broken overnight.
    Change(
        21,
        "08:55",
        "ada",
        "docs/usage.md: point to the manual page for the options",
        "",
        (
            usage(
                "| option | effect |\n",
                "The manual page, checksum(1), is the reference; in short:\n\n"
                "| option | effect |\n",
            ),
        ),
    ),
    Change(
        21,
        "10:40",
        "jonas",
        "tests: check the exit status for a missing file",
        "",
        (
            check(
                "./checksum tests/no-such-file 2>/dev/null\n"
                'expect "missing file, exit status" "$?" 1'
            ),
        ),
    ),
    Change(
        21,
        "13:15",
        "priya",
        "README: mention the manual page",
        "",
        (
            readme(
                "installs `checksum` in $HOME/.local/bin.\n",
                "installs `checksum` in $HOME/.local/bin and its manual page, checksum(1).\n",
            ),
        ),
    ),
    Change(
        21,
        "16:30",
        "tomas",
        "CHANGELOG: the manual page",
        "",
        (Note("A manual page, checksum(1), installed by `make install`."),),
    ),
    Change(
        22,
        "09:25",
        "ada",
        "docs/crc.md: a worked example",
        "",
        (
            Edit(
                "docs/crc.md",
                "## One byte at a time\n",
                "For example, the CRC-32 of the single byte `a` is 0xe8b7be43 (3904355907):\n"
                "0x61 is reflected, xored with 0xffffffff, reduced, and inverted.\n\n"
                "## One byte at a time\n",
            ),
        ),
    ),
    Change(
        22,
        "11:55",
        "tomas",
        "tests: add the vectors of hello world",
        "With and without the comma, as in the two classic programs.",
        (Vector("hello world"), Vector("hello, world")),
    ),
    Change(
        22,
        "14:35",
        "priya",
        "docs/benchmark.md: frequency scaling",
        "",
        (
            bench_md(
                "Other remarks:",
                "Other remarks:\n\n"
                "- Frequency scaling and turbo modes move the numbers by more than most\n"
                "  changes do: fix the frequency, or compare runs made one after the\n"
                "  other on an idle machine.\n",
            ),
        ),
    ),
    Change(
        22,
        "17:10",
        "jonas",
        ".editorconfig: trim trailing whitespace",
        "",
        (
            Edit(
                ".editorconfig",
                "charset = utf-8\n",
                "charset = utf-8\ntrim_trailing_whitespace = true\n",
            ),
        ),
    ),
    Change(
        23,
        "09:00",
        "ada",
        "CONTRIBUTING: commit messages",
        "",
        (
            Edit(
                "CONTRIBUTING.md",
                "- say in the commit message what changed and why.\n",
                "- say in the commit message what changed and why.\n\n"
                "## Commit messages\n\n"
                'A subject line of at most 72 characters, "area: what", in the\n'
                'imperitive mood ("crc32: unroll the loop"), a blank line, then why.\n',
            ),
        ),
    ),
    Change(
        23,
        "11:30",
        "tomas",
        _UNTRUSTED_SUBJECT,
        "checksum prints a file name byte for byte. A script that does\n\n"
        '    eval "$(checksum *)"\n\n'
        "runs whatever a name like `$(touch /tmp/x)` or `; rm -rf ~` contains,\n"
        "and a web page that shows our output without escaping runs\n"
        "<script>alert(1)</script> and breaks on a lone \" or '. Say so in the\n"
        "usage page: quote names in scripts, escape them in HTML, and use -x\n"
        "with `cut -d' ' -f1` when only the CRC is needed.",
        (
            usage(
                "## Exit status\n",
                "## File names\n\n"
                "Names are printed as they are, byte for byte: a file may be called\n"
                "`$(touch /tmp/x)` or `<script>alert(1)</script>`. Never give the output\n"
                "to `eval` or `sh -c`; quote it in scripts and escape it in HTML.\n\n"
                "## Exit status\n",
            ),
        ),
    ),
    Change(
        23,
        "14:00",
        "priya",
        "tests: add the vector of the tool's name",
        "",
        (Vector("checksum"),),
    ),
    Change(
        23,
        "16:05",
        "jonas",
        "cksum: move the stream API to its own header",
        "checksum.h mixes the one-call CRC function and the stream API. cksum.h\n"
        "gets struct cksum and the cksum_*() functions; checksum.h includes it,\n"
        "so that no caller has to change.",
        (
            Edit(
                "checksum.h",
                texts.STREAM_API.replace(
                    "\tuint32_t\tcrc;\n\tuint64_t\tsize;\n",
                    "\tuint32_t\tcrc;\t/* CRC-32 of the bytes so far */\n"
                    "\tuint64_t\tsize;\t/* number of bytes so far */\n"
                    "\tuint64_t\tlines;\t/* number of newline characters so far */\n",
                ),
                "",
            ),
            Edit(
                "checksum.h",
                "#include <stdint.h>\n",
                '#include <stdint.h>\n\n#include "cksum.h"\t/* the stream API */\n',
            ),
        ),
        label="broken",
    ),
    Change(
        23,
        "17:20",
        "tomas",
        "docs/api.md: the stream API is in cksum.h",
        "",
        (
            api_md(
                "## A stream\n\n",
                "## A stream\n\n"
                "The stream API is declared in cksum.h (checksum.h includes it):\n\n",
            ),
        ),
    ),
    Change(
        23,
        "19:45",
        "priya",
        "CHANGELOG: cksum.h",
        "",
        (Note("The stream API is declared in its own header, cksum.h."),),
    ),
    Change(
        24,
        "08:10",
        "ada",
        "CONTRIBUTING: fix a typo",
        "",
        (Edit("CONTRIBUTING.md", "imperitive mood", "imperative mood"),),
    ),
    Change(
        24,
        "09:50",
        "ada",
        "Add cksum.h, forgotten when the stream API moved",
        '{{broken}} ("cksum: move the stream API to its own header") includes\n'
        "cksum.h but did not add it, so that nothing has built since yesterday\n"
        "afternoon:\n\n"
        "    checksum.h:13:10: fatal error: cksum.h: No such file or directory\n\n"
        "Add the file, and list both headers as dependencies of the objects so\n"
        "that a change to cksum.h rebuilds them.\n\n"
        "Fixes: {{broken}}",
        (
            Put("cksum.h", texts.CKSUM_H),
            makefile(
                "main.o bench.o crc32.o: checksum.h\n",
                "main.o bench.o crc32.o: checksum.h cksum.h\n",
            ),
        ),
        label="broken-fixed",
    ),
    Change(
        24,
        "13:30",
        "jonas",
        "CONTRIBUTING: build from a clean clone before pushing",
        "My cksum.h was in my tree and not in the commit; a clean clone would\nhave shown it.",
        (
            Edit(
                "CONTRIBUTING.md",
                "- run `make check` and `make warnings` before sending;\n",
                "- run `make check` and `make warnings` before sending, in a clean\n"
                "  clone: a file you forgot to add is still in your own tree;\n",
            ),
        ),
    ),
    Change(
        24,
        "16:15",
        "tomas",
        "tests: check that -x pads with zeros",
        'The CRC of "ae" is 0x00e7ddce: two leading zeros to print.',
        (check('expect "-x pads" "$(printf ae | ./checksum -x)" "00e7ddce 2"'),),
    ),
    Change(
        25,
        "09:40",
        "tomas",
        "main: add -h",
        "-h prints the usage on the standard output and exits with 0; an unknown\n"
        "option still prints it on the standard error and exits with 2.",
        (Source("main.c", "main-8.c"),),
    ),
    Change(
        25,
        "12:05",
        "ada",
        "checksum.1: document -h",
        "",
        (
            man(".Op Fl lVx\n", ".Op Fl hlVx\n"),
            man(".It Fl l\n", ".It Fl h\nPrint the usage and exit.\n.It Fl l\n"),
        ),
    ),
    Change(
        25,
        "15:30",
        "priya",
        "docs/usage.md: -h",
        "",
        (
            usage("    checksum [-lVx] [file ...]\n", "    checksum [-hlVx] [file ...]\n"),
            usage(
                "| `-l` |",
                "| `-h` | print the usage and exit |\n| `-l` |",
            ),
        ),
    ),
    Change(
        25,
        "17:55",
        "jonas",
        "tests: -h exits with status 0",
        "",
        (check('./checksum -h >/dev/null\nexpect "-h, exit status" "$?" 0'),),
    ),
    Change(
        26,
        "17:20",
        "priya",
        "docs/benchmark.md: the VALUE lines",
        "",
        (
            bench_md(
                "    VALUE <number> <unit> <name>\n",
                "    VALUE <number> <unit> <name>\n\n"
                "which perfwalk and the lab's other tools read without a custom parser:\n",
            ),
        ),
    ),
    Change(
        27,
        "18:10",
        "ada",
        "README: the road to 1.0",
        "",
        (
            readme(
                "## Platforms\n",
                "## Roadmap\n\n"
                "1.0 in February: the options as they are, a manual page, and no\n"
                "change in the output format after it.\n\n## Platforms\n",
            ),
        ),
        label="roadmap",
    ),
    # Week 5: the line count moves into the CRC loop.
    Change(
        28,
        "08:45",
        "ada",
        "docs/api.md: an example program",
        "",
        (
            api_md(
                "caller gets them.\n",
                "caller gets them.\n\n"
                "## Example\n\n"
                "    #include <stdio.h>\n"
                '    #include "checksum.h"\n\n'
                "    int\n"
                "    main(void)\n"
                "    {\n"
                "        unsigned char buf[65536];\n"
                "        struct cksum c;\n"
                "        size_t n;\n\n"
                "        cksum_init(&c);\n"
                "        while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)\n"
                "            cksum_update(&c, buf, n);\n"
                '        printf("%08lx\\n", (unsigned long)c.crc);\n'
                "        return 0;\n"
                "    }\n",
            ),
        ),
    ),
    Change(
        28,
        "11:15",
        "jonas",
        "tests: vectors of 15, 16 and 17 bytes",
        "Around the 16-byte mark where a slicing-by-8 or -16 loop would switch.",
        (
            Vector("abcdefghijklmno"),
            Vector("abcdefghijklmnop"),
            Vector("abcdefghijklmnopq"),
        ),
    ),
    Change(
        28,
        "14:00",
        "tomas",
        "crc32: name the polynomial constant",
        "POLY becomes CRC32_POLY, with the unreflected value in a comment. No\ncode change.",
        (Source("crc32.c", "crc32-6.c"),),
    ),
    Change(
        28,
        "16:50",
        "priya",
        "CHANGELOG: -h",
        "",
        (Note("`-h` prints the usage."),),
    ),
    Change(
        29,
        "09:30",
        "ada",
        'Revert "README: the road to 1.0"',
        "This reverts commit {{roadmap:40}}.\n\n"
        "The plan changes every week; it lives in the issue tracker, not in\n"
        "the README.",
        (
            readme(
                "## Roadmap\n\n"
                "1.0 in February: the options as they are, a manual page, and no\n"
                "change in the output format after it.\n\n## Platforms\n",
                "## Platforms\n",
            ),
        ),
    ),
    Change(
        29,
        "12:45",
        "tomas",
        "docs/crc.md: references",
        "",
        (
            Edit(
                "docs/crc.md",
                "swap it after the load.\n",
                "swap it after the load.\n\n"
                "## References\n\n"
                "- D. V. Sarwate, Computation of cyclic redundancy checks via table\n"
                "  look-up, Communications of the ACM 31(8), 1988.\n"
                "- M. E. Kounavis and F. L. Berry, A systematic approach to building\n"
                "  high performance software-based CRC generators, ISCC 2005\n"
                '  ("slicing-by-8").\n',
            ),
        ),
    ),
    Change(
        29,
        "15:10",
        "priya",
        "bench: say that the buffer is text-like",
        "Only the comment changes: the buffer has printable characters and\n"
        "newlines, like the files people check.",
        (Source("bench.c", "bench-4.c"),),
    ),
    Change(
        30,
        "09:05",
        "ada",
        "docs/benchmark.md: run it on an idle machine",
        "",
        (
            bench_md(
                "  other on an idle machine.\n",
                "  other on an idle machine.\n"
                "- A build, a browser or a backup running at the same time makes every\n"
                "  round slower; the best round then tells little.\n",
            ),
        ),
    ),
    Change(
        30,
        "14:20",
        "jonas",
        "Makefile: honour CPPFLAGS",
        "",
        (makefile("\t$(CC) $(CFLAGS) -c $<\n", "\t$(CC) $(CPPFLAGS) $(CFLAGS) -c $<\n"),),
    ),
    Change(
        30,
        "15:35",
        "priya",
        "tests: -l on input without a final newline",
        "wc -l counts newline characters, so does -l: one here, not two.",
        (
            check(
                f'expect "-l, no final newline" "$(printf \'a\\nb\' | ./checksum -l)" '
                f'"{crc(_NO_FINAL_NEWLINE)} 3 1"'
            ),
        ),
    ),
    Change(
        30,
        "17:00",
        "tomas",
        "CHANGELOG: install targets",
        "",
        (Note("`make install` and `make uninstall`, with PREFIX and DESTDIR."),),
    ),
    Change(
        31,
        "08:50",
        "ada",
        "docs/usage.md: an example of -l",
        "",
        (
            usage(
                "## File names\n",
                "For example:\n\n"
                "    $ printf 'a\\nb\\nc\\n' | checksum -l\n"
                f"    {crc(_LINES_INPUT)} 6 3\n\n"
                "## File names\n",
            ),
        ),
    ),
    Change(
        31,
        "11:15",
        "tomas",
        "cksum: count newlines inside the CRC loop",
        'Since {{slower}} ("checksum: add -l to count lines") cksum_update()\n'
        "reads every block twice: once for the CRC, once in count_lines(). bench\n"
        "went from about 54 to 72 us per 64 KiB, a third slower, for everyone,\n"
        "with -l or not.\n\n"
        "Count the newlines in the CRC loop instead: the loop waits for its\n"
        "table loads anyway, and four compares fit in the gaps. bench is back\n"
        "to 54 us; the CRCs and the counts do not change.",
        (Source("crc32.c", "crc32-7.c"),),
        label="faster",
    ),
    Change(
        31,
        "13:40",
        "priya",
        "tests: -l across read blocks",
        "100000 lines of 11 bytes: the count has to carry over from one 64 KiB\nblock to the next.",
        (
            check(
                'expect "-l, 100000 lines" "$(awk \'BEGIN { for (i = 0; i < 100000; i++)'
                " print \"0123456789\" }' | ./checksum -l | cut -d' ' -f3)\" 100000"
            ),
        ),
    ),
    Change(
        31,
        "16:25",
        "jonas",
        "CHANGELOG: -l no longer slows down every sum",
        "",
        (Note("Counting lines no longer reads the data a second time."),),
    ),
    Change(
        32,
        "09:20",
        "ada",
        "docs/api.md: one pass over the data",
        "",
        (
            api_md(
                "the number of newline characters.",
                "the number of newline characters. cksum_update() computes all of them\n"
                "in one pass over the buffer.",
            ),
        ),
    ),
    Change(
        32,
        "13:10",
        "priya",
        "README: performance",
        "",
        (
            readme(
                "## Platforms\n",
                "## Performance\n\n"
                "About 1.2 GB/s on one core of a recent x86-64 server, for a file in\n"
                "the page cache; see docs/benchmark.md to measure it yourself.\n\n"
                "## Platforms\n",
            ),
        ),
    ),
    Change(
        32,
        "15:45",
        "tomas",
        "tests: add the lorem ipsum vector",
        "",
        (Vector("Lorem ipsum dolor sit amet, consectetur adipiscing elit"),),
    ),
    Change(
        33,
        "16:10",
        "priya",
        "bench: -n and -r set the iterations and the rounds",
        "For a quick look (-r 5) or a long, quiet measurement (-r 500). The\n"
        "defaults do not change, and neither does what one iteration does.",
        (Source("bench.c", "bench-5.c"),),
    ),
    Change(
        33,
        "17:30",
        "priya",
        "docs/benchmark.md: document -n and -r",
        "",
        (
            bench_md(
                "It runs many short rounds",
                "`bench -n 20 -r 50` are the defaults: 50 rounds of 20 sums each.\n\n"
                "It runs many short rounds",
            ),
        ),
    ),
    # Week 6: release 1.0.
    Change(
        35,
        "08:40",
        "ada",
        "Makefile: make benchmark runs bench",
        "",
        (
            makefile("check: checksum\n", "benchmark: bench\n\t./bench\n\ncheck: checksum\n"),
            makefile(
                ".PHONY: all check clean install uninstall warnings\n",
                ".PHONY: all benchmark check clean install uninstall warnings\n",
            ),
        ),
    ),
    Change(
        35,
        "10:55",
        "tomas",
        "checksum.1: SEE ALSO",
        "",
        (
            man(
                ".Sh AUTHORS\n",
                ".Sh SEE ALSO\n.Xr cksum 1 ,\n.Xr gzip 1 ,\n.Xr wc 1\n.Sh AUTHORS\n",
            ),
        ),
    ),
    Change(
        35,
        "13:25",
        "jonas",
        "tests: check that -V names the program",
        "",
        (check('expect "-V" "$(./checksum -V | cut -d\' \' -f1)" checksum'),),
    ),
    Change(
        35,
        "16:00",
        "priya",
        "CHANGELOG: bench options",
        "",
        (Note("`bench -n N -r R` sets the iterations per round and the rounds."),),
    ),
    Change(
        36,
        "09:10",
        "ada",
        "docs: a release checklist",
        "",
        (Put("docs/release.md", texts.RELEASE_MD),),
    ),
    Change(
        36,
        "11:45",
        "tomas",
        "docs/crc.md: say which byte each table takes",
        "",
        (
            Edit(
                "docs/crc.md",
                "tables the four bytes of a word are reduced independently",
                "tables the four bytes of a word are reduced independently (table[3]\n"
                "takes the first byte, table[0] the last)",
            ),
        ),
    ),
    Change(
        36,
        "14:30",
        "priya",
        "AUTHORS: add Jonas Becker",
        "",
        (Put("AUTHORS", texts.AUTHORS + "Jonas Becker <jb@checksum.example.org>\n"),),
    ),
    Change(
        36,
        "17:20",
        "jonas",
        "README: build from a release tarball",
        "",
        (
            readme(
                "## Build\n\nA C99 compiler and make (BSD or GNU):\n\n    make\n",
                "## Build\n\nA C99 compiler and make (BSD or GNU):\n\n"
                "    tar xzf checksum-1.0.tar.gz\n    cd checksum-1.0\n    make\n",
            ),
        ),
    ),
    Change(
        37,
        "09:00",
        "ada",
        "main: document the exit status",
        "",
        (Source("main.c", "main-9.c"),),
    ),
    Change(
        37,
        "11:20",
        "tomas",
        "docs/api.md: the tables are built on first use",
        "",
        (
            api_md(
                "## Example\n",
                "## Threads\n\n"
                "The tables are built by the first call. Make one call before starting\n"
                "threads that sum, or the threads race to build them.\n\n"
                "## Example\n",
            ),
        ),
    ),
    Change(
        37,
        "14:45",
        "priya",
        "tests: -l and -x together",
        "",
        (check(f'expect "-lx" "$(printf \'a\\n\' | ./checksum -lx)" "{crc(_ONE_LINE):08x} 2 1"'),),
    ),
    Change(
        37,
        "17:30",
        "jonas",
        ".editorconfig: a final newline",
        "",
        (
            Edit(
                ".editorconfig",
                "trim_trailing_whitespace = true\n",
                "trim_trailing_whitespace = true\ninsert_final_newline = true\n",
            ),
        ),
    ),
    Change(
        38,
        "09:30",
        "ada",
        "Release 1.0",
        "",
        (
            Source("main.c", "main-10.c"),
            Edit("CHANGELOG.md", "## Unreleased\n", "## 1.0 - 2026-02-12\n"),
        ),
        label="release",
    ),
    Change(
        38,
        "10:15",
        "ada",
        "Start 1.1",
        "",
        (
            Source("main.c", "main-11.c"),
            Edit("CHANGELOG.md", "## 1.0 - 2026-02-12\n", "## Unreleased\n\n## 1.0 - 2026-02-12\n"),
        ),
    ),
    Change(
        38,
        "13:50",
        "tomas",
        "docs/release.md: sign the tag",
        "",
        (
            Edit(
                "docs/release.md",
                '   "Release X.Y".\n',
                '   "Release X.Y", and tag it: git tag -s X.Y.\n',
            ),
        ),
    ),
    Change(
        38,
        "16:40",
        "priya",
        "README: 1.0 is out",
        "",
        (readme("# checksum\n\n", "# checksum\n\n*1.0 is out (2026-02-12).*\n\n"),),
    ),
    Change(
        39,
        "09:45",
        "jonas",
        "Makefile: add a dist target",
        "make dist writes checksum-<version>.tar.gz from the committed tree,\n"
        "with the version taken from main.c.",
        (
            makefile(
                "PREFIX =\t/usr/local\n",
                "VERSION !=\tsed -n 's/^\\#define VERSION\t\"\\(.*\\)\"/\\1/p' main.c\n"
                "PREFIX =\t/usr/local\n",
            ),
            makefile(
                "clean:\n",
                "dist:\n"
                "\tgit archive --prefix=checksum-$(VERSION)/ -o checksum-$(VERSION).tar.gz HEAD\n\n"
                "clean:\n",
            ),
            makefile(
                ".PHONY: all benchmark check clean install uninstall warnings\n",
                ".PHONY: all benchmark check clean dist install uninstall warnings\n",
            ),
        ),
    ),
    Change(
        39,
        "12:30",
        "tomas",
        "docs/crc.md: spelling",
        "",
        (Edit("docs/crc.md", "look-up, Communications", "lookup, Communications"),),
    ),
    Change(
        39,
        "15:10",
        "ada",
        "CONTRIBUTING: security problems",
        "",
        (
            Edit(
                "CONTRIBUTING.md",
                "## Commit messages\n",
                "## Security\n\n"
                "Report security problems to security@checksum.example.org, not in the\n"
                "public tracker.\n\n"
                "## Commit messages\n",
            ),
        ),
    ),
    Change(
        39,
        "17:50",
        "priya",
        "docs/benchmark.md: compare with zlib",
        "",
        (
            bench_md(
                "Other remarks:\n",
                "Other remarks:\n\n"
                "- zlib's crc32() uses braided or vector code and is several times\n"
                "  faster than this loop; checksum aims at being small and portable.\n",
            ),
        ),
    ),
    Change(
        40,
        "11:00",
        "tomas",
        "checksum.1: EXAMPLES",
        "",
        (
            man(
                ".Sh EXIT STATUS\n",
                ".Sh EXAMPLES\n"
                "Compare the CRC that gzip stores with the data:\n"
                ".Bd -literal -offset indent\n"
                "$ gzip -lv data.gz\n"
                "$ gzip -dc data.gz | checksum -x\n"
                ".Ed\n"
                ".Sh EXIT STATUS\n",
            ),
        ),
    ),
    Change(
        41,
        "17:30",
        "ada",
        "docs: wording",
        "",
        (usage("which makes it usable at the end of a pipe", "so that it can end a pipe"),),
    ),
)

#: What lands after the walk of the six weeks (Monday 2026-02-16 to Saturday 02-21,
#: a week the nightly watch did not run): ``perfwalk demo`` adds these commits and
#: runs one ``perfwalk watch --once``.
#: ``night-slower`` counts every byte value in a second pass over each block, for a
#: coming ``-H``: ``bench`` takes about half as long again.
NIGHT: tuple[Change, ...] = (
    Change(
        42,
        "09:40",
        "ada",
        "docs/usage.md: exit status",
        "",
        (
            usage(
                "so that it can end a pipe",
                "so that it can end a pipe (its exit status is 1 when a file cannot be read)",
            ),
        ),
    ),
    Change(
        42,
        "14:20",
        "tomas",
        "cksum: count every byte value",
        "For the coming -H (a histogram of the bytes of a file): struct cksum\n"
        "gets the number of times each byte value occurs, counted by\n"
        "cksum_update() in count_bytes().",
        (
            Edit(
                "cksum.h",
                "\tuint64_t\tlines;\t/* number of newline characters so far */\n",
                "\tuint64_t\tlines;\t/* number of newline characters so far */\n"
                "\tuint64_t\tbytes[256];\t/* occurrences of each byte value */\n",
            ),
            Edit(
                "crc32.c",
                "void\ncksum_init(struct cksum *c)\n",
                "/* Add the occurrences of each byte value in buf[0..len) to counts. */\n"
                "static void\ncount_bytes(uint64_t counts[256], const unsigned char *p, "
                "size_t len)\n{\n\twhile (len-- > 0)\n\t\tcounts[*p++]++;\n}\n\n"
                "void\ncksum_init(struct cksum *c)\n",
            ),
            Edit(
                "crc32.c",
                "\tc->lines = 0;\n}\n",
                "\tc->lines = 0;\n\tmemset(c->bytes, 0, sizeof c->bytes);\n}\n",
            ),
            Edit(
                "crc32.c",
                "\tc->size += len;\n}\n",
                "\tc->size += len;\n\tcount_bytes(c->bytes, buf, len);\n}\n",
            ),
        ),
        label="night-slower",
    ),
    Change(
        42,
        "17:05",
        "priya",
        "README: where to report bugs",
        "",
        (
            readme(
                "## Output\n",
                "## Bugs\n\nReport them at https://bugs.example.org/checksum.\n\n## Output\n",
            ),
        ),
    ),
    Change(
        43,
        "11:30",
        "ada",
        "docs/benchmark.md: say which compiler",
        "",
        (bench_md("Other remarks:\n", "Other remarks:\n\n- The numbers above are GCC 12's.\n"),),
    ),
    Change(
        44,
        "10:15",
        "tomas",
        "checksum.1: BUGS",
        "",
        (man(".Sh EXIT STATUS\n", ".Sh BUGS\nNone known.\n.Sh EXIT STATUS\n"),),
    ),
    Change(
        45,
        "16:40",
        "priya",
        "CONTRIBUTING: run the tests before sending a patch",
        "",
        (
            Edit(
                "CONTRIBUTING.md",
                "## Security\n",
                "## Tests\n\nRun `make check` before sending a patch.\n\n## Security\n",
            ),
        ),
    ),
    Change(
        46,
        "11:20",
        "ada",
        "docs/usage.md: wording",
        "",
        (usage("its exit status is 1", "it exits with 1"),),
    ),
)
