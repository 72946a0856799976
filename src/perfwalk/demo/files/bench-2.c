/*
 * bench - time crc32_update() over a buffer in memory.
 *
 * It sums a 64 KiB buffer ITERATIONS times per round, for ROUNDS rounds, and
 * reports the best round: the other rounds are the ones that the scheduler or
 * another process disturbed.  The output is in the lab's format, one line per
 * value: "VALUE <number> <unit> <name>".
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

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
main(void)
{
	double best = 0, start, t;
	uint32_t crc;
	int r, i;

	fill(buf, sizeof buf);
	crc = crc32_update(0, buf, sizeof buf);	/* warm up tables and caches */
	for (r = 0; r < ROUNDS; r++) {
		start = now();
		for (i = 0; i < ITERATIONS; i++)
			crc = crc32_update(crc, buf, sizeof buf);
		t = (now() - start) / ITERATIONS;
		if (r == 0 || t < best)
			best = t;
	}
	printf("# cc %s\n", __VERSION__);
	printf("# %d rounds of %d x %d bytes, crc %08lx\n", ROUNDS, ITERATIONS,
	    BUF_SIZE, (unsigned long)crc);
	printf("VALUE %.2f us checksum\n", best * 1e6);
	printf("VALUE %.4g bytes/sec throughput\n", BUF_SIZE / best);
	return 0;
}
