"""The non-C files of the demo project, in their first version.

Later versions come from the edits in :mod:`perfwalk.demo.story`; the C sources
are package data in ``files/`` (one complete file per version).
"""

from __future__ import annotations

CHECKSUM_H = """\
/*
 * checksum - CRC-32 of files and buffers.
 *
 * The CRC is the one of ISO 3309, ITU-T V.42, zlib, gzip and PNG:
 * polynomial 0x04c11db7, reflected, initial value and final xor 0xffffffff.
 */
#ifndef CHECKSUM_H
#define CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Continue the CRC-32 `crc` over `len` bytes at `buf`.  Start with 0; the
 * result of one call is the start value of the next, so a stream can be
 * summed in pieces: crc32_update(crc32_update(0, a, n), b, m) is the CRC
 * of a followed by b.
 */
uint32_t\tcrc32_update(uint32_t crc, const void *buf, size_t len);

#endif /* CHECKSUM_H */
"""

#: What "Add a stream API" puts before the end of checksum.h.
STREAM_API = """
/* The running sums of one stream: cksum_init(), then cksum_update() per block. */
struct cksum {
\tuint32_t\tcrc;
\tuint64_t\tsize;
};

void\tcksum_init(struct cksum *c);
void\tcksum_update(struct cksum *c, const void *buf, size_t len);
"""

CKSUM_H = """\
/*
 * cksum.h - the stream API: the running sums of one stream.
 */
#ifndef CKSUM_H
#define CKSUM_H

#include <stddef.h>
#include <stdint.h>

/* cksum_init(), then cksum_update() for each block, in order. */
struct cksum {
\tuint32_t\tcrc;\t/* CRC-32 of the bytes so far */
\tuint64_t\tsize;\t/* number of bytes so far */
\tuint64_t\tlines;\t/* number of newline characters so far */
};

void\tcksum_init(struct cksum *c);
void\tcksum_update(struct cksum *c, const void *buf, size_t len);

#endif /* CKSUM_H */
"""

MAKEFILE = """\
# checksum - CRC-32 of files

CC =\t\tcc
CFLAGS =\t-O2 -Wall -Werror
LDFLAGS =

PROGS =\t\tchecksum bench

all: $(PROGS)

checksum: main.o crc32.o
\t$(CC) $(LDFLAGS) -o $@ main.o crc32.o

# crc32.o first, its functions each at the start of a page: the timed code
# then sits at the same place in a page whatever bench.c prints or calls, so a
# change to bench.c cannot move its speed.
bench: crc32.o bench.o
\t$(CC) $(LDFLAGS) -o $@ crc32.o bench.o

crc32.o: crc32.c
\t$(CC) $(CFLAGS) -falign-functions=4096 -c crc32.c

.c.o:
\t$(CC) $(CFLAGS) -c $<

main.o bench.o crc32.o: checksum.h

check: checksum
\tsh tests/run.sh

clean:
\trm -f *.o $(PROGS)

.PHONY: all check clean
"""

README = """\
# checksum

`checksum` prints the CRC-32 and the size of files, one line per file:

    $ checksum Makefile
    1502468091 612 Makefile

The CRC is the one of zlib, gzip, PNG and zip (polynomial 0x04c11db7,
reflected), not the one of POSIX `cksum`, so that its output can be compared
with what those formats store.

## Build

    make

builds `checksum` and `bench`, a benchmark of the CRC loop.
"""

LICENSE = """\
Copyright (c) 2026 Ada Lindqvist and the checksum authors.
All rights reserved.

Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice,
   this list of conditions and the following disclaimer.
2. Redistributions in binary form must reproduce the above copyright notice,
   this list of conditions and the following disclaimer in the documentation
   and/or other materials provided with the distribution.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE
LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR
CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS
INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN
CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE)
ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE
POSSIBILITY OF SUCH DAMAGE.
"""

GITIGNORE = """\
*.o
/checksum
/bench
"""

RUN_SH = """\
#!/bin/sh
# Check ./checksum against the vectors in tests/vectors.txt.
# Each vector is "<crc> <size> <text>": the text, without a newline, must
# sum to that CRC and size.

cd "$(dirname "$0")/.." || exit 2

failed=0
total=0
while read -r crc size text; do
\tcase $crc in
\t'' | '#'*) continue ;;
\tesac
\ttotal=$((total + 1))
\tgot=$(printf '%s' "$text" | ./checksum)
\tif [ "$got" != "$crc $size" ]; then
\t\techo "FAIL: '$text': got '$got', want '$crc $size'"
\t\tfailed=$((failed + 1))
\tfi
done < tests/vectors.txt

echo "$((total - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
"""

#: run.sh once the options have checks of their own ("tests: check -x output").
RUN_SH_2 = """\
#!/bin/sh
# Check ./checksum: the vectors in tests/vectors.txt, then the options.
# Each vector is "<crc> <size> <text>": the text, without a newline, must
# sum to that CRC and size.

cd "$(dirname "$0")/.." || exit 2

failed=0
total=0

# expect <what> <got> <wanted>
expect() {
\ttotal=$((total + 1))
\tif [ "$2" != "$3" ]; then
\t\techo "FAIL: $1: got '$2', want '$3'"
\t\tfailed=$((failed + 1))
\tfi
}

while read -r crc size text; do
\tcase $crc in
\t'' | '#'*) continue ;;
\tesac
\texpect "'$text'" "$(printf '%s' "$text" | ./checksum)" "$crc $size"
done < tests/vectors.txt

expect "-x" "$(printf 123456789 | ./checksum -x)" "cbf43926 9"

echo "$((total - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
"""

VECTORS = """\
# CRC-32 test vectors, checked by `make check`: <crc> <size> <text>
# The input is <text> without a newline; the CRC is in decimal.
"""

CHANGELOG = """\
# Changes

## Unreleased

- `checksum` prints the CRC-32 and the size of files.
- `-x` prints the CRC in hexadecimal.
- `bench` times the CRC loop.
"""

AUTHORS = """\
Ada Lindqvist <ada@checksum.example.org>
Tomás Ferreira <tomas@checksum.example.org>
Priya Raman <priya.raman@checksum.example.org>
"""

USAGE_MD = """\
# Using checksum

    checksum [-Vx] [file ...]

`checksum` reads each file and prints one line:

    <crc> <size> <name>

Without a file, or for `-`, it reads the standard input and leaves the name
out, which makes it usable at the end of a pipe:

    checksum data.gz | gzip -dc

`-x` prints the CRC in hexadecimal (eight digits, with leading zeros), the
way zip and PNG tools show it. `-V` prints the version.
"""

BENCHMARK_MD = """\
# The benchmark

`bench` times the CRC loop on a 64 KiB buffer in memory: no file system, no
system calls, just the loop. It prints one line per value in the lab format

    VALUE <number> <unit> <name>

- `checksum`: the time to sum the buffer once, in microseconds (lower is
  better);
- `throughput`: bytes per second (higher is better).

It runs many short rounds and keeps the best one: a round that an interrupt
or another process disturbed is slower, never faster, so the best round is
the closest to what the loop costs. Lines starting with `#` are comments; a
parser skips every occurence.
"""

CRC_MD = """\
# How the CRC is computed

A CRC is the remainder of a polynomial division over GF(2): the message is a
polynomial whose coefficients are its bits, the generator polynomial is

    x^32 + x^26 + x^23 + x^22 + x^16 + x^12 + x^11 + x^10 + x^8 + x^7
         + x^5 + x^4 + x^2 + x + 1

(0x04c11db6 in the usual notation), and the remainder is the CRC. CRC-32 as
zlib computes it also reflects the bits of each byte, starts from 0xffffffff
instead of 0 and inverts the result.

## One byte at a time

The remainder of one byte b is a fixed 32-bit value, `table[0][b]`; the loop

    crc = table[0][(crc ^ byte) & 0xff] ^ (crc >> 8);

reduces one byte per step. Each step needs the result of the previous one,
so the loop runs at the speed of one table load after another.

## Four bytes at a time

`table[k][b]` is the remainder of b followed by k zero bytes. With those
tables the four bytes of a word are reduced independently and combined with
xor, and the processor can do the four loads at once. This is what
`crc32.c` does ("slicing-by-4").
"""

CONTRIBUTING = """\
# Contributing

Patches are welcome. Please

- keep the style of the code around you (tabs, KNF);
- add a vector to tests/vectors.txt for a change in what is computed;
- run `make check` before sending;
- say in the commit message what changed and why.
"""

EDITORCONFIG = """\
root = true

[*]
end_of_line = lf
charset = utf-8

[*.{c,h}]
indent_style = tab

[Makefile]
indent_style = tab

[*.md]
indent_style = space
indent_size = 4
"""

API_MD = """\
# The library API

Two headers, two ways to sum.

## One call

    uint32_t crc32_update(uint32_t crc, const void *buf, size_t len);

continues a CRC over a buffer. Start with 0 and feed the blocks in order:

    crc = crc32_update(0, a, na);
    crc = crc32_update(crc, b, nb);

## A stream

    struct cksum c;

    cksum_init(&c);
    while ((n = read(fd, buf, sizeof buf)) > 0)
        cksum_update(&c, buf, n);

`c.crc` and `c.size` hold the CRC and the number of bytes. This is what
`checksum` itself uses; new sums are added to `struct cksum`, so that every
caller gets them.
"""

MANPAGE = """\
.Dd January 24, 2026
.Dt CHECKSUM 1
.Os
.Sh NAME
.Nm checksum
.Nd print the CRC-32 and size of files
.Sh SYNOPSIS
.Nm
.Op Fl Vx
.Op Ar
.Sh DESCRIPTION
.Nm
reads each
.Ar file
and prints its CRC-32, its size in bytes and its name.
Without a file, or for
.Sq - ,
it reads the standard input and prints no name.
.Pp
The CRC is the one of zlib, gzip and PNG, not the one of
.Xr cksum 1 .
.Pp
The options are:
.Bl -tag -width Ds
.It Fl V
Print the version and exit.
.It Fl x
Print the CRC in hexadecimal, with eight digits.
.El
.Sh EXIT STATUS
.Ex -std
.Sh AUTHORS
.An Ada Lindqvist
and the contributors listed in AUTHORS.
"""

RELEASE_MD = """\
# Making a release

1. Check that `make check` and `make warnings` pass on a clean clone.
2. Set `VERSION` in main.c and the date in CHANGELOG.md; commit as
   "Release X.Y".
3. Run `make dist` and test the tarball on another machine.
4. Set `VERSION` to the next "X.Y-dev" and open a new "Unreleased" section.
"""
