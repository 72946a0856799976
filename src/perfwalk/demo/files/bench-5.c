/*
 * bench - time cksum_update() over a buffer in memory.
 *
 * usage: bench [-n iterations] [-r rounds]
 *
 * It sums a 64 KiB buffer of text-like data (printable characters and
 * newlines, like the source files people check) `iterations` times per
 * round, for `rounds` rounds, and reports the best round: the other rounds
 * are the ones that the scheduler or another process disturbed.  The output
 * is in the lab's format, one line per value: "VALUE <number> <unit> <name>".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "checksum.h"

#define BUF_SIZE	(64 * 1024)
#define ROUNDS		50
#define ITERATIONS	20

static unsigned char buf[BUF_SIZE];

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Text-like data: printable characters, a newline every 16 to 79 bytes. */
static void
fill(unsigned char *p, size_t len)
{
	uint32_t x = 20260105;
	size_t i, col = 0;

	for (i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		if (col >= 16 && (x >> 26) < col - 15) {
			p[i] = '\n';
			col = 0;
		} else {
			p[i] = (unsigned char)(' ' + (x >> 16) % 95);
			col++;
		}
	}
}

int
main(int argc, char *argv[])
{
	double best = 0, start, t;
	struct cksum c;
	int ch, r, i, rounds = ROUNDS, iterations = ITERATIONS;

	while ((ch = getopt(argc, argv, "n:r:")) != -1) {
		switch (ch) {
		case 'n':
			iterations = atoi(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: bench [-n iterations] [-r rounds]\n");
			return 2;
		}
	}
	if (iterations < 1 || rounds < 1) {
		fprintf(stderr, "bench: -n and -r must be 1 or more\n");
		return 2;
	}

	fill(buf, sizeof buf);
	cksum_init(&c);
	cksum_update(&c, buf, sizeof buf);	/* warm up tables and caches */
	for (r = 0; r < rounds; r++) {
		start = now();
		for (i = 0; i < iterations; i++)
			cksum_update(&c, buf, sizeof buf);
		t = (now() - start) / iterations;
		if (r == 0 || t < best)
			best = t;
	}
	printf("# cc %s\n", __VERSION__);
	printf("# %d rounds of %d x %d bytes, crc %08lx\n", rounds, iterations,
	    BUF_SIZE, (unsigned long)c.crc);
	printf("VALUE %.2f us checksum\n", best * 1e6);
	printf("VALUE %.4g bytes/sec throughput\n", BUF_SIZE / best);
	return 0;
}
